// Approvals (ADR 0022 §6): the company's approval threshold and an Owner's decision on a
// Manager's order, as the API takes them and the settings and approval forms post them, and the
// API's refusals word for word. Pure code, shared by the provider API, the route actions and the
// browser (ADR 0017).
import * as z from "zod/mini";
import { formatDollars } from "../../core/money.ts";

/** The largest threshold: above it no single card payment ($999,999.98 at most) could reach it. */
export const MAX_THRESHOLD_DOLLARS = 999_999;
/** A decline reason is kept with the order and emailed to the requester. */
export const DECLINE_REASON_MAX = 500;

export const APPROVAL_MESSAGES = {
  thresholdNegative: "The approval threshold cannot be negative.",
  thresholdNotWhole: "The approval threshold must be a whole number of dollars, such as 1000.",
  thresholdTooLarge: `The approval threshold must be at most $${MAX_THRESHOLD_DOLLARS.toLocaleString("en-AU")}.`,
  reasonRequired: "Please give a reason for declining.",
  reasonTooLong: `The reason must be at most ${DECLINE_REASON_MAX} characters.`,
} as const;

/** The API's refusals (problem+json `detail`). */
export const APPROVAL_DETAILS = {
  awaiting: "This order is waiting for an Owner's approval.",
  declined: "This order was declined by an Owner and cannot be paid.",
  changedSinceApproval: "The reward list has changed since it was approved; please request approval again.",
  notNeeded: "This order does not need an Owner's approval; you can pay for it now.",
  declinedAgain: "This reward was declined; change the reward list before asking for approval again.",
  alreadyDecided: "This request has already been decided.",
  superseded: "This request was replaced by a newer one, or its payment was made another way.",
  draftChangedSinceRequest:
    "The requester has changed the reward list since asking for approval, so it cannot be approved; they need to request approval again.",
  ownRequest: "You cannot approve or decline your own request; another Owner must decide it.",
  notApproved: "Only an approved order can be paid.",
  alreadyPaid: "This order has already been paid.",
  otherWay: "This order's payment was started another way; please finish it there.",
} as const;

/** The refusal of a Manager's payment that needs approval first. */
export function approvalRequiredDetail(thresholdCents: number): string {
  return `An Owner must approve orders of ${formatDollars(thresholdCents)} or more before they are paid; please request approval.`;
}

/** The approval page's words for an order that passed its monthly budget (ADR 0034). */
export function overBudgetText(overCents: number): string {
  return `This order is over budget by ${formatDollars(overCents)} this month.`;
}

/** The refusal of a Manager's payment that would pass their monthly budget (ADR 0034). */
export function overBudgetDetail(overCents: number): string {
  return `This order would take you over your monthly budget by ${formatDollars(overCents)}: an Owner must approve it before it is paid; please request approval.`;
}

/**
 * An amount typed in whole dollars ("1000", "$1,000", 1000), blank or null for none; answers the
 * cents, or null. The threshold and the monthly budgets (modules/budgets/schema.ts) read their fields so.
 */
export function wholeDollarsOrNone(
  messages: { negative: string; notWhole: string; tooLarge: string },
  maxDollars: number,
) {
  return z.pipe(
    z.optional(z.nullable(z.union([z.string(), z.number()]))),
    z.transform((value, ctx): number | null => {
      if (value === undefined || value === null) return null;
      const text = typeof value === "number" ? String(value) : value.trim().replace(/[$,\s]/g, "");
      if (text === "") return null;
      const number = Number(text);
      const fail = (message: string) => {
        ctx.issues.push({ code: "custom", message, input: value });
        return z.NEVER;
      };
      if (!Number.isFinite(number) || !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) return fail(messages.notWhole);
      if (number < 0) return fail(messages.negative);
      if (!Number.isInteger(number)) return fail(messages.notWhole);
      if (number > maxDollars) return fail(messages.tooLarge);
      return number * 100;
    }),
  );
}

