// The server half of the payment pages: what the route actions make of a post that passed its
// schema (modules/orders/card-form.ts, the one the browser checks too: ADR 0017), the Review page's data
// (the API's summary cut to what the page shows) and the confirmation page's check
// (docs/requirements.md §S2, §S4, §S8; §D5, §D6).
import { redirect } from "react-router";
import { cardDigits, parseExpiry } from "../../../core/card.ts";
import type { ApprovalSummary, MyDraftApproval } from "../../../modules/approvals/schema.ts";
import { sydneyWallTimeToInstant } from "../../../modules/scheduled-sends/schema.ts";
import type { ApiClient } from "../../lib/api.server.ts";
import { AUTHENTICATION_PATH, CONFIRMATION_PATH, dollarsToCents, PAYMENT_TEXT, SHOWN_RECIPIENTS } from "./payment.ts";

/** The instant a posted schedule names: null for "send now" (modules/orders/card-form.ts checked it is one). */
export function sendAtOf(value: { sendWhen: "now" | "later"; sendAt: string }): string | null {
  return value.sendWhen === "later" ? (sydneyWallTimeToInstant(value.sendAt)?.toISOString() ?? null) : null;
}

/** Never echoed back into a re-rendered form. */
export const CARD_SECRET_FIELDS = ["cardNumber", "cvc"] as const;

/** The card as the API takes it: digits only, expiry as MM/YY. */
export function normalisedCard(value: { cardNumber: string; expiry: string; cvc: string; nameOnCard: string }) {
  const expiry = parseExpiry(value.expiry);
  return {
    cardNumber: cardDigits(value.cardNumber),
    expiry: expiry ? `${String(expiry.month).padStart(2, "0")}/${String(expiry.year % 100).padStart(2, "0")}` : "",
    cvc: value.cvc.trim(),
    nameOnCard: value.nameOnCard.trim(),
  };
}

export interface ReviewData {
  rewardName: string;
  /** The draft's message to recipients ('' for none) and its sender (the manager by default). */
  message: string;
  senderName: string;
  /** When the rewards are to be sent (ISO 8601); null: once paid. */
  sendAt: string | null;
  /** The first SHOWN_RECIPIENTS recipients; recipientCount says how many there are. */
  recipients: { userId: number; fullName: string; reward: number }[];
  recipientCount: number;
  rewardsCents: number;
  serviceFeeCents: number;
  gstCents: number;
  totalCents: number;
}

/**
 * The Review page's data from GET get-reward-summary, or null when there is nothing to pay for
 * (no data, or a total of 0: 'No rewards to process'). Only the first 100 recipients go to the
 * page: a draft of 5,000 is counted, not rendered.
 */
export async function loadReview(
  client: ApiClient,
  log: (details: object, message: string) => void,
): Promise<ReviewData | null> {
  const summary = await client.call((api) => api.RewardMyTeam["get-reward-summary"].$get());
  if (!summary.ok) {
    log({ status: summary.status, detail: summary.detail }, "reward summary fetch failed");
    return null;
  }
  const rewards = Array.isArray(summary.data?.rewards) ? summary.data.rewards : [];
  const totalCents = dollarsToCents(summary.data.total);
  if (rewards.length === 0 || totalCents <= 0) return null;
  return {
    rewardName: summary.data.rewardName ?? "",
    message: summary.data.message ?? "",
    senderName: summary.data.senderName ?? "",
    sendAt: summary.data.sendAt ?? null,
    recipients: rewards.slice(0, SHOWN_RECIPIENTS).map((r) => ({
      userId: r.userId,
      fullName: r.fullName,
      reward: r.reward ?? 0,
    })),
    recipientCount: summary.data.recipientCount ?? rewards.length,
    rewardsCents: dollarsToCents(summary.data.totalRewards),
    serviceFeeCents: dollarsToCents(summary.data.serviceFee),
    gstCents: dollarsToCents(summary.data.gst),
    totalCents,
  };
}

export type CheckOutcome =
  | { state: "succeeded"; amountCents: number; sendAt: string | null; paidFrom?: "card" | "balance" }
  | { state: "processing" }
  | { state: "failed"; message: string };

const PENDING = new Set(["processing", "requires_confirmation", "requires_capture", "requires_action"]);

