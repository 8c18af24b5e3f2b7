// Top-ups of the prepaid balance (ADR 0043) with the Stripe adapter, msw standing in for Stripe's
// API and webhook signatures made by the stripe package: the PaymentIntent names the top-up (not
// an order) with an idempotency key from its id; the signed webhook routes by that metadata and
// credits once under replays racing ten check calls; a declined payment fails the top-up; a
// payment that does not match its top-up is answered 400 and credits nothing; the Checkout path
// without JavaScript returns to the top-up's page and is credited by the check.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { balanceEntries, balanceTopUps, companies, orders } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import type { CreatedTopUp, TopUpCheck, TopUpCheckout } from "./schema.ts";
import { TOP_UP_DETAILS } from "./schema.ts";

const server = setupMswServer();

describeEachDatabase("balance top-ups with Stripe", ({ database }) => {
  const config = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "balance-stripe-test-session-secret-0123456789",
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
    const owner = await payingManager(ctx.api, db());
    const webhook = (payload: string, signature: string) =>
      ctx.api.request("/api/StripePayment/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      });
    return { ...ctx, owner, webhook };
  }

  const balance = async (companyId: number) =>
    (await db().select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, companyId)))[0]?.c;
  const entryCount = async () => (await db().select({ n: sql<number>`count(*)::int` }).from(balanceEntries))[0]?.n ?? 0;

  it("the PaymentIntent names the top-up; the signed webhook credits it once, racing ten checks and its replays", async () => {
    const { owner, webhook } = await setup();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 25_000 }, 201);
    expect(created).toMatchObject({
      amount: 25_000,
      processor: "stripe",
      clientSecret: expect.stringContaining("_secret_"),
    });
    const [request] = stripe.requests;
    expect(request?.path).toBe("/payment_intents");
    expect(request?.idempotencyKey).toBe(`top-up-${created.topUpId}-payment`);
    expect(request?.form.get("amount")).toBe("25000");
    expect(request?.form.get("currency")).toBe("aud");
    expect(request?.form.get("metadata[topUpId]")).toBe(String(created.topUpId));
    expect(request?.form.get("metadata[companyId]")).toBe(String(owner.companyId));
    expect(request?.form.has("metadata[orderId]")).toBe(false);

    const pi = stripe.succeed(created.paymentIntentId);
    const event = signedEvent("payment_intent.succeeded", pi);
    const other = signedEvent("payment_intent.succeeded", pi);
    const answers = await Promise.all([
      webhook(event.payload, event.header),
      webhook(event.payload, event.header),
      webhook(other.payload, other.header),
      ...Array.from({ length: 10 }, () => owner.go("POST", `Balance/TopUps/${created.topUpId}/check`)),
    ]);
    for (const res of answers) expect(res.status, await res.clone().text()).toBe(200);
    expect(await balance(owner.companyId)).toBe(25_000);
    expect(await entryCount()).toBe(1);
    expect((await db().select().from(balanceTopUps))[0]).toMatchObject({ status: "paid" });
    // No order was touched by a top-up's payment.
    expect(await db().select().from(orders)).toEqual([]);
  });

  it("a declined payment fails the top-up; a payment that does not match it is a 400 and credits nothing", async () => {
    const { owner, webhook } = await setup();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 5000 }, 201);
    const declined = stripe.decline(created.paymentIntentId);
    const failed = signedEvent("payment_intent.payment_failed", declined);
    expect(await (await webhook(failed.payload, failed.header)).json()).toEqual({ received: true, handled: true });
    expect((await db().select().from(balanceTopUps))[0]).toMatchObject({
      status: "failed",
      failureReason: "Your card was declined.",
    });

    const pi = stripe.succeed(created.paymentIntentId);
    for (const wrong of [
      { ...pi, amount: 1 },
      { ...pi, currency: "usd" },
      { ...pi, metadata: { ...pi.metadata, companyId: String(owner.companyId + 1) } },
      { ...pi, id: "pi_test_other" },
    ]) {
      const event = signedEvent("payment_intent.succeeded", wrong);
      expect((await expectProblem(await webhook(event.payload, event.header), 400)).detail).toBe(
        TOP_UP_DETAILS.mismatch,
      );
    }
    // An unknown top-up is acknowledged and ignored.
    const unknown = signedEvent("payment_intent.succeeded", { ...pi, metadata: { topUpId: "999999", companyId: "1" } });
    expect(await (await webhook(unknown.payload, unknown.header)).json()).toEqual({ received: true, handled: false });
    expect(await balance(owner.companyId)).toBe(0);
    expect(await entryCount()).toBe(0);
    // The real payment still credits (the card was paid after the decline).
    const good = signedEvent("payment_intent.succeeded", pi);
    expect((await webhook(good.payload, good.header)).status).toBe(200);
    expect(await balance(owner.companyId)).toBe(5000);
  });

  it("Checkout (no JavaScript): the session names the top-up and returns to its page; the check credits it once", async () => {
    const { owner, webhook } = await setup();
    const session = await owner.json<TopUpCheckout>("POST", "Balance/TopUps/checkout-session", { amount: 10_000 }, 201);
    expect(session.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
    const request = stripe.requests.find((r) => r.path === "/checkout/sessions");
    expect(request?.form.get("metadata[topUpId]")).toBe(String(session.topUpId));
    expect(request?.form.get("payment_intent_data[metadata][topUpId]")).toBe(String(session.topUpId));
    expect(request?.form.get("line_items[0][price_data][unit_amount]")).toBe("10000");
    expect(request?.form.get("success_url")).toBe(
      `https://rewards.test/portal/settings/balance/top-ups/${session.topUpId}`,
    );
    expect(request?.idempotencyKey).toBe(`top-up-${session.topUpId}-checkout`);

    // Back from Checkout without paying: nothing paid, still payable.
    const unpaid = await owner.json<TopUpCheck>("POST", `Balance/TopUps/${session.topUpId}/check`);
    expect(unpaid).toMatchObject({ status: "requires_payment_method", balance: 0 });

    const [row] = await db().select().from(balanceTopUps);
    const pi = stripe.completeSession(row?.checkoutSessionId as string);
    const paid = await owner.json<TopUpCheck>("POST", `Balance/TopUps/${session.topUpId}/check`);
    expect(paid).toMatchObject({ status: "succeeded", amount: 10_000, balance: 10_000 });
    const late = signedEvent("payment_intent.succeeded", pi);
    expect((await webhook(late.payload, late.header)).status).toBe(200);
    expect(await balance(owner.companyId)).toBe(10_000);
    expect(await entryCount()).toBe(1);
    expect((await db().select().from(balanceTopUps))[0]).toMatchObject({ status: "paid", paymentIntentId: pi.id });
  });
});