/** The threshold as typed (whole dollars, blank or null for none): the cents, or null for no approval step. */
export const thresholdField = wholeDollarsOrNone(
  {
    negative: APPROVAL_MESSAGES.thresholdNegative,
    notWhole: APPROVAL_MESSAGES.thresholdNotWhole,
    tooLarge: APPROVAL_MESSAGES.thresholdTooLarge,
  },
  MAX_THRESHOLD_DOLLARS,
);

/** PUT /Approvals/threshold: `thresholdDollars` in whole dollars, or null / "" for none. */
export const approvalThresholdSchema = z.object({ thresholdDollars: thresholdField });
export type ApprovalThresholdRequest = z.input<typeof approvalThresholdSchema>;

/** The settings form (intent and the field as posted). */
export const approvalThresholdFormSchema = z.object({
  intent: z.literal("save-threshold"),
  thresholdDollars: thresholdField,
});

const reasonField = z
  .string({ error: APPROVAL_MESSAGES.reasonRequired })
  .check(
    z.trim(),
    z.minLength(1, APPROVAL_MESSAGES.reasonRequired),
    z.maxLength(DECLINE_REASON_MAX, APPROVAL_MESSAGES.reasonTooLong),
  );

/** POST /Approvals/:orderId/decline. */
export const declineApprovalSchema = z.object({ reason: reasonField });

/** The approval page's forms (one action, switched on `intent`). */
export const approvalDecisionFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("approve") }),
  z.object({ intent: z.literal("decline"), reason: reasonField }),
]);

export interface ApprovalThresholdResponse {
  /** Whole dollars, or null: no approval step. */
  thresholdDollars: number | null;
  thresholdCents: number | null;
}

export type ApprovalStatus = "requested" | "approved" | "declined";

/**
 * The state of an approval order as the pages show it: waiting, approved (payable), declined,
 * paid, or replaced (superseded by a newer order of the requester).
 */
export type ApprovalState = "requested" | "approved" | "declined" | "paid" | "superseded";

export interface ApprovalSummary {
  orderId: number;
  rewardName: string;
  state: ApprovalState;
  approvalStatus: ApprovalStatus;
  totalCents: number;
  recipientCount: number;
  requestedBy: { userId: number; name: string; email: string };
  requestedAt: string;
  decidedBy: { userId: number; name: string } | null;
  decidedAt: string | null;
  reason: string | null;
  /** The requester's draft is no longer the version this order froze. */
  draftChanged: boolean;
  /** Placed by a company system with an API key (ADR 0044): approving pays it from the balance and releases it. */
  viaApiKey: boolean;
  /** By how much it passed its placer's or key's monthly budget when requested (ADR 0034); null: it did not. */
  overBudgetCents: number | null;
}

export interface ApprovalDetail extends ApprovalSummary {
  rewardsCents: number;
  serviceFeeCents: number;
  gstCents: number;
  /** The first 100 lines of the snapshot (recipientCount says how many there are). */
  lines: Array<{ name: string; email: string; amountCents: number }>;
  /** Whether the caller may pay it now: approved, unpaid, and the draft unchanged. */
  payable: boolean;
  /** The caller is the requester (false for an Owner looking at someone else's request). */
  isRequester: boolean;
}

/**
 * GET /Approvals/my-draft: what the Review page needs. `thresholdCents` is null when no
 * approval step applies to the caller (none set, or an Owner). `order` is the newest live
 * approval order of the caller's draft (any version); `draftChanged` tells whether it is still
 * what the draft shows.
 */
export interface MyDraftApproval {
  thresholdCents: number | null;
  /**
   * What is left this month of the caller's monthly budget (ADR 0034), not counting this draft's
   * own payment under way; null when no budget applies (none set, or an Owner).
   */
  budgetLeftCents: number | null;
  order: ApprovalSummary | null;
}

export interface RequestApprovalResponse {
  orderId: number;
  state: ApprovalState;
  /** False when an unchanged draft already had its request (no new order, no new email). */
  created: boolean;
}