/**
 * POST check-payment-intent (which also releases a paid order, once): succeeded with the
 * amount, still processing, or failed ('Payment Failed'; a failing call adds docs/requirements.md §S8's message).
 */
export async function checkPayment(client: ApiClient, paymentIntent: string): Promise<CheckOutcome> {
  const result = await client.call((api) =>
    api.StripePayment["check-payment-intent"].$post({ json: { paymentIntent } }),
  );
  if (!result.ok) return { state: "failed", message: PAYMENT_TEXT.checkError };
  const { status, amount, message } = result.data;
  if (status === "succeeded") {
    return { state: "succeeded", amountCents: dollarsToCents(amount), sendAt: result.data.sendAt ?? null };
  }
  if (status && PENDING.has(status)) return { state: "processing" };
  return { state: "failed", message: message ?? "" };
}

/**
 * Where the Review page stands with an Owner's approval (ADR 0022 §6): none needed (pay as
 * usual); to request (at or above the threshold, no live request for this very draft; `earlier`
 * is a request or approval the draft has since outgrown); requested; approved (pay the frozen
 * snapshot); declined (never payable). The API enforces every one of these; the page follows it.
 */
export type ApprovalStep =
  | { kind: "none" }
  | {
      kind: "request";
      /** Why: the threshold it reaches, or by how much it passes the caller's monthly budget (ADR 0034). */
      reason: { thresholdCents: number } | { overBudgetCents: number };
      earlier: ApprovalSummary | null;
    }
  | { kind: "requested" | "approved" | "declined"; order: ApprovalSummary };

export function approvalStepOf(
  charges: { totalCents: number; rewardsCents: number },
  mine: MyDraftApproval | null,
): ApprovalStep {
  if (!mine) return { kind: "none" };
  const overBudgetCents = mine.budgetLeftCents === null ? 0 : charges.rewardsCents - mine.budgetLeftCents;
  const atThreshold = mine.thresholdCents !== null && charges.totalCents >= mine.thresholdCents;
  if (overBudgetCents <= 0 && !atThreshold) return { kind: "none" };
  const order = mine.order;
  const current = order && !order.draftChanged;
  if (current && (order.state === "requested" || order.state === "approved" || order.state === "declined")) {
    return { kind: order.state, order };
  }
  const reason =
    overBudgetCents > 0 ? { overBudgetCents } : { thresholdCents: mine.thresholdCents ?? charges.totalCents };
  return { kind: "request", reason, earlier: order && !current ? order : null };
}

/**
 * The company's prepaid balance as the Review page offers it (ADR 0043): what it holds
 * and whether the caller may top it up (an Owner). Null when it could not be read: the page then
 * offers the card alone.
 */
export interface ReviewBalance {
  balanceCents: number;
  canTopUp: boolean;
}

/** The Review page's data, its approval step and the company balance, from three API calls made together. */
export async function loadReviewWithApproval(
  client: ApiClient,
  log: (details: object, message: string) => void,
): Promise<(ReviewData & { approval: ApprovalStep; balance: ReviewBalance | null }) | null> {
  const [review, mine, balance] = await Promise.all([
    loadReview(client, log),
    client.call((api) => api.Approvals["my-draft"].$get()),
    client.call((api) => api.Balance.$get()),
  ]);
  if (!review) return null;
  if (!mine.ok) log({ status: mine.status, detail: mine.detail }, "approval state fetch failed");
  if (!balance.ok) log({ status: balance.status, detail: balance.detail }, "company balance fetch failed");
  return {
    ...review,
    approval: approvalStepOf(review, mine.ok ? mine.data : null),
    balance: balance.ok ? { balanceCents: balance.data.balance, canTopUp: balance.data.canTopUp } : null,
  };
}

/**
 * After the simulated card's confirmation: a paid card goes to the confirmation page, one that
 * asks for authentication to that step (both thrown as redirects, as actions do); a declined one
 * returns, for the page to show the processor's message.
 */
export function followSimulatedCard(payment: { paymentIntentId: string; clientSecret: string }, status: string): void {
  const query = new URLSearchParams({ payment_intent: payment.paymentIntentId });
  if (status === "succeeded") throw redirect(`${CONFIRMATION_PATH}?${query}`);
  if (status === "requires_action") {
    query.set("payment_intent_client_secret", payment.clientSecret);
    throw redirect(`${AUTHENTICATION_PATH}?${query}`);
  }
}
