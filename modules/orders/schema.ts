// The payment calls of docs/requirements.md §S7 (/StripePayment/*) and the simulated card processor's calls:
// request schemas, answers and the API's refusals word for word. Pure code: shared
// by the provider API and the web (the browser bundle may import it).
import * as z from "zod/mini";
import { rewardWordingSchema } from "../reward-drafts/schema.ts";

/** The API's refusals (problem+json `detail`). */
export const PAYMENT_DETAILS = {
  emptyDraft: "There are no rewards to pay for; add recipients and their amounts first.",
  zeroTotal: "The total of Reward Dollars is $0; give at least one recipient an amount.",
  nameRequired: "Reward Name is required.",
  overLimit:
    "The total is more than a single card payment can take ($999,999.98); please split the reward into smaller ones.",
  amountChanged: "The reward list has changed; please review the new total.",
  stale: "The reward list has changed since this payment was started; please review the new total and pay again.",
  processorUnavailable: "The card payment service is unavailable at the moment. Please try again.",
  notSimulated: "The simulated card processor is not in use.",
  notStripe: "Stripe payments are not in use.",
  webhookSignature: "The webhook signature is not valid.",
  webhookNotConfigured: "The webhook is not configured.",
  paymentMismatch: "The payment does not match its order (amount, currency or company); nothing was released.",
  /** The portal sends such a manager to the company-details screen (docs/requirements.md §S4 portal gate). */
  companyDetailsRequired: "Please add your company details (including your ABN) before paying for rewards.",
  /** docs/requirements.md §S8: the payment form's fallback and the check failure. */
  paymentError: "There was an error with your payment",
  checkFailed: "An error occurred while processing the payment. Please try again.",
  /** The balance pays for the portal too (ADR 0043): one way of paying per reward list. */
  paidFromBalance: "This reward list is already being paid from the company balance.",
  cardUnderWay:
    "A card payment for this reward list has already been made or is still being processed, so it was not paid from the company balance.",
} as const;

const id = (name: string) =>
  z
    .string({ error: `${name} is required.` })
    .check(z.trim(), z.minLength(1, `${name} is required.`), z.maxLength(255, `${name} is too long.`));

/** POST /StripePayment/create-payment-intent: docs/requirements.md §S9 "amount multiplied by 100 to cents". */
export const createPaymentIntentSchema = z.object({
  amount: z
    .number({ error: "amount (in cents) is required." })
    .check(z.int("amount must be a whole number of cents."), z.minimum(0, "amount must not be negative.")),
  /** Optional: the draft's reward name is used when absent. */
  rewardName: z.optional(z.string().check(z.trim(), z.maxLength(100, "Reward Name must be at most 100 characters."))),
  /** Optional: saved to the draft before it is frozen, in the same transaction (its rewardName wins). */
  wording: z.optional(rewardWordingSchema),
});
export type CreatePaymentIntentRequest = z.input<typeof createPaymentIntentSchema>;

export interface CreatePaymentIntentResponse {
  clientSecret: string;
  paymentIntentId: string;
  orderId: number;
  /** The order total in cents (what the payment is for). */
  amount: number;
  processor: "simulated" | "stripe";
}

/**
 * POST /Balance/pay-order: the caller's reward list (or its approved order) paid from the company's
 * prepaid balance, with the body of create-payment-intent. Amounts in cents.
 */
export interface PayOrderResponse {
  orderId: number;
  amount: number;
  /** The company balance after the charge. */
  balance: number;
  /** When the emails go out (ISO 8601); null: released now. */
  sendAt: string | null;
}

/** POST /StripePayment/create-checkout-session (Stripe without JavaScript): same body. */
export interface CreateCheckoutSessionResponse {
  url: string;
  orderId: number;
  amount: number;
}

/** POST /StripePayment/check-payment-intent. `paymentIntent` may also be a Checkout Session id (cs_…). */
export const checkPaymentIntentSchema = z.object({ paymentIntent: id("paymentIntent") });

export type CheckedPaymentStatus = "succeeded" | "processing" | "requires_action" | "failed";

export interface CheckPaymentIntentResponse {
  /** The order total in dollars with two decimals (111 for $111.00). */
  amount: number;
  status: CheckedPaymentStatus;
  /** The processor's message when the payment failed. */
  message?: string;
  /** Not in SPEC: a scheduled reward's send time (ISO 8601); its emails go out then. */
  sendAt?: string;
}

/** The simulated card form's fields (docs/requirements.md §D8 labels), an order's and a top-up's alike. */
export const simulatedCardFields = {
  cardNumber: z._default(z.string().check(z.maxLength(40, "Your card number is invalid.")), ""),
  expiry: z._default(z.string().check(z.maxLength(10, "Your card's expiry date is invalid; use MM/YY.")), ""),
  cvc: z._default(
    z.string().check(z.maxLength(10, "Your card's security code is invalid; use the 3 or 4 digits on the card.")),
    "",
  ),
  nameOnCard: z._default(z.string().check(z.maxLength(100, "Name on card must be at most 100 characters.")), ""),
};

/** POST /StripePayment/confirm-simulated-payment: the simulated card form (docs/requirements.md §D8 labels). */
export const confirmSimulatedPaymentSchema = z.object({
  paymentIntent: id("paymentIntent"),
  clientSecret: id("clientSecret"),
  ...simulatedCardFields,
});
export type ConfirmSimulatedPaymentRequest = z.input<typeof confirmSimulatedPaymentSchema>;

/** The card fields of the simulated form, as the API names them. */
export type SimulatedCardField = "cardNumber" | "expiry" | "cvc" | "nameOnCard";

/**
 * The simulated processor's answer (200), like Stripe.js's confirm result: succeeded;
 * requires_action (show the authentication step); or failed with the processor's message
 * ('Your card was declined.') and, for an invalid field, which one.
 */
export interface SimulatedPaymentResponse {
  status: "succeeded" | "requires_action" | "failed";
  paymentIntentId: string;
  /** Present with requires_action: show the authentication step (complete or fail). */
  nextAction?: "authenticate";
  message?: string;
  field?: SimulatedCardField;
}

/** POST /StripePayment/complete-simulated-authentication: the authentication page's answer. */
export const completeSimulatedAuthenticationSchema = z.object({
  paymentIntent: id("paymentIntent"),
  clientSecret: id("clientSecret"),
  outcome: z.enum(["complete", "fail"], { error: "outcome must be complete or fail." }),
});
export type CompleteSimulatedAuthenticationRequest = z.input<typeof completeSimulatedAuthenticationSchema>;

/** POST /StripePayment/get-simulated-payment: what the authentication page shows. */
export const simulatedPaymentQuerySchema = z.object({
  paymentIntent: id("paymentIntent"),
  clientSecret: id("clientSecret"),
});

export interface SimulatedPaymentInfo {
  paymentIntentId: string;
  status: string;
  /** Dollars with two decimals. */
  amount: number;
  rewardName: string;
}
