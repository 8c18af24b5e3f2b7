// POST /api/Redemptions, the catalogue partner's spending: only with the partner's key (401
// otherwise, a manager's token included), 404 for an unknown access code, 422 above the balance
// with nothing changed, a replay answering the first outcome with nothing changed, the key with
// another body 409, and the oldest unexpired lot spent first. My Team then shows what is left.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { recipientAccounts, rewardDraftLines, rewardDrafts, rewardLots } from "../../server/db/schema.ts";
import { addMonths } from "../../server/mail/templates/dates.ts";
import { snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call, logIn, testClock } from "../identity/accounts.testkit.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { TeamPage } from "../team/schema.ts";
import { REDEMPTION_DETAILS } from "./api.server.ts";
import type { RedemptionView } from "./service.server.ts";

const PARTNER_KEY = "partner-key-0123456789-abcdefghijklmnop";
const DAY = 24 * 60 * 60_000;

describeEachDatabase("POST /api/Redemptions", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/", PARTNER_API_KEY: PARTNER_KEY });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** Ann ($60) and Bob ($40) rewarded at the clock's start; Ann's access code. */
  async function released(options: { config?: typeof config } = {}) {
    const clock = testClock();
    const ctx = paymentsApi(db(), { config: options.config ?? config, clock });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    const [ann, bob] = await seedDraft(db(), manager, [60, 40], "Thanks");
    if (!ann || !bob) throw new Error("no recipients");
    expect((await payDraftByCard(manager, [60, 40])).status).toBe("succeeded");
    const [account] = await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, ann));
    /** As the partner (its key), or with `key`: null sends no Authorization header. */
    const redeem = (body: unknown, key: string | null = PARTNER_KEY) =>
      call(ctx.api, "POST", "/api/Redemptions", body, key ?? undefined);
    return { ...ctx, clock, manager, ann, bob, code: account?.accessCode ?? "", redeem };
  }

  it("refuses every caller without the partner's key (none, a manager's token, a wrong key): 401, nothing changes", async () => {
    const w = await released();
    const body = { accessCode: w.code, amountCents: 100, idempotencyKey: "k-401" };
    const before = await snapshot(db());
    for (const key of [null, w.manager.accessToken, `${PARTNER_KEY}x`, PARTNER_KEY.slice(0, -1)]) {
      const problem = await expectProblem(await w.redeem(body, key), 401);
      expect(problem.detail).toBe(REDEMPTION_DETAILS.unauthorized);
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("with no partner key configured, refuses everyone", async () => {
    const w = await released({ config: testConfig({ PARTNER_API_KEY: "" }) });
    await expectProblem(await w.redeem({ accessCode: w.code, amountCents: 100, idempotencyKey: "k" }), 401);
  });

  it("an unknown access code is 404; a bad body is 400 with the field named; nothing changes", async () => {
    const w = await released();
    const before = await snapshot(db());
    const missing = await expectProblem(
      await w.redeem({ accessCode: "ZZZZ-ZZZZ-ZZZZ", amountCents: 100, idempotencyKey: "k-404" }),
      404,
    );
    expect(missing.detail).toBe(REDEMPTION_DETAILS.notFound);
    for (const [body, field] of [
      [{ accessCode: w.code, amountCents: 0, idempotencyKey: "k" }, "amountCents"],
      [{ accessCode: w.code, amountCents: 1.5, idempotencyKey: "k" }, "amountCents"],
      [{ accessCode: w.code, amountCents: "100", idempotencyKey: "k" }, "amountCents"],
      [{ accessCode: w.code, amountCents: 100_000_001, idempotencyKey: "k" }, "amountCents"],
      [{ accessCode: w.code, amountCents: 100, idempotencyKey: "has space" }, "idempotencyKey"],
      [{ accessCode: w.code, amountCents: 100 }, "idempotencyKey"],
      [{ amountCents: 100, idempotencyKey: "k" }, "accessCode"],
    ] as const) {
      const problem = await expectProblem(await w.redeem(body), 400);
      expect(Object.keys(problem.errors ?? {}), JSON.stringify(body)).toEqual([field]);
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("spends: 201 with the lots drawn; a replay answers the same (200) and changes nothing; the key with another body is 409", async () => {
    const w = await released();
    const [lot] = await db().select().from(rewardLots).where(eq(rewardLots.userId, w.ann));
    const body = { accessCode: w.code, amountCents: 2550, idempotencyKey: "order-1001" };
    const first = await w.redeem(body);
    expect(first.status, await first.clone().text()).toBe(201);
    const answer = (await first.json()) as RedemptionView;
    expect(answer).toEqual({
      redemptionId: expect.any(Number),
      amountCents: 2550,
      balanceCents: 3450,
      lots: [{ lotId: lot?.id, amountCents: 2550, expiresAt: lot?.expiresAt.toISOString() }],
    });

    const before = await snapshot(db());
    const again = await w.redeem(body);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(answer);
    const other = await expectProblem(await w.redeem({ ...body, amountCents: 2551 }), 409);
    expect(other.detail).toBe(REDEMPTION_DETAILS.keyReused);
    await expectProblem(await w.redeem({ ...body, accessCode: "ZZZZ-ZZZZ-ZZZZ" }), 409);
    expect(await snapshot(db())).toEqual(before);
  });

  it("above the balance: 422 problem+json with the balance, and nothing changes", async () => {
    const w = await released();
    const before = await snapshot(db());
    const res = await w.redeem({ accessCode: w.code, amountCents: 6001, idempotencyKey: "too-much" });
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const problem = await expectProblem(res, 422);
    expect(problem).toMatchObject({ detail: REDEMPTION_DETAILS.insufficient, balanceCents: 6000 });
    expect(await snapshot(db())).toEqual(before);
  });

  it("draws from the oldest unexpired lot first, across releases; My Team shows what is left and the next expiry", async () => {
    const w = await released();
    const t0 = w.clock.now();
    // A second reward for Ann 100 days later.
    w.clock.advance(100 * DAY);
    const login = await logIn(w.api, w.manager.email);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const [draft] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, w.manager.userId));
    if (!draft) throw new Error("no draft");
    await db()
      .update(rewardDrafts)
      .set({ name: "Again", version: draft.version + 1 })
      .where(eq(rewardDrafts.id, draft.id));
    await db()
      .insert(rewardDraftLines)
      .values({ draftId: draft.id, companyId: w.manager.companyId, userId: w.ann, amountDollars: 30 });
    const json = async <T>(method: string, path: string, body?: unknown) => {
      const r = await call(w.api, method, `/api/${path}`, body, accessToken);
      expect(r.status, await r.clone().text()).toBe(200);
      return (await r.json()) as T;
    };
    expect((await payDraftByCard({ ...w.manager, accessToken, json }, [30])).status).toBe("succeeded");
    const lots = await db().select().from(rewardLots).where(eq(rewardLots.userId, w.ann)).orderBy(rewardLots.id);
    expect(lots.map((l) => l.expiresAt)).toEqual([
      addMonths(t0, 18),
      addMonths(new Date(t0.getTime() + 100 * DAY), 18),
    ]);

    const res = await w.redeem({ accessCode: w.code, amountCents: 7000, idempotencyKey: "fifo" });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as RedemptionView).lots.map((l) => [l.lotId, l.amountCents])).toEqual([
      [lots[0]?.id, 6000],
      [lots[1]?.id, 1000],
    ]);

    const page = await json<TeamPage>("GET", "Users?pageNumber=1&pageSize=8");
    const byId = new Map(page.items.map((m) => [m.id, m]));
    expect(byId.get(w.ann)).toMatchObject({ balanceCents: 2000, nextExpiresAt: lots[1]?.expiresAt.toISOString() });
    expect(byId.get(w.bob)).toMatchObject({ balanceCents: 4000, nextExpiresAt: lots[0]?.expiresAt.toISOString() });
    // After Bob's lot expires (whether or not the job has run), it no longer counts.
    w.clock.advance(addMonths(t0, 18).getTime() - w.clock.now().getTime());
    const relogin = await logIn(w.api, w.manager.email);
    const later = (await (
      await call(
        w.api,
        "GET",
        "/api/Users?pageNumber=1&pageSize=8",
        undefined,
        ((await relogin.json()) as { accessToken: string }).accessToken,
      )
    ).json()) as TeamPage;
    expect(later.items.find((m) => m.id === w.bob)).toMatchObject({ balanceCents: 0, nextExpiresAt: null });
  });
});
