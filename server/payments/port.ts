// The payments port (docs/requirements.md §D6): Stripe PaymentIntents in production (stripe.ts), the
// built-in simulated card processor by default (simulated.ts). The domain only ever sees this
// shape: a payment made for an order's frozen total (or a prepaid balance top-up, ADR 0043),
// with the order or top-up id in its metadata and an idempotency key derived from it, and its
// status read back from the processor.

/** Stripe's statuses, plus `failed` for a declined attempt (Stripe says requires_payment_method + an error). */
export type PaymentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "requires_capture"
  | "succeeded"
  | "canceled"
  | "failed";

export interface CreatePaymentInput {
  /** The order paid (absent for a top-up: its metadata names it). */
  orderId?: number;
  amountCents: number;
  currency: "aud";
  /** Derived from the order id: creating twice for one order gives the same payment. */
  idempotencyKey: string;
  /** Read back by the webhook, the check call and the reconciler: the payment must name its order and company. */
  metadata: PaymentMetadata;
  description?: string;
}

/** What a payment carries about what it pays (Stripe metadata values are strings). */
export type PaymentMetadata = OrderPaymentMetadata | TopUpPaymentMetadata;

/** An order's payment. */
export type OrderPaymentMetadata = {
  orderId: string;
  companyId: string;
};

/**
 * A top-up of a company's prepaid balance (ADR 0043): names the top-up and never an order, so
 * the webhook and the reconciler route it to the balance, and no order path can release on it.
 */
export type TopUpPaymentMetadata = {
  topUpId: string;
  companyId: string;
};

export interface CreatedPayment {
  paymentIntentId: string;
  clientSecret: string;
}

export interface RetrievedPayment {
  paymentIntentId: string;
  status: PaymentStatus;
  amountCents: number;
  currency: string;
  metadata: Record<string, string>;
  /** The processor's message for the last failed attempt (e.g. 'Your card was declined.'). */
  lastError?: string;
}

export type CheckoutSessionInput = {
  companyId: number;
  amountCents: number;
  currency: "aud";
  idempotencyKey: string;
  /** May contain Stripe's literal `{CHECKOUT_SESSION_ID}` placeholder. */
  successUrl: string;
  cancelUrl: string;
} & ({ orderId: number; rewardName: string } | { topUpId: number });

export interface CheckoutSession {
  id: string;
  url: string;
}

export interface RetrievedCheckoutSession {
  id: string;
  paymentIntentId: string | null;
  /** Stripe's payment_status: paid | unpaid | no_payment_required. */
  paymentStatus: string;
  /** Stripe's status: open (can still be paid), complete or expired. */
  status: string;
  metadata: Record<string, string>;
}

/** A verified webhook event, reduced to what the domain acts on. */
export type PaymentEvent =
  | { type: "payment_intent.succeeded"; id: string; payment: RetrievedPayment }
  | { type: "payment_intent.payment_failed"; id: string; payment: RetrievedPayment }
  | { type: "other"; id: string; eventType: string };

export class WebhookSignatureError extends Error {
  constructor(message = "The webhook signature is not valid.") {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

/** The processor could not be reached or refused the request (not a card decline). */
export class PaymentProcessorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaymentProcessorError";
  }
}

export interface Payments {
  kind: "simulated" | "stripe";
  createPayment(input: CreatePaymentInput): Promise<CreatedPayment>;
  /** Null when the processor does not know the id. */
  retrieve(paymentIntentId: string): Promise<RetrievedPayment | null>;
  /** Cancels a payment that can no longer be paid (its order was superseded); no-op when final. */
  cancel(paymentIntentId: string): Promise<void>;
  /**
   * Refunds a succeeded payment in full (a scheduled reward cancelled before its release). The
   * idempotency key makes a retry the same refund; answers the processor's refund id.
   */
  refund(input: { paymentIntentId: string; idempotencyKey: string }): Promise<{ refundId: string }>;
  /** Stripe only: the hosted Checkout page of the no-JavaScript path. */
  createCheckoutSession?(input: CheckoutSessionInput): Promise<CheckoutSession>;
  retrieveCheckoutSession?(sessionId: string): Promise<RetrievedCheckoutSession | null>;
  /** Stripe only: a Checkout Session that can no longer be paid (its order was superseded); no-op when complete. */
  expireCheckoutSession?(sessionId: string): Promise<void>;
  /** Stripe only: verifies the `stripe-signature` header over the raw body; throws WebhookSignatureError. */
  verifyWebhook?(rawBody: string, signature: string | undefined): PaymentEvent;
  /**
   * Simulated only: the card form's submit, null when the id and client secret do not match a
   * payment. A declined or invalid card leaves the payment payable with another card.
   */
  confirmCard?(input: SimulatedPaymentRef & SimulatedCard, now: Date): Promise<SimulatedConfirmResult | null>;
  /** Simulated only: the authentication step's answer (`complete` or `fail`); null as above. */
  completeAuthentication?(
    input: SimulatedPaymentRef & { outcome: "complete" | "fail" },
    now: Date,
  ): Promise<SimulatedConfirmResult | null>;
}

/** A simulated payment as its card form names it: the id and its client secret. */
export interface SimulatedPaymentRef {
  paymentIntentId: string;
  clientSecret: string;
}

/** The simulated processor's card form (simulated.ts). */
export interface SimulatedCard {
  cardNumber: string;
  /** MM/YY (MM/YYYY accepted). */
  expiry: string;
  cvc: string;
  nameOnCard: string;
}

export type SimulatedConfirmResult =
  | { status: "succeeded" | "requires_action"; paymentIntentId: string }
  | { status: "failed"; paymentIntentId: string; message: string; field?: keyof SimulatedCard };

/** The idempotency key of an order's payment: one order, one payment. */
export function paymentIdempotencyKey(orderId: number): string {
  return `order-${orderId}-payment`;
}

/** The idempotency key of an order's refund: one order, at most one refund. */
export function refundIdempotencyKey(orderId: number): string {
  return `order-${orderId}-refund`;
}

/** The idempotency key of a top-up's payment: one top-up, one payment. */
export function topUpPaymentIdempotencyKey(topUpId: number): string {
  return `top-up-${topUpId}-payment`;
}

/** Stripe's largest amount for a card payment in AUD: $999,999.99. An order must stay below it. */
export const MAX_PAYMENT_CENTS = 99_999_999;
