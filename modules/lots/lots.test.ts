// Reward lots on a controllable clock (every call takes `now`): each release's lot expires 18
// months after its own email, so two rewards 18 months apart expire separately; the reminder goes
// out once, 30 days ahead; forfeiture and reminders happen once even when two processes run the
// job at the same moment (on PostgreSQL: two pools, two connections); spending draws from the
// oldest unexpired lot first, and a replayed key never spends twice.
import { and, asc, eq, like, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { formatDate } from "../../core/dates.ts";
import { type Db, openDatabase } from "../../server/db/client.ts";
import {
  emailOutbox,
  recipientAccounts,
  redemptions,
  rewardDraftLines,
  rewardDrafts,
  rewardLedger,
  rewardLots,
  users,
} from "../../server/db/schema.ts";
import { addMonths } from "../../server/mail/templates/dates.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call, logIn, type TestClock, testClock } from "../identity/accounts.testkit.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { recipientBalanceCents } from "../orders/release.server.ts";
import { deleteUser } from "../team/service.server.ts";
import {
  forfeitExpiredLots,
  lotBalances,
  type RedeemOutcome,
  redeem,
  remindExpiringLots,
  runExpiryJob,
} from "./service.server.ts";

const DAY = 24 * 60 * 60_000;
const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/", SUPPORT_EMAIL: "help@rewards.test" });

describeEachDatabase("reward lots", ({ kind, database }) => {
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** A company whose manager paid $60 for Ann and $40 for Bob at the clock's time. */
  async function released(clock: TestClock = testClock()) {
    const ctx = paymentsApi(db(), { config, clock });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    const [ann, bob] = await seedDraft(db(), manager, [60, 40], "First Thanks");
    if (!ann || !bob) throw new Error("no recipients");
    expect((await payDraftByCard(manager, [60, 40])).status).toBe("succeeded");
    return { ...ctx, clock, manager, ann, bob };
  }

  /** Rewards `userId` again ($dollars) as the manager, signed in afresh at the clock's time. */
  async function rewardAgain(w: Awaited<ReturnType<typeof released>>, userId: number, dollars: number, name: string) {
    const res = await logIn(w.api, w.manager.email);
    expect(res.status, await res.clone().text()).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    const [draft] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, w.manager.userId));
    if (!draft) throw new Error("no draft");
    await db()
      .update(rewardDrafts)
      .set({ name, version: draft.version + 1 })
      .where(eq(rewardDrafts.id, draft.id));
    await db()
      .insert(rewardDraftLines)
      .values({ draftId: draft.id, companyId: w.manager.companyId, userId, amountDollars: dollars });
    const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const r = await call(w.api, method, `/api/${path}`, body, accessToken);
      const text = await r.text();
      expect(r.status, text).toBe(200);
      return JSON.parse(text) as T;
    };
    expect((await payDraftByCard({ ...w.manager, accessToken, json } as typeof w.manager, [dollars])).status).toBe(
      "succeeded",
    );
  }

  const lotsOf = (userId: number) =>
    db().select().from(rewardLots).where(eq(rewardLots.userId, userId)).orderBy(asc(rewardLots.id));
  const accessCodeOf = async (userId: number) =>
    (await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, userId)))[0]?.accessCode ?? "";
  const forfeitsOf = (userId: number) =>
    db()
      .select({ lotId: rewardLedger.lotId, amountCents: rewardLedger.amountCents })
      .from(rewardLedger)
      .where(and(eq(rewardLedger.userId, userId), eq(rewardLedger.kind, "forfeit")))
      .orderBy(asc(rewardLedger.id));
  const reminders = () =>
    db()
      .select()
      .from(emailOutbox)
      .where(like(emailOutbox.subject, "Your Reward Dollars expire on %"))
      .orderBy(asc(emailOutbox.id));
  /** Each lot's remaining equals its credit less its debits and forfeits in the ledger. */
  async function expectLedgerMatchesLots() {
    const rows = (await db().execute(sql`
      select l.id, l.remaining_cents::bigint as remaining,
        coalesce(sum(case when g.kind = 'credit' then g.amount_cents else -g.amount_cents end), 0)::bigint as ledger
      from reward_lots l left join reward_ledger g on g.lot_id = l.id group by l.id`)) as unknown as {
      rows: Array<{ id: unknown; remaining: unknown; ledger: unknown }>;
    };
    for (const r of rows.rows) expect(Number(r.ledger), `lot ${r.id}`).toBe(Number(r.remaining));
  }

  it("two rewards 18 months apart: each lot expires 18 months after its own email, and is forfeited on its own", async () => {
    const w = await released();
    const t0 = w.clock.now();
    const [first] = await lotsOf(w.ann);
    expect(first).toMatchObject({
      amountCents: 6000,
      remainingCents: 6000,
      issuedAt: t0,
      expiresAt: addMonths(t0, 18),
    });

    // Ann spends $10 of it before it expires.
    const spent = await redeem(db(), {
      accessCode: await accessCodeOf(w.ann),
      amountCents: 1000,
      idempotencyKey: "spend-1",
      now: new Date(t0.getTime() + 30 * DAY),
    });
    expect(spent.kind).toBe("redeemed");

    // 18 months and a day later (the first lot has just expired), Ann is rewarded again.
    const t1 = new Date(addMonths(t0, 18).getTime() + DAY);
    w.clock.advance(t1.getTime() - t0.getTime());
    await rewardAgain(w, w.ann, 25, "Second Thanks");
    const [, second] = await lotsOf(w.ann);
    expect(second).toMatchObject({
      amountCents: 2500,
      remainingCents: 2500,
      issuedAt: t1,
      expiresAt: addMonths(t1, 18),
    });
    // Its email states its own expiry, not the first reward's.
    const [email] = await db()
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.recipientUserId, w.ann), like(emailOutbox.subject, "Congratulations%$25.00%")));
    expect(email?.text).toContain(`Valid until: ${formatDate(addMonths(t1, 18), "longDate")}`);
    // The expired lot no longer counts, before the job has even run.
    expect((await lotBalances(db(), w.manager.companyId, [w.ann], t1)).get(w.ann)).toEqual({
      balanceCents: 2500,
      nextExpiresAt: addMonths(t1, 18),
    });

    // The job forfeits the first lots (Ann's $50 left, Bob's $40), not the second.
    const run = await runExpiryJob(db(), { now: t1, config });
    expect(run).toMatchObject({ forfeitedLots: 2, forfeitedCents: 9000 });
    expect(await forfeitsOf(w.ann)).toEqual([{ lotId: first?.id, amountCents: 5000 }]);
    expect(await forfeitsOf(w.bob)).toHaveLength(1);
    expect((await lotsOf(w.ann)).map((l) => [l.remainingCents, l.forfeitedAt])).toEqual([
      [0, t1],
      [2500, null],
    ]);
    expect(await recipientBalanceCents(db(), w.manager.companyId, w.ann)).toBe(2500);

    // Nothing more until the second lot's own expiry; then it goes too.
    const justBefore = new Date(addMonths(t1, 18).getTime() - 1);
    expect((await forfeitExpiredLots(db(), { now: justBefore })).lots).toBe(0);
    expect(await forfeitExpiredLots(db(), { now: addMonths(t1, 18) })).toEqual({ lots: 1, cents: 2500 });
    expect(await recipientBalanceCents(db(), w.manager.companyId, w.ann)).toBe(0);
    expect(await forfeitsOf(w.ann)).toEqual([
      { lotId: first?.id, amountCents: 5000 },
      { lotId: second?.id, amountCents: 2500 },
    ]);
    await expectLedgerMatchesLots();
  });

  it("a reminder goes out once, 30 days before a lot expires, with what is left and the date", async () => {
    const w = await released();
    const [lot] = await lotsOf(w.ann);
    const expiresAt = lot?.expiresAt as Date;
    // Bob spends all of his: nothing to remind him of.
    const all = await redeem(db(), {
      accessCode: await accessCodeOf(w.bob),
      amountCents: 4000,
      idempotencyKey: "bob-all",
      now: w.clock.now(),
    });
    expect(all.kind).toBe("redeemed");
    const at = (daysBefore: number) => new Date(expiresAt.getTime() - daysBefore * DAY);

    expect(await remindExpiringLots(db(), { now: at(31), config })).toBe(0);
    expect(await remindExpiringLots(db(), { now: at(30), config })).toBe(1);
    expect(await remindExpiringLots(db(), { now: at(30), config })).toBe(0);
    expect(await remindExpiringLots(db(), { now: at(1), config })).toBe(0);

    const sent = await reminders();
    expect(sent).toHaveLength(1);
    const [reminder] = sent;
    const date = formatDate(expiresAt, "longDate");
    expect(reminder?.toAddress).toMatch(/^member\d+\./);
    expect(reminder?.subject).toBe(`Your Reward Dollars expire on ${date}`);
    expect(reminder?.text).toContain("You still have $60.00 in Reward Dollars");
    expect(reminder?.text).toContain(`Expires on: ${date}`);
    expect(reminder?.text).toContain("https://catalogue.test/");
    // Not one of the release's delivery emails (the delivery page shows those).
    expect(reminder?.orderId).toBeNull();
    expect((await lotsOf(w.ann))[0]?.remindedAt).toEqual(at(30));
  });

  it("a lot that expired before the job first saw it is forfeited, not reminded", async () => {
    const w = await released();
    const [lot] = await lotsOf(w.ann);
    if (!lot) throw new Error("no lot");
    const after = new Date(lot.expiresAt.getTime() + DAY);
    expect(await runExpiryJob(db(), { now: after, config })).toEqual({
      forfeitedLots: 2,
      forfeitedCents: 10_000,
      remindedLots: 0,
    });
    expect(await reminders()).toEqual([]);
  });

  it("two processes run the job at the same moment: every lot is forfeited and reminded exactly once", async () => {
    const w = await released();
    const companyId = w.manager.companyId;
    const t = w.clock.now();
    // 600 members: half of their lots expired a day ago, half expire in 10 days.
    await db().execute(sql`
      insert into users (company_id, first_name, last_name, email, role)
      select ${companyId}, 'Many', 'Member' || g, 'many.' || g || '@example.com', 'member' from generate_series(1, 600) g`);
    await db().execute(sql`
      insert into reward_lots (company_id, user_id, amount_cents, remaining_cents, issued_at, expires_at)
      select ${companyId}, u.id, 1000, 1000, ${t.toISOString()}::timestamptz - interval '18 months',
        ${t.toISOString()}::timestamptz + (case when u.id % 2 = 0 then interval '-1 day' else interval '10 days' end)
      from users u where u.first_name = 'Many'`);
    await db().execute(sql`
      insert into reward_ledger (company_id, user_id, kind, amount_cents, lot_id)
      select company_id, user_id, 'credit', amount_cents, id from reward_lots where order_id is null`);
    const [{ expired } = { expired: 0 }] = (
      (await db().execute(
        sql`select count(*)::int as expired from reward_lots where expires_at <= ${t.toISOString()}::timestamptz`,
      )) as unknown as { rows: { expired: number }[] }
    ).rows;
    expect(expired).toBeGreaterThan(100);

    // A second process: its own pool on PostgreSQL. PGlite is one process: the two runs share it.
    const other = kind === "postgres" ? await openDatabase(database().url) : undefined;
    try {
      const options = { now: t, config, forfeitBatch: 50, reminderBatch: 40 };
      const [a, b] = await Promise.all([runExpiryJob(db(), options), runExpiryJob(other?.db ?? db(), options)]);
      expect(a.forfeitedLots + b.forfeitedLots).toBe(expired);
      expect(a.forfeitedCents + b.forfeitedCents).toBe(expired * 1000);
      expect(a.remindedLots + b.remindedLots).toBe(600 - expired);
    } finally {
      await other?.close();
    }
    const [counts] = (
      (await db().execute(sql`
        select (select count(*) from reward_ledger where kind = 'forfeit')::int as forfeits,
          (select count(distinct lot_id) from reward_ledger where kind = 'forfeit')::int as lots,
          (select count(*) from email_outbox where subject like 'Your Reward Dollars expire on %')::int as reminders,
          (select count(*) from reward_lots where reminded_at is not null)::int as reminded`)) as unknown as {
        rows: { forfeits: number; lots: number; reminders: number; reminded: number }[];
      }
    ).rows;
    expect(counts).toEqual({ forfeits: expired, lots: expired, reminders: 600 - expired, reminded: 600 - expired });
    await expectLedgerMatchesLots();
    // A later run finds nothing left to do.
    expect(await runExpiryJob(db(), { now: t, config })).toEqual({
      forfeitedLots: 0,
      forfeitedCents: 0,
      remindedLots: 0,
    });
  });

  it("spending draws from the oldest unexpired lot first; above the balance it is refused and nothing changes", async () => {
    const w = await released();
    const t0 = w.clock.now();
    w.clock.advance(200 * DAY);
    await rewardAgain(w, w.ann, 25, "Second Thanks");
    const [first, second] = await lotsOf(w.ann);
    const code = await accessCodeOf(w.ann);
    const now = new Date(t0.getTime() + 201 * DAY);

    const out = await redeem(db(), { accessCode: code.toLowerCase(), amountCents: 7000, idempotencyKey: "k1", now });
    expect(out).toEqual({
      kind: "redeemed",
      redemption: {
        redemptionId: expect.any(Number),
        amountCents: 7000,
        balanceCents: 1500,
        lots: [
          { lotId: first?.id, amountCents: 6000, expiresAt: first?.expiresAt.toISOString() },
          { lotId: second?.id, amountCents: 1000, expiresAt: second?.expiresAt.toISOString() },
        ],
      },
    });
    expect((await lotsOf(w.ann)).map((l) => l.remainingCents)).toEqual([0, 1500]);
    const debits = await db()
      .select({
        lotId: rewardLedger.lotId,
        amountCents: rewardLedger.amountCents,
        redemptionId: rewardLedger.redemptionId,
      })
      .from(rewardLedger)
      .where(eq(rewardLedger.kind, "debit"))
      .orderBy(asc(rewardLedger.id));
    const redemptionId = out.kind === "redeemed" ? out.redemption.redemptionId : 0;
    expect(debits).toEqual([
      { lotId: first?.id, amountCents: 6000, redemptionId },
      { lotId: second?.id, amountCents: 1000, redemptionId },
    ]);

    // Over the balance: refused, nothing recorded, the key stays free.
    const ledgerBefore = await db().$count(rewardLedger);
    expect(await redeem(db(), { accessCode: code, amountCents: 1501, idempotencyKey: "k2", now })).toEqual({
      kind: "insufficient",
      balanceCents: 1500,
    });
    expect(await db().$count(rewardLedger)).toBe(ledgerBefore);
    expect(await db().$count(redemptions)).toBe(1);
    expect((await lotsOf(w.ann)).map((l) => l.remainingCents)).toEqual([0, 1500]);

    // A replay answers the first outcome and changes nothing; the key with another body is refused.
    const replay = await redeem(db(), { accessCode: code, amountCents: 7000, idempotencyKey: "k1", now });
    expect(replay).toEqual({ ...out, kind: "replayed" });
    expect(await redeem(db(), { accessCode: code, amountCents: 100, idempotencyKey: "k1", now })).toEqual({
      kind: "key_reused",
    });
    expect(await db().$count(rewardLedger)).toBe(ledgerBefore);
    expect(await redeem(db(), { accessCode: "NOPE-NOPE-NOPE", amountCents: 1, idempotencyKey: "k3", now })).toEqual({
      kind: "not_found",
    });
    await expectLedgerMatchesLots();
  });

  it("ten concurrent replays spend once; ten concurrent spendings never overdraw", async () => {
    const w = await released();
    const code = await accessCodeOf(w.ann);
    const now = w.clock.now();
    // Separate connections on PostgreSQL (the pool hands each call its own).
    const replays = await Promise.all(
      Array.from({ length: 10 }, () =>
        redeem(db(), { accessCode: code, amountCents: 1500, idempotencyKey: "same", now }),
      ),
    );
    expect(replays.filter((r) => r.kind === "redeemed")).toHaveLength(1);
    expect(replays.filter((r) => r.kind === "replayed")).toHaveLength(9);
    const bodies = new Set(
      replays.map((r) => JSON.stringify((r as Extract<RedeemOutcome, { kind: "replayed" }>).redemption)),
    );
    expect(bodies.size).toBe(1);
    expect((await lotsOf(w.ann))[0]?.remainingCents).toBe(4500);

    // $45 left; ten different spendings of $10 at once: four go through, six are refused.
    const spends = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        redeem(db(), { accessCode: code, amountCents: 1000, idempotencyKey: `each-${i}`, now }),
      ),
    );
    expect(spends.filter((r) => r.kind === "redeemed")).toHaveLength(4);
    expect(spends.filter((r) => r.kind === "insufficient")).toHaveLength(6);
    expect((await lotsOf(w.ann))[0]?.remainingCents).toBe(500);
    expect(await db().$count(redemptions)).toBe(5);
    await expectLedgerMatchesLots();
  });

  it("a member who leaves the team forfeits their lots; the job then finds nothing of theirs", async () => {
    const w = await released();
    expect(
      await deleteUser(db(), { companyId: w.manager.companyId, userId: w.manager.userId }, w.ann, w.clock.now()),
    ).toBe(true);
    expect(await forfeitsOf(w.ann)).toEqual([{ lotId: (await lotsOf(w.ann))[0]?.id, amountCents: 6000 }]);
    expect(await recipientBalanceCents(db(), w.manager.companyId, w.ann)).toBe(0);
    const later = addMonths(w.clock.now(), 19);
    expect(await runExpiryJob(db(), { now: later, config })).toMatchObject({ forfeitedLots: 1, forfeitedCents: 4000 });
    expect(await forfeitsOf(w.ann)).toHaveLength(1);
    expect((await db().select().from(users).where(eq(users.id, w.ann)))[0]?.isActive).toBe(false);
    await expectLedgerMatchesLots();
  });
});
