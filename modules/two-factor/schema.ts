// Payload schemas of two-factor sign-in (ADR 0042): the login's second step, setting up and
// turning off an authenticator app, new recovery codes and the company's requirement, and the
// forms that post them. Shared by the provider API, the route actions and the browser (ADR 0017).
import * as z from "zod/mini";
import { PASSWORD_MAX_LENGTH } from "../../core/limits.ts";
import { PASSWORD_MESSAGES } from "../identity/password.ts";

export const TWO_FACTOR_MESSAGES = {
  code: "Authentication code must have exactly 6 digits.",
  recoveryCode: "Recovery code is required.",
  codeOrRecovery: "Enter the 6-digit code from your authenticator app, or a recovery code.",
  wrongCode: "Invalid authentication code. Please try again.",
  reusedCode: "This code has already been used. Please wait for the next code in your authenticator app.",
  wrongRecoveryCode: "Invalid recovery code. Please check it and try again.",
  challengeInvalid: "This sign-in has expired. Please log in again.",
  challengeTooMany: "Too many incorrect codes. Please log in again.",
  wrongPassword: "Incorrect password. Please try again.",
  alreadyOn: "Two-factor sign-in is already on.",
  notOn: "Two-factor sign-in is not on.",
  noSetup: "Start setting up two-factor sign-in first.",
  requiredByCompany: "Your company requires two-factor sign-in, so it cannot be turned off.",
} as const;

/**
 * What /api/Identity/login answers in place of docs/requirements.md §S7's { accessToken, appSettings } when a
 * second factor is owed: "verify" asks for a code, "setup" for setting an app up first.
 */
export interface LoginChallengeResponse {
  twoFactor: "verify" | "setup";
  challengeToken: string;
}

/** The authenticator's 6 digits; apps show them as "123 456", so one space in the middle is taken too. */
export const totpCodeField = z
  .string({ error: TWO_FACTOR_MESSAGES.code })
  .check(z.trim(), z.regex(/^\d{3} ?\d{3}$/, TWO_FACTOR_MESSAGES.code));

/** A recovery code as written down: letters and digits, any case, with or without the hyphen. */
export const recoveryCodeField = z
  .string({ error: TWO_FACTOR_MESSAGES.recoveryCode })
  .check(
    z.trim(),
    z.minLength(1, TWO_FACTOR_MESSAGES.recoveryCode),
    z.maxLength(64, TWO_FACTOR_MESSAGES.wrongRecoveryCode),
  );

/** The login challenge token the browser holds between the password and the code (never in a URL). */
export const challengeTokenField = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

/** The current password, required to turn two-factor sign-in off or to get new recovery codes. */
export const currentPasswordField = z
  .string({ error: PASSWORD_MESSAGES.required })
  .check(z.minLength(1, PASSWORD_MESSAGES.required), z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong));

/** POST /api/Identity/login-code: the challenge and either a TOTP code or a recovery code. */
export const loginCodeSchema = z
  .object({
    challengeToken: challengeTokenField,
    code: z.optional(totpCodeField),
    recoveryCode: z.optional(recoveryCodeField),
  })
  .check(
    z.refine((body) => (body.code === undefined) !== (body.recoveryCode === undefined), {
      error: TWO_FACTOR_MESSAGES.codeOrRecovery,
      path: ["code"],
    }),
  );

/** POST /api/TwoFactor/setup: with a bearer, or a set-up challenge of a login in its place. */
export const twoFactorSetupSchema = z.object({ challengeToken: z.optional(challengeTokenField) });

/**
 * POST /api/TwoFactor/confirm: the first code from the app turns it on. With a bearer the current
 * password is required too (a session alone enrols no second factor, docs/requirements.md §D7); the set-up
 * challenge of a login stands in for it (ADR 0042). Optional here, because which one
 * applies depends on the caller: the handler answers a missing one as a field error.
 */
export const twoFactorConfirmSchema = z.object({
  code: totpCodeField,
  password: z.optional(currentPasswordField),
  challengeToken: z.optional(challengeTokenField),
});

/** POST /api/TwoFactor/disable and /api/TwoFactor/recovery-codes. */
export const twoFactorPasswordSchema = z.object({ password: currentPasswordField });

/** PUT /api/TwoFactor/company-requirement (Owner only). */
export const twoFactorRequirementSchema = z.object({ required: z.boolean() });

// ─── Forms ─────────────────────────────────────────────────────────────────────────────────

/** /corporate/login-code: the code, or a recovery code (the challenge is in a cookie). */
export const loginCodeFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("code"), code: totpCodeField }),
  z.object({ intent: z.literal("recovery"), recoveryCode: recoveryCodeField }),
]);

/** /corporate/two-factor-setup: the login's set-up challenge (a cookie) proves the password. */
export const twoFactorConfirmFormSchema = z.object({ code: totpCodeField });

/** The security page's set-up form: a signed-in manager gives the current password again. */
export const twoFactorEnrolFormSchema = z.object({ code: totpCodeField, password: currentPasswordField });

/** The security page: one form per intent. */
export const securityFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("start") }),
  z.object({ intent: z.literal("confirm"), code: totpCodeField, password: currentPasswordField }),
  z.object({ intent: z.literal("disable"), password: currentPasswordField }),
  z.object({ intent: z.literal("regenerate"), password: currentPasswordField }),
  z.object({
    intent: z.literal("requirement"),
    required: z.pipe(
      z.enum(["on", "off"]),
      z.transform((value) => value === "on"),
    ),
  }),
]);
