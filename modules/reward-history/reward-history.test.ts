// GET /api/RewardHistory/get-reward-history (docs/requirements.md §S7): the caller's company's reward releases,
// newest first, as { rewardReleaseId, rewardDate, rewardName, amount (Reward Dollars) }; and the
// whole history a page at a time (GET /api/RewardHistory) and as CSV (GET /api/RewardHistory/export).
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { orders, rewardReleases } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, signUpVerified } from "../identity/accounts.testkit.ts";
import type { RewardHistoryItem, RewardHistoryPage } from "../identity/schema.ts";
import { payingManager } from "../orders/payments.testkit.ts";

describeEachDatabase("GET /api/RewardHistory/get-reward-history", ({ database }) => {
  const config = testConfig();
  beforeEach(() => truncateAll(database().db));

  it("answers 200 with an empty list for a signed-in user", async () => {
    const { api } = accountsApi(database().db, { config });
    const account = await signUpVerified(api, database().db);
    const res = await call(api, "GET", "/api/RewardHistory/get-reward-history", undefined, account.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual([]);
  });

  it("answers 401 without a token or with a revoked one", async () => {
    const { api } = accountsApi(database().db, { config });
    const res = await call(api, "GET", "/api/RewardHistory/get-reward-history");
    expect((await expectProblem(res, 401)).detail).toBe(DETAILS.unauthorized);
    const account = await signUpVerified(api, database().db);
    await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken);
    await expectProblem(
      await call(api, "GET", "/api/RewardHistory/get-reward-history", undefined, account.accessToken),
      401,
    );
  });

  it("lists the caller's company's releases newest first, amounts in dollars; never another company's", async () => {
    const { api } = accountsApi(database().db, { config });
    const a = await payingManager(api, database().db, "A Co");
    const b = await payingManager(api, database().db, "B Co");
    const release = async (companyId: number, placedBy: number, name: string, cents: number, at: string) => {
      const [order] = await database()
        .db.insert(orders)
        .values({
          companyId,
          placedBy,
          draftId: 1,
          draftVersion: 1,
          rewardName: name,
          rewardsCents: cents,
          serviceFeeCents: 0,
          gstCents: 0,
          totalCents: cents,
          status: "paid",
          processor: "simulated",
          invoiceNumber: `INV-${name.toUpperCase().slice(0, 3)}`,
        })
        .returning();
      const [row] = await database()
        .db.insert(rewardReleases)
        .values({ companyId, orderId: order!.id, rewardName: name, amountCents: cents, releasedAt: new Date(at) })
        .returning();
      return row!.id;
    };
    const older = await release(a.companyId, a.userId, "Winter", 12_345, "2025-01-10T00:00:00Z");
    const newer = await release(a.companyId, a.userId, "Spring", 50_000, "2025-04-10T00:00:00Z");
    await release(b.companyId, b.userId, "Not yours", 100, "2025-05-10T00:00:00Z");
    expect(await a.json("GET", "RewardHistory/get-reward-history")).toEqual([
      {
        rewardReleaseId: newer,
        rewardDate: "2025-04-10T00:00:00.000Z",
        rewardName: "Spring",
        amount: 500,
        invoiceNumber: "INV-SPR",
      },
      {
        rewardReleaseId: older,
        rewardDate: "2025-01-10T00:00:00.000Z",
        rewardName: "Winter",
        amount: 123.45,
        invoiceNumber: "INV-WIN",
      },
    ]);
    expect(await b.json("GET", "RewardHistory/get-reward-history")).toHaveLength(1);
  });

  it("pages through every release past SPEC's newest 100, and exports them all as CSV, formulas neutralised", async () => {
    const { api } = accountsApi(database().db, { config });
    const a = await payingManager(api, database().db, "A Co");
    const b = await payingManager(api, database().db, "B Co");
    const db = database().db;
    const total = 105;
    const start = Date.parse("2025-01-01T00:00:00Z");
    const made = await db
      .insert(orders)
      .values(
        Array.from({ length: total }, (_, i) => ({
          companyId: a.companyId,
          placedBy: a.userId,
          draftId: 1,
          draftVersion: i,
          // The oldest is named like a spreadsheet formula.
          rewardName: i === 0 ? '=HYPERLINK("http://evil.example","x")' : `Reward ${i + 1}`,
          rewardsCents: (i + 1) * 100,
          serviceFeeCents: 0,
          gstCents: 0,
          totalCents: (i + 1) * 100,
          status: "paid" as const,
          processor: "simulated" as const,
          invoiceNumber: `INV-${String(i + 1).padStart(6, "0")}`,
        })),
      )
      .returning({ id: orders.id, rewardName: orders.rewardName, rewardsCents: orders.rewardsCents });
    await db.insert(rewardReleases).values(
      made.map((o, i) => ({
        companyId: a.companyId,
        orderId: o.id,
        rewardName: o.rewardName,
        amountCents: o.rewardsCents,
        releasedAt: new Date(start + i * 86_400_000),
      })),
    );

    expect(await a.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history")).toHaveLength(100);
    const first = await a.json<RewardHistoryPage>("GET", "RewardHistory");
    expect(first).toMatchObject({ totalCount: total, pageNumber: 1, pageSize: 20, totalPages: 6, hasNextPage: true });
    expect(first.items.map((r) => r.rewardName).slice(0, 2)).toEqual(["Reward 105", "Reward 104"]);
    const last = await a.json<RewardHistoryPage>("GET", "RewardHistory?pageNumber=6");
    expect(last).toMatchObject({ pageNumber: 6, totalPages: 6, hasPreviousPage: true, hasNextPage: false });
    expect(last.items).toHaveLength(5);
    expect(last.items.at(-1)).toMatchObject({
      rewardName: made[0]?.rewardName,
      amount: 1,
      invoiceNumber: "INV-000001",
    });
    // Past the last page: no items, the same count; nonsense falls back to the defaults.
    expect(await a.json<RewardHistoryPage>("GET", "RewardHistory?pageNumber=9")).toMatchObject({
      items: [],
      totalCount: total,
      totalPages: 6,
    });
    expect(await a.json<RewardHistoryPage>("GET", "RewardHistory?pageNumber=-1&pageSize=5000")).toMatchObject({
      pageNumber: 1,
      pageSize: 20,
    });
    // Every page together is the whole history, once.
    const names: string[] = [];
    for (let n = 1; n <= 6; n++) {
      names.push(
        ...(await a.json<RewardHistoryPage>("GET", `RewardHistory?pageNumber=${n}`)).items.map((r) => r.rewardName),
      );
    }
    expect(new Set(names).size).toBe(total);

    const res = await a.go("GET", "RewardHistory/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="reward-history.csv"');
    const csv = await res.text();
    const lines = csv
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines[0]).toBe("Date (Australia/Sydney),Campaign / Reward Name,Status,Released,Invoice number");
    expect(lines).toHaveLength(total + 1);
    expect(lines[1]).toMatch(/,Reward 105,Released,\$105\.00,INV-000105$/);
    expect(lines.at(-1)).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")",Released,$1.00,INV-000001`);

    // B sees none of it.
    expect(await b.json<RewardHistoryPage>("GET", "RewardHistory")).toMatchObject({ items: [], totalCount: 0 });
    expect((await (await b.go("GET", "RewardHistory/export")).text()).trimEnd().split("\r\n")).toHaveLength(1);
    for (const path of ["/api/RewardHistory", "/api/RewardHistory/export"]) {
      await expectProblem(await call(api, "GET", path), 401);
    }
  });
});
