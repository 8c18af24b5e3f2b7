// Monthly budgets (docs/decisions/0034-monthly-budgets.md), through the API, on PGlite and
// PostgreSQL:
// - an Owner sets and clears a Manager's and a key's budget (audited, old and new value); bad
//   input, a Manager's call, another company's or a removed manager change nothing;
// - a Manager's order past their budget needs an Owner's approval whatever the threshold (the
//   balance and the card refuse it; "Request approval" records by how much it is over and emits
//   budget.exceeded); once approved it is paid; the dashboard and GET /Budgets show the use;
// - Sydney months: paid at 23:30 on the last day counts in that month, at 00:30 on the first in
//   the next; a cancelled (refunded) order gives its dollars back to the month it was charged in;
// - a change of role: an Owner's own orders are not held; demoted, the budget holds again;
// - an API key's budget: an order past it answers 202 awaiting approval with budget.exceeded, the
//   quote says so; two orders racing (PostgreSQL: really concurrent) never both pass;
// - the money check finds nothing after each.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  emailOutbox,
  orders,
  rewardDraftLines,
  rewardDrafts,
  webhookEvents,
} from "../../server/db/schema.ts";
import { addManager, snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import type { V1Order, V1Quote } from "../api-v1/schema.ts";
import type { ApprovalDetail } from "../approvals/schema.ts";
import { call, testClock } from "../identity/accounts.testkit.ts";
import type { DashboardSummary } from "../identity/schema.ts";
import type { ManagersList } from "../managers/schema.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { PayOrderResponse } from "../orders/schema.ts";
import type { BudgetsOverview } from "./schema.ts";
import { budgetUsedCents } from "./service.server.ts";

const HOOK = "http://127.0.0.1:9/hook";
/** 23:30 on 30 November 2026 in Sydney (AEDT, UTC+11), and 00:30 on 1 December. */
const LAST_DAY_2330 = new Date("2026-11-30T12:30:00.000Z");
const FIRST_DAY_0030 = new Date("2026-11-30T13:30:00.000Z");
const HOUR = 3600_000;

describeEachDatabase("monthly budgets", ({ kind, database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** An Owner with a $5,000 balance and a webhook for budget.exceeded, and a Manager. */
  async function world(start = new Date("2026-11-10T00:00:00.000Z")) {
    const clock = testClock(start);
    const ctx = paymentsApi(db(), { config, clock });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const topUp = await owner.json<{ topUpId: number }>("POST", "Balance/TopUps", { amount: 500_000 }, 201);
    await owner.json("POST", `Balance/TopUps/${topUp.topUpId}/pay-simulated`, {
      cardNumber: "4242 4242 4242 4242",
      expiry: "12/34",
      cvc: "123",
      nameOnCard: "Jane Citizen",
    });
    await owner.json("POST", "Webhooks", { url: HOOK, events: ["budget.exceeded", "approval.requested"] }, 201);
    const m = await addManager(ctx.api, db(), owner.companyId, `morgan.${owner.userId}@alpha.example`);
    const go = (method: string, path: string, body?: unknown) =>
      call(ctx.api, method, `/api/${path}`, body, m.accessToken);
    const json = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
      const r = await go(method, path, body);
      const text = await r.text();
      expect(r.status, text).toBe(status);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    const manager = { ...m, go, json };
    /** Replaces the Manager's draft with one line per amount. */
    const draft = async (who: { companyId: number; userId: number }, amounts: number[]) => {
      const [row] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, who.userId));
      if (row) await db().delete(rewardDraftLines).where(eq(rewardDraftLines.draftId, row.id));
      await seedDraft(db(), who, amounts, "Monthly Thanks");
      return chargesFor(amounts).totalCents;
    };
    const payFromBalance = async (who: { go: typeof go }, amounts: number[], owner_ = manager) => {
      const amount = await draft(owner_, amounts);
      return who.go("POST", "Balance/pay-order", { amount });
    };
    return { ...ctx, clock, owner, manager, draft, payFromBalance };
  }

  const money = async (now: Date) => (await checkMoney(db(), { now })).findings;
  const events = async (type: string) =>
    (await db().select().from(webhookEvents).orderBy(webhookEvents.id)).filter((e) => e.type === type);
  const audits = (action: string) =>
    db().select().from(auditLog).where(eq(auditLog.action, action)).orderBy(auditLog.id);

  it("the OpenAPI document describes the budget calls and the budget.exceeded event", async () => {
    const { api } = await world();
    const doc = await (await api.request("/api/openapi.json")).text();
    const paths = Object.keys((JSON.parse(doc) as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(
      expect.arrayContaining(["/api/Budgets", "/api/Managers/{id}/budget", "/api/ApiKeys/{id}/budget"]),
    );
    expect(doc).toContain("budget.exceeded");
    expect(doc).toContain("budgetDollars");
  });

  it("an Owner sets and clears a Manager's budget: audited; bad input, a Manager and strangers change nothing", async () => {
    const { api, owner, manager, clock } = await world();
    const path = `Managers/${manager.userId}/budget`;
    expect(await owner.json("PUT", path, { budgetDollars: "$1,500" })).toEqual({
      id: manager.userId,
      monthlyBudgetCents: 150_000,
    });
    const other = await payingManager(api, db(), "Bravo Pty Ltd");
    const before = await snapshot(db());
    for (const bad of [-1, 12.5, "twelve", 1_000_000]) {
      const problem = await expectProblem(await owner.go("PUT", path, { budgetDollars: bad }), 400);
      expect(JSON.stringify(problem)).toMatch(/monthly budget/);
    }
    await expectProblem(await manager.go("PUT", path, { budgetDollars: 10 }), 403);
    await expectProblem(await other.go("PUT", path, { budgetDollars: 10 }), 404);
    expect(await snapshot(db())).toEqual(before);

    const list = await owner.json<ManagersList>("GET", "Managers");
    expect(list.managers.find((m) => m.id === manager.userId)?.monthlyBudgetCents).toBe(150_000);
    expect(await owner.json("PUT", path, { budgetDollars: null })).toEqual({
      id: manager.userId,
      monthlyBudgetCents: null,
    });
    // The same value again is no change: no entry.
    await owner.json("PUT", path, { budgetDollars: "" });
    expect((await audits("budget.manager_changed")).map((a) => a.data)).toEqual([
      { fromCents: null, toCents: 150_000 },
      { fromCents: 150_000, toCents: null },
    ]);

    // A removed manager has no budget to set.
    await owner.json("DELETE", `Managers/${manager.userId}`, undefined, 204);
    const afterRemoval = await snapshot(db());
    await expectProblem(await owner.go("PUT", path, { budgetDollars: 10 }), 404);
    expect(await snapshot(db())).toEqual(afterRemoval);
    const overview = await owner.json<BudgetsOverview>("GET", "Budgets");
    expect(overview.managers.map((m) => m.userId)).toEqual([owner.userId]);
    expect(await money(clock.now())).toEqual([]);
  });

  it("a Manager's order past their budget goes to approval whatever the threshold; approved, it is paid", async () => {
    const { owner, manager, clock, payFromBalance, draft } = await world();
    await owner.json("PUT", "Approvals/threshold", { thresholdDollars: 5000 });
    await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 300 });

    // $200 fits: paid from the balance at once.
    expect((await payFromBalance(manager, [120, 80])).status).toBe(200);
    const dash = await manager.json<DashboardSummary>("GET", "Dashboard?pageNumber=1");
    expect(dash.budget).toEqual({ month: "2026-11", monthlyBudgetCents: 30_000, usedCents: 20_000, leftCents: 10_000 });
    expect((await owner.json<DashboardSummary>("GET", "Dashboard?pageNumber=1")).budget).toBeNull();

    // $150 more is $50 over: the balance and the card refuse it, and nothing is charged.
    const total = await draft(manager, [150]);
    const before = await snapshot(db(), ["audit_log"]);
    const refused = await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: total }), 403);
    expect(refused.detail).toContain("over your monthly budget by $50.00");
    await expectProblem(await manager.go("POST", "StripePayment/create-payment-intent", { amount: total }), 403);
    expect(await snapshot(db(), ["audit_log"])).toEqual(before);
    const mine = await manager.json<{ budgetLeftCents: number | null }>("GET", "Approvals/my-draft");
    expect(mine.budgetLeftCents).toBe(10_000);

    // Request approval: kept with what it is over by, budget.exceeded emitted, the Owners emailed.
    const asked = await manager.json<{ orderId: number }>("POST", "Approvals/request", { amount: total });
    const detail = await owner.json<ApprovalDetail>("GET", `Approvals/${asked.orderId}`);
    expect(detail).toMatchObject({ state: "requested", overBudgetCents: 5000 });
    const [exceeded] = await events("budget.exceeded");
    expect(exceeded?.subject).toBe(`order:${asked.orderId}`);
    expect(exceeded?.payload).toEqual({
      orderId: asked.orderId,
      budgetOf: { userId: manager.userId },
      month: "2026-11",
      currency: "AUD",
      monthlyBudgetCents: 30_000,
      usedCents: 20_000,
      orderRewardsCents: 15_000,
      orderTotalCents: total,
      overByCents: 5000,
      at: clock.now().toISOString(),
    });
    const [requested] = await audits("approval.requested");
    expect(requested?.data).toMatchObject({
      budget: { monthlyBudgetCents: 30_000, usedCents: 20_000, overByCents: 5000 },
    });
    // The Owner's email says what the approval page says.
    const [asking] = (await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, owner.email))).filter((m) =>
      m.subject.startsWith("Approval requested"),
    );
    expect(asking?.text).toContain("This order is over budget by $50.00 this month.");

    // Still refused while waiting; approved, the Manager pays it from the balance.
    await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: total }), 409);
    await owner.json("POST", `Approvals/${asked.orderId}/approve`, undefined, 204);
    const paid = await manager.json<PayOrderResponse>("POST", "Balance/pay-order", { amount: total });
    expect(paid.orderId).toBe(asked.orderId);
    const overview = await owner.json<BudgetsOverview>("GET", "Budgets");
    expect(overview.managers.find((m) => m.userId === manager.userId)).toMatchObject({
      monthlyBudgetCents: 30_000,
      usedCents: 35_000,
      leftCents: 0,
      applies: true,
    });
    // A Manager sees only their own row.
    const own = await manager.json<BudgetsOverview>("GET", "Budgets");
    expect(own.managers.map((m) => m.userId)).toEqual([manager.userId]);
    expect(own.apiKeys).toEqual([]);
    expect(await money(clock.now())).toEqual([]);
  });

  it("a card payment counts: its live PaymentIntent holds its dollars, and once paid they are used", async () => {
    const { owner, manager, clock, draft } = await world();
    await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 100 });
    const total = await draft(manager, [60]);
    const intent = await manager.json<{ paymentIntentId: string; clientSecret: string }>(
      "POST",
      "StripePayment/create-payment-intent",
      { amount: total },
    );
    // Held while the payment is under way (not yet paid).
    const held = await owner.json<BudgetsOverview>("GET", "Budgets");
    expect(held.managers.find((m) => m.userId === manager.userId)?.usedCents).toBe(6000);
    await manager.json("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: intent.paymentIntentId,
      clientSecret: intent.clientSecret,
      cardNumber: "4242 4242 4242 4242",
      expiry: "12/34",
      cvc: "123",
      nameOnCard: "Morgan Manager",
    });
    const [paid] = await db().select().from(orders).where(eq(orders.paymentIntentId, intent.paymentIntentId));
    expect(paid?.status).toBe("paid");
    // $50 more is $10 over: the card refuses it too.
    const more = await draft(manager, [50]);
    const refused = await expectProblem(
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: more }),
      403,
    );
    expect(refused.detail).toContain("by $10.00");
    expect((await manager.json<DashboardSummary>("GET", "Dashboard?pageNumber=1")).budget).toMatchObject({
      usedCents: 6000,
      leftCents: 4000,
    });
    expect(await money(clock.now())).toEqual([]);
  });

  it("Sydney months: 23:30 on the last day counts in that month, 00:30 on the first in the next", async () => {
    const { owner, manager, clock, payFromBalance, draft } = await world(LAST_DAY_2330);
    await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 100 });
    expect((await payFromBalance(manager, [100])).status).toBe(200);
    expect((await manager.json<DashboardSummary>("GET", "Dashboard?pageNumber=1")).budget).toMatchObject({
      month: "2026-11",
      usedCents: 10_000,
      leftCents: 0,
    });
    // 23:59 the same night: still November, nothing left.
    clock.advance(29 * 60_000);
    const total = await draft(manager, [100]);
    const refused = await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: total }), 403);
    expect(refused.detail).toContain("by $100.00");
    // 00:30 on 1 December: a new month, the same order fits.
    clock.advance(FIRST_DAY_0030.getTime() - clock.now().getTime());
    expect((await manager.go("POST", "Balance/pay-order", { amount: total })).status).toBe(200);
    expect((await manager.json<DashboardSummary>("GET", "Dashboard?pageNumber=1")).budget).toMatchObject({
      month: "2026-12",
      usedCents: 10_000,
    });
    const scope = { kind: "manager" as const, userId: manager.userId, companyId: manager.companyId };
    expect(await budgetUsedCents(db(), scope, LAST_DAY_2330)).toBe(10_000);
    expect(await budgetUsedCents(db(), scope, FIRST_DAY_0030)).toBe(10_000);
    expect(await money(clock.now())).toEqual([]);
  });

  it("a cancelled, refunded order gives its dollars back to the month it was charged in", async () => {
    const { owner, manager, clock, draft } = await world(LAST_DAY_2330);
    await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 100 });
    // Paid at 23:30 on 30 November, to be sent on 3 December.
    const total = await draft(manager, [100]);
    const sendAt = new Date(LAST_DAY_2330.getTime() + 3 * 24 * HOUR).toISOString();
    const scheduled = await manager.json<PayOrderResponse>("POST", "Balance/pay-order", {
      amount: total,
      rewardName: "Monthly Thanks",
      wording: { rewardName: "Monthly Thanks", message: "", senderName: "Morgan", sendAt },
    });
    const scope = { kind: "manager" as const, userId: manager.userId, companyId: manager.companyId };
    expect(await budgetUsedCents(db(), scope, LAST_DAY_2330)).toBe(10_000);

    // In December, December's $100 is used by another order; November's order is then cancelled.
    clock.advance(FIRST_DAY_0030.getTime() - clock.now().getTime());
    const december = await draft(manager, [100]);
    expect((await manager.go("POST", "Balance/pay-order", { amount: december })).status).toBe(200);
    await manager.json("POST", `RewardOrders/${scheduled.orderId}/cancel`);
    const [cancelled] = await db().select().from(orders).where(eq(orders.id, scheduled.orderId));
    expect(cancelled?.refundedAt).toBeInstanceOf(Date);
    // November is given its $100 back; December is unchanged (still full).
    expect(await budgetUsedCents(db(), scope, LAST_DAY_2330)).toBe(0);
    expect(await budgetUsedCents(db(), scope, clock.now())).toBe(10_000);
    const more = await draft(manager, [10]);
    await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: more }), 403);
    expect(await money(clock.now())).toEqual([]);
  });

  it("a change of role: an Owner's own orders are not held to the budget; demoted, it holds again", async () => {
    const { owner, manager, clock, payFromBalance, draft } = await world();
    await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 100 });
    expect((await payFromBalance(manager, [100])).status).toBe(200);
    const total = await draft(manager, [50]);
    await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: total }), 403);

    await owner.json("PUT", `Managers/${manager.userId}/role`, { role: "owner" });
    expect((await manager.go("POST", "Balance/pay-order", { amount: total })).status).toBe(200);
    const asOwner = await owner.json<BudgetsOverview>("GET", "Budgets");
    expect(asOwner.managers.find((m) => m.userId === manager.userId)).toMatchObject({
      managerRole: "owner",
      applies: false,
      monthlyBudgetCents: 10_000,
      usedCents: 15_000,
    });
    expect(await events("budget.exceeded")).toEqual([]);

    await owner.json("PUT", `Managers/${manager.userId}/role`, { role: "manager" });
    const again = await draft(manager, [1]);
    const refused = await expectProblem(await manager.go("POST", "Balance/pay-order", { amount: again }), 403);
    expect(refused.detail).toContain("by $51.00");
    expect(await money(clock.now())).toEqual([]);
  });

  it("an API key's order past its budget answers 202 awaiting approval with budget.exceeded", async () => {
    const { api, owner, manager, clock } = await world();
    const key = await owner.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    await expectProblem(await manager.go("PUT", `ApiKeys/${key.id}/budget`, { budgetDollars: 100 }), 403);
    expect(await owner.json("PUT", `ApiKeys/${key.id}/budget`, { budgetDollars: 100 })).toEqual({
      id: key.id,
      monthlyBudgetCents: 10_000,
    });
    expect((await audits("budget.api_key_changed")).map((a) => a.data)).toEqual([{ fromCents: null, toCents: 10_000 }]);
    // The Owner's own portal budget is separate: their portal orders do not count against the key.
    const v1 = (path: string, body: unknown) =>
      api.request(`/api/v1/${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.key}`,
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify(body),
      });
    const body = (amount: number) => ({
      rewardName: "API Thanks",
      recipients: [{ email: `p${amount}@example.com`, firstName: "Pat", lastName: "Person", amount }],
    });
    expect((await v1("orders", body(60))).status).toBe(201);
    const quote = (await (await v1("quotes", body(60))).json()) as V1Quote;
    expect(quote.approvalRequired).toBe(true);
    const res = await v1("orders", body(50));
    expect(res.status).toBe(202);
    const waiting = (await res.json()) as V1Order;
    expect(waiting.state).toBe("awaiting_approval");
    const [exceeded] = await events("budget.exceeded");
    expect(exceeded?.payload).toMatchObject({
      budgetOf: { apiKeyId: key.id },
      monthlyBudgetCents: 10_000,
      usedCents: 6000,
      orderRewardsCents: 5000,
      overByCents: 1000,
    });
    const overview = await owner.json<BudgetsOverview>("GET", "Budgets");
    expect(overview.apiKeys).toEqual([
      expect.objectContaining({ apiKeyId: key.id, monthlyBudgetCents: 10_000, usedCents: 6000, leftCents: 4000 }),
    ]);
    await owner.json("POST", `Approvals/${waiting.orderId}/approve`, undefined, 204);
    expect((await owner.json<BudgetsOverview>("GET", "Budgets")).apiKeys[0]?.usedCents).toBe(11_000);
    // The key's Owner's portal budget is untouched by the key's orders.
    expect(
      (await owner.json<BudgetsOverview>("GET", "Budgets")).managers.find((m) => m.userId === owner.userId),
    ).toMatchObject({ usedCents: 0 });
    expect(await money(clock.now())).toEqual([]);
  });

  it("two API orders racing on one key's budget: one is charged, the other waits for approval", async () => {
    const { api, owner, clock } = await world();
    const key = await owner.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    await owner.json("PUT", `ApiKeys/${key.id}/budget`, { budgetDollars: 100 });
    const post = (n: number) =>
      api.request("/api/v1/orders", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.key}`,
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify({
          rewardName: "Race",
          recipients: [{ email: `race${n}@example.com`, firstName: "Race", lastName: `R${n}`, amount: 60 }],
        }),
      });
    const rounds = kind === "postgres" ? 3 : 1;
    for (let round = 0; round < rounds; round++) {
      if (round > 0) clock.advance(40 * 24 * HOUR); // a fresh month each round
      const statuses = (await Promise.all([post(round * 2), post(round * 2 + 1)])).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 202]);
      const waiting = await db()
        .select()
        .from(orders)
        .where(and(eq(orders.apiKeyId, key.id), eq(orders.approvalStatus, "requested")));
      expect(waiting.length).toBe(round + 1);
      expect(await budgetUsedCents(db(), { kind: "apiKey", apiKeyId: key.id }, clock.now())).toBe(6000);
    }
    expect(await money(clock.now())).toEqual([]);
  });

  it("a Manager's card payment of one list racing a balance payment of the next: never both pass the budget", async () => {
    const { owner, manager, clock, draft } = await world();
    const rounds = kind === "postgres" ? 3 : 1;
    for (let round = 0; round < rounds; round++) {
      // $100 left each round: the earlier rounds used $60 each.
      await owner.json("PUT", `Managers/${manager.userId}/budget`, { budgetDollars: 100 + 60 * round });
      // Tab one: the card form for a $60 list (its PaymentIntent holds the dollars).
      const first = await draft(manager, [60]);
      const intent = await manager.json<{ paymentIntentId: string; clientSecret: string }>(
        "POST",
        "StripePayment/create-payment-intent",
        { amount: first },
      );
      // Tab two: the list edited to another $60, paid from the balance while tab one's card is confirmed.
      const second = await draft(manager, [60]);
      const [card, balance] = await Promise.all([
        manager.go("POST", "StripePayment/confirm-simulated-payment", {
          paymentIntent: intent.paymentIntentId,
          clientSecret: intent.clientSecret,
          cardNumber: "4242 4242 4242 4242",
          expiry: "12/34",
          cvc: "123",
          nameOnCard: "Morgan Manager",
        }),
        manager.go("POST", "Balance/pay-order", { amount: second }),
      ]);
      const cardPaid = card.status === 200 && ((await card.json()) as { status: string }).status === "succeeded";
      const balancePaid = balance.status === 200;
      expect([cardPaid, balancePaid].filter(Boolean)).toHaveLength(1);
      const used = await budgetUsedCents(
        db(),
        { kind: "manager", userId: manager.userId, companyId: manager.companyId },
        clock.now(),
      );
      expect(used).toBe(6000 * (round + 1));
    }
    expect(await money(clock.now())).toEqual([]);
  });
});
