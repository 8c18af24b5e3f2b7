// A manager's own settings (ADR 0022: every manager edits their own name, email, password and
// sessions): the request schemas of the settings calls and the forms of the Profile page as
// they are posted. Shared by the provider API, the route actions and the browser. Pure code only.
import * as z from "zod/mini";
import { firstNameField, lastNameField, requiredMessage, requiredText } from "../../core/fields.ts";
import { EMAIL_PATTERN, LIMITS, PASSWORD_MAX_LENGTH } from "../../core/limits.ts";
import { formPasswordRuleProblems, PASSWORD_MESSAGES, passwordRuleProblems } from "../identity/password.ts";
import { verificationCodeField } from "../identity/schema.ts";

/** The settings calls' own messages (the others are sign-up's and docs/requirements.md §S8's). */
export const SETTINGS_DETAILS = {
  wrongCurrentPassword: "Your current password is incorrect.",
  sameEmail: "This is already your email address.",
  /** The Confirm call without an open request (none made, or the request token is not this manager's). */
  noEmailChange: "There is no email change to confirm. Please ask for a new code.",
} as const;

export const CURRENT_PASSWORD_LABEL = "Current Password";
export const NEW_EMAIL_LABEL = "New Email";
export const NEW_PASSWORD_LABEL = "New Password";
export const CONFIRM_NEW_PASSWORD_LABEL = "Confirm New Password";

/** The current password: required (it is checked against the stored hash, not the rules). */
const currentPasswordField = z
  .string({ error: requiredMessage(CURRENT_PASSWORD_LABEL) })
  .check(
    z.minLength(1, requiredMessage(CURRENT_PASSWORD_LABEL)),
    z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
  );

/** The new address: sign-up's email rules (docs/requirements.md §S5) under its own label. */
const newEmailField = requiredText(NEW_EMAIL_LABEL, LIMITS.email).check(
  z.refine<string>((email) => EMAIL_PATTERN.test(email), {
    error: "The email format is incorrect.",
    when: (payload) => payload.issues.length === 0,
  }),
);

/** A new password meeting sign-up's rules (docs/requirements.md §S5); the forms add the browser pattern's rule. */
function newPasswordOf(problems: (password: string) => string[]) {
  return z.string({ error: PASSWORD_MESSAGES.required }).check(
    z.superRefine((password, ctx) => {
      for (const message of problems(password)) ctx.addIssue({ code: "custom", message });
    }),
    z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
  );
}

const requestTokenField = z
  .string({ error: "requestToken is required." })
  .check(z.trim(), z.minLength(1, "requestToken is required."), z.maxLength(200, "requestToken is not valid."));

// ─── The calls (modules/settings/api.server.ts) ──────────────────────────────────────────────────────

/** PUT /Users/MyDetails/Name: sign-up's name rules. */
export const myNameSchema = z.object({ firstName: firstNameField, lastName: lastNameField });
export type MyNameRequest = z.input<typeof myNameSchema>;
export interface MyNameResponse {
  firstName: string;
  lastName: string;
  fullName: string;
}

/** POST /Users/MyEmail/Request: a code goes to the new address. */
export const emailChangeRequestSchema = z.object({ newEmail: newEmailField, currentPassword: currentPasswordField });
export type EmailChangeRequest = z.input<typeof emailChangeRequestSchema>;
export interface EmailChangeRequestResponse {
  /** Identifies the code just emailed; the Confirm call carries it. */
  requestToken: string;
  newEmail: string;
}

/** POST /Users/MyEmail/Confirm: the code from the new address switches to it. */
export const emailChangeConfirmSchema = z.object({
  requestToken: requestTokenField,
  verificationCode: verificationCodeField,
});
export type EmailChangeConfirmRequest = z.input<typeof emailChangeConfirmSchema>;
export interface EmailChangeConfirmResponse {
  email: string;
}

/** POST /Users/MyPassword: the current password, and a new one with sign-up's rules. */
export const passwordChangeSchema = z.object({
  currentPassword: currentPasswordField,
  newPassword: newPasswordOf(passwordRuleProblems),
});
export type PasswordChangeRequest = z.input<typeof passwordChangeSchema>;
export interface PasswordChangeResponse {
  /** How many other sessions (access tokens) ended. */
  endedSessions: number;
}

/** One row of GET /Users/MySessions: a login (an access token) still open. */
export interface ActiveSession {
  id: number;
  /** ISO 8601. */
  createdAt: string;
  expiresAt: string;
  clientIp: string | null;
  userAgent: string | null;
  /** The session making this call. */
  current: boolean;
}

// ─── The Profile page's forms as posted (one intent each) ────────────────────────────────────

const confirmNewPasswordField = z
  .string({ error: requiredMessage(CONFIRM_NEW_PASSWORD_LABEL) })
  .check(
    z.minLength(1, requiredMessage(CONFIRM_NEW_PASSWORD_LABEL)),
    z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
  );

export const nameFormSchema = z.extend(myNameSchema, { intent: z.literal("name") });
export const emailRequestFormSchema = z.extend(emailChangeRequestSchema, { intent: z.literal("email-request") });
export const emailConfirmFormSchema = z.object({
  intent: z.literal("email-confirm"),
  verificationCode: verificationCodeField,
});
export const emailCancelFormSchema = z.object({ intent: z.literal("email-cancel") });

/** "Passwords do not match." beside the confirmation, even when other fields failed too. */
const matchNewPassword = z.refine<{ newPassword?: unknown; confirmPassword?: unknown }>(
  (value) =>
    typeof value.confirmPassword !== "string" ||
    value.confirmPassword === "" ||
    value.newPassword === value.confirmPassword,
  {
    error: PASSWORD_MESSAGES.mismatch,
    path: ["confirmPassword"],
    when: (payload) => typeof payload.value === "object" && payload.value !== null,
  },
);

/** The confirmation stays in the parsed value; the action sends only the current and new password. */
export const passwordFormSchema = z
  .object({
    intent: z.literal("password"),
    currentPassword: currentPasswordField,
    newPassword: newPasswordOf(formPasswordRuleProblems),
    confirmPassword: confirmNewPasswordField,
  })
  .check(matchNewPassword);

export const signOutOthersFormSchema = z.object({ intent: z.literal("sign-out-others") });

/** Every form of the Profile page, told apart by its `intent` (one route action serves them). */
export const profileFormSchema = z.discriminatedUnion("intent", [
  nameFormSchema,
  emailRequestFormSchema,
  emailConfirmFormSchema,
  emailCancelFormSchema,
  passwordFormSchema,
  signOutOthersFormSchema,
]);
