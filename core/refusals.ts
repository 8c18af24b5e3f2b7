// What the domain and the API refuse, as values (ADR 0039): every refusal is one kind of this
// list, named by what happened (not by its HTTP status), with the data its words need. The
// domain throws it (server/refusal.ts Refusal); the API edge turns each kind into its
// status and problem+json in one table (server/api/refusals.ts), the `code` member naming the
// kind; the web turns a kind into the page's words in one place (app/lib/refusals.ts). Pure
// code: the browser bundle may import it.

export const REFUSAL_KINDS = [
  // The request itself (server/api/refusals.ts problemFromZod) and the API's own failures
  "invalid-request",
  "internal-error",
  "service-unavailable",
  // Who may act
  "owner-only",
  // Accounts: sign-up, verification, login, password reset (docs/requirements.md §S8)
  "captcha-failed",
  "waitlist-duplicate",
  "email-in-use",
  "email-not-verified",
  "email-already-verified",
  "email-verified-meanwhile",
  "verification-request-invalid",
  "wrong-verification-code",
  "verification-too-many-attempts",
  "verification-expired",
  "verification-used",
  "verification-superseded",
  "reset-link-invalid",
  "reset-link-expired",
  "reset-link-used",
  // Two-factor sign-in (ADR 0042): a challenge refused in the step's answer (400) or as its credential (401)
  "wrong-code",
  "code-reused",
  "wrong-recovery-code",
  "wrong-password",
  "password-required",
  "challenge-expired",
  "challenge-ended",
  "challenge-too-many",
  "challenge-locked",
  "two-factor-already-on",
  "two-factor-not-on",
  "two-factor-setup-first",
  "two-factor-required-by-company",
  // Single sign-on (ADR 0046)
  "single-sign-on-required",
  "sso-not-configured",
  "sso-provider-unavailable",
  "sso-failed",
  "sso-no-email",
  "sso-email-not-verified",
  "sso-domain-not-covered",
  "sso-access-removed",
  "sso-other-company",
  "sso-issuer-invalid",
  "sso-client-secret-required",
  "sso-domain-taken",
  // Managers and their invitations (ADR 0022)
  "invite-invalid",
  "invite-expired",
  "invite-used",
  "invite-revoked",
  "inviter-gone",
  "invite-through-provider",
  "invite-not-found",
  "invite-not-pending",
  "company-details-first",
  "manager-not-found",
  "last-owner",
  // A manager's own settings
  "wrong-current-password",
  "same-email",
  "no-email-change",
  // API keys (ADR 0028) and webhooks (ADR 0045)
  "api-key-not-found",
  "webhook-not-found",
  "delivery-not-found",
  "too-many-webhooks",
  // The team (docs/requirements.md §S6) and a release's deliveries
  "email-in-company",
  "release-not-found",
  "recipient-not-found",
  "new-address-owner-only",
  // Orders and their payment
  "order-not-found",
  "company-details-required",
  "empty-draft",
  "zero-total",
  "reward-name-required",
  "reward-name-too-long",
  "over-card-limit",
  "amount-changed",
  "payment-stale",
  "paid-from-balance",
  "card-under-way",
  "processor-unavailable",
  "stripe-not-in-use",
  "simulated-not-in-use",
  "balance-short",
  // Approvals and budgets (ADR 0022 §6, ADR 0034)
  "approval-required",
  "over-budget",
  "approval-awaiting",
  "approval-declined",
  "changed-since-approval",
  "approval-not-needed",
  "declined-again",
  "already-decided",
  "request-superseded",
  "draft-changed-since-request",
  "own-request",
  "already-paid",
  "paid-another-way",
  // Members on orders (docs/rules.md "When a release may pay a member", "What an order line may be")
  "member-removed-since-request",
  "member-on-unreleased-order",
  "line-amount",
  "line-member-inactive",
  // Orders placed with an API key (ADR 0044)
  "idempotency-key-reused",
  "recipient-manager-email",
  // Scheduled sends (ADR 0026)
  "send-too-soon",
  "send-too-late",
  "not-scheduled",
  // Balance top-ups (ADR 0043)
  "top-up-not-found",
  "top-up-other-processor",
  "top-up-not-whole-dollars",
  "top-up-out-of-range",
  // Automations (ADR 0035)
  "automation-not-found",
  // The reward draft
  "member-not-found",
  "not-in-draft",
  "too-many-recipients",
  "draft-manager-email",
] as const;

export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** A refusal about one field of the request: the answer names it in problem+json `errors`. */
export interface OnField {
  field?: string;
}

/** The data a kind's words need; a kind not listed here needs none. */
export interface RefusalData {
  /** The request's body refused by its schema: the first issue's words, and each field's. */
  "invalid-request": { detail: string; errors: Record<string, string[]> };
  /** What the verify page's address needs (userId, requestToken, as Register answers them). */
  "email-not-verified": { userId: string; requestToken: string };
  "sso-access-removed": { companyName: string };
  "email-in-use": OnField | undefined;
  "wrong-verification-code": OnField | undefined;
  "approval-required": { thresholdCents: number };
  "over-budget": { overCents: number };
  "balance-short": { balanceCents: number; totalCents: number };
  "member-removed-since-request": { firstName: string; lastName: string };
  "member-on-unreleased-order": { name: string; orderId: number; scheduledFor: Date | null };
  /** The 0-based index of the refused line of the order. */
  "line-amount": { index: number };
  "line-member-inactive": { index: number };
  /** The 0-based index of the recipient in the request. */
  "recipient-manager-email": { index: number };
  "send-too-soon": OnField | undefined;
  "send-too-late": OnField | undefined;
  /** The 1-based row of a bulk upload, when the refusal is about one row. */
  "draft-manager-email": { row?: number };
}

/** The data of kind K (undefined for a kind without any). */
export type RefusalDataOf<K extends RefusalKind> = K extends keyof RefusalData ? RefusalData[K] : undefined;

// Every kind with data is on the list (a compile error here names one that is not).
type Listed<T extends RefusalKind> = T;
export type RefusalDataKinds = Listed<keyof RefusalData>;

const KINDS: ReadonlySet<string> = new Set(REFUSAL_KINDS);

export function isRefusalKind(value: unknown): value is RefusalKind {
  return typeof value === "string" && KINDS.has(value);
}
