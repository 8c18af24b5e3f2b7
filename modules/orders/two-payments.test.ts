// One live payment per order, with Stripe (msw standing in for its API, events signed by the
// stripe package; ADR 0041):
// - the card form's PaymentIntent and a Checkout Session started at once for one draft never
//   both belong to one pending order: the order claims its way of paying when it is frozen, and
//   the other way's order is superseded and its payment cancelled or expired at Stripe;
// - a second payment that succeeds anyway for an order another payment paid (made before the
//   claim existed, as the pre-claim code did) is refunded once at Stripe, audited and its payer
//   emailed, whichever of the webhook, the return page's check or both at once reports it; a
//   refund Stripe refuses is retried by the scheduler's pass;
// - a second payment whose webhook never came (a PaymentIntent made again for the same order after
//   Stripe pruned its idempotency key; a pre-claim order's card payment written over by its
//   Checkout's) is found by the reconciler's backstop and refunded once, audited and its payer
//   emailed; a second pass and the late webhook change nothing (ADR 0041);
// - the money check stays clean throughout.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { auditLog, emailOutbox, extraPayments, orderPayments, orders, rewardReleases } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { releaseDueOrders } from "../scheduled-sends/service.server.ts";
import { payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";
import { RECONCILE_DEFAULTS, startReconciler } from "./reconciler.server.ts";
import type { CreatePaymentIntentResponse } from "./schema.ts";

const server = setupMswServer();
const TOTAL = 11100; // $100 of rewards, the fee and its GST

describeEachDatabase("One live payment per order (Stripe)", ({ kind, database }) => {
  const config = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    // A deployment URL: it starts only with real mail and a session secret (docs/requirements.md §D3).
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "two-payments-test-session-secret-0123456789",
  });
  const db = (): Db => database().db;
  let stripe: ReturnType<typeof fakeStripe>;
  beforeEach(async () => {
    await truncateAll(db());
    stripe = fakeStripe();
    server.use(...stripe.handlers);
  });

  async function setup() {
    const payments = stripeProcessor({
      secretKey: "sk_test_key",
      webhookSecret: TEST_WEBHOOK_SECRET,
      maxNetworkRetries: 0,
    });
    const ctx = paymentsApi(db(), { config, payments });
    const manager = await payingManager(ctx.api, db());
    await seedDraft(db(), manager, [100]);
    const services = { db: db(), payments, logger: ctx.logs.logger, now: ctx.clock.now, release: { config } };
    const webhook = async (pi: object) => {
      const event = signedEvent("payment_intent.succeeded", pi);
      const res = await ctx.api.request("/api/StripePayment/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.header },
        body: event.payload,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json();
    };
    return { ...ctx, manager, payments, services, webhook };
  }

  /**
   * An order paid twice, as the code before the claim allowed: the card form's PaymentIntent,
   * then a Checkout Session made for the same order (straight through the processor, as the old
   * Checkout call did when it reused the order), both paid by the customer.
   */
  async function paidTwice(ctx: Awaited<ReturnType<typeof setup>>) {
    const intent = await ctx.manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: TOTAL,
    });
    const createSession = ctx.payments.createCheckoutSession;
    if (!createSession) throw new Error("Stripe makes Checkout Sessions");
    const session = await createSession({
      orderId: intent.orderId,
      companyId: ctx.manager.companyId,
      amountCents: TOTAL,
      currency: "aud",
      rewardName: "Thanks",
      idempotencyKey: `order-${intent.orderId}-checkout`,
      successUrl: "https://rewards.test/portal/payment-confirmation?payment_intent={CHECKOUT_SESSION_ID}",
      cancelUrl: "https://rewards.test/portal/payment-confirmation?payment_intent={CHECKOUT_SESSION_ID}",
    });
    await db().update(orders).set({ checkoutSessionId: session.id }).where(eq(orders.id, intent.orderId));
    const card = stripe.succeed(intent.paymentIntentId);
    const checkout = stripe.completeSession(session.id);
    return { orderId: intent.orderId, sessionId: session.id, card, checkout };
  }

  /** The reconciler of this deployment, run by hand (one pass per runOnce). */
  const reconciler = (ctx: Awaited<ReturnType<typeof setup>>) =>
    startReconciler({ services: { ...ctx.services, now: ctx.clock.now }, advisoryLocks: kind === "postgres" }, false);

  /**
   * One order, two PaymentIntents: the buyer comes back to the Review page a day later, when
   * Stripe has pruned the order's idempotency key, so the same pending order gets a new payment
   * while the first tab's is still payable. Both are paid.
   */
  async function paidAgainAfterADay(ctx: Awaited<ReturnType<typeof setup>>) {
    const first = await ctx.manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: TOTAL,
    });
    // (The day is Stripe's: this test's clock stays, or the manager's sign-in would have expired.)
    stripe.forgetIdempotencyKeys();
    const again = await ctx.manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: TOTAL,
    });
    expect(again.orderId).toBe(first.orderId);
    expect(again.paymentIntentId).not.toBe(first.paymentIntentId);
    const [order] = await db().select().from(orders).where(eq(orders.id, first.orderId));
    expect(order?.paymentIntentId).toBe(again.paymentIntentId);
    return {
      orderId: first.orderId,
      named: stripe.succeed(again.paymentIntentId),
      old: stripe.succeed(first.paymentIntentId),
    };
  }

  const refundRequests = () => stripe.requests.filter((r) => r.path === "/refunds");
  const refundMails = async () =>
    (await db().select().from(emailOutbox)).filter((e) => /refunded a second payment/i.test(e.subject));
  const audits = async (action: string) => (await db().select().from(auditLog)).filter((a) => a.action === action);
  const moneyFindings = async (now: Date) => (await checkMoney(db(), { now })).findings;

  it("a card form and a Checkout started at once for one draft: each pending order has one way of paying, the other's payment is cancelled", async () => {
    const ctx = await setup();
    // A slow Stripe: both calls have frozen their order before either payment id is saved.
    stripe.setLatency(100);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        ctx.manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL }),
        ctx.manager.go("POST", "StripePayment/create-checkout-session", { amount: TOTAL }),
      ]);
      // The later call supersedes the earlier one's order; the earlier one may have answered either way.
      expect(answers.map((r) => r.status).every((status) => status === 200 || status === 409)).toBe(true);
      const rows = await db().select().from(orders).orderBy(orders.id);
      for (const o of rows) {
        expect(o.paymentIntentId !== null && o.checkoutSessionId !== null, `order ${o.id} has both`).toBe(false);
      }
      const pending = rows.filter((o) => o.status === "pending");
      expect(pending).toHaveLength(1);
      // Every superseded order's payment can no longer be paid at Stripe.
      for (const o of rows.filter((row) => row.failureReason === "superseded")) {
        if (o.paymentIntentId) expect(stripe.intents.get(o.paymentIntentId)?.status).toBe("canceled");
        if (o.checkoutSessionId) expect(stripe.sessions.get(o.checkoutSessionId)?.status).toBe("expired");
      }
    }
    // The one live order's payment pays it once.
    stripe.setLatency(0);
    const [live] = await db().select().from(orders).where(eq(orders.status, "pending"));
    const paid = live?.checkoutSessionId
      ? stripe.completeSession(live.checkoutSessionId)
      : stripe.succeed(live?.paymentIntentId as string);
    expect(await ctx.webhook(paid)).toEqual({ received: true, handled: true });
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(refundRequests()).toHaveLength(0);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("the second of two succeeded payments is refunded once at Stripe, audited and its payer emailed; replays change nothing", async () => {
    const ctx = await setup();
    const { orderId, sessionId, card, checkout } = await paidTwice(ctx);
    expect(await ctx.webhook(card)).toEqual({ received: true, handled: true });
    const [paid] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: card.id });

    expect(await ctx.webhook(checkout)).toEqual({ received: true, handled: true });
    expect(refundRequests()).toHaveLength(1);
    expect(refundRequests()[0]?.form.get("payment_intent")).toBe(checkout.id);
    expect(refundRequests()[0]?.idempotencyKey).toBe(`payment-${checkout.id}-refund`);
    const [extra] = await db().select().from(extraPayments);
    expect(extra).toMatchObject({ orderId, paymentIntentId: checkout.id, amountCents: TOTAL });
    expect(extra?.refundedAt).not.toBeNull();
    // The order stays paid by the first payment; the rewards went out once.
    const [after] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(after).toMatchObject({ status: "paid", paymentIntentId: card.id });
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(await audits("order.extra_payment")).toHaveLength(1);
    expect((await audits("order.extra_payment_refunded"))[0]?.data).toMatchObject({ paymentIntentId: checkout.id });
    const mails = await refundMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.toAddress).toBe(ctx.manager.email);
    expect(mails[0]?.text).toContain("$111.00");

    // Stripe delivers again, the buyer comes back from Checkout: no second refund, no second email.
    expect(await ctx.webhook(checkout)).toEqual({ received: true, handled: true });
    expect(
      await ctx.manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: sessionId }),
    ).toMatchObject({ status: "succeeded" });
    expect(await ctx.webhook(card)).toEqual({ received: true, handled: true });
    expect(await db().select().from(extraPayments)).toHaveLength(1);
    expect(await refundMails()).toHaveLength(1);
    expect(await audits("order.extra_payment")).toHaveLength(1);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("the return page finds the second payment too, and the first payment to arrive is the one that pays", async () => {
    const ctx = await setup();
    const { orderId, sessionId, card, checkout } = await paidTwice(ctx);
    // The buyer comes back from Checkout first: Checkout's payment pays the order.
    expect(
      await ctx.manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: sessionId }),
    ).toMatchObject({ status: "succeeded" });
    const [paid] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: checkout.id });
    // The card form's payment then arrives: it is the second one.
    await ctx.webhook(card);
    expect(refundRequests().map((r) => r.form.get("payment_intent"))).toEqual([card.id]);
    expect(await refundMails()).toHaveLength(1);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("both payments reported at once: one releases the order, the other is refunded, once each", async () => {
    const ctx = await setup();
    const { orderId, card, checkout } = await paidTwice(ctx);
    await Promise.all([ctx.webhook(card), ctx.webhook(checkout), ctx.webhook(checkout), ctx.webhook(card)]);
    const [paid] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect([card.id, checkout.id]).toContain(paid?.paymentIntentId);
    const other = paid?.paymentIntentId === card.id ? checkout.id : card.id;
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    const extras = await db().select().from(extraPayments);
    expect(extras.map((e) => e.paymentIntentId)).toEqual([other]);
    expect(new Set(refundRequests().map((r) => r.form.get("payment_intent")))).toEqual(new Set([other]));
    expect(await refundMails()).toHaveLength(1);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("a refund Stripe refuses is retried by the scheduler's pass and made once; the money check names it meanwhile", async () => {
    const ctx = await setup();
    const { card, checkout } = await paidTwice(ctx);
    await ctx.webhook(card);
    stripe.setDown(true);
    // The webhook is answered: the refund is ours to retry, not Stripe's to redeliver.
    expect(await ctx.webhook(checkout)).toEqual({ received: true, handled: true });
    const [owed] = await db().select().from(extraPayments);
    expect(owed).toMatchObject({ refundedAt: null, refundAttempts: 1 });
    expect(owed?.refundLastError).toBeTruthy();
    expect(await refundMails()).toHaveLength(0);
    // Still owed after the money check's grace: a finding that names the order.
    ctx.clock.advance(20 * 60_000);
    const findings = await moneyFindings(ctx.clock.now());
    expect(findings.map((f) => f.rule)).toEqual(["extra-payment"]);

    stripe.setDown(false);
    const summary = await releaseDueOrders({ ...ctx.services, now: ctx.clock.now }, { advisoryLocks: false });
    expect(summary.refunded).toBe(1);
    expect(await releaseDueOrders({ ...ctx.services, now: ctx.clock.now }, { advisoryLocks: false })).toMatchObject({
      refunded: 0,
    });
    const [refunded] = await db().select().from(extraPayments);
    expect(refunded?.refundedAt).not.toBeNull();
    expect(await refundMails()).toHaveLength(1);
    // Every try carried the same idempotency key: Stripe makes one refund of them.
    expect(new Set(refundRequests().map((r) => r.idempotencyKey))).toEqual(new Set([`payment-${checkout.id}-refund`]));
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
    const [{ n } = { n: 0 }] = await db().select({ n: sql<number>`count(*)::int` }).from(rewardReleases);
    expect(n).toBe(1);
  });

  /** Exactly one refund, of `paymentIntentId`: recorded, audited once each, and one email to the payer. */
  async function refundedOnce(ctx: Awaited<ReturnType<typeof setup>>, orderId: number, paymentIntentId: string) {
    expect(refundRequests().map((r) => r.form.get("payment_intent"))).toEqual([paymentIntentId]);
    expect(refundRequests()[0]?.idempotencyKey).toBe(`payment-${paymentIntentId}-refund`);
    const extras = await db().select().from(extraPayments);
    expect(extras).toHaveLength(1);
    expect(extras[0]).toMatchObject({ orderId, paymentIntentId, amountCents: TOTAL });
    expect(extras[0]?.refundedAt).not.toBeNull();
    expect((await audits("order.extra_payment")).map((a) => a.data)).toEqual([
      expect.objectContaining({ paymentIntentId }),
    ]);
    expect((await audits("order.extra_payment_refunded")).map((a) => a.data)).toEqual([
      expect.objectContaining({ paymentIntentId }),
    ]);
    const mails = await refundMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.toAddress).toBe(ctx.manager.email);
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
  }

  it("a second payment whose webhook never came is refunded by the reconciler once, audited and its payer emailed; a second pass and the late webhook change nothing", async () => {
    const ctx = await setup();
    const { orderId, named, old } = await paidAgainAfterADay(ctx);
    // Only the order's own payment is reported: it releases the order.
    expect(await ctx.webhook(named)).toEqual({ received: true, handled: true });
    expect(refundRequests()).toHaveLength(0);

    ctx.clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const r = reconciler(ctx);
    expect(await r.runOnce()).toMatchObject({ payments: 1, refunded: 1, released: 0, errors: 0 });
    await refundedOnce(ctx, orderId, old.id);
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ status: "paid", paymentIntentId: named.id });

    // Settled: the next pass asks Stripe nothing about it; the late webhook finds it recorded.
    const asked = stripe.requests.length;
    expect(await r.runOnce()).toMatchObject({ payments: 0, refunded: 0, released: 0 });
    expect(stripe.requests.length).toBe(asked);
    expect(await ctx.webhook(old)).toEqual({ received: true, handled: true });
    await refundedOnce(ctx, orderId, old.id);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("neither webhook came: one reconciler pass releases the order with one payment and refunds the other", async () => {
    const ctx = await setup();
    const { orderId, named, old } = await paidAgainAfterADay(ctx);
    ctx.clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const r = reconciler(ctx);
    expect(await r.runOnce()).toMatchObject({ released: 1, refunded: 1, errors: 0 });
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ status: "paid", paymentIntentId: named.id });
    await refundedOnce(ctx, orderId, old.id);
    expect(await r.runOnce()).toMatchObject({ released: 0, refunded: 0, payments: 0 });
    for (const pi of [named, old]) expect(await ctx.webhook(pi)).toEqual({ received: true, handled: true });
    await refundedOnce(ctx, orderId, old.id);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });

  it("an order paid before the claim by Checkout first: the card payment the release wrote over is found by the reconciler and refunded once", async () => {
    const ctx = await setup();
    const { orderId, sessionId, card, checkout } = await paidTwice(ctx);
    // Migration 0029 keeps the payments such an order names (the card form's was kept when it was made).
    await db().insert(orderPayments).values({
      companyId: ctx.manager.companyId,
      orderId,
      processor: "stripe",
      paymentId: sessionId,
      createdAt: ctx.clock.now(),
    });
    // The buyer comes back from Checkout: its payment pays the order and takes the card's place on it.
    expect(
      await ctx.manager.json("POST", "StripePayment/check-payment-intent", { paymentIntent: sessionId }),
    ).toMatchObject({ status: "succeeded" });
    const [paid] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: checkout.id });
    // The card payment's webhook never comes.
    ctx.clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    const r = reconciler(ctx);
    // Two payments asked: the card's (refunded) and the session (the payer's: settled).
    expect(await r.runOnce()).toMatchObject({ payments: 2, refunded: 1, released: 0, errors: 0 });
    await refundedOnce(ctx, orderId, card.id);
    expect(await r.runOnce()).toMatchObject({ payments: 0, refunded: 0 });
    expect(await ctx.webhook(card)).toEqual({ received: true, handled: true });
    expect(await ctx.webhook(checkout)).toEqual({ received: true, handled: true });
    await refundedOnce(ctx, orderId, card.id);
    expect(await moneyFindings(ctx.clock.now())).toEqual([]);
  });
});
