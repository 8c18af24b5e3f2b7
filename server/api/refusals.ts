// The one place where the domain's refusals become HTTP answers (ADR 0039): the API's error
// handler (index.ts) asks here for every error a route lets through. Each kind of
// core/refusals.ts has one row: its status, its problem+json `detail` (docs/requirements.md's
// words where it gives them) and the field errors it names; the answer's `code` member is the
// kind. Routes call the domain directly and let refusals throw.

import type { z } from "zod";
import { DETAILS } from "../../core/public-forms.ts";
import type { RefusalDataOf, RefusalKind } from "../../core/refusals.ts";
import { API_KEY_DETAILS } from "../../modules/api-keys/schema.ts";
import { balanceShortDetail, V1_ORDER_DETAILS } from "../../modules/api-v1/schema.ts";
import { APPROVAL_DETAILS, approvalRequiredDetail, overBudgetDetail } from "../../modules/approvals/schema.ts";
import { AUTOMATION_DETAILS } from "../../modules/automations/schema.ts";
import { TOP_UP_DETAILS } from "../../modules/balance/schema.ts";
import { DELIVERY_DETAILS } from "../../modules/deliveries/schema.ts";
import { PASSWORD_MESSAGES } from "../../modules/identity/password.ts";
import { MANAGER_MESSAGES } from "../../modules/managers/schema.ts";
import { ORDER_LINE_DETAILS } from "../../modules/orders/order-lines.server.ts";
import { PAYMENT_DETAILS } from "../../modules/orders/schema.ts";
import { REWARD_DETAILS } from "../../modules/reward-drafts/schema.ts";
import { formatSendTime, SCHEDULE_DETAILS } from "../../modules/scheduled-sends/schema.ts";
import { SETTINGS_DETAILS } from "../../modules/settings/schema.ts";
import { SSO_DETAILS, SSO_SIGN_IN_DETAILS, ssoRemovedDetail } from "../../modules/single-sign-on/schema.ts";
import { TEAM_DETAILS } from "../../modules/team/schema.ts";
import { TWO_FACTOR_MESSAGES } from "../../modules/two-factor/schema.ts";
import { WEBHOOK_DETAILS } from "../../modules/webhooks/schema.ts";
import { ProblemError, type ProblemExtensions } from "../http/problem.ts";
import { Refusal } from "../refusal.ts";

type FieldErrors = Record<string, string[]>;

/** How the API answers one kind of refusal. */
interface Answer<K extends RefusalKind> {
  status: number;
  /** The problem's `detail`: the words, or the words made with the refusal's data. */
  detail: string | ((data: RefusalDataOf<K>) => string);
  /** The fields the refusal is about (problem+json `errors`), given its data and detail. */
  errors?: (data: RefusalDataOf<K>, detail: string) => FieldErrors | undefined;
  /** Members beyond the standard ones (RFC 9457 extensions) the caller needs next. */
  extensions?: (data: RefusalDataOf<K>) => ProblemExtensions;
}

/** A send time's refusal names `sendAt` when the request sent it as a field. */
const onField = (data: { field?: string } | undefined, detail: string) =>
  data?.field ? { [data.field]: [detail] } : undefined;

/** A refusal about one named field of the request. */
const about = (field: string) => (_data: unknown, detail: string) => ({ [field]: [detail] });

