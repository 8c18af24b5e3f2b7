// Password rules of docs/requirements.md §S5, shared by the provider API (enforced on every sign-up and reset)
// and the web forms (the live checklist). Pure code: the browser bundle imports it too.
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../core/limits.ts";

/** The special characters docs/requirements.md §S5 accepts: ! @ # $ % ^ & * ( ) , . ? " : { } | < > */
export const PASSWORD_SPECIAL_CHARACTERS = '!@#$%^&*(),.?":{}|<>';

/**
 * The browser-level `pattern` docs/requirements.md §S5 puts on the field as well (a digit, a lower-case letter,
 * a non-word character, at least 6 characters). The server does not add the lower-case rule.
 */
export const PASSWORD_HTML_PATTERN = String.raw`(?=.*\d)(?=.*[a-z])(?=.*\W).{6,}`;
const htmlPattern = new RegExp(`^(?:${PASSWORD_HTML_PATTERN})$`, "s");

export type PasswordRuleId = "minLength" | "specialChar" | "number" | "capital";

export interface PasswordRule {
  id: PasswordRuleId;
  /** The checklist line. */
  label: string;
  /** The error when the rule fails. */
  message: string;
  test: (password: string) => boolean;
}

const special = /[!@#$%^&*(),.?":{}|<>]/;

export const PASSWORD_RULES: readonly PasswordRule[] = [
  {
    id: "minLength",
    label: "At least 8 characters",
    message: "Password must be at least 8 characters.",
    test: (p) => p.length >= PASSWORD_MIN_LENGTH,
  },
  {
    id: "specialChar",
    label: "At least one special character",
    message: 'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
    test: (p) => special.test(p),
  },
  {
    id: "number",
    label: "At least one number",
    message: "Password must contain at least one number.",
    test: (p) => /\d/.test(p),
  },
  {
    id: "capital",
    label: "At least one capital letter",
    message: "Password must contain at least one capital letter.",
    test: (p) => /[A-Z]/.test(p),
  },
];

export const PASSWORD_MESSAGES = {
  required: "Password is required.",
  tooLong: `Password must be at most ${PASSWORD_MAX_LENGTH} characters.`,
  mismatch: "Passwords do not match.",
  matchLabel: "Passwords match",
  /** The browser-level pattern's extra rule (docs/requirements.md §S5): the forms check it, the API does not. */
  lowercase: "Password must contain at least one lowercase letter.",
} as const;

/** Which rules the password meets, for the live checklist (minLength, specialChar, number, capital). */
export function passwordChecklist(password: string): Record<PasswordRuleId, boolean> {
  return Object.fromEntries(PASSWORD_RULES.map((r) => [r.id, r.test(password)])) as Record<PasswordRuleId, boolean>;
}

/** The messages of the checklist rules the password fails (the length ceiling is apart). */
export function passwordRuleProblems(password: string): string[] {
  if (password.length === 0) return [PASSWORD_MESSAGES.required];
  return PASSWORD_RULES.filter((r) => !r.test(password)).map((r) => r.message);
}

/**
 * The forms' rules: the checklist's, then the field's browser pattern (docs/requirements.md §S5), which adds a
 * lower-case letter. A page with JavaScript turns the browser's own check off, so its schema
 * checks the pattern; without JavaScript the browser does.
 */
export function formPasswordRuleProblems(password: string): string[] {
  const problems = passwordRuleProblems(password);
  if (problems.length > 0 || password.length > PASSWORD_MAX_LENGTH || htmlPattern.test(password)) return problems;
  return [PASSWORD_MESSAGES.lowercase];
}

/** The messages of every rule the password fails, in checklist order; empty when it is acceptable. */
export function passwordProblems(password: string): string[] {
  const problems = passwordRuleProblems(password);
  if (password.length > PASSWORD_MAX_LENGTH) problems.push(PASSWORD_MESSAGES.tooLong);
  return problems;
}

export function isPasswordAcceptable(password: string): boolean {
  return passwordProblems(password).length === 0;
}
