// A top-up of the prepaid balance has one payment (ADR 0041, ADR 0043), on
// PGlite and PostgreSQL, through the real API: with Stripe (msw standing in for its API, events
// signed by the stripe package) the card form's top-up and a Checkout started at once are two
// top-ups, each made with its one payment, and nothing afterwards (the check, the page, the
// webhook, the reconciler, Stripe pruning the idempotency keys) makes another payment for either;
// each is credited once. A payment naming a paid top-up that is not the one that paid it is
// refused and logged, never acknowledged as credited. With the simulated processor, a declined
// card and a good one on one top-up are one payment. The money check stays clean.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { balanceEntries, balanceTopUps, companies, simulatedPayments } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import { RECONCILE_DEFAULTS, startReconciler } from "../orders/reconciler.server.ts";
import type { CreatedTopUp, TopUpCheck, TopUpCheckout } from "./schema.ts";
import { TOP_UP_DETAILS } from "./schema.ts";

const server = setupMswServer();
const AMOUNT = 20_000;
const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };
const DECLINED = { ...CARD, cardNumber: "4000 0000 0000 0002" };

describeEachDatabase("a top-up has one payment", ({ kind, database }) => {
  const stripeConfig = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "top-up-payments-test-session-secret-0123456789",
  });
  const db = (): Db => database().db;
  let stripe: ReturnType<typeof fakeStripe>;
  beforeEach(async () => {
    await truncateAll(db());
    stripe = fakeStripe();
    server.use(...stripe.handlers);
  });

  const balance = async (companyId: number) =>
    (await db().select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, companyId)))[0]?.c;
  const credits = async () =>
    db()
      .select({ topUpId: balanceEntries.topUpId, amountCents: balanceEntries.amountCents })
      .from(balanceEntries)
      .orderBy(balanceEntries.topUpId);
  /** The requests that make a payment at Stripe. */
  const creations = () =>
    stripe.requests.filter(
      (r) => r.method === "POST" && (r.path === "/payment_intents" || r.path === "/checkout/sessions"),
    );

  async function stripeSetup() {
    const payments = stripeProcessor({
      secretKey: "sk_test_key",
      webhookSecret: TEST_WEBHOOK_SECRET,
      maxNetworkRetries: 0,
    });
    const ctx = paymentsApi(db(), { config: stripeConfig, payments });
    const owner = await payingManager(ctx.api, db());
    const webhook = async (pi: object) => {
      const event = signedEvent("payment_intent.succeeded", pi);
      return ctx.api.request("/api/StripePayment/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.header },
        body: event.payload,
      });
    };
    const reconciler = startReconciler(
      {
        services: {
          db: db(),
          payments,
          logger: ctx.logs.logger,
          now: ctx.clock.now,
          release: { config: stripeConfig },
        },
        advisoryLocks: kind === "postgres",
      },
      false,
    );
    return { ...ctx, owner, webhook, reconciler };
  }

  it("with Stripe, the card form and Checkout started at once are two top-ups of one payment each; nothing makes another, each is credited once", async () => {
    const { owner, webhook, reconciler, clock } = await stripeSetup();
    stripe.setLatency(50);
    const [card, checkout] = await Promise.all([
      owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: AMOUNT }, 201),
      owner.json<TopUpCheckout>("POST", "Balance/TopUps/checkout-session", { amount: AMOUNT }, 201),
    ]);
    stripe.setLatency(0);
    expect(card.topUpId).not.toBe(checkout.topUpId);
    const rows = await db().select().from(balanceTopUps).orderBy(balanceTopUps.id);
    expect(rows).toHaveLength(2);
    const cardRow = rows.find((r) => r.id === card.topUpId);
    const checkoutRow = rows.find((r) => r.id === checkout.topUpId);
    expect(cardRow).toMatchObject({ paymentIntentId: card.paymentIntentId, checkoutSessionId: null });
    expect(checkoutRow).toMatchObject({ paymentIntentId: null, checkoutSessionId: expect.stringMatching(/^cs_/) });
    // One payment made per top-up, each with its own top-up's key.
    expect(
      creations()
        .map((r) => r.idempotencyKey)
        .sort(),
    ).toEqual([`top-up-${card.topUpId}-payment`, `top-up-${checkout.topUpId}-checkout`].sort());

    // A day on, Stripe has pruned the keys: the page's check, the top-up's view and the reconciler
    // still make no payment (no call makes one for a top-up that exists).
    stripe.forgetIdempotencyKeys();
    for (const id of [card.topUpId, checkout.topUpId]) {
      expect(await owner.json<TopUpCheck>("POST", `Balance/TopUps/${id}/check`)).toMatchObject({
        status: "requires_payment_method",
      });
      await owner.json("GET", `Balance/TopUps/${id}`);
    }
    clock.advance(RECONCILE_DEFAULTS.minAgeMs + 1);
    expect(await reconciler.runOnce()).toMatchObject({ credited: 0, errors: 0 });
    expect(creations()).toHaveLength(2);

    // Both are paid (two deposits): each credited once, whoever reports it and however often.
    const cardPi = stripe.succeed(card.paymentIntentId);
    const checkoutPi = stripe.completeSession(checkoutRow?.checkoutSessionId as string);
    for (const pi of [cardPi, checkoutPi, cardPi]) expect((await webhook(pi)).status).toBe(200);
    for (const id of [card.topUpId, checkout.topUpId]) {
      expect(await owner.json<TopUpCheck>("POST", `Balance/TopUps/${id}/check`)).toMatchObject({ status: "succeeded" });
    }
    expect(await reconciler.runOnce()).toMatchObject({ credited: 0, errors: 0 });
    expect(await credits()).toEqual(
      [
        { topUpId: card.topUpId, amountCents: AMOUNT },
        { topUpId: checkout.topUpId, amountCents: AMOUNT },
      ].sort((a, b) => a.topUpId - b.topUpId),
    );
    expect(await balance(owner.companyId)).toBe(2 * AMOUNT);
    expect(creations()).toHaveLength(2);
    expect((await checkMoney(db(), { now: clock.now() })).findings).toEqual([]);
  });

  it("a payment naming a paid top-up that did not pay it is refused and logged, never acknowledged as credited", async () => {
    const { owner, webhook, logs, clock } = await stripeSetup();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: AMOUNT }, 201);
    const paid = stripe.succeed(created.paymentIntentId);
    expect((await webhook(paid)).status).toBe(200);
    // No call of this server makes it; one made elsewhere with the top-up's metadata is not its payment.
    const other = { ...paid, id: "pi_test_elsewhere" };
    expect((await expectProblem(await webhook(other), 400)).detail).toBe(TOP_UP_DETAILS.mismatch);
    expect(
      logs.records().some((l) => String(l.msg).includes("does not match its top-up") && l.paymentIntentId === other.id),
    ).toBe(true);
    expect(await credits()).toEqual([{ topUpId: created.topUpId, amountCents: AMOUNT }]);
    expect(await balance(owner.companyId)).toBe(AMOUNT);
    expect((await checkMoney(db(), { now: clock.now() })).findings).toEqual([]);
  });

  it("with the simulated processor, a declined card and a good one on one top-up are one payment, credited once", async () => {
    const { api, clock } = paymentsApi(db(), { config: testConfig({}) });
    const owner = await payingManager(api, db());
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: AMOUNT }, 201);
    const declined = await owner.json<{ status: string }>(
      "POST",
      `Balance/TopUps/${created.topUpId}/pay-simulated`,
      DECLINED,
    );
    expect(declined.status).toBe("failed");
    for (let i = 0; i < 2; i++) {
      const paid = await owner.json<{ status: string }>(
        "POST",
        `Balance/TopUps/${created.topUpId}/pay-simulated`,
        CARD,
      );
      expect(paid.status).toBe("succeeded");
    }
    const payments = await db().select().from(simulatedPayments);
    expect(payments.map((p) => p.id)).toEqual([created.paymentIntentId]);
    const [row] = await db().select().from(balanceTopUps);
    expect(row).toMatchObject({ status: "paid", paymentIntentId: created.paymentIntentId });
    expect(await credits()).toEqual([{ topUpId: created.topUpId, amountCents: AMOUNT }]);
    const [{ n } = { n: 0 }] = await db().select({ n: sql<number>`count(*)::int` }).from(balanceEntries);
    expect(n).toBe(1);
    expect((await checkMoney(db(), { now: clock.now() })).findings).toEqual([]);
  });
});
