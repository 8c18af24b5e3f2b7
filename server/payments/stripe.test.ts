// The Stripe adapter on its own, msw standing in for Stripe's API: statuses and errors mapped
// to the port, webhook signatures checked by the stripe package.
import { HttpResponse, http } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { setupMswServer } from "../../tests/support/msw.ts";
import { PaymentProcessorError, WebhookSignatureError } from "./port.ts";
import { fakeStripe, STRIPE_API, signedEvent, TEST_WEBHOOK_SECRET } from "./stripe.testkit.ts";
import { stripeProcessor } from "./stripe.ts";

const server = setupMswServer();

describe("stripeProcessor", () => {
  let stripe: ReturnType<typeof fakeStripe>;
  let payments: ReturnType<typeof stripeProcessor>;
  beforeEach(() => {
    stripe = fakeStripe();
    server.use(...stripe.handlers);
    // Made after msw patched fetch: the stripe package's fetch client keeps the fetch it was given.
    payments = stripeProcessor({ secretKey: "sk_test_key", webhookSecret: TEST_WEBHOOK_SECRET, maxNetworkRetries: 0 });
  });
  const input = {
    orderId: 3,
    amountCents: 5550,
    currency: "aud" as const,
    idempotencyKey: "order-3-payment",
    metadata: { orderId: "3", companyId: "1" },
  };

  it("creates and retrieves a PaymentIntent; a decline carries Stripe's message", async () => {
    const created = await payments.createPayment(input);
    expect(created).toEqual({ paymentIntentId: "pi_test_1", clientSecret: "pi_test_1_secret_abc" });
    stripe.decline("pi_test_1");
    expect(await payments.retrieve("pi_test_1")).toEqual({
      paymentIntentId: "pi_test_1",
      status: "requires_payment_method",
      amountCents: 5550,
      currency: "aud",
      metadata: { orderId: "3", companyId: "1" },
      lastError: "Your card was declined.",
    });
    expect(await payments.retrieve("pi_missing")).toBeNull();
  });

  it("cancels, and treats cancelling a finished payment as nothing to do", async () => {
    await payments.createPayment(input);
    await payments.cancel("pi_test_1");
    expect(stripe.intents.get("pi_test_1")?.status).toBe("canceled");
    server.use(
      http.post(`${STRIPE_API}/payment_intents/:id/cancel`, () =>
        HttpResponse.json(
          { error: { type: "invalid_request_error", code: "payment_intent_unexpected_state", message: "no" } },
          { status: 400 },
        ),
      ),
    );
    await expect(payments.cancel("pi_test_1")).resolves.toBeUndefined();
  });

  it("refunds a succeeded payment in full, once per idempotency key", async () => {
    await payments.createPayment(input);
    stripe.succeed("pi_test_1");
    const first = await payments.refund({ paymentIntentId: "pi_test_1", idempotencyKey: "order-3-refund" });
    const again = await payments.refund({ paymentIntentId: "pi_test_1", idempotencyKey: "order-3-refund" });
    expect(first.refundId).toMatch(/^re_test_/);
    expect(again).toEqual(first);
    const sent = stripe.requests.filter((r) => r.path === "/refunds");
    expect(sent.map((r) => [r.idempotencyKey, r.form.get("payment_intent"), r.form.get("amount")])).toEqual([
      ["order-3-refund", "pi_test_1", null],
      ["order-3-refund", "pi_test_1", null],
    ]);
    stripe.setDown(true);
    await expect(payments.refund({ paymentIntentId: "pi_test_1", idempotencyKey: "k" })).rejects.toBeInstanceOf(
      PaymentProcessorError,
    );
  });

  it("reports an outage as a PaymentProcessorError", async () => {
    stripe.setDown(true);
    await expect(payments.createPayment(input)).rejects.toBeInstanceOf(PaymentProcessorError);
  });

  it("verifies webhook signatures", async () => {
    const pi = { ...stripe.succeed((await payments.createPayment(input)).paymentIntentId) };
    const event = signedEvent("payment_intent.succeeded", pi, TEST_WEBHOOK_SECRET, "evt_1");
    expect(payments.verifyWebhook?.(event.payload, event.header)).toEqual({
      type: "payment_intent.succeeded",
      id: "evt_1",
      payment: {
        paymentIntentId: "pi_test_1",
        status: "succeeded",
        amountCents: 5550,
        currency: "aud",
        metadata: { orderId: "3", companyId: "1" },
      },
    });
    expect(() => payments.verifyWebhook?.(event.payload, undefined)).toThrow(WebhookSignatureError);
    expect(() => payments.verifyWebhook?.(`${event.payload} `, event.header)).toThrow(WebhookSignatureError);
    const foreign = signedEvent("payment_intent.succeeded", pi, "whsec_other");
    expect(() => payments.verifyWebhook?.(foreign.payload, foreign.header)).toThrow(WebhookSignatureError);
    const unsigned = stripeProcessor({ secretKey: "sk_test_key", maxNetworkRetries: 0 });
    expect(() => unsigned.verifyWebhook?.(event.payload, event.header)).toThrow(WebhookSignatureError);
  });
});
