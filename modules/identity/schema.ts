// Payload schemas of the account calls (docs/requirements.md §S3, §S5, §S7): registration, email verification,
// login, password reset, company details and the signed-in contact form, and the account forms
// as they are posted (the confirmation field, the captcha inputs as strings, the verify page's
// two intents). Shared by the provider API, the route actions and the browser. Pure code only.

import * as z from "zod/mini";
import {
  captchaFields,
  captchaFormFields,
  companyNameField,
  emailField,
  emailRequiredField,
  firstNameField,
  lastNameField,
  messageField,
  requiredMessage,
} from "../../core/fields.ts";
import { PASSWORD_MAX_LENGTH, VERIFICATION_CODE_LENGTH } from "../../core/limits.ts";
import type { ListPage } from "../../core/paging.ts";
import type { ApprovalSummary } from "../approvals/schema.ts";
import type { BudgetUse } from "../budgets/schema.ts";
import { ABN_MESSAGES, abnProblem, normaliseAbn } from "../companies/abn.ts";
import { COMPANY_SIZES, type CompanySize, INDUSTRIES, type Industry } from "../companies/schema.ts";
import type { SpendSummary } from "../reward-history/spend.ts";
import type { RewardOrderState } from "../scheduled-sends/schema.ts";
import { formPasswordRuleProblems, PASSWORD_MESSAGES, passwordRuleProblems } from "./password.ts";

function passwordField(problems: (password: string) => string[]) {
  return z.string({ error: PASSWORD_MESSAGES.required }).check(
    z.superRefine((password, ctx) => {
      for (const message of problems(password)) ctx.addIssue({ code: "custom", message });
    }),
    z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong),
  );
}

/** A new password (sign-up, reset): required and meeting every rule. Not trimmed: spaces count. */
export const newPasswordField = passwordField(passwordRuleProblems);
/** The same in the forms, which also check their field's browser pattern (docs/requirements.md §S5). */
export const newPasswordFormField = passwordField(formPasswordRuleProblems);

export { COMPANY_SIZES, type CompanySize, INDUSTRIES, type Industry } from "../companies/schema.ts";

export const VERIFICATION_CODE_MESSAGE = `Verification Code must have exactly ${VERIFICATION_CODE_LENGTH} digits.`;

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
   * The user's public id, a random UUID (docs/requirements.md §S7 does not make it a number): the id the
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
export const userIdField = z.pipe(
  z
    .string({ error: "userId is required." })
    .check(z.trim(), z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "userId is required.")),
  z.transform((id) => id.toLowerCase()),
);

const requestTokenField = z
  .string({ error: "requestToken is required." })
  .check(z.trim(), z.minLength(1, "requestToken is required."), z.maxLength(200, "requestToken is not valid."));

export const verifyEmailRequestSchema = z.object({ userId: userIdField });
export type VerifyEmailRequestRequest = z.input<typeof verifyEmailRequestSchema>;
export interface VerifyEmailRequestResponse {
  requestToken: string;
}

export const verificationCodeField = z
  .string({ error: VERIFICATION_CODE_MESSAGE })
  .check(z.trim(), z.regex(/^\d{6}$/, VERIFICATION_CODE_MESSAGE));

export const verifyEmailSchema = z.object({
  userId: userIdField,
  requestToken: requestTokenField,
  verificationCode: verificationCodeField,
});
export type VerifyEmailRequest = z.input<typeof verifyEmailSchema>;
export interface VerifyEmailResponse {
  accessToken: string;
}

/** The login password: required (the rules are checked when it is chosen, not here). */
const loginPasswordField = z
  .string({ error: PASSWORD_MESSAGES.required })
  .check(z.minLength(1, PASSWORD_MESSAGES.required), z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong));

export const loginSchema = z.object({
  userName: emailRequiredField,
  password: loginPasswordField,
  ...captchaFields,
});
export type LoginRequest = z.input<typeof loginSchema>;

/** The two flags the portal gate and the dashboard need (docs/requirements.md §S3 "Auth settings"). */
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
  /** ADR 0022: an Owner may do everything, a Manager the team and rewards. */
  managerRole: ManagerRole;
}

export type ManagerRole = "owner" | "manager";

/** docs/requirements.md §S7 spells the field `Email`; another reading spells it `email`. Both are accepted. */
export const resetPasswordRequestSchema = z.pipe(
  z.pipe(
    z.object({ Email: z.optional(z.string()), email: z.optional(z.string()) }),
    z.transform((v) => ({ email: (v.Email ?? v.email ?? "").trim() })),
  ),
  z.object({ email: emailRequiredField }),
);
export type ResetPasswordRequestRequest = { Email: string } | { email: string };

export const resetPasswordSchema = z.object({
  passwordResetToken: z
    .string({ error: "passwordResetToken is required." })
    .check(
      z.trim(),
      z.minLength(1, "passwordResetToken is required."),
      z.maxLength(200, "passwordResetToken is not valid."),
    ),
  password: newPasswordField,
});
export type ResetPasswordRequest = z.input<typeof resetPasswordSchema>;

function choice<const T extends readonly [string, ...string[]]>(options: T, required: string) {
  return z.pipe(
    z.transform((v: unknown) => (typeof v === "string" ? v.trim() : v)),
    z.enum(options, { error: required }),
  );
}

