// Browser-side rules of the account forms (SPEC §5: sign-up, password rules, login,
// verification code, forgot request; DESIGN.md §8 labels), in the style of forms.ts: no zod
// here, so the public pages keep their JavaScript budget. The server stays the judge: its
// schemas (core/account-forms.ts, account-forms.server.ts) give the same messages; the
// password rules themselves are core/password.ts, which both sides import.
import { parse } from "@conform-to/react";
import {
  PASSWORD_MESSAGES as CORE_PASSWORD_MESSAGES,
  PASSWORD_HTML_PATTERN,
  PASSWORD_MAX_LENGTH,
  PASSWORD_RULES,
} from "../../core/password.ts";
import { checkField, FIELD_LIMITS, type FieldRule, type FormRules } from "./forms.ts";

// ─── Password rules: core/password.ts (zod-free, shared with the server) plus the browser's extras ──

export {
  PASSWORD_HTML_PATTERN,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_RULES,
  type PasswordRuleId,
  passwordChecklist,
} from "../../core/password.ts";

export const PASSWORD_MESSAGES = {
  ...CORE_PASSWORD_MESSAGES,
  /** The browser-level pattern's extra rule (SPEC §5), checked here because JavaScript turns the browser's check off. */
  lowercase: "Password must contain at least one lowercase letter.",
} as const;

/** `title` is what the browser adds to its "Please match the requested format." without JavaScript. */
export const PASSWORD_PATTERN_TITLE =
  "At least 8 characters, with a capital letter, a lowercase letter, a number and a special character.";
/** The hint under the password field before anything is typed (and the whole story without JavaScript). */
export const PASSWORD_HINT =
  'Use at least 8 characters, with at least one capital letter, one number and one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).';

const patternRegExp = new RegExp(`^(?:${PASSWORD_HTML_PATTERN})$`, "s");

/** True when every checklist rule is met (the submit button waits for this and a matching confirmation). */
export function meetsPasswordRules(password: string): boolean {
  return PASSWORD_RULES.every((rule) => rule.test(password)) && password.length <= PASSWORD_MAX_LENGTH;
}

/** The messages of a new password, as the server gives them, plus the browser pattern's lower-case rule. */
export function newPasswordProblems(password: string): string[] {
  if (password.length === 0) return [PASSWORD_MESSAGES.required];
  const problems = PASSWORD_RULES.filter((r) => !r.test(password)).map((r) => r.message);
  if (password.length > PASSWORD_MAX_LENGTH) problems.push(PASSWORD_MESSAGES.tooLong);
  if (problems.length === 0 && !patternRegExp.test(password)) problems.push(PASSWORD_MESSAGES.lowercase);
  return problems;
}

/** "<label> is required." for the confirmation field ('Confirm Password', 'Confirm password'). */
export function confirmRequiredMessage(label: string): string {
  return `${label} is required.`;
}

function confirmProblems(password: string, confirmation: string, label: string): string[] | undefined {
  if (confirmation === "") return [confirmRequiredMessage(label)];
  if (confirmation !== password) return [PASSWORD_MESSAGES.mismatch];
  return undefined;
}

// ─── The forms ────────────────────────────────────────────────────────────────────────────────

const nameRule = (label: string): FieldRule => ({ label, required: true, maxLength: FIELD_LIMITS.name });

/** Sign-up (SPEC §5): the text fields; the passwords are checked by `validateSignUp`. */
export const SIGN_UP_RULES = {
  firstName: nameRule("First Name"),
  lastName: nameRule("Last Name"),
  email: { label: "Email", required: true, maxLength: FIELD_LIMITS.email, email: true },
  companyName: { label: "Company Name", required: true, maxLength: FIELD_LIMITS.companyName },
} satisfies FormRules;

export const SIGN_UP_CONFIRM_LABEL = "Confirm Password";
export const RESET_PASSWORD_LABEL = "Choose a password";
export const RESET_CONFIRM_LABEL = "Confirm password";

export type SignUpFields = {
  firstName: string;
  lastName: string;
  email: string;
  companyName: string;
  password: string;
  confirmPassword: string;
};

/** Login (SPEC §5): the API's `userName` is the field labelled Email. */
export const LOGIN_RULES = {
  userName: { label: "Email", required: true, maxLength: FIELD_LIMITS.email, email: true },
  password: { label: "Password", required: true, maxLength: PASSWORD_MAX_LENGTH },
} satisfies FormRules;
export type LoginFields = { userName: string; password: string };

