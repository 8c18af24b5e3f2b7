// Browser-safe pieces of the payment pages (docs/requirements.md §S2 Reward My Team Review and Payment
// Confirmation, §S8 payment errors, §S9 the 2-second check; §D6 the simulated card, §D8 its
// labels): the texts, the card form's rules (no zod: the browser bundle stays small; the server
// checks the same rules with zod in payment.server.ts) and the money display.
import { parse } from "@conform-to/react";
import { href } from "react-router";
import { cardDigits, isCardNumber } from "../../../core/card.ts";
import { LIMITS, REWARD_MESSAGE_MAX, REWARD_NAME_MAX } from "../../../core/limits.ts";
import { formatDollars } from "../../../core/money.ts";
import { REWARD_DETAILS } from "../../../core/rewards.ts";
import { SCHEDULE_DETAILS, sydneyWallTimeToInstant } from "../../../core/schedule.ts";

export { DASHBOARD_PATH } from "../portal/portal-pages.ts";

export const REVIEW_PATH = href("/portal/reward-my-team-review");
export const DRAFT_PATH = href("/portal/reward-my-team");
export const CONFIRMATION_PATH = href("/portal/payment-confirmation");
export const AUTHENTICATION_PATH = href("/portal/payment-authentication");
export const EMAIL_SAMPLE_PATH = href("/portal/reward-email-sample");

/** What each post to the Review action asks for (the field `intent`). */
export const PAY_INTENTS = {
  /** The simulated card form (no JavaScript needed). */
  pay: "pay",
  /** Stripe without JavaScript: off to a Stripe Checkout page. */
  checkout: "checkout",
  /** Stripe with JavaScript: the Payment Element asks for a payment to confirm. */
  stripeIntent: "stripe-intent",
  /** A Manager's order at or above the approval threshold (ADR 0022 §6): freeze it for an Owner. */
  requestApproval: "request-approval",
} as const;

/**
 * The field a post carries to save the message and sender alone, beside the payment form's own
 * intent: the 'Preview the email' button (then the sample page) and, with JavaScript, the
 * sample tooltip (then the sample in place). No payment is made.
 */
export const SAVE_MESSAGE_FIELD = "saveMessage";
export const SAVE_MESSAGE_THEN = { preview: "preview", stay: "stay" } as const;

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
  paymentError: "There was an error with your payment",
  backToDashboard: "Back to Dashboard",
  sampleOfEmail: "Sample of Email",
  messageHelp: `Optional. Shown in every recipient's email, line breaks and all (up to ${REWARD_MESSAGE_MAX} characters).`,
  senderNameHelp: "The name the email says the reward is from.",
  previewEmail: "Preview the email",
} as const;

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

// The simulated card form (docs/requirements.md §D6, §D8). The messages are the API's own words (core/rewards.ts
// REWARD_DETAILS, server/payments/simulated.ts CARD_MESSAGES), repeated here so the browser bundle
// stays free of zod and server code; the API stays the judge.

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

export const CARD_MESSAGES = {
  rewardNameRequired: "Reward Name is required.",
  rewardNameTooLong: `Reward Name must be at most ${REWARD_NAME_MAX} characters.`,
  cardNumberRequired: "Card number is required.",
  cardNumberInvalid: "Your card number is invalid.",
  expiryRequired: "Expiry is required.",
  expiryInvalid: "Your card's expiry date is invalid; use MM/YY.",
  expiryPast: "Your card's expiry date is in the past.",
  cvcRequired: "CVC is required.",
  cvcInvalid: "Your card's security code is invalid; use the 3 or 4 digits on the card.",
  nameOnCardRequired: "Name on card is required.",
  nameOnCardTooLong: "Name on card must be at most 64 characters.",
} as const;

/** MM/YY (also MM / YY, MMYY) → month and four-digit year, or null. */
export function parseExpiry(expiry: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!match) return null;
  const month = Number(match[1]);
  const rawYear = Number(match[2]);
  if (month < 1 || month > 12) return null;
  return { month, year: rawYear < 100 ? 2000 + rawYear : rawYear };
}

