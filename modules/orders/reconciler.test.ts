// The payment reconciler (reconciler.ts) on PGlite and PostgreSQL: an order paid at the
// processor whose buyer never came back is released once; young, ancient, unpaid and
// mismatched orders are left alone; two reconcilers at once release once; with Stripe (msw) the
// PaymentIntent and the Checkout Session are asked, and a payment naming another company is
// not released. The fault test (tests/fault/reconciler.test.ts) runs it in two real processes.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  emailOutbox,
  orders,
  rewardLedger,
  rewardReleases,
  simulatedPayments,
} from "../../server/db/schema.ts";
import type { Payments } from "../../server/payments/port.ts";
import { confirmSimulatedCard, simulatedProcessor } from "../../server/payments/simulated.ts";
import { fakeStripe, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { type TestClock, testClock } from "../identity/accounts.testkit.ts";
import { payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";
import { RECONCILE_DEFAULTS, startReconciler } from "./reconciler.server.ts";
import type { CreatePaymentIntentResponse } from "./schema.ts";

const server = setupMswServer();
const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };
const MINUTE = 60_000;

describeEachDatabase("payment reconciler", ({ kind, database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  const count = async (table: typeof orders | typeof rewardReleases | typeof rewardLedger | typeof emailOutbox) => {
    const [row] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(table as typeof orders);
    return row?.n ?? 0;
  };

  function reconciler(payments: Payments, clock: TestClock, logs = captureLogs("info")) {
    const r = startReconciler(
      {
        services: { db: db(), payments, logger: logs.logger, now: clock.now, release: { config } },
        advisoryLocks: kind === "postgres",
      },
      false,
    );
    return Object.assign(r, { logs });
  }

  /** A manager's order for `amounts`, its payment created (not paid) at the clock's time. */
  async function simulatedOrder(amounts = [60, 40], payments?: Payments) {
    const clock = testClock();
    const ctx = paymentsApi(db(), { config, clock, payments });
    const manager = await payingManager(ctx.api, db());
    await seedDraft(db(), manager, amounts);
    const total = Math.round(amounts.reduce((a, b) => a + b, 0) * 111);
    const intent = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: total,
    });
    return { ...ctx, clock, manager, intent };
  }

  /** The buyer paid at the simulated processor and never came back: no check call, no release. */
  const payAtProcessor = async (intent: CreatePaymentIntentResponse, clock: TestClock) => {
    const paid = await confirmSimulatedCard(
      db(),
      { paymentIntentId: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
      clock.now(),
    );
    expect(paid?.status).toBe("succeeded");
  };

  it("releases an order paid at the simulated processor once it is old enough, exactly once", async () => {
    const { clock, intent } = await simulatedOrder([60, 40]);
    await payAtProcessor(intent, clock);
    const r = reconciler(simulatedProcessor(db(), clock.now), clock);
    // A buyer in the middle of paying is not raced.
    expect(await r.runOnce()).toMatchObject({ scanned: 0, released: 0 });
    expect(await count(rewardReleases)).toBe(0);
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    expect(await r.runOnce()).toMatchObject({ scanned: 1, released: 1, errors: 0 });
    expect(await r.runOnce()).toMatchObject({ scanned: 0, released: 0 });
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(rewardLedger)).toBe(2);
    // Two congratulations and the tax invoice, besides the verification code.
    expect((await db().select().from(emailOutbox)).filter((e) => !/verification/i.test(e.subject))).toHaveLength(3);
    const [order] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(order).toMatchObject({ status: "paid", paymentIntentId: intent.paymentIntentId });
    const paidAudit = await db().select().from(auditLog).where(eq(auditLog.action, "order.paid"));
    expect(paidAudit.map((a) => a.data)).toEqual([expect.objectContaining({ source: "reconcile" })]);
    await r.stop();
  });

  it("leaves unpaid orders pending, and does not look at orders older than its window", async () => {
    const { clock, intent } = await simulatedOrder([10]);
    const r = reconciler(simulatedProcessor(db(), clock.now), clock);
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    expect(await r.runOnce()).toMatchObject({ scanned: 1, released: 0 });
    const [order] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(order).toMatchObject({ status: "pending", releasedAt: null, failureReason: null });
    await payAtProcessor(intent, clock);
    clock.advance(RECONCILE_DEFAULTS.maxAgeMs);
    expect(await r.runOnce()).toMatchObject({ scanned: 0, released: 0 });
    expect(await count(rewardReleases)).toBe(0);
  });

  it("does not release a succeeded payment whose amount or company differs from the order's, and logs it", async () => {
    const { clock, intent, manager } = await simulatedOrder([10]);
    await payAtProcessor(intent, clock);
    const r = reconciler(simulatedProcessor(db(), clock.now), clock);
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    for (const change of [
      { amountCents: 1 },
      { metadata: { orderId: String(intent.orderId), companyId: String(manager.companyId + 1) } },
      { currency: "usd" },
    ]) {
      const [before] = await db().select().from(simulatedPayments);
      await db().update(simulatedPayments).set(change);
      expect(await r.runOnce()).toMatchObject({ scanned: 1, released: 0, mismatched: 1 });
      await db()
        .update(simulatedPayments)
        .set({ amountCents: before?.amountCents, metadata: before?.metadata, currency: before?.currency });
    }
    expect(await count(rewardReleases)).toBe(0);
    expect(r.logs.records().filter((l) => /does not match its order/.test(String(l.msg)))).toHaveLength(3);
    // Restored, it is released.
    expect(await r.runOnce()).toMatchObject({ released: 1 });
  });

  it("two reconcilers at once (two processes' worth) release the order once", async () => {
    const { clock, intent } = await simulatedOrder([5, 6, 7]);
    await payAtProcessor(intent, clock);
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const a = reconciler(simulatedProcessor(db(), clock.now), clock);
    const b = reconciler(simulatedProcessor(db(), clock.now), clock);
    const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(ra.released + rb.released).toBe(1);
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(rewardLedger)).toBe(3);
    expect(await count(emailOutbox)).toBe(1 + 3 + 1);
  });

  it("started with the application, it runs a pass at once", async () => {
    const { clock, intent } = await simulatedOrder([10]);
    await payAtProcessor(intent, clock);
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const logs = captureLogs("info");
    const r = startReconciler({
      services: {
        db: db(),
        payments: simulatedProcessor(db(), clock.now),
        logger: logs.logger,
        now: clock.now,
        release: { config },
      },
      advisoryLocks: kind === "postgres",
      intervalMs: 60 * MINUTE,
    });
    const deadline = Date.now() + 10_000;
    while ((await count(rewardReleases)) === 0 && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 50));
    await r.stop();
    expect(await count(rewardReleases)).toBe(1);
  });

  it("with Stripe: asks the PaymentIntent, or the Checkout Session of a buyer who never returned", async () => {
    const stripe = fakeStripe();
    server.use(...stripe.handlers);
    const stripeConfig = testConfig({
      STRIPE_SECRET_KEY: "sk_test_key",
      STRIPE_PUBLISHABLE_KEY: "pk_test_key",
      STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    });
    const payments = stripeProcessor({
      secretKey: "sk_test_key",
      webhookSecret: TEST_WEBHOOK_SECRET,
      maxNetworkRetries: 0,
    });
    const clock = testClock();
    const { api } = paymentsApi(db(), { config: stripeConfig, clock, payments });
    const intentBuyer = await payingManager(api, db(), "Intent Co");
    await seedDraft(db(), intentBuyer, [100]);
    const intent = await intentBuyer.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    const checkoutBuyer = await payingManager(api, db(), "Checkout Co");
    await seedDraft(db(), checkoutBuyer, [100]);
    const session = await checkoutBuyer.json<{ orderId: number }>("POST", "StripePayment/create-checkout-session", {
      amount: 11100,
    });
    const [checkoutOrder] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    const foreignBuyer = await payingManager(api, db(), "Foreign Co");
    await seedDraft(db(), foreignBuyer, [100]);
    const foreign = await foreignBuyer.json<CreatePaymentIntentResponse>(
      "POST",
      "StripePayment/create-payment-intent",
      {
        amount: 11100,
      },
    );

    stripe.succeed(intent.paymentIntentId);
    stripe.completeSession(checkoutOrder?.checkoutSessionId as string);
    const pi = stripe.succeed(foreign.paymentIntentId);
    pi.metadata = { ...pi.metadata, companyId: String(intentBuyer.companyId) };

    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const r = reconciler(payments, clock);
    expect(await r.runOnce()).toMatchObject({ scanned: 3, released: 2, mismatched: 1, errors: 0 });
    const released = await db().select({ orderId: rewardReleases.orderId }).from(rewardReleases);
    expect(released.map((x) => x.orderId).sort()).toEqual([intent.orderId, session.orderId].sort());
    expect(stripe.requests.filter((q) => q.method === "GET").map((q) => q.path.split("/")[1])).toEqual(
      expect.arrayContaining(["payment_intents", "checkout"]),
    );
  });
});