/** Forgot request (SPEC §5): required, no format rule. */
export const FORGOT_RULES = {
  email: { label: "Email", required: true, maxLength: FIELD_LIMITS.email },
} satisfies FormRules;
export type ForgotFields = { email: string };

export const VERIFICATION_CODE_LENGTH = 6;
export const VERIFICATION_CODE_MESSAGE = "Verification Code must have exactly 6 digits.";
export type VerifyFields = { verificationCode: string };

export type ResetFields = { password: string; confirmPassword: string };

/** conform's `constraint` for the password pair: required on both, the ceiling on both. */
export const PASSWORD_PAIR_CONSTRAINT = {
  password: { required: true, maxLength: PASSWORD_MAX_LENGTH },
  confirmPassword: { required: true, maxLength: PASSWORD_MAX_LENGTH },
};

type Errors = Record<string, string[]>;

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function resolveWith<Shape>(payload: Record<string, unknown>, error: Errors) {
  return Object.keys(error).length > 0 ? { error } : { value: payload as Shape };
}

function checkRules(payload: Record<string, unknown>, rules: FormRules, error: Errors) {
  for (const [name, rule] of Object.entries(rules)) {
    const messages = checkField(rule, payload[name]);
    if (messages) error[name] = messages;
  }
}

function checkPasswordPair(payload: Record<string, unknown>, confirmLabel: string, error: Errors) {
  const password = text(payload.password);
  const problems = newPasswordProblems(password);
  if (problems.length > 0) error.password = problems;
  const confirm = confirmProblems(password, text(payload.confirmPassword), confirmLabel);
  if (confirm) error.confirmPassword = confirm;
}

export function validateSignUp(formData: FormData) {
  return parse<SignUpFields, string[]>(formData, {
    resolve(payload) {
      const error: Errors = {};
      checkRules(payload, SIGN_UP_RULES, error);
      checkPasswordPair(payload, SIGN_UP_CONFIRM_LABEL, error);
      return resolveWith<SignUpFields>(payload, error);
    },
  });
}

export function validateReset(formData: FormData) {
  return parse<ResetFields, string[]>(formData, {
    resolve(payload) {
      const error: Errors = {};
      checkPasswordPair(payload, RESET_CONFIRM_LABEL, error);
      return resolveWith<ResetFields>(payload, error);
    },
  });
}

export function validateVerify(formData: FormData) {
  return parse<VerifyFields, string[]>(formData, {
    resolve(payload) {
      const code = text(payload.verificationCode).trim();
      return /^\d{6}$/.test(code)
        ? { value: payload as VerifyFields }
        : { error: { verificationCode: [VERIFICATION_CODE_MESSAGE] } };
    },
  });
}

export function validateLogin(formData: FormData) {
  return parse<LoginFields, string[]>(formData, {
    resolve(payload) {
      const error: Errors = {};
      checkRules(payload, LOGIN_RULES, error);
      return resolveWith<LoginFields>(payload, error);
    },
  });
}

export function validateForgot(formData: FormData) {
  return parse<ForgotFields, string[]>(formData, {
    resolve(payload) {
      const error: Errors = {};
      checkRules(payload, FORGOT_RULES, error);
      return resolveWith<ForgotFields>(payload, error);
    },
  });
}

// ─── SPEC §8 texts of these pages ───────────────────────────────────────────────────────────

export const ACCOUNT_MESSAGES = {
  alreadyRegistered: "Looks like you already have an account with us.",
  retrieveDetails: "Click here to retrieve your details.",
  incorrectLogin: "Incorrect email or password. Please try again or reset your password.",
  invalidCode: "Invalid verification code. Please try again or resend verification code.",
  verifyGeneric: "An error occurred. Please try again, contact us if it persists.",
  resendFailed: "Failed to resend code. Please try again later.",
  resent: "Verification code resent! Please check your inbox or junk mail.",
  forgotIntro: "You will receive an email with a link to reset your password",
  forgotSent:
    "We've sent you an email with a link to reset your password. Please check your inbox and follow the instructions.",
} as const;

/** The first field (in the order given) that has an error in a reply: it takes the focus without JavaScript. */
export function firstInvalidField(
  error: Record<string, string[] | null | undefined> | undefined,
  order: readonly string[],
): string | undefined {
  return order.find((name) => (error?.[name]?.length ?? 0) > 0);
}