export const companyDetailsSchema = z.object({
  name: companyNameField,
  ABN: z.pipe(
    z.string({ error: ABN_MESSAGES.required }).check(
      z.superRefine((value, ctx) => {
        const problem = abnProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    ),
    z.transform(normaliseAbn),
  ),
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

/** One row of GET /RewardHistory/get-reward-history (docs/requirements.md §S3); amount in dollars. */
export interface RewardHistoryItem {
  rewardReleaseId: number;
  rewardDate: string;
  rewardName: string;
  amount: number;
  /** The paid order's tax invoice (not in SPEC): INV-000123; null only for a release made before numbers were kept. */
  invoiceNumber: string | null;
}

/** The dashboard's history shows this many releases a page (the full history is paged, not capped). */
export const REWARD_HISTORY_PAGE_SIZE = 20;

/**
 * A row of the paged history (not in SPEC): a paid order, released, scheduled (paid, waiting for
 * its time) or cancelled (refunded); rewardDate is the release's time, the scheduled send time,
 * or the cancellation's time.
 */
export interface RewardHistoryEntry extends Omit<RewardHistoryItem, "rewardReleaseId"> {
  orderId: number;
  /** The release's delivery page, once released. */
  rewardReleaseId: number | null;
  state: RewardOrderState;
  /** A cancelled order's refund went through. */
  refunded: boolean;
}

/** GET /api/RewardHistory (not in SPEC): one page of every paid order, newest first. */
export type RewardHistoryPage = ListPage<RewardHistoryEntry>;

/** The history's first page before any paid order (and the dashboard's when it cannot be read). */
export const EMPTY_REWARD_HISTORY: RewardHistoryPage = {
  items: [],
  totalCount: 0,
  pageNumber: 1,
  pageSize: REWARD_HISTORY_PAGE_SIZE,
  totalPages: 1,
  hasPreviousPage: false,
  hasNextPage: false,
};

// ─── The account forms as posted (the route actions and the browser parse with these) ───

/** docs/requirements.md §D8 labels of the confirmation fields, in their "<label> is required." messages. */
export const SIGN_UP_CONFIRM_LABEL = "Confirm Password";
export const RESET_CONFIRM_LABEL = "Confirm password";

export function confirmField(label: string) {
  return z
    .string({ error: requiredMessage(label) })
    .check(z.minLength(1, requiredMessage(label)), z.maxLength(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong));
}

/**
 * "Passwords do not match." on a typed confirmation that differs. It runs even when other
 * fields failed (`when`), so the message shows with theirs rather than after they are mended.
 */
export const matchConfirmation = z.refine<{ password?: unknown; confirmPassword?: unknown }>(
  (value) =>
    typeof value.confirmPassword !== "string" ||
    value.confirmPassword === "" ||
    value.password === value.confirmPassword,
  {
    error: PASSWORD_MESSAGES.mismatch,
    path: ["confirmPassword"],
    when: (payload) => typeof payload.value === "object" && payload.value !== null,
  },
);

/** Sign-up: the Register payload, the confirmation, the captcha inputs. */
export const signUpFormSchema = z.pipe(
  z
    .extend(registerSchema, {
      password: newPasswordFormField,
      confirmPassword: confirmField(SIGN_UP_CONFIRM_LABEL),
      ...captchaFormFields,
    })
    .check(matchConfirmation),
  z.transform(({ confirmPassword: _confirm, ...request }) => request),
);

/** Login: the API's payload with the captcha inputs; the field labelled Email is an email input (docs/requirements.md §S5). */
export const loginFormSchema = z.extend(loginSchema, { userName: emailField, ...captchaFormFields });

/** The request token in the verify page's address. */
export const verifyPageTokenField = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

/**
 * The verify page posts either the code (intent=verify) or a resend (intent=resend); the userId
 * and requestToken are read from the page's address, which the form posts to.
 */
export const verifyFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("verify"), verificationCode: verificationCodeField }),
  z.object({ intent: z.literal("resend") }),
]);

/** Forgot request: required only, no format rule (docs/requirements.md §S5). */
export const forgotFormSchema = z.object({ email: emailRequiredField });

/** Reset: the new password and its confirmation (the token is read from the page's address). */
export const resetFormSchema = z.pipe(
  z
    .object({ password: newPasswordFormField, confirmPassword: confirmField(RESET_CONFIRM_LABEL) })
    .check(matchConfirmation),
  z.transform(({ confirmPassword: _confirm, ...request }) => request),
);

/**
 * GET /api/Dashboard (not in SPEC): what the dashboard shows, in one call: a page of the reward
 * history, the spend picture, the company's prepaid balance, and, for an Owner, the approval
 * requests waiting (null for a Manager, who does not decide them: ADR 0022).
 */
export interface DashboardSummary {
  history: RewardHistoryPage;
  spend: SpendSummary;
  /** The prepaid balance every manager sees (ADR 0043); only an Owner tops it up. */
  balance: { balanceCents: number; canTopUp: boolean };
  pendingApprovals: ApprovalSummary[] | null;
  /** The caller's own monthly budget this month (ADR 0034): null unless they are a Manager with one. */
  budget: BudgetUse | null;
}
