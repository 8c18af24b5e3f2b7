// GET /api/Dashboard's spend picture: Reward Dollars released per Sydney calendar month over the last 12
// months (the current one included), with the totals of the same releases; another company's
// releases never count.
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { orderLines, orders, rewardReleases, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { DashboardSummary } from "../identity/schema.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import { monthsEndingWith } from "./spend.ts";

describeEachDatabase("the spend picture", ({ database }) => {
  const config = testConfig();
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** A release of `dollars` at `at` to the members `to`, with the 10 % fee and its GST. */
  async function release(companyId: number, placedBy: number, dollars: number, at: string, to: number[]) {
    const cents = dollars * 100;
    const [order] = await db()
      .insert(orders)
      .values({
        companyId,
        placedBy,
        draftId: 1,
        draftVersion: 1,
        rewardName: `At ${at}`,
        rewardsCents: cents,
        serviceFeeCents: cents / 10,
        gstCents: cents / 100,
        totalCents: cents + cents / 10 + cents / 100,
        status: "paid",
        processor: "simulated",
      })
      .returning();
    if (!order) throw new Error("no order");
    await db()
      .insert(orderLines)
      .values(
        to.map((userId) => ({
          orderId: order.id,
          companyId,
          userId,
          firstName: "R",
          lastName: "R",
          email: `r${userId}@example.com`,
          amountCents: cents / to.length,
        })),
      );
    await db()
      .insert(rewardReleases)
      .values({
        companyId,
        orderId: order.id,
        rewardName: order.rewardName,
        amountCents: cents,
        releasedAt: new Date(at),
      });
  }

  async function members(companyId: number, n: number): Promise<number[]> {
    const rows = await db()
      .insert(users)
      .values(
        Array.from({ length: n }, (_, i) => ({
          companyId,
          firstName: "Member",
          lastName: String(i),
          email: `m${companyId}.${i}@example.com`,
          role: "member" as const,
        })),
      )
      .returning({ id: users.id });
    return rows.map((r) => r.id);
  }

  it("sums per Sydney month over the last 12 months, with fees, GST and distinct recipients", async () => {
    // The API's clock: 1 March 2025, 20:00 in Sydney.
    const { api } = paymentsApi(db(), { config });
    const a = await payingManager(api, db(), "A Co");
    const b = await payingManager(api, db(), "B Co");
    const [ann, bob, cat] = await members(a.companyId, 3);
    if (!ann || !bob || !cat) throw new Error("no members");
    await release(a.companyId, a.userId, 100, "2025-03-01T05:00:00Z", [ann, bob]);
    // 14:00 UTC on 28 February is 1 March, 01:00 in Sydney (summer time).
    await release(a.companyId, a.userId, 50, "2025-02-28T14:00:00Z", [ann]);
    await release(a.companyId, a.userId, 20, "2025-01-15T00:00:00Z", [cat]);
    // 31 March 2024, 23:00 in Sydney: a month before the window.
    await release(a.companyId, a.userId, 1_000, "2024-03-31T12:00:00Z", [cat]);
    // 1 April 2024, 00:30 in Sydney: the window's first month.
    await release(a.companyId, a.userId, 30, "2024-03-31T13:30:00Z", [bob]);
    await release(b.companyId, b.userId, 999, "2025-03-01T05:00:00Z", await members(b.companyId, 1));

    const spend = (await a.json<DashboardSummary>("GET", "Dashboard")).spend;
    expect(spend.months.map((m) => m.month)).toEqual(monthsEndingWith("2025-03"));
    expect(spend.months[0]).toEqual({ month: "2024-04", releasedCents: 3_000 });
    expect(spend.months.find((m) => m.month === "2025-01")?.releasedCents).toBe(2_000);
    expect(spend.months.find((m) => m.month === "2025-02")?.releasedCents).toBe(0);
    expect(spend.months.at(-1)).toEqual({ month: "2025-03", releasedCents: 15_000 });
    expect(spend.totals).toEqual({
      releasedCents: 20_000,
      serviceFeeCents: 2_000,
      gstCents: 200,
      recipientsReached: 3,
    });

    // B sees only its own.
    const theirs = (await b.json<DashboardSummary>("GET", "Dashboard")).spend;
    expect(theirs.totals).toEqual({
      releasedCents: 99_900,
      serviceFeeCents: 9_990,
      gstCents: 999,
      recipientsReached: 1,
    });
    await expectProblem(await call(api, "GET", "/api/Dashboard"), 401);
  });

  it("twelve empty months for a company that has released nothing", async () => {
    const { api } = paymentsApi(db(), { config });
    const a = await payingManager(api, db(), "A Co");
    const spend = (await a.json<DashboardSummary>("GET", "Dashboard")).spend;
    expect(spend.months).toHaveLength(12);
    expect(spend.months.every((m) => m.releasedCents === 0)).toBe(true);
    expect(spend.totals).toEqual({ releasedCents: 0, serviceFeeCents: 0, gstCents: 0, recipientsReached: 0 });
  });
});
