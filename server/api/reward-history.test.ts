// GET /api/RewardHistory/get-reward-history (SPEC §7): the caller's company's reward releases,
// newest first, as { rewardReleaseId, rewardDate, rewardName, amount (Reward Dollars) }.
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { orders, rewardReleases } from "../db/schema.ts";
import { accountsApi, call, signUpVerified } from "./accounts.testkit.ts";
import { payingManager } from "./payments.testkit.ts";

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
});
