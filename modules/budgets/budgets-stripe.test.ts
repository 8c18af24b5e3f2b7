// Monthly budgets (docs/decisions/0034-monthly-budgets.md) with Stripe Checkout, the no-JavaScript
// way of paying, on PGlite and PostgreSQL: a Checkout Session holds its dollars while it is open,
// its paid order counts, and the next Checkout past the budget is refused before any session is
// made; the money check finds nothing.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import { orders, rewardDraftLines, rewardDrafts } from "../../server/db/schema.ts";
import { fakeStripe, signedEvent, TEST_WEBHOOK_SECRET } from "../../server/payments/stripe.testkit.ts";
import { stripeProcessor } from "../../server/payments/stripe.ts";
import { addManager } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { setupMswServer } from "../../tests/support/msw.ts";
import { call } from "../identity/accounts.testkit.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { BudgetsOverview } from "./schema.ts";

const server = setupMswServer();

describeEachDatabase("monthly budgets with Stripe Checkout", ({ database }) => {
  const config = testConfig({
    STRIPE_SECRET_KEY: "sk_test_key",
    STRIPE_PUBLISHABLE_KEY: "pk_test_key",
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    APP_URL: "https://rewards.test",
    SMTP_URL: "smtp://127.0.0.1:2525",
    SESSION_SECRET: "budgets-stripe-test-session-secret-0123456789",
  });
  const db = (): Db => database().db;
  let stripe: ReturnType<typeof fakeStripe>;
  beforeEach(async () => {
    await truncateAll(db());
    stripe = fakeStripe();
    server.use(...stripe.handlers);
  });

  it("a Checkout Session holds its dollars; paid, they are used; the next one past the budget is refused", async () => {
    const payments = stripeProcessor({
      secretKey: "sk_test_key",
      webhookSecret: TEST_WEBHOOK_SECRET,
      maxNetworkRetries: 0,
    });
    const { api, clock } = paymentsApi(db(), { config, payments });
    const owner = await payingManager(api, db(), "Alpha Pty Ltd");
    const m = await addManager(api, db(), owner.companyId, `morgan.${owner.userId}@alpha.example`);
    const go = (method: string, path: string, body?: unknown) => call(api, method, `/api/${path}`, body, m.accessToken);
    await owner.json("PUT", `Managers/${m.userId}/budget`, { budgetDollars: 100 });
    const draft = async (amounts: number[]) => {
      const [row] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, m.userId));
      if (row) await db().delete(rewardDraftLines).where(eq(rewardDraftLines.draftId, row.id));
      await seedDraft(db(), m, amounts);
      return chargesFor(amounts).totalCents;
    };
    const used = async () =>
      (await owner.json<BudgetsOverview>("GET", "Budgets")).managers.find((x) => x.userId === m.userId)?.usedCents;

    const res = await go("POST", "StripePayment/create-checkout-session", { amount: await draft([100]) });
    expect(res.status, await res.clone().text()).toBe(200);
    const session = (await res.json()) as { orderId: number };
    expect(await used()).toBe(10_000);
    const [order] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    const pi = stripe.completeSession(order?.checkoutSessionId as string);
    const event = signedEvent("payment_intent.succeeded", pi);
    const hook = await api.request("/api/StripePayment/webhook", {
      method: "POST",
      body: event.payload,
      headers: { "content-type": "application/json", "stripe-signature": event.header },
    });
    expect(hook.status).toBe(200);
    const [paid] = await db().select().from(orders).where(eq(orders.id, session.orderId));
    expect(paid?.status).toBe("paid");
    expect(await used()).toBe(10_000);

    const sessionsBefore = stripe.sessions.size;
    const refused = await expectProblem(
      await go("POST", "StripePayment/create-checkout-session", { amount: await draft([50]) }),
      403,
    );
    expect(refused.detail).toContain("over your monthly budget by $50.00");
    expect(stripe.sessions.size).toBe(sessionsBefore);
    expect((await checkMoney(db(), { now: clock.now() })).findings).toEqual([]);
  });
});
