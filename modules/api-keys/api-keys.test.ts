// Company API keys (ADR 0028) through the API: an Owner creates, lists and revokes them; a key
// reads its own company's orders at /api/v1 and nothing of another company's; a revoked or expired
// key, an unknown one and a manager's access token are refused; only the key's hash is stored; a
// Manager gets 403 on the key calls and nothing changes; each key has its own rate limit.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { createApi } from "../../server/api/index.ts";
import type { Db } from "../../server/db/client.ts";
import { apiKeys, auditLog, orders } from "../../server/db/schema.ts";
import { addManager, snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call } from "../identity/accounts.testkit.ts";
import { sha256Hex } from "../identity/identity-crypto.server.ts";
import type { RewardHistoryPage } from "../identity/schema.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { ApiKeyView, CreatedApiKey } from "./schema.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describeEachDatabase("company API keys and /api/v1", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** A (an Owner, with a released order of two recipients and a scheduled one) and B (another Owner). */
  async function world() {
    const ctx = paymentsApi(db(), { config });
    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const b = await payingManager(ctx.api, db(), "Bravo Pty Ltd");
    await seedDraft(db(), a, [60, 40], "Released Thanks");
    expect((await payDraftByCard(a, [60, 40])).status).toBe("succeeded");
    await seedDraft(db(), a, [25], "Scheduled Thanks");
    const sendAt = new Date(ctx.clock.now().getTime() + 2 * DAY).toISOString();
    await a.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt });
    expect((await payDraftByCard(a, [25])).status).toBe("succeeded");
    const rows = await db().select({ id: orders.id, status: orders.status }).from(orders);
    const released = rows.find((o) => o.status === "paid")?.id;
    const scheduled = rows.find((o) => o.status === "scheduled")?.id;
    if (!released || !scheduled) throw new Error(`A's orders: ${JSON.stringify(rows)}`);
    const v1 = (path: string, key?: string, api = ctx.api) => call(api, "GET", `/api/v1/${path}`, undefined, key);
    const createKey = async (owner: typeof a, body: Record<string, unknown> = { name: "Payroll sync" }) =>
      owner.json<CreatedApiKey>("POST", "ApiKeys", body, 201);
    return { ...ctx, a, b, released, scheduled, v1, createKey };
  }

  it("an Owner creates a key: answered once, only its SHA-256 stored, listed without it, audited", async () => {
    const { a, clock, createKey } = await world();
    const expiresAt = new Date(clock.now().getTime() + 30 * DAY).toISOString();
    const created = await createKey(a, { name: "  Payroll sync  ", expiresAt });
    expect(created).toEqual({
      id: expect.any(Number),
      name: "Payroll sync",
      prefix: created.key.slice(0, 11),
      key: expect.stringMatching(/^rk_[A-Za-z0-9_-]{43}$/),
      createdAt: clock.now().toISOString(),
      expiresAt,
    });
    const rows = await db().select().from(apiKeys);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.keyHash).toBe(sha256Hex(created.key));
    expect(rows[0]?.prefix).toBe(created.prefix);
    // Nowhere in the table is the key itself, nor its secret part.
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(3));
    const list = await a.json<ApiKeyView[]>("GET", "ApiKeys");
    expect(list).toEqual([
      {
        id: created.id,
        name: "Payroll sync",
        prefix: created.prefix,
        createdAt: created.createdAt,
        createdBy: { id: a.userId, name: expect.any(String) },
        lastUsedAt: null,
        expiresAt,
        revokedAt: null,
        monthlyBudgetCents: null,
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(created.key.slice(3));
    const second = await createKey(a, { name: "CRM" });
    expect(second.key).not.toBe(created.key);
    expect((await a.json<ApiKeyView[]>("GET", "ApiKeys")).map((k) => k.name)).toEqual(["CRM", "Payroll sync"]);
    const audit = await db().select().from(auditLog).where(eq(auditLog.action, "api_key.created"));
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain(created.key.slice(3));
  });

  it("refuses a blank or long name and an expiry in the past, unreadable or over two years ahead, storing nothing", async () => {
    const { a, clock } = await world();
    const at = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
    for (const [body, detail] of [
      [{ name: "  " }, "Name is required."],
      [{ name: "x".repeat(65) }, "Name must be at most 64 characters."],
      [{ name: "Old", expiresAt: at(-MINUTE) }, "Expires must be in the future."],
      [{ name: "Far", expiresAt: at(3 * 366 * DAY) }, "Expires must be at most two years from now."],
      [{ name: "Bad", expiresAt: "next week" }, undefined],
    ] as const) {
      const problem = await expectProblem(await a.go("POST", "ApiKeys", body), 400);
      if (detail) expect(problem.detail).toBe(detail);
    }
    expect(await db().select().from(apiKeys)).toHaveLength(0);
  });

  it("a key reads its company's orders and one order with each recipient's delivery; another company's key gets 404", async () => {
    const { a, b, released, scheduled, v1, createKey } = await world();
    const aKey = (await createKey(a)).key;
    const bKey = (await createKey(b, { name: "Bravo sync" })).key;

    const page = (await (await v1("orders?pageNumber=1&pageSize=10", aKey)).json()) as RewardHistoryPage;
    expect(page.totalCount).toBe(2);
    expect(page.items.map((i) => [i.orderId, i.state]).sort()).toEqual(
      [
        [released, "released"],
        [scheduled, "scheduled"],
      ].sort(),
    );

    const releasedRes = await v1(`orders/${released}`, aKey);
    expect(releasedRes.status).toBe(200);
    const order = (await releasedRes.json()) as {
      orderId: number;
      state: string;
      rewardName: string;
      recipients: Array<{ amountCents: number; delivery: { state: string } | null }> | null;
    };
    expect(order).toMatchObject({ orderId: released, state: "released", rewardName: "Released Thanks" });
    expect(order.recipients?.map((r) => r.amountCents).sort()).toEqual([4000, 6000]);
    expect(order.recipients?.every((r) => r.delivery?.state === "queued")).toBe(true);
    const later = (await (await v1(`orders/${scheduled}`, aKey)).json()) as { state: string; recipients: unknown };
    expect(later).toMatchObject({ state: "scheduled", recipients: null });

    // B's key: A's orders are not there.
    const bPage = (await (await v1("orders", bKey)).json()) as RewardHistoryPage;
    expect(bPage.totalCount).toBe(0);
    for (const id of [released, scheduled, 999_999]) {
      const problem = await expectProblem(await v1(`orders/${id}`, bKey), 404);
      expect(JSON.stringify(problem)).not.toContain("Thanks");
    }
    await expectProblem(await v1("orders/abc", aKey), 404);
  });

  it("refuses no key, an unknown key, a manager's access token, a revoked key and an expired one (401)", async () => {
    const { a, b, clock, v1, createKey } = await world();
    const keep = await createKey(a, { name: "Kept" });
    const revoked = await createKey(a, { name: "Revoked" });
    const expiring = await createKey(a, {
      name: "Expiring",
      expiresAt: new Date(clock.now().getTime() + 60 * MINUTE).toISOString(),
    });
    for (const key of [keep.key, revoked.key, expiring.key]) expect((await v1("orders", key)).status).toBe(200);

    // B cannot revoke A's key: 404, and it still works.
    await expectProblem(await b.go("DELETE", `ApiKeys/${revoked.id}`), 404);
    expect((await v1("orders", revoked.key)).status).toBe(200);
    expect((await a.go("DELETE", `ApiKeys/${revoked.id}`)).status).toBe(204);
    // Revoking again is the same revocation (a double submit); one audit entry.
    expect((await a.go("DELETE", `ApiKeys/${revoked.id}`)).status).toBe(204);
    expect(await db().select().from(auditLog).where(eq(auditLog.action, "api_key.revoked"))).toHaveLength(1);
    clock.advance(61 * MINUTE);

    const unknown = `rk_${"A".repeat(43)}`;
    for (const key of [undefined, unknown, `${keep.key}x`, a.accessToken, revoked.key, expiring.key]) {
      const res = await v1("orders", key);
      const problem = await expectProblem(res, 401);
      expect(problem.detail).toContain("A valid API key is required");
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await v1("orders", keep.key)).status).toBe(200);
    const list = await a.json<ApiKeyView[]>("GET", "ApiKeys");
    expect(list.find((k) => k.id === revoked.id)?.revokedAt).not.toBeNull();
    expect(list.find((k) => k.id === keep.id)?.lastUsedAt).toBe(clock.now().toISOString());
  });

  it("marks a key used at most once a minute and audits its use at most once an hour", async () => {
    const { a, clock, v1, createKey } = await world();
    const { key, id } = await createKey(a);
    const lastUsed = async () => (await db().select().from(apiKeys).where(eq(apiKeys.id, id)))[0]?.lastUsedAt;
    const uses = async () => db().select().from(auditLog).where(eq(auditLog.action, "api_key.used"));
    const first = clock.now().toISOString();
    await Promise.all([v1("orders", key), v1("orders", key), v1("orders", key)]);
    expect((await lastUsed())?.toISOString()).toBe(first);
    expect(await uses()).toHaveLength(1);
    clock.advance(30_000);
    await v1("orders", key);
    expect((await lastUsed())?.toISOString()).toBe(first);
    clock.advance(31_000);
    await v1("orders", key);
    expect((await lastUsed())?.toISOString()).toBe(clock.now().toISOString());
    expect(await uses()).toHaveLength(1);
    clock.advance(60 * MINUTE);
    await v1("orders", key);
    expect(await uses()).toHaveLength(2);
  });

  it("a Manager (not an Owner) gets 403 on every key call and nothing changes", async () => {
    const { api, a, createKey } = await world();
    const existing = await createKey(a);
    const manager = await addManager(api, db(), a.companyId, `morgan.${a.userId}@example.com`);
    const before = await snapshot(db());
    for (const [method, path, body] of [
      ["GET", "ApiKeys", undefined],
      ["POST", "ApiKeys", { name: "Manager's key" }],
      ["DELETE", `ApiKeys/${existing.id}`, undefined],
    ] as const) {
      const problem = await expectProblem(await call(api, method, `/api/${path}`, body, manager.accessToken), 403);
      expect(problem.detail).toBe("Only an Owner of your company can do this.");
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("rate-limits each key on its own (429 with Retry-After), another key of the company still answered", async () => {
    const { a, v1, createKey, clock } = await world();
    // The budget of 600 a minute, scaled by RATE_LIMIT_FACTOR to 6 (an API of its own: its limits are its own).
    const limited = createApi({
      db: db(),
      config: testConfig({ CATALOGUE_URL: "https://catalogue.test/", RATE_LIMIT_FACTOR: "0.01" }),
      logger: captureLogs("silent").logger,
      captcha: { enabled: false, verify: async () => true },
      now: clock.now,
    });
    const busy = (await createKey(a, { name: "Busy" })).key;
    const other = (await createKey(a, { name: "Other" })).key;
    for (let i = 0; i < 6; i++) expect((await v1("orders", busy, limited)).status).toBe(200);
    const refused = await v1("orders", busy, limited);
    await expectProblem(refused, 429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await v1("orders", other, limited)).status).toBe(200);
  });
});
