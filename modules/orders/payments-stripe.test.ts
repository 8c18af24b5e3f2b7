// The payment calls with the Stripe adapter, msw standing in for Stripe's API and
// webhook signatures made by the stripe package: the PaymentIntent for the order's total with
// its idempotency key and metadata, the check call, the signed webhook (release once under
// replays, failures, bad signatures), the Checkout path without JavaScript.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { emailOutbox, orders, rewardLedger, rewardReleases } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { call } from "../identity/accounts.testkit.ts";
import { payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";
import type { CheckPaymentIntentResponse, CreatePaymentIntentResponse } from "./schema.ts";
import { PAYMENT_DETAILS } from "./schema.ts";

const server = setupMswServer();

describeEachDatabase("StripePayment calls with Stripe", ({ database }) => {
  const config = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    // A deployment URL: it starts only with real mail and a session secret (docs/requirements.md §D3).
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "payments-stripe-test-session-secret-0123456789",
  });
  const db = (): Db => database().db;
  let stripe: ReturnType<typeof fakeStripe>;
  beforeEach(async () => {
    await truncateAll(db());
    stripe = fakeStripe();
    server.use(...stripe.handlers);
  });

  async function setup(amounts = [60, 40]) {
    const payments = stripeProcessor({
      secretKey: "sk_test_key",
      webhookSecret: TEST_WEBHOOK_SECRET,
      maxNetworkRetries: 0,
    });
    const ctx = paymentsApi(db(), { config, payments });
    const manager = await payingManager(ctx.api, db());
    const members = await seedDraft(db(), manager, amounts);
    return { ...ctx, manager, members };
  }

  const count = async (table: typeof orders | typeof rewardReleases | typeof rewardLedger) => {
    const [row] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(table as typeof orders);
    return row?.n ?? 0;
  };
  const rewardEmails = async () =>
    (await db().select().from(emailOutbox)).filter((e) => !/verification code/i.test(e.subject));

  const webhook = (api: Awaited<ReturnType<typeof setup>>["api"], payload: string, signature?: string) =>
    api.request("/api/StripePayment/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
      body: payload,
    });

  it("creates a PaymentIntent for the order's total in aud, with the order id in metadata and an idempotency key from it", async () => {
    const { manager } = await setup([100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    expect(created).toMatchObject({ amount: 11100, processor: "stripe", clientSecret: "pi_test_1_secret_abc" });
    const [request] = stripe.requests;
    expect(request?.path).toBe("/payment_intents");
    expect(request?.authorization).toBe("Bearer sk_test_key");
    expect(request?.idempotencyKey).toBe(`order-${created.orderId}-payment`);
    expect(request?.form.get("amount")).toBe("11100");
    expect(request?.form.get("currency")).toBe("aud");
    expect(request?.form.get("metadata[orderId]")).toBe(String(created.orderId));
    const again = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    expect(again).toEqual(created);
    expect(stripe.requests[1]?.idempotencyKey).toBe(`order-${created.orderId}-payment`);
    expect(stripe.intents.size).toBe(1);
  });

  it("answers 503 with a clear detail when Stripe is down, and works once it is back", async () => {
    const { manager } = await setup([100]);
    stripe.setDown(true);
    const res = await manager.go("POST", "StripePayment/create-payment-intent", { amount: 11100 });
    expect((await expectProblem(res, 503)).detail).toBe(PAYMENT_DETAILS.processorUnavailable);
    stripe.setDown(false);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    expect(await count(orders)).toBe(1);
    expect(created.paymentIntentId).toBe("pi_test_1");
  });

  it("check answers failed before payment and succeeded after, releasing the order", async () => {
    const { manager } = await setup([60, 40]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const check = () =>
      manager.json<CheckPaymentIntentResponse>("POST", "StripePayment/check-payment-intent", {
        paymentIntent: created.paymentIntentId,
      });
    expect(await check()).toEqual({ amount: 111, status: "failed" });
    stripe.succeed(created.paymentIntentId);
    expect(await check()).toEqual({ amount: 111, status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
    expect(await rewardEmails()).toHaveLength(3);
  });

  it("a signed payment_intent.succeeded releases once: replays and the check call change nothing", async () => {
    const { api, manager } = await setup([10, 20, 30]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 6660,
    });
    const pi = stripe.succeed(created.paymentIntentId);
    const event = signedEvent("payment_intent.succeeded", pi);
    const first = await webhook(api, event.payload, event.header);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, handled: true });
    // Stripe delivers again (same event), and a second event for the same payment arrives.
    expect((await webhook(api, event.payload, event.header)).status).toBe(200);
    const other = signedEvent("payment_intent.succeeded", pi);
    await Promise.all([webhook(api, other.payload, other.header), webhook(api, event.payload, event.header)]);
    expect(
      await manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: created.paymentIntentId }),
    ).toEqual({ amount: 66.6, status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(rewardLedger)).toBe(3);
    const emails = await rewardEmails();
    expect(emails).toHaveLength(4);
    expect(new Set(emails.map((e) => e.toAddress)).size).toBe(4);
    const [order] = await db().select().from(orders);
    expect(order?.status).toBe("paid");
  });

  it("refuses a bad, missing or foreign signature with 400 and releases nothing", async () => {
    const { api, manager } = await setup([100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const pi = stripe.succeed(created.paymentIntentId);
    const good = signedEvent("payment_intent.succeeded", pi);
    const foreign = signedEvent("payment_intent.succeeded", pi, "whsec_someone_else");
    for (const [payload, header] of [
      [good.payload, undefined],
      [good.payload, "t=1,v1=deadbeef"],
      [foreign.payload, foreign.header],
      [good.payload.replace('"amount":11100', '"amount":1'), good.header],
    ] as const) {
      const res = await webhook(api, payload, header);
      expect((await expectProblem(res, 400)).detail).toBe(PAYMENT_DETAILS.webhookSignature);
    }
    expect(await count(rewardReleases)).toBe(0);
  });

  it("payment_intent.payment_failed marks the order failed; other events and unknown orders are acknowledged", async () => {
    const { api, manager } = await setup([100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const pi = stripe.decline(created.paymentIntentId);
    const failed = signedEvent("payment_intent.payment_failed", pi);
    expect((await webhook(api, failed.payload, failed.header)).status).toBe(200);
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ status: "failed", failureReason: "Your card was declined." });
    const other = signedEvent("charge.succeeded", { id: "ch_1" });
    expect(await (await webhook(api, other.payload, other.header)).json()).toEqual({ received: true, handled: false });
    const unknown = signedEvent("payment_intent.succeeded", {
      ...pi,
      status: "succeeded",
      metadata: { orderId: "999" },
    });
    expect(await (await webhook(api, unknown.payload, unknown.header)).json()).toEqual({
      received: true,
      handled: false,
    });
    expect(await count(rewardReleases)).toBe(0);
  });

  it("a succeeded payment whose amount, currency or company differs from the order's: 400, logged, nothing released", async () => {
    const { api, manager, logs } = await setup([100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    // The PaymentIntent names its order and company (what the webhook checks against).
    expect(stripe.requests[0]?.form.get("metadata[companyId]")).toBe(String(manager.companyId));
    const paid = stripe.succeed(created.paymentIntentId);
    const variants = [
      { ...paid, amount: 100 },
      { ...paid, amount: 11101 },
      { ...paid, currency: "usd" },
      { ...paid, metadata: { ...paid.metadata, companyId: String(manager.companyId + 1) } },
      { ...paid, metadata: { orderId: paid.metadata.orderId ?? "" } },
    ];
    for (const pi of variants) {
      const event = signedEvent("payment_intent.succeeded", pi);
      const res = await webhook(api, event.payload, event.header);
      expect((await expectProblem(res, 400)).detail).toBe(PAYMENT_DETAILS.paymentMismatch);
    }
    expect(await count(rewardReleases)).toBe(0);
    expect(await count(rewardLedger)).toBe(0);
    expect(await rewardEmails()).toHaveLength(0);
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ status: "pending", releasedAt: null });
    const logged = logs.records().filter((r) => /does not match its order/.test(String(r.msg)));
    expect(logged).toHaveLength(variants.length);
    expect(logged[0]).toMatchObject({ orderId: created.orderId, amountCents: 100, orderTotalCents: 11100 });
    // The true payment still releases it.
    const event = signedEvent("payment_intent.succeeded", paid);
    expect(await (await webhook(api, event.payload, event.header)).json()).toEqual({ received: true, handled: true });
    expect(await count(rewardReleases)).toBe(1);
  });

  it("without STRIPE_WEBHOOK_SECRET the webhook refuses every event (503) and releases nothing", async () => {
    const payments = stripeProcessor({ secretKey: "sk_test_key", maxNetworkRetries: 0 });
    const { api } = paymentsApi(db(), { config: { ...config, STRIPE_WEBHOOK_SECRET: undefined }, payments });
    const manager = await payingManager(api, db());
    await seedDraft(db(), manager, [100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const event = signedEvent("payment_intent.succeeded", stripe.succeed(created.paymentIntentId));
    const res = await webhook(api, event.payload, event.header);
    expect((await expectProblem(res, 503)).detail).toBe(PAYMENT_DETAILS.webhookNotConfigured);
    expect(await count(rewardReleases)).toBe(0);
  });

  it("refuses a Checkout Session for a company without company details (400, nothing stored, Stripe not called)", async () => {
    const payments = stripeProcessor({ secretKey: "sk_test_key", webhookSecret: TEST_WEBHOOK_SECRET });
    const { api } = paymentsApi(db(), { config, payments });
    const manager = await payingManager(api, db(), "No Details Pty Ltd", false);
    await seedDraft(db(), manager, [100]);
    for (const path of ["StripePayment/create-checkout-session", "StripePayment/create-payment-intent"]) {
      const res = await manager.go("POST", path, { amount: 11100 });
      expect((await expectProblem(res, 400)).detail).toBe(PAYMENT_DETAILS.companyDetailsRequired);
    }
    expect(await count(orders)).toBe(0);
    expect(stripe.requests).toHaveLength(0);
  });

  it("without JavaScript: a Checkout Session returning to the confirmation page; check with its id releases", async () => {
    const { manager } = await setup([100]);
    const session = await manager.json<{ url: string; orderId: number; amount: number }>(
      "POST",
      "StripePayment/create-checkout-session",
      { amount: 11100 },
    );
    expect(session.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
    expect(session.amount).toBe(11100);
    const request = stripe.requests.find((r) => r.path === "/checkout/sessions");
    expect(request?.form.get("success_url")).toBe(
      "https://rewards.test/portal/payment-confirmation?payment_intent={CHECKOUT_SESSION_ID}",
    );
    expect(request?.form.get("payment_intent_data[metadata][orderId]")).toBe(String(session.orderId));
    expect(request?.form.get("line_items[0][price_data][unit_amount]")).toBe("11100");
    expect(request?.idempotencyKey).toBe(`order-${session.orderId}-checkout`);
    const [order] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    const sessionId = order?.checkoutSessionId as string;
    expect(sessionId).toMatch(/^cs_test_/);
    // Before paying: failed; Stripe's page completes the payment; the return page checks.
    const pi = stripe.completeSession(sessionId);
    expect(await manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: sessionId })).toEqual({
      amount: 111,
      status: "succeeded",
    });
    const [paid] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: pi.id });
    expect(await count(rewardReleases)).toBe(1);
  });

  it("a Checkout payment is released by its webhook; switching from the Payment Element supersedes its order", async () => {
    const { api, manager } = await setup([100]);
    const intent = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const session = await manager.json<{ url: string; orderId: number }>(
      "POST",
      "StripePayment/create-checkout-session",
      { amount: 11100 },
    );
    // Switching to Checkout supersedes the Payment Element's order and cancels its PaymentIntent.
    expect(session.orderId).not.toBe(intent.orderId);
    expect(stripe.intents.get(intent.paymentIntentId)?.status).toBe("canceled");
    const [old] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(old).toMatchObject({ status: "failed", failureReason: "superseded" });
    const [order] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    expect(order?.paymentIntentId).toBeNull();
    // The same Checkout call again reuses its order and session.
    const again = await manager.json<{ url: string; orderId: number }>(
      "POST",
      "StripePayment/create-checkout-session",
      {
        amount: 11100,
      },
    );
    expect(again).toEqual(session);
    const pi = stripe.completeSession(order?.checkoutSessionId as string);
    const event = signedEvent("payment_intent.succeeded", pi);
    expect(await (await webhook(api, event.payload, event.header)).json()).toEqual({ received: true, handled: true });
    const [paid] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: pi.id });
    expect(await count(rewardReleases)).toBe(1);
    // The return page then checks with the session id: already released, nothing more.
    expect(
      await manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: paid?.checkoutSessionId }),
    ).toEqual({ amount: 111, status: "succeeded" });
    expect(await count(rewardLedger)).toBe(1);
  });

  it("has no simulated-processor calls while Stripe is in use", async () => {
    const { manager } = await setup([100]);
    const body = { paymentIntent: "pi_x", clientSecret: "pi_x_secret", cardNumber: "4242424242424242" };
    await expectProblem(await manager.go("POST", "StripePayment/confirm-simulated-payment", body), 404);
    await expectProblem(
      await manager.go("POST", "StripePayment/complete-simulated-authentication", { ...body, outcome: "complete" }),
      404,
    );
    await expectProblem(await manager.go("POST", "StripePayment/get-simulated-payment", body), 404);
    void call;
  });
});