export const REFUSAL_ANSWERS: { readonly [K in RefusalKind]: Answer<K> } = {
  "invalid-request": { status: 400, detail: (d) => d.detail, errors: (d) => d.errors },
  "internal-error": { status: 500, detail: DETAILS.internal },
  "service-unavailable": { status: 503, detail: DETAILS.unavailable },

  "owner-only": { status: 403, detail: DETAILS.ownerOnly },

  "captcha-failed": { status: 400, detail: DETAILS.captchaFailed },
  "waitlist-duplicate": { status: 409, detail: DETAILS.waitlistDuplicate },
  "email-in-use": { status: 409, detail: DETAILS.emailAlreadyUsed, errors: onField },
  "email-not-verified": {
    status: 403,
    detail: DETAILS.emailNotVerified,
    extensions: (d) => ({ userId: d.userId, requestToken: d.requestToken }),
  },
  "email-already-verified": { status: 400, detail: DETAILS.emailAlreadyVerified },
  // Verified (by a code or a reset) while the login checked the password.
  "email-verified-meanwhile": { status: 409, detail: DETAILS.emailAlreadyVerified },
  "verification-request-invalid": { status: 400, detail: DETAILS.verificationRequestInvalid },
  "wrong-verification-code": { status: 400, detail: DETAILS.invalidVerificationCode, errors: onField },
  "verification-too-many-attempts": { status: 400, detail: DETAILS.verificationTooManyAttempts },
  "verification-expired": { status: 400, detail: DETAILS.verificationExpired },
  "verification-used": { status: 400, detail: DETAILS.verificationUsed },
  "verification-superseded": { status: 400, detail: DETAILS.verificationSuperseded },
  "reset-link-invalid": { status: 400, detail: DETAILS.resetTokenInvalid },
  "reset-link-expired": { status: 400, detail: DETAILS.resetTokenExpired },
  "reset-link-used": { status: 400, detail: DETAILS.resetTokenUsed },

  "wrong-code": { status: 400, detail: TWO_FACTOR_MESSAGES.wrongCode, errors: about("code") },
  "code-reused": { status: 400, detail: TWO_FACTOR_MESSAGES.reusedCode, errors: about("code") },
  "wrong-recovery-code": { status: 400, detail: TWO_FACTOR_MESSAGES.wrongRecoveryCode, errors: about("recoveryCode") },
  "wrong-password": { status: 400, detail: TWO_FACTOR_MESSAGES.wrongPassword, errors: about("password") },
  "password-required": { status: 400, detail: PASSWORD_MESSAGES.required, errors: about("password") },
  // The sign-in's challenge is over: said in the step's answer, or as its credential refused.
  "challenge-expired": { status: 400, detail: TWO_FACTOR_MESSAGES.challengeInvalid },
  "challenge-ended": { status: 401, detail: TWO_FACTOR_MESSAGES.challengeInvalid },
  "challenge-too-many": { status: 400, detail: TWO_FACTOR_MESSAGES.challengeTooMany },
  "challenge-locked": { status: 401, detail: TWO_FACTOR_MESSAGES.challengeTooMany },
  "two-factor-already-on": { status: 409, detail: TWO_FACTOR_MESSAGES.alreadyOn },
  "two-factor-not-on": { status: 409, detail: TWO_FACTOR_MESSAGES.notOn },
  "two-factor-setup-first": { status: 409, detail: TWO_FACTOR_MESSAGES.noSetup },
  "two-factor-required-by-company": { status: 409, detail: TWO_FACTOR_MESSAGES.requiredByCompany },

  "single-sign-on-required": { status: 403, detail: SSO_DETAILS.required },
  "sso-not-configured": { status: 404, detail: SSO_DETAILS.notConfigured },
  "sso-provider-unavailable": { status: 503, detail: SSO_DETAILS.providerUnavailable },
  "sso-failed": { status: 400, detail: SSO_DETAILS.failed },
  "sso-no-email": { status: 400, detail: SSO_DETAILS.noEmail },
  "sso-email-not-verified": { status: 400, detail: SSO_DETAILS.emailNotVerified },
  "sso-domain-not-covered": { status: 400, detail: SSO_DETAILS.domainNotCovered },
  "sso-access-removed": { status: 400, detail: (d) => ssoRemovedDetail(d.companyName) },
  "sso-other-company": { status: 400, detail: SSO_DETAILS.otherCompany },
  "sso-issuer-invalid": { status: 400, detail: SSO_DETAILS.issuerInvalid, errors: about("issuerUrl") },
  "sso-client-secret-required": {
    status: 400,
    detail: SSO_DETAILS.clientSecretRequired,
    errors: about("clientSecret"),
  },
  "sso-domain-taken": { status: 409, detail: SSO_DETAILS.domainTaken, errors: about("domains") },

  // An unknown link is not found; an expired, used or withdrawn one, or one whose inviter is no
  // longer the Owner it needs (ADR 0022 amendment), is gone.
  "invite-invalid": { status: 404, detail: MANAGER_MESSAGES.inviteInvalid },
  "invite-expired": { status: 410, detail: MANAGER_MESSAGES.inviteExpired },
  "invite-used": { status: 410, detail: MANAGER_MESSAGES.inviteUsed },
  "invite-revoked": { status: 410, detail: MANAGER_MESSAGES.inviteRevoked },
  "inviter-gone": { status: 410, detail: MANAGER_MESSAGES.inviterGone },
  "invite-through-provider": {
    status: 403,
    detail: SSO_SIGN_IN_DETAILS.inviteThroughProvider,
    extensions: () => ({ signInWithProvider: true }),
  },
  "invite-not-found": { status: 404, detail: DETAILS.notFound },
  "invite-not-pending": { status: 409, detail: MANAGER_MESSAGES.inviteNotPending },
  "company-details-first": { status: 409, detail: MANAGER_MESSAGES.detailsFirst },
  "manager-not-found": { status: 404, detail: MANAGER_MESSAGES.managerNotFound },
  "last-owner": { status: 409, detail: MANAGER_MESSAGES.lastOwner },

  "wrong-current-password": {
    status: 400,
    detail: SETTINGS_DETAILS.wrongCurrentPassword,
    errors: about("currentPassword"),
  },
  "same-email": { status: 400, detail: SETTINGS_DETAILS.sameEmail, errors: about("newEmail") },
  "no-email-change": { status: 400, detail: SETTINGS_DETAILS.noEmailChange },

  "api-key-not-found": { status: 404, detail: API_KEY_DETAILS.notFound },
  "webhook-not-found": { status: 404, detail: WEBHOOK_DETAILS.notFound },
  "delivery-not-found": { status: 404, detail: WEBHOOK_DETAILS.deliveryNotFound },
  "too-many-webhooks": { status: 409, detail: WEBHOOK_DETAILS.tooMany },

  "email-in-company": { status: 409, detail: TEAM_DETAILS.emailInCompany },
  "release-not-found": { status: 404, detail: DELIVERY_DETAILS.notFound },
  "recipient-not-found": { status: 404, detail: DELIVERY_DETAILS.recipientNotFound },
  "new-address-owner-only": { status: 403, detail: DELIVERY_DETAILS.newAddressOwnerOnly },

  "order-not-found": { status: 404, detail: DETAILS.notFound },
  "company-details-required": { status: 400, detail: PAYMENT_DETAILS.companyDetailsRequired },
  "empty-draft": { status: 400, detail: PAYMENT_DETAILS.emptyDraft },
  "zero-total": { status: 400, detail: PAYMENT_DETAILS.zeroTotal },
  "reward-name-required": { status: 400, detail: PAYMENT_DETAILS.nameRequired },
  "reward-name-too-long": { status: 400, detail: REWARD_DETAILS.nameTooLong },
  "over-card-limit": { status: 400, detail: PAYMENT_DETAILS.overLimit },
  "amount-changed": { status: 409, detail: PAYMENT_DETAILS.amountChanged },
  "payment-stale": { status: 409, detail: PAYMENT_DETAILS.stale },
  "paid-from-balance": { status: 409, detail: PAYMENT_DETAILS.paidFromBalance },
  "card-under-way": { status: 409, detail: PAYMENT_DETAILS.cardUnderWay },
  "processor-unavailable": { status: 503, detail: PAYMENT_DETAILS.processorUnavailable },
  "stripe-not-in-use": { status: 404, detail: PAYMENT_DETAILS.notStripe },
  "simulated-not-in-use": { status: 404, detail: PAYMENT_DETAILS.notSimulated },
  "balance-short": { status: 402, detail: (d) => balanceShortDetail(d.balanceCents, d.totalCents) },

  "approval-required": { status: 403, detail: (d) => approvalRequiredDetail(d.thresholdCents) },
  "over-budget": { status: 403, detail: (d) => overBudgetDetail(d.overCents) },
  "approval-awaiting": { status: 409, detail: APPROVAL_DETAILS.awaiting },
  "approval-declined": { status: 409, detail: APPROVAL_DETAILS.declined },
  "changed-since-approval": { status: 409, detail: APPROVAL_DETAILS.changedSinceApproval },
  "approval-not-needed": { status: 400, detail: APPROVAL_DETAILS.notNeeded },
  "declined-again": { status: 409, detail: APPROVAL_DETAILS.declinedAgain },
  "already-decided": { status: 409, detail: APPROVAL_DETAILS.alreadyDecided },
  "request-superseded": { status: 409, detail: APPROVAL_DETAILS.superseded },
  "draft-changed-since-request": { status: 409, detail: APPROVAL_DETAILS.draftChangedSinceRequest },
  "own-request": { status: 403, detail: APPROVAL_DETAILS.ownRequest },
  "already-paid": { status: 409, detail: APPROVAL_DETAILS.alreadyPaid },
  "paid-another-way": { status: 409, detail: APPROVAL_DETAILS.otherWay },

  "member-removed-since-request": {
    status: 409,
    detail: (d) =>
      `${d.firstName} ${d.lastName} was removed from the team after this request was made. Decline it and ask for a new one.`,
  },
  "member-on-unreleased-order": {
    status: 409,
    detail: (d) =>
      d.scheduledFor
        ? `${d.name} is in a reward scheduled for ${formatSendTime(d.scheduledFor)} (order #${d.orderId}). Cancel that scheduled send on its page, or wait until it is sent, then remove them.`
        : `${d.name} is in a reward that is paid and being sent (order #${d.orderId}). Wait until it is sent, then remove them.`,
  },
  "line-amount": {
    status: 422,
    detail: ORDER_LINE_DETAILS.amount,
    errors: (d, detail) => ({ [`lines.${d.index}`]: [detail] }),
  },
  "line-member-inactive": {
    status: 409,
    detail: ORDER_LINE_DETAILS.member,
    errors: (d, detail) => ({ [`lines.${d.index}`]: [detail] }),
  },

  "idempotency-key-reused": { status: 409, detail: V1_ORDER_DETAILS.idempotencyKeyReused },
  "recipient-manager-email": {
    status: 400,
    detail: (d) => `Recipient ${d.index + 1}: ${V1_ORDER_DETAILS.managerEmail}`,
    errors: (d) => ({ [`recipients.${d.index}.email`]: [V1_ORDER_DETAILS.managerEmail] }),
  },

  "send-too-soon": { status: 400, detail: SCHEDULE_DETAILS.tooSoon, errors: onField },
  "send-too-late": { status: 400, detail: SCHEDULE_DETAILS.tooLate, errors: onField },
  "not-scheduled": { status: 409, detail: SCHEDULE_DETAILS.notScheduled },

  "top-up-not-found": { status: 404, detail: TOP_UP_DETAILS.notFound },
  "top-up-other-processor": { status: 409, detail: TOP_UP_DETAILS.otherProcessor },
  "top-up-not-whole-dollars": { status: 400, detail: TOP_UP_DETAILS.amountWholeDollars },
  "top-up-out-of-range": { status: 400, detail: TOP_UP_DETAILS.amountRange },

  "automation-not-found": { status: 404, detail: AUTOMATION_DETAILS.notFound },

  "member-not-found": { status: 404, detail: REWARD_DETAILS.memberNotFound },
  "not-in-draft": { status: 404, detail: REWARD_DETAILS.notInDraft },
  "too-many-recipients": { status: 400, detail: REWARD_DETAILS.tooManyRecipients },
  "draft-manager-email": {
    status: 400,
    detail: (d) => (d.row !== undefined ? `Row ${d.row}: ${REWARD_DETAILS.managerEmail}` : REWARD_DETAILS.managerEmail),
  },
};

