// Payload schemas of the account calls (SPEC §3, §5, §7): registration, email verification,
// login, password reset, company details and the signed-in contact form. Shared by the provider
// API and the web forms. Pure code only.
import { z } from "zod";
import { ABN_MESSAGES, abnProblem, normaliseAbn } from "./abn.ts";
import { COMPANY_SIZES, type CompanySize, INDUSTRIES, type Industry } from "./company.ts";
import {
  captchaFields,
  companyNameField,
  emailField,
  firstNameField,
  LIMITS,
  lastNameField,
  messageField,
} from "./fields.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES, passwordProblems } from "./password.ts";

/** A new password (sign-up, reset): required and meeting every rule. Not trimmed: spaces count. */
export const newPasswordField = z.string({ error: PASSWORD_MESSAGES.required }).superRefine((password, ctx) => {
  for (const message of passwordProblems(password)) ctx.addIssue({ code: "custom", message });
});

export { COMPANY_SIZES, type CompanySize, INDUSTRIES, type Industry } from "./company.ts";

export const VERIFICATION_CODE_LENGTH = 6;
export const VERIFICATION_CODE_MESSAGE = "Verification Code must have exactly 6 digits.";

export const registerSchema = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  companyName: companyNameField,
  password: newPasswordField,
  ...captchaFields,
});
export type RegisterRequest = z.input<typeof registerSchema>;
export interface RegisterResponse {
  /**
   * The user's public id, a random UUID (SPEC §7 does not make it a number): the id the
   * verification calls take, so they cannot be aimed at a stranger by counting.
   */
  userId: string;
  /** Identifies the code just emailed; the verify page carries it with userId. */
  requestToken: string;
}

/**
 * userId as Register answered it: a UUID, in either letter case (normalised to lower case).
 * Any other value, a number included, is refused with the message a missing one gets.
 */
export const userIdField = z
  .string({ error: "userId is required." })
  .trim()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "userId is required.")
  .transform((id) => id.toLowerCase());

const requestTokenField = z
  .string({ error: "requestToken is required." })
  .trim()
  .min(1, "requestToken is required.")
  .max(200, "requestToken is not valid.");

export const verifyEmailRequestSchema = z.object({ userId: userIdField });
export type VerifyEmailRequestRequest = z.input<typeof verifyEmailRequestSchema>;
export interface VerifyEmailRequestResponse {
  requestToken: string;
}

export const verificationCodeField = z
  .string({ error: VERIFICATION_CODE_MESSAGE })
  .trim()
  .regex(/^\d{6}$/, VERIFICATION_CODE_MESSAGE);

export const verifyEmailSchema = z.object({
  userId: userIdField,
  requestToken: requestTokenField,
  verificationCode: verificationCodeField,
});
export type VerifyEmailRequest = z.input<typeof verifyEmailSchema>;
export interface VerifyEmailResponse {
  accessToken: string;
}

export const loginSchema = z.object({
  userName: z
    .string({ error: "Email is required." })
    .trim()
    .min(1, "Email is required.")
    .max(LIMITS.email, `Email must be at most ${LIMITS.email} characters.`),
  password: z
    .string({ error: PASSWORD_MESSAGES.required })
    .min(1, PASSWORD_MESSAGES.required)
    .max(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
  ...captchaFields,
});
export type LoginRequest = z.input<typeof loginSchema>;

/** The two flags the portal gate and the dashboard need (SPEC §3 "Auth settings"). */
export interface AppSettings {
  hasProvidedCompanyDetails: boolean;
  hasWatchedOnboardingVideo: boolean;
}
export interface LoginResponse {
  accessToken: string;
  appSettings: AppSettings;
}

export interface MyDetails {
  id: number;
  companyId: number;
  firstName: string;
  lastName: string;
  email: string;
  /** Empty when not known. */
  phone: string;
  companyName: string;
  fullName: string;
}

/** SPEC §7 spells the field `Email`; another reading spells it `email`. Both are accepted. */
export const resetPasswordRequestSchema = z
  .object({ Email: z.string().optional(), email: z.string().optional() })
  .transform((v) => ({ email: (v.Email ?? v.email ?? "").trim() }))
  .pipe(
    z.object({
      email: z
        .string()
        .min(1, "Email is required.")
        .max(LIMITS.email, `Email must be at most ${LIMITS.email} characters.`),
    }),
  );
export type ResetPasswordRequestRequest = { Email: string } | { email: string };

export const resetPasswordSchema = z.object({
  passwordResetToken: z
    .string({ error: "passwordResetToken is required." })
    .trim()
    .min(1, "passwordResetToken is required.")
    .max(200, "passwordResetToken is not valid."),
  password: newPasswordField,
});
export type ResetPasswordRequest = z.input<typeof resetPasswordSchema>;

const choice = <T extends readonly [string, ...string[]]>(options: T, required: string) =>
  z.preprocess((v) => (typeof v === "string" ? v.trim() : v), z.enum(options, { error: required }));

export const companyDetailsSchema = z.object({
  name: companyNameField,
  ABN: z
    .string({ error: ABN_MESSAGES.required })
    .superRefine((value, ctx) => {
      const problem = abnProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .transform(normaliseAbn),
  size: choice(COMPANY_SIZES, "Enterprise size is required."),
  industry: choice(INDUSTRIES, "Industry is required."),
});
export type CompanyDetailsRequest = z.input<typeof companyDetailsSchema>;
export interface CompanyDetailsResponse {
  id: number;
  name: string;
  ABN: string;
  size: CompanySize;
  industry: Industry;
  hasProvidedCompanyDetails: true;
}

/** The signed-in Contact Us form: the message only (the sender is the signed-in user). */
export const helpSchema = z.object({ message: messageField });
export type HelpRequest = z.input<typeof helpSchema>;

/** One row of GET /RewardHistory/get-reward-history (SPEC §3); amount in dollars. */
export interface RewardHistoryItem {
  rewardReleaseId: number;
  rewardDate: string;
  rewardName: string;
  amount: number;
}
