// Browser-safe pieces of the payment pages (docs/requirements.md §S2 Reward My Team Review and Payment
// Confirmation, §S8 payment errors, §S9 the 2-second check; §D6 the simulated card, §D8 its
// labels): the texts, the card form's labels and the money display. The card form's rules are
// the zod/mini schemas of modules/orders/card-form.ts (ADR 0017), imported by the pages that post them.
import { href } from "react-router";
import { PAYMENT_ERROR } from "../../../core/card.ts";
import { REWARD_MESSAGE_MAX } from "../../../core/limits.ts";
import { formatDollars } from "../../../core/money.ts";

export {
  CARD_MESSAGES,
  PAY_INTENTS,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
} from "../../../core/card.ts";
export { DASHBOARD_PATH } from "../portal/portal-pages.ts";

export const REVIEW_PATH = href("/portal/reward-my-team-review");
export const DRAFT_PATH = href("/portal/reward-my-team");
export const CONFIRMATION_PATH = href("/portal/payment-confirmation");
export const AUTHENTICATION_PATH = href("/portal/payment-authentication");
export const EMAIL_SAMPLE_PATH = href("/portal/reward-email-sample");

/** The pay button's place when an Owner must approve first (ADR 0022 §6). */
export const REQUEST_APPROVAL_TEXT = "Request approval";

/** The review page lists this many recipients; the rest are counted ('and N more'). */
export const SHOWN_RECIPIENTS = 100;

/** docs/requirements.md §S9: the confirmation page waits 2 seconds before checking the payment. */
export const CHECK_DELAY_MS = 2000;
/** A payment still processing is checked again, every 2 seconds, this many times in all. */
export const MAX_CHECKS = 15;

export const PAYMENT_TEXT = {
  loading: "Loading rewards...",
  noRewards: "No rewards to process",
  goBack: "Go Back & Edit",
  rewardNameHelp: "Give this reward a name: it identifies the reward later in your Reward History.",
  processing: "Hold tight - Your payment is currently being processed",
  successTitle: "Payment Successful",
  failed: "Payment Failed: Your payment could not be processed. Please try again or contact us.",
  checkError: "An error occurred while processing the payment. Please try again.",
  paymentError: PAYMENT_ERROR,
  backToDashboard: "Back to Dashboard",
  sampleOfEmail: "Sample of Email",
  messageHelp: `Optional. Shown in every recipient's email, line breaks and all (up to ${REWARD_MESSAGE_MAX} characters).`,
  senderNameHelp: "The name the email says the reward is from.",
  previewEmail: "Preview the email",
  paidFromBalance: "Paid from the company balance.",
  balanceHeading: "Pay from the company balance",
} as const;

/** The balance option's button (ADR 0043): the total, like the card's. */
export function payFromBalanceText(totalCents: number): string {
  return `Pay ${formatDollars(totalCents)} from the company balance`;
}

/** When the balance does not cover the order: what it holds and how much is missing. */
export function balanceShortText(balanceCents: number, totalCents: number): string {
  return `Your company balance is ${formatDollars(balanceCents)}, ${formatDollars(totalCents - balanceCents)} short of this order's total.`;
}

/** docs/requirements.md §S2: 'Your payment of $<amount> has been successfully processed. …' */
export function successText(amountCents: number): string {
  return `Your payment of ${formatDollars(amountCents)} has been successfully processed. You will receive an email confirmation shortly. Emails are being sent to reward recipients.`;
}

/** docs/requirements.md §S2: 'Pay $<total, 2 decimals> and Send Emails'. */
export function payButtonText(totalCents: number): string {
  return `Pay ${formatDollars(totalCents)} and Send Emails`;
}

/** Dollars as the API answers them (numbers with two decimals) → integer cents. */
export function dollarsToCents(dollars: unknown): number {
  const value = typeof dollars === "number" ? dollars : Number(dollars);
  return Number.isFinite(value) ? Math.round(value * 100) : 0;
}

/** 'Full Name ($amount)': whole Reward Dollars as a plain dollar figure. */
export function recipientLabel(fullName: string, rewardDollars: number | null | undefined): string {
  return `${fullName} (${formatDollars(dollarsToCents(rewardDollars ?? 0))})`;
}

// The simulated card form (docs/requirements.md §D6, §D8). Its rules are the schemas of
// modules/orders/card-form.ts, which the browser and the route actions both parse with (ADR 0017); its
// messages are in core/card.ts.

export const CARD_LABELS = {
  rewardName: "Reward Name",
  message: "Message to recipients",
  senderName: "From",
  sendWhen: "When to send",
  sendAt: "Send at (Sydney time)",
  cardNumber: "Card number",
  expiry: "Expiry (MM/YY)",
  cvc: "CVC",
  nameOnCard: "Name on card",
} as const;

/** The simulated card's entries: never sent anywhere but the payment itself. */
export const CARD_ENTRY_FIELDS = ["cardNumber", "expiry", "cvc", "nameOnCard"] as const;

export type CardFields = {
  rewardName: string;
  message: string;
  senderName: string;
  /** "now" (once paid) or "later" (at sendAt). */
  sendWhen: string;
  /** Sydney wall-clock time as a datetime-local field posts it: "2026-12-01T09:00". */
  sendAt: string;
  cardNumber: string;
  expiry: string;
  cvc: string;
  nameOnCard: string;
  amount: string;
};