/** The message for each card field that fails, by field name (the server checks the same). */
export function cardFieldErrors(values: Partial<Record<keyof CardFields, unknown>>, now = new Date()) {
  const text = (name: keyof CardFields) => {
    const value = values[name];
    return typeof value === "string" ? value.trim() : "";
  };
  const errors: Partial<Record<keyof CardFields, string[]>> = {};
  const rewardName = text("rewardName");
  if (!rewardName) errors.rewardName = [CARD_MESSAGES.rewardNameRequired];
  else if (rewardName.length > REWARD_NAME_MAX) errors.rewardName = [CARD_MESSAGES.rewardNameTooLong];
  Object.assign(errors, messageFieldErrors(values));

  const digits = cardDigits(text("cardNumber"));
  if (!digits) errors.cardNumber = [CARD_MESSAGES.cardNumberRequired];
  else if (!isCardNumber(digits)) errors.cardNumber = [CARD_MESSAGES.cardNumberInvalid];

  const expiryText = text("expiry");
  const expiry = parseExpiry(expiryText);
  if (!expiryText) errors.expiry = [CARD_MESSAGES.expiryRequired];
  else if (!expiry) errors.expiry = [CARD_MESSAGES.expiryInvalid];
  else if (expiry.year * 12 + expiry.month < now.getFullYear() * 12 + now.getMonth() + 1) {
    errors.expiry = [CARD_MESSAGES.expiryPast];
  }

  const cvc = text("cvc");
  if (!cvc) errors.cvc = [CARD_MESSAGES.cvcRequired];
  else if (!/^\d{3,4}$/.test(cvc)) errors.cvc = [CARD_MESSAGES.cvcInvalid];

  const nameOnCard = text("nameOnCard");
  if (!nameOnCard) errors.nameOnCard = [CARD_MESSAGES.nameOnCardRequired];
  else if (nameOnCard.length > 64) errors.nameOnCard = [CARD_MESSAGES.nameOnCardTooLong];
  return errors;
}

/**
 * The message and sender as core/rewards.ts checks them on the server (length after Windows line
 * ends become one character; a sender's name on one line).
 */
export function messageFieldErrors(values: Partial<Record<keyof CardFields, unknown>>) {
  const errors: Partial<Record<"message" | "senderName" | "sendAt", string[]>> = {};
  // A scheduled send needs a real date and time; whether it is 10 minutes to 90 days ahead is the
  // server's to say (its clock).
  if (values.sendWhen === "later") {
    const sendAt = typeof values.sendAt === "string" ? values.sendAt.trim() : "";
    if (!sendAt) errors.sendAt = [SCHEDULE_DETAILS.required];
    else if (!sydneyWallTimeToInstant(sendAt)) errors.sendAt = [SCHEDULE_DETAILS.invalid];
  }
  const message = typeof values.message === "string" ? values.message.replace(/\r\n?/g, "\n").trim() : "";
  if (message.length > REWARD_MESSAGE_MAX) errors.message = [REWARD_DETAILS.messageTooLong];
  const senderName = typeof values.senderName === "string" ? values.senderName.trim() : "";
  if (senderName.length > LIMITS.name) errors.senderName = [REWARD_DETAILS.senderNameTooLong];
  return errors;
}

/** conform's `onValidate` for the card form. */
export function validateCardForm(formData: FormData) {
  return parse<CardFields, string[]>(formData, {
    resolve(payload) {
      const error = cardFieldErrors(payload as Partial<Record<keyof CardFields, unknown>>);
      return Object.keys(error).length > 0
        ? { error: error as Record<string, string[]> }
        : { value: payload as CardFields };
    },
  });
}

/** 'Preview the email': the message and sender alone (nothing else is saved or paid). */
export function validateMessageFields(formData: FormData) {
  return parse<CardFields, string[]>(formData, {
    resolve(payload) {
      const error = messageFieldErrors(payload as Partial<Record<keyof CardFields, unknown>>);
      return Object.keys(error).length > 0 ? { error } : { value: payload as CardFields };
    },
  });
}

/** The reward name alone (the Stripe form, whose card fields live in Stripe's frame). */
export function validateRewardName(formData: FormData) {
  return parse<CardFields, string[]>(formData, {
    resolve(payload) {
      const { rewardName, message, senderName } = cardFieldErrors(
        payload as Partial<Record<keyof CardFields, unknown>>,
      );
      const error = {
        ...(rewardName ? { rewardName } : {}),
        ...(message ? { message } : {}),
        ...(senderName ? { senderName } : {}),
      };
      return Object.keys(error).length > 0 ? { error } : { value: payload as CardFields };
    },
  });
}
