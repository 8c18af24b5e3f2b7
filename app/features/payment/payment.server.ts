// The server half of the payment pages: the posted forms' schemas (the same rules and messages as
// payment.ts, checked with zod), the Review page's data (the API's summary cut to what the page
// shows) and the confirmation page's check (docs/requirements.md §S2, §S4, §S8; §D5, §D6).
import { redirect } from "react-router";
import { z } from "zod";
import type { ApprovalSummary, MyDraftApproval } from "../../../core/approvals.ts";
import { cardDigits } from "../../../core/card.ts";
import { rewardMessageField, senderNameField } from "../../../core/rewards.ts";
import { sydneyWallTimeToInstant } from "../../../core/schedule.ts";
import type { ApiClient } from "../../lib/api.server.ts";
import {
  AUTHENTICATION_PATH,
  type CardFields,
  CONFIRMATION_PATH,
  cardFieldErrors,
  dollarsToCents,
  PAY_INTENTS,
  PAYMENT_TEXT,
  parseExpiry,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
  SHOWN_RECIPIENTS,
} from "./payment.ts";

const text = z.string().max(256).optional().default("");

/** When to send (core/schedule.ts): "now", or "later" at a Sydney date and time. */
const scheduleFields = {
  sendWhen: z.enum(["now", "later"]).optional().default("now"),
  sendAt: text,
};
const amountField = z.coerce.number({ error: PAYMENT_TEXT.paymentError }).int().positive().max(Number.MAX_SAFE_INTEGER);

function refineWith(fields: readonly (keyof CardFields)[]) {
  return (value: Partial<Record<keyof CardFields, unknown>>, ctx: z.RefinementCtx) => {
    const errors = cardFieldErrors(value);
    for (const name of fields) {
      for (const message of errors[name] ?? []) ctx.addIssue({ code: "custom", path: [name], message });
    }
  };
}

/** The simulated card form as posted (docs/requirements.md §D6, §D8). */
export const simulatedPaySchema = z
  .object({
    intent: z.literal(PAY_INTENTS.pay),
    amount: amountField,
    rewardName: text,
    message: rewardMessageField,
    senderName: senderNameField,
    ...scheduleFields,
    cardNumber: text,
    expiry: text,
    cvc: text,
    nameOnCard: text,
  })
  .superRefine(refineWith(["rewardName", "sendAt", "cardNumber", "expiry", "cvc", "nameOnCard"]));

/** The Stripe form (its card fields live in Stripe's own frame or page). */
export const stripePaySchema = z
  .object({
    intent: z.enum([PAY_INTENTS.checkout, PAY_INTENTS.stripeIntent]),
    amount: amountField,
    rewardName: text,
    message: rewardMessageField,
    senderName: senderNameField,
    ...scheduleFields,
  })
  .superRefine(refineWith(["rewardName", "sendAt"]));

/** "Request approval" (ADR 0022 §6): the reward name and the total the page showed. */
export const requestApprovalSchema = z
  .object({
    intent: z.literal(PAY_INTENTS.requestApproval),
    amount: amountField,
    rewardName: text,
    message: rewardMessageField,
    senderName: senderNameField,
    ...scheduleFields,
  })
  .superRefine(refineWith(["rewardName", "sendAt"]));

/** 'Preview the email' and the tooltip's save: the message and sender alone (core/rewards.ts rules). */
export const saveMessageSchema = z.object({
  [SAVE_MESSAGE_FIELD]: z.enum([SAVE_MESSAGE_THEN.preview, SAVE_MESSAGE_THEN.stay]),
  message: rewardMessageField,
  senderName: senderNameField,
});

/** The instant a posted schedule names: null for "send now" (checked by the schemas above). */
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
  api: ApiClient,
  log: (details: object, message: string) => void,
): Promise<ReviewData | null> {
  const summary = await api.rewardSummary();
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
  | { state: "succeeded"; amountCents: number; sendAt: string | null }
  | { state: "processing" }
  | { state: "failed"; message: string };

const PENDING = new Set(["processing", "requires_confirmation", "requires_capture", "requires_action"]);

/**
 * POST check-payment-intent (which also releases a paid order, once): succeeded with the
 * amount, still processing, or failed ('Payment Failed'; a failing call adds docs/requirements.md §S8's message).
 */
export async function checkPayment(api: ApiClient, paymentIntent: string): Promise<CheckOutcome> {
  const result = await api.checkPaymentIntent(paymentIntent);
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
  | { kind: "request"; thresholdCents: number; earlier: ApprovalSummary | null }
  | { kind: "requested" | "approved" | "declined"; order: ApprovalSummary };

export function approvalStepOf(totalCents: number, mine: MyDraftApproval | null): ApprovalStep {
  if (!mine || mine.thresholdCents === null || totalCents < mine.thresholdCents) return { kind: "none" };
  const order = mine.order;
  const current = order && !order.draftChanged;
  if (current && (order.state === "requested" || order.state === "approved" || order.state === "declined")) {
    return { kind: order.state, order };
  }
  return { kind: "request", thresholdCents: mine.thresholdCents, earlier: order && !current ? order : null };
}

/** The Review page's data and its approval step, from two API calls made together. */
export async function loadReviewWithApproval(
  api: ApiClient,
  log: (details: object, message: string) => void,
): Promise<(ReviewData & { approval: ApprovalStep }) | null> {
  const [review, mine] = await Promise.all([loadReview(api, log), api.myDraftApproval()]);
  if (!review) return null;
  if (!mine.ok) log({ status: mine.status, detail: mine.detail }, "approval state fetch failed");
  return { ...review, approval: approvalStepOf(review.totalCents, mine.ok ? mine.data : null) };
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
