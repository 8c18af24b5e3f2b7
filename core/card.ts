// The simulated card form's pure parts (docs/requirements.md §D6, §D8; §S8 payment errors), free of
// zod: card numbers (the simulated processor, server/payments/simulated.ts, and the log scan of the
// security suite share them), the expiry as people type it, the form's messages and what its
// posts ask for. Every page of the payment area imports these; the schemas built on them are in
// card-form.ts.
import { REWARD_NAME_MAX } from "./limits.ts";

/** The number as typed, without the spaces or dashes people put between groups. */
export function cardDigits(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, "");
}

/** The Luhn check every real card number passes (Stripe's test cards do). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** 12 to 19 digits that pass the Luhn check: a number a processor would try. */
export function isCardNumber(digits: string): boolean {
  return /^\d{12,19}$/.test(digits) && luhnValid(digits);
}

/**
 * MM/YY (also MM / YY, MMYY, MM/YYYY) → month and four-digit year, or null. The spaces around
 * the slash are read by one `\s*` each side of it, so a long post of spaces cannot make the
 * pattern backtrack.
 */
export function parseExpiry(expiry: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*(?:\/\s*)?(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!match) return null;
  const month = Number(match[1]);
  const rawYear = Number(match[2]);
  if (month < 1 || month > 12) return null;
  return { month, year: rawYear < 100 ? 2000 + rawYear : rawYear };
}

/** A card is valid to the end of its expiry month (the month of `now` on this machine's clock). */
export function expiryHasPassed(expiry: { month: number; year: number }, now: Date): boolean {
  return expiry.year * 12 + expiry.month < now.getFullYear() * 12 + now.getMonth() + 1;
}

/** The name on a card is at most this long. */
export const NAME_ON_CARD_MAX = 64;

/**
 * The card form's messages: the API's own words (modules/reward-drafts/schema.ts REWARD_DETAILS for the reward
 * name, server/payments/simulated.ts CARD_MESSAGES for the card; app/features/payment/payment.test.ts
 * proves they agree), repeated here so this module stays free of zod and server code.
 */
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
  nameOnCardTooLong: `Name on card must be at most ${NAME_ON_CARD_MAX} characters.`,
} as const;

/** docs/requirements.md §S8: a payment error without a message of its own. */
export const PAYMENT_ERROR = "There was an error with your payment";

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
  /**
   * Pay from the company's prepaid balance (ADR 0043): named after its API route,
   * POST /api/Balance/pay-order (ADR 0032). A button of the payment form, after its card button.
   */
  payOrder: "pay-order",
} as const;

/**
 * The field a post carries to save the message and sender alone, beside the payment form's own
 * intent: the 'Preview the email' button (then the sample page) and, with JavaScript, the
 * sample tooltip (then the sample in place). No payment is made.
 */
export const SAVE_MESSAGE_FIELD = "saveMessage";
export const SAVE_MESSAGE_THEN = { preview: "preview", stay: "stay" } as const;
