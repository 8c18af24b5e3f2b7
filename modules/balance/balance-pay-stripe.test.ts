// Paying a reward list from the prepaid balance while a Stripe card payment exists for it (ADR
// 0043; msw stands in for Stripe's API, events
// signed by the stripe package), on PGlite and PostgreSQL:
// - a PaymentIntent the card form made and nobody paid is cancelled at Stripe, and the balance
//   pays; the card can no longer pay it and a late failure event changes nothing;
// - a PaymentIntent the customer paid whose webhook has not come yet refuses the balance (409),
//   nothing is charged, and the webhook then releases the card's order: one payment;
// - the money check stays clean.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { balanceEntries, companies, orders, rewardReleases } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { type CreatePaymentIntentResponse, PAYMENT_DETAILS, type PayOrderResponse } from "../orders/schema.ts";
import type { CreatedTopUp } from "./schema.ts";

const server = setupMswServer();
const TOTAL = 11100; // $100 of rewards, the fee and its GST

describeEachDatabase("paying from the balance beside a Stripe card payment", ({ database }) => {
  const config = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "balance-pay-stripe-test-session-secret-0123",
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
    // $500 on the balance: a top-up paid at Stripe and checked.
    const topUp = await manager.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 50_000 }, 201);
    stripe.succeed(topUp.paymentIntentId);
    await manager.json("POST", `Balance/TopUps/${topUp.topUpId}/check`);
    await seedDraft(db(), manager, [100]);
    const webhook = async (type: "payment_intent.succeeded" | "payment_intent.payment_failed", pi: object) => {
      const event = signedEvent(type, pi);
      const res = await ctx.api.request("/api/StripePayment/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.header },
        body: event.payload,
      });
      expect(res.status, await res.clone().text()).toBe(200);
    };
    return { ...ctx, manager, webhook };
  }

  const balanceOf = async (companyId: number) =>
    (await db().select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, companyId)))[0]?.c;
  const orderCharges = () => db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"));
  const moneyFindings = async (now: Date) => (await checkMoney(db(), { now })).findings;

  it("an unpaid PaymentIntent is cancelled at Stripe and the balance pays; a late failure event changes nothing", async () => {
    const { manager, webhook, clock } = await setup();
    const intent = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: TOTAL,
    });
    const paid = await manager.json<PayOrderResponse>("POST", "Balance/pay-order", { amount: TOTAL });
    expect(stripe.requests.some((r) => r.path === `/payment_intents/${intent.paymentIntentId}/cancel`)).toBe(true);
    expect(stripe.intents.get(intent.paymentIntentId)?.status).toBe("canceled");
    expect(paid.orderId).not.toBe(intent.orderId);
    expect(await balanceOf(manager.companyId)).toBe(50_000 - TOTAL);
    expect(await orderCharges()).toHaveLength(1);

    const pi = stripe.intents.get(intent.paymentIntentId);
    await webhook("payment_intent.payment_failed", {
      ...pi,
      last_payment_error: { message: "Your card was declined." },
    });
    const [order] = await db().select().from(orders).where(eq(orders.id, paid.orderId));
    expect(order).toMatchObject({ status: "paid", processor: "balance" });
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a PaymentIntent the customer paid (its webhook still to come) refuses the balance; the webhook releases the card's order", async () => {
    const { manager, webhook, clock } = await setup();
    const intent = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: TOTAL,
    });
    const pi = stripe.succeed(intent.paymentIntentId);
    const refused = await manager.go("POST", "Balance/pay-order", { amount: TOTAL });
    expect((await expectProblem(refused, 409)).detail).toBe(PAYMENT_DETAILS.cardUnderWay);
    expect(await balanceOf(manager.companyId)).toBe(50_000);
    expect(await orderCharges()).toEqual([]);

    await webhook("payment_intent.succeeded", pi);
    const [order] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(order).toMatchObject({ status: "paid", processor: "stripe", paymentIntentId: intent.paymentIntentId });
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });
});