/** The problem+json a refusal of the domain answers, or undefined for any other error. */
export function problemOfRefusal(error: unknown): ProblemError | undefined {
  if (!(error instanceof Refusal)) return undefined;
  return refusalProblem(error);
}

/** The answer of one refusal, by its kind's row. */
export function refusalProblem<K extends RefusalKind>(refusal: Refusal<K>): ProblemError {
  const answer: Answer<K> = REFUSAL_ANSWERS[refusal.kind];
  const detail = typeof answer.detail === "string" ? answer.detail : answer.detail(refusal.data);
  return new ProblemError(
    answer.status,
    detail,
    answer.errors?.(refusal.data, detail),
    answer.extensions?.(refusal.data),
    refusal.kind,
  );
}

/** A field refused by a rule the schema cannot check (the clock, the address's host): as a schema refuses it. */
export function fieldRefused(field: string, detail: string): Refusal<"invalid-request"> {
  return new Refusal("invalid-request", { detail, errors: { [field]: [detail] } });
}

/** Field errors of a failed zod parse, keyed by the field's path; the first issue becomes the detail. */
export function problemFromZod(error: z.ZodError): ProblemError {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "body";
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  const first = error.issues[0];
  const detail = first ? first.message : "The request body is not valid.";
  return refusalProblem(new Refusal("invalid-request", { detail, errors }));
}
