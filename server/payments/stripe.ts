// The Stripe adapter of the payments port (docs/requirements.md §D6): PaymentIntents for the Payment Element
// (JavaScript on), a Checkout Session for the no-JavaScript path, and the signed webhook. Amounts
// are the order's integer cents in aud; the order id travels in the metadata and the
// idempotency key is derived from it, so a retried call never makes a second payment.
import Stripe from "stripe";
import {
  type CheckoutSession,
  type CheckoutSessionInput,
  type CreatedPayment,
  type CreatePaymentInput,
  type PaymentEvent,
  PaymentProcessorError,
  type PaymentStatus,
  type Payments,
  type RetrievedCheckoutSession,
  type RetrievedPayment,
  WebhookSignatureError,
} from "./port.ts";

export interface StripeOptions {
  secretKey: string;
  webhookSecret?: string;
  /** Tests point the client at msw; production leaves Stripe's defaults. */
  host?: string;
  protocol?: "http" | "https";
  port?: number;
  maxNetworkRetries?: number;
}

export function createStripeClient(options: StripeOptions): Stripe {
  return new Stripe(options.secretKey, {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: options.maxNetworkRetries ?? 2,
    timeout: 20_000,
    appInfo: { name: "reward-portal" },
    ...(options.host ? { host: options.host } : {}),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    ...(options.port ? { port: options.port } : {}),
  });
}

function toRetrieved(pi: Stripe.PaymentIntent): RetrievedPayment {
  const lastError = pi.last_payment_error?.message;
  return {
    paymentIntentId: pi.id,
    status: pi.status as PaymentStatus,
    amountCents: pi.amount,
    currency: pi.currency,
    metadata: { ...(pi.metadata ?? {}) },
    ...(lastError ? { lastError } : {}),
  };
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeInvalidRequestError &&
    (error.code === "resource_missing" || error.statusCode === 404)
  );
}

function processorError(what: string, error: unknown): PaymentProcessorError {
  const message = error instanceof Error ? error.message : String(error);
  return new PaymentProcessorError(`Stripe ${what} failed: ${message}`, { cause: error });
}

export function stripeProcessor(options: StripeOptions, client: Stripe = createStripeClient(options)): Payments {
  return {
    kind: "stripe",

    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      try {
        const pi = await client.paymentIntents.create(
          {
            amount: input.amountCents,
            currency: input.currency,
            metadata: input.metadata,
            automatic_payment_methods: { enabled: true },
            ...(input.description ? { description: input.description } : {}),
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (!pi.client_secret) throw new Error("the PaymentIntent has no client_secret");
        return { paymentIntentId: pi.id, clientSecret: pi.client_secret };
      } catch (error) {
        throw processorError("create PaymentIntent", error);
      }
    },

    async retrieve(paymentIntentId: string): Promise<RetrievedPayment | null> {
      try {
        return toRetrieved(await client.paymentIntents.retrieve(paymentIntentId));
      } catch (error) {
        if (isMissing(error)) return null;
        throw processorError("retrieve PaymentIntent", error);
      }
    },

    async cancel(paymentIntentId: string): Promise<void> {
      try {
        await client.paymentIntents.cancel(paymentIntentId);
      } catch (error) {
        // Already succeeded or canceled: nothing to cancel (the release decides what a paid one means).
        if (error instanceof Stripe.errors.StripeInvalidRequestError) return;
        throw processorError("cancel PaymentIntent", error);
      }
    },

    async refund(input): Promise<{ refundId: string }> {
      try {
        // No amount: the whole payment (Stripe's default).
        const refund = await client.refunds.create(
          { payment_intent: input.paymentIntentId, reason: "requested_by_customer" },
          { idempotencyKey: input.idempotencyKey },
        );
        return { refundId: refund.id };
      } catch (error) {
        throw processorError("refund PaymentIntent", error);
      }
    },

    async createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession> {
      // The PaymentIntent Checkout makes carries the same metadata as the Payment Element's.
      const metadata: Record<string, string> =
        "topUpId" in input
          ? { topUpId: String(input.topUpId), companyId: String(input.companyId) }
          : { orderId: String(input.orderId), companyId: String(input.companyId) };
      const productName =
        "topUpId" in input
          ? "Prepaid balance top-up (no fee; the fee and GST are charged when an order is paid from it)"
          : `Reward Dollars: ${input.rewardName} (incl. service fee and GST)`;
      try {
        const session = await client.checkout.sessions.create(
          {
            mode: "payment",
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: input.currency,
                  unit_amount: input.amountCents,
                  product_data: { name: productName },
                },
              },
            ],
            metadata,
            payment_intent_data: { metadata },
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (!session.url) throw new Error("the Checkout Session has no url");
        return { id: session.id, url: session.url };
      } catch (error) {
        throw processorError("create Checkout Session", error);
      }
    },

    async retrieveCheckoutSession(sessionId: string): Promise<RetrievedCheckoutSession | null> {
      try {
        const session = await client.checkout.sessions.retrieve(sessionId);
        const pi = session.payment_intent;
        return {
          id: session.id,
          paymentIntentId: typeof pi === "string" ? pi : (pi?.id ?? null),
          paymentStatus: session.payment_status,
          status: session.status ?? "open",
          metadata: { ...(session.metadata ?? {}) },
        };
      } catch (error) {
        if (isMissing(error)) return null;
        throw processorError("retrieve Checkout Session", error);
      }
    },

    async expireCheckoutSession(sessionId: string): Promise<void> {
      try {
        await client.checkout.sessions.expire(sessionId);
      } catch (error) {
        // Already complete or expired: nothing to expire (a completed one's payment is settled).
        if (error instanceof Stripe.errors.StripeInvalidRequestError) return;
        throw processorError("expire Checkout Session", error);
      }
    },

    verifyWebhook(rawBody: string, signature: string | undefined): PaymentEvent {
      if (!options.webhookSecret) throw new WebhookSignatureError("The webhook is not configured.");
      if (!signature) throw new WebhookSignatureError("The stripe-signature header is missing.");
      let event: Stripe.Event;
      try {
        event = client.webhooks.constructEvent(rawBody, signature, options.webhookSecret);
      } catch {
        throw new WebhookSignatureError();
      }
      if (event.type === "payment_intent.succeeded" || event.type === "payment_intent.payment_failed") {
        return { type: event.type, id: event.id, payment: toRetrieved(event.data.object as Stripe.PaymentIntent) };
      }
      return { type: "other", id: event.id, eventType: event.type };
    },
  };
}
