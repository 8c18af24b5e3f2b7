// The money reconciliation (money-check.ts) on PGlite and PostgreSQL: a database made through the
// real calls (released card orders, a balance top-up, a balance-charged API order, a scheduled API
// order cancelled and refunded to the balance, one awaiting approval, a redemption) reconciles
// clean; then each kind of corruption, made by a direct SQL change, is found by its rule alone and
// names the right company, order or recipient. The SQL's fee and GST agree with core/money.ts.
// Last, `node scripts/check-money.ts` on a PGlite directory: 0 and one line when clean, 1 with the
// finding when not, and the directory lock's refusal while another process holds the directory.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { and, eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import { type Db, openDatabase } from "../../server/db/client.ts";
import {
  balanceEntries,
  balanceTopUps,
  companies,
  orders,
  recipientAccounts,
  rewardLedger,
  rewardLots,
} from "../../server/db/schema.ts";
import { rowsOf } from "../../server/db/sql.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import type { V1Order } from "../api-v1/schema.ts";
import { moveBalance } from "../balance/service.server.ts";
import { redeem } from "../lots/service.server.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { claimRun, MONEY_CHECK_CLAIM_KEY, startMoneyCheckJob } from "./job.server.ts";
import { checkMoney, FEE_SQL, GST_SQL, MONEY_CHECK_GRACE_MS, type MoneyFinding } from "./service.server.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const root = fileURLToPath(new URL("../..", import.meta.url));
const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });

/** Builds the clean world through the real calls; answers the ids the corruptions aim at. */
async function buildWorld(db: Db) {
  const ctx = paymentsApi(db, { config });
  const { api, clock } = ctx;
  const a = await payingManager(api, db, "Alpha Pty Ltd");
  const b = await payingManager(api, db, "Bravo Pty Ltd");

  // Card orders, released at once: one per company.
  await seedDraft(db, a, [50, 25]);
  await payDraftByCard(a, [50, 25]);
  await seedDraft(db, b, [30]);
  await payDraftByCard(b, [30]);
  const cardOrderOf = async (companyId: number) =>
    (
      await db
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.companyId, companyId), eq(orders.status, "paid")))
    )[0]!.id;
  const cardOrder = await cardOrderOf(a.companyId);
  const bCardOrder = await cardOrderOf(b.companyId);

  // A paid top-up of $500, credited as every path credits one (moveBalance, ADR 0043).
  await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(balanceTopUps)
      .values({
        companyId: a.companyId,
        requestedBy: a.userId,
        amountCents: 500_00,
        status: "paid",
        processor: "simulated",
        paidAt: clock.now(),
      })
      .returning({ id: balanceTopUps.id });
    await moveBalance(tx, a.companyId, { kind: "top_up", topUpId: row!.id, amountCents: 500_00 });
  });

  const key = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
  const post = async (amounts: number[], extra: Record<string, unknown> = {}) => {
    const res = await api.request("/api/v1/orders", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.key}`,
        "content-type": "application/json",
        "idempotency-key": randomUUID(),
      },
      body: JSON.stringify({
        rewardName: "Quarter Thanks",
        recipients: amounts.map((amount, i) => ({
          email: `api${i}.${randomUUID().slice(0, 8)}@example.com`,
          firstName: `First${i}`,
          lastName: `Last${i}`,
          amount,
        })),
        ...extra,
      }),
    });
    expect([201, 202], await res.clone().text()).toContain(res.status);
    return (await res.json()) as V1Order;
  };
  // Charged to the balance and released at once.
  const apiOrder = await post([60, 40]);
  expect(apiOrder.state).toBe("released");
  // Scheduled two days ahead, then cancelled: refunded to the balance.
  const cancelled = await post([10], { sendAt: new Date(clock.now().getTime() + 2 * DAY).toISOString() });
  const res = await api.request(`/api/RewardOrders/${cancelled.orderId}/cancel`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.accessToken}` },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  // One at or above the threshold: waits for an Owner, nothing charged.
  await a.json("PUT", "Approvals/threshold", { thresholdDollars: 1000 });
  const awaiting = await post([1000]);
  expect(awaiting.state).toBe("awaiting_approval");

  // A recipient of the card order spends $10 (the catalogue partner's call).
  const [account] = await db
    .select({ accessCode: recipientAccounts.accessCode, userId: recipientAccounts.userId })
    .from(recipientAccounts)
    .where(eq(recipientAccounts.companyId, a.companyId))
    .orderBy(recipientAccounts.userId)
    .limit(1);
  const spent = await redeem(db, {
    accessCode: account!.accessCode,
    amountCents: 10_00,
    idempotencyKey: `spend-${randomUUID()}`,
    now: clock.now(),
  });
  expect(spent.kind).toBe("redeemed");

  return {
    ...ctx,
    a,
    b,
    cardOrder,
    bCardOrder,
    apiOrder: apiOrder.orderId,
    cancelledOrder: cancelled.orderId,
    awaitingOrder: awaiting.orderId,
    spender: account!.userId,
  };
}

/** A finding of `rule` naming exactly these ids. */
const finding = (rule: MoneyFinding["rule"], ids: { companyId: number; orderId?: number; userId?: number }) => ({
  rule,
  companyId: ids.companyId,
  ...(ids.orderId === undefined ? {} : { orderId: ids.orderId }),
  ...(ids.userId === undefined ? {} : { userId: ids.userId }),
  detail: expect.any(String),
});

describeEachDatabase("money check", ({ database }) => {
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));
  const exec = (query: ReturnType<typeof sql>) => db().execute(query);

  it("a database made by the real calls reconciles: no finding, every company and order counted", async () => {
    const w = await buildWorld(db());
    const result = await checkMoney(db(), { now: w.clock.now() });
    expect(result.findings).toEqual([]);
    expect(result).toMatchObject({ companies: 2, orders: 5 });
    // Still clean long after: nothing is left on its way.
    expect((await checkMoney(db(), { now: new Date(Date.now() + DAY) })).findings).toEqual([]);
  });

  it("company-balance: a company balance that is not the sum of its ledger", async () => {
    const w = await buildWorld(db());
    await exec(sql`update companies set balance_cents = balance_cents + 1 where id = ${w.a.companyId}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("company-balance", { companyId: w.a.companyId })]);
    expect(findings[0]?.detail).toMatch(/balance \d+ cents, but its 4 ledger entries sum to \d+ cents/);
  });

  it("order-state: a paid card order that is neither released, scheduled, awaiting approval nor refunded", async () => {
    const w = await buildWorld(db());
    await exec(sql`update orders set status = 'failed' where id = ${w.bCardOrder}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("order-state", { companyId: w.b.companyId, orderId: w.bCardOrder })]);
  });

  it("order-state: a cancelled order whose refund never came, once the grace is over", async () => {
    const w = await buildWorld(db());
    // The refund undone whole (the balance and its entry too): as if it had never gone through.
    const total = chargesFor([10]).totalCents;
    await exec(sql`delete from balance_entries where order_id = ${w.cancelledOrder} and kind = 'refund'`);
    await exec(sql`update companies set balance_cents = balance_cents - ${total} where id = ${w.a.companyId}`);
    await exec(sql`update orders set refunded_at = null, refund_id = null where id = ${w.cancelledOrder}`);
    // Within the grace the scheduler may still refund it (scheduled-sends.ts retries).
    expect((await checkMoney(db(), { now: w.clock.now() })).findings).toEqual([]);
    const later = new Date(w.clock.now().getTime() + MONEY_CHECK_GRACE_MS + MINUTE);
    expect((await checkMoney(db(), { now: later })).findings).toEqual([
      finding("order-state", { companyId: w.a.companyId, orderId: w.cancelledOrder }),
    ]);
  });

  it("order-charge: a balance order released without its charge", async () => {
    const w = await buildWorld(db());
    const total = chargesFor([60, 40]).totalCents;
    await exec(sql`delete from balance_entries where order_id = ${w.apiOrder} and kind = 'order'`);
    await exec(sql`update companies set balance_cents = balance_cents + ${total} where id = ${w.a.companyId}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("order-charge", { companyId: w.a.companyId, orderId: w.apiOrder })]);
    expect(findings[0]?.detail).toContain("has no balance charge");
  });

  it("order-charge: a card order charged to the balance as well (paid twice)", async () => {
    const w = await buildWorld(db());
    const total = chargesFor([50, 25]).totalCents;
    await exec(sql`update companies set balance_cents = balance_cents - ${total} where id = ${w.a.companyId}`);
    await db().insert(balanceEntries).values({
      companyId: w.a.companyId,
      kind: "order",
      amountCents: -total,
      balanceAfterCents: 0,
      orderId: w.cardOrder,
    });
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("order-charge", { companyId: w.a.companyId, orderId: w.cardOrder })]);
    expect(findings[0]?.detail).toContain("also charged to the balance 1 time(s)");
  });

  it("release-lots: a release that lost one of its lots", async () => {
    const w = await buildWorld(db());
    const [lot] = await db()
      .select({ id: rewardLots.id })
      .from(rewardLots)
      .where(eq(rewardLots.orderId, w.apiOrder))
      .limit(1);
    // The lot and its credit go together, so the recipient's balance still agrees with the ledger.
    await exec(sql`delete from reward_ledger where lot_id = ${lot!.id}`);
    await exec(sql`delete from reward_lots where id = ${lot!.id}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("release-lots", { companyId: w.a.companyId, orderId: w.apiOrder })]);
    expect(findings[0]?.detail).toMatch(/for 2 order lines has 1 lots/);
  });

  it("release-lots: a lot (with its credit) for an order that was never released", async () => {
    const w = await buildWorld(db());
    const [lot] = await db()
      .insert(rewardLots)
      .values({
        companyId: w.a.companyId,
        userId: w.spender,
        orderId: w.awaitingOrder,
        amountCents: 1000_00,
        remainingCents: 1000_00,
        issuedAt: w.clock.now(),
        expiresAt: new Date(w.clock.now().getTime() + 500 * DAY),
      })
      .returning({ id: rewardLots.id });
    await db().insert(rewardLedger).values({
      companyId: w.a.companyId,
      userId: w.spender,
      orderId: w.awaitingOrder,
      kind: "credit",
      amountCents: 1000_00,
      lotId: lot!.id,
    });
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("release-lots", { companyId: w.a.companyId, orderId: w.awaitingOrder })]);
    expect(findings[0]?.detail).toContain("without a release");
  });

  it("recipient-balance: a lot's remaining that is not its history (issued − redeemed − forfeited)", async () => {
    const w = await buildWorld(db());
    await exec(
      sql`update reward_lots set remaining_cents = remaining_cents - 100 where id = (select min(id) from reward_lots where user_id = ${w.spender})`,
    );
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("recipient-balance", { companyId: w.a.companyId, userId: w.spender })]);
    expect(findings[0]?.detail).toContain("redeemed 1000");
  });

  it("refund: a balance refund recorded twice", async () => {
    const w = await buildWorld(db());
    const total = chargesFor([10]).totalCents;
    // The unique index makes a second refund impossible to write; a broken or dropped one is what
    // this rule is for, so the test drops it, and puts it back as migration 0018 made it.
    await exec(sql`drop index balance_entries_order_idx`);
    try {
      await exec(sql`update companies set balance_cents = balance_cents + ${total} where id = ${w.a.companyId}`);
      await db().insert(balanceEntries).values({
        companyId: w.a.companyId,
        kind: "refund",
        amountCents: total,
        balanceAfterCents: 0,
        orderId: w.cancelledOrder,
      });
      const { findings } = await checkMoney(db(), { now: w.clock.now() });
      expect(findings).toEqual([finding("refund", { companyId: w.a.companyId, orderId: w.cancelledOrder })]);
      expect(findings[0]?.detail).toContain("has 2 balance refund(s)");
    } finally {
      await truncateAll(db());
      await exec(
        sql`create unique index balance_entries_order_idx on balance_entries (order_id, kind) where kind in ('order', 'refund')`,
      );
    }
  });

  it("top-up: a top-up credited twice, and a credit of a top-up that was never paid", async () => {
    const w = await buildWorld(db());
    const [paid] = await db().select().from(balanceTopUps);
    const [unpaid] = await db()
      .insert(balanceTopUps)
      .values({ companyId: w.b.companyId, requestedBy: w.b.userId, amountCents: 50_00, processor: "stripe" })
      .returning();
    // The unique index makes a second credit impossible to write; a broken or dropped one is what
    // this rule is for, so the test drops it, and puts it back as migration 0018 made it.
    await exec(sql`drop index balance_entries_top_up_idx`);
    try {
      await db().transaction(async (tx) => {
        await moveBalance(tx, w.a.companyId, { kind: "top_up", topUpId: paid!.id, amountCents: paid!.amountCents });
        await moveBalance(tx, w.b.companyId, { kind: "top_up", topUpId: unpaid!.id, amountCents: 50_00 });
      });
      const { findings } = await checkMoney(db(), { now: w.clock.now() });
      expect(findings).toEqual([
        { ...finding("top-up", { companyId: w.a.companyId }), topUpId: paid!.id },
        { ...finding("top-up", { companyId: w.b.companyId }), topUpId: unpaid!.id },
      ]);
      expect(findings[0]?.detail).toBe("paid top-up of 50000 cents has 2 credit(s) of 100000 cents");
      expect(findings[1]?.detail).toBe(
        "pending top-up of 5000 cents has 1 credit(s) of 5000 cents: credited but not paid",
      );
    } finally {
      await truncateAll(db());
      await exec(
        sql`create unique index balance_entries_top_up_idx on balance_entries (top_up_id) where kind = 'top_up'`,
      );
    }
  });

  it("order-amounts: a fee that is not 10 % of the rewards", async () => {
    const w = await buildWorld(db());
    // total = rewards + fee + GST is a check constraint, so the total moves with the fee.
    await exec(
      sql`update orders set service_fee_cents = service_fee_cents + 1, total_cents = total_cents + 1 where id = ${w.awaitingOrder}`,
    );
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("order-amounts", { companyId: w.a.companyId, orderId: w.awaitingOrder })]);
  });

  // A member's removal is dated by its 'member.removed' audit entry (modules/team/service.server.ts deleteUser).
  const removeAt = (companyId: number, userId: number, at: ReturnType<typeof sql>) =>
    exec(
      sql`insert into audit_log (company_id, action, subject, data, created_at) values (${companyId}, 'member.removed', ${`user:${userId}`}, '{}'::jsonb, ${at})`,
    );

  it("removed-member-credit: a lot and its credit made for a member after their removal (and what they redeemed then)", async () => {
    const w = await buildWorld(db());
    await removeAt(
      w.a.companyId,
      w.spender,
      sql`(select min(issued_at) - interval '1 minute' from reward_lots where user_id = ${w.spender})`,
    );
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    const [lot] = await db().select().from(rewardLots).where(eq(rewardLots.userId, w.spender));
    const ids = { companyId: w.a.companyId, orderId: lot?.orderId ?? undefined, userId: w.spender };
    expect(findings).toEqual([
      finding("removed-member-credit", ids),
      finding("removed-member-credit", ids),
      finding("removed-member-redemption", { companyId: w.a.companyId, userId: w.spender }),
    ]);
    expect(findings.map((f) => f.detail.replace(/\d+/g, "N"))).toEqual([
      "ledger credit N of N cents made after the member was removed",
      "lot N of N cents made after the member was removed",
      "redemption N of N cents after the member was removed",
    ]);
  });

  it("removed-member-redemption: a redemption of a member's code after their removal", async () => {
    const w = await buildWorld(db());
    await removeAt(
      w.a.companyId,
      w.spender,
      sql`(select max(issued_at) from reward_lots where user_id = ${w.spender})`,
    );
    await exec(sql`update redemptions set created_at = created_at + interval '1 minute' where user_id = ${w.spender}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("removed-member-redemption", { companyId: w.a.companyId, userId: w.spender })]);
  });

  it("line-amount: an order line outside $1 to $10,000", async () => {
    const w = await buildWorld(db());
    // The order's $50 and $25 lines become $0 and $75: the same sum, so only the line is wrong.
    const lines = rowsOf<{ id: number; user_id: number; amount_cents: number }>(
      await exec(sql`select id, user_id, amount_cents from order_lines where order_id = ${w.cardOrder} order by id`),
    );
    await exec(sql`update order_lines set amount_cents = 0 where id = ${lines[0]!.id}`);
    await exec(sql`update order_lines set amount_cents = 7500 where id = ${lines[1]!.id}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([
      finding("line-amount", { companyId: w.a.companyId, orderId: w.cardOrder, userId: Number(lines[0]!.user_id) }),
    ]);
  });

  it("manager-budget: a Manager's orders this month past their budget without an approval", async () => {
    const w = await buildWorld(db());
    const manager = rowsOf<{ id: number }>(
      await exec(sql`insert into users (company_id, first_name, last_name, email, role, manager_role, monthly_budget_cents)
        values (${w.a.companyId}, 'Morgan', 'Manager', 'morgan@alpha.example', 'program_manager', 'manager', 5000)
        returning id`),
    )[0]!.id;
    // The $75 card order is made theirs: $75 of rewards against a $50 budget, never approved.
    await exec(sql`update orders set placed_by = ${manager} where id = ${w.cardOrder}`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([finding("manager-budget", { companyId: w.a.companyId, userId: Number(manager) })]);
    expect(findings[0]?.detail).toContain("7500 cents of rewards");
    // Approved by an Owner, it may pass the budget.
    await exec(sql`update orders set approval_status = 'approved' where id = ${w.cardOrder}`);
    expect((await checkMoney(db(), { now: w.clock.now() })).findings).toEqual([]);
  });

  it("automation-once: an automation order that pays a member no occasion of theirs names", async () => {
    const w = await buildWorld(db());
    const automation = rowsOf<{ id: number }>(
      await exec(sql`insert into automations (company_id, created_by, occasion, amount_cents, per_year, reward_name, message_template, enabled, updated_at)
        values (${w.a.companyId}, ${w.a.userId}, 'birthday', 5000, false, 'Birthday', 'Hi', true, now()) returning id`),
    )[0]!.id;
    await exec(sql`update orders set automation_id = ${automation} where id = ${w.cardOrder}`);
    const lines = rowsOf<{ user_id: number }>(
      await exec(sql`select user_id from order_lines where order_id = ${w.cardOrder} order by user_id`),
    );
    // The first member's occasion names the order; the second's names none: paid without an occasion.
    await exec(sql`insert into automation_rewards (company_id, automation_id, user_id, occasion, year, due_at, order_id)
      values (${w.a.companyId}, ${automation}, ${lines[0]!.user_id}, 'birthday', 2026, now(), ${w.cardOrder})`);
    const { findings } = await checkMoney(db(), { now: w.clock.now() });
    expect(findings).toEqual([
      finding("automation-once", { companyId: w.a.companyId, orderId: w.cardOrder, userId: Number(lines[1]!.user_id) }),
    ]);
  });

  it("the SQL's fee and GST are core/money.ts chargesFor's, rounding included", async () => {
    const dollars = [0, 1, 5, 9, 10, 15, 99, 100, 101, 555, 999, 1234, 9999, 10_000, 123_456];
    // Odd cents too (no order has them, but the rounding half up must be the same).
    const cents = [...dollars.map((d) => d * 100), 5, 15, 25, 45, 95, 105, 994, 995, 996];
    const rows = rowsOf<{ x: unknown; fee: unknown; gst: unknown }>(
      await exec(
        sql`select x, ${sql.raw(FEE_SQL("x"))} as fee, ${sql.raw(GST_SQL("x"))} as gst from unnest(${sql.param(cents)}::bigint[]) as x`,
      ),
    );
    for (const row of rows) {
      const x = Number(row.x);
      // chargesFor takes dollars; for odd cents, the same rule by hand: × 10 / 100, half up.
      const expectedFee = x % 100 === 0 ? chargesFor([x / 100]).serviceFeeCents : Math.floor((x * 10 * 2 + 100) / 200);
      expect(Number(row.fee), `fee of ${x}`).toBe(expectedFee);
      expect(Number(row.gst), `GST on a fee of ${x}`).toBe(Math.floor((x * 10 * 2 + 100) / 200));
    }
    for (const d of dollars) {
      const c = chargesFor([d]);
      const [row] = rowsOf<{ gst: unknown }>(
        await exec(sql`select ${sql.raw(GST_SQL(String(c.serviceFeeCents)))} as gst`),
      );
      expect(Number(row?.gst), `GST of $${d}`).toBe(c.gstCents);
    }
  });

  it("the hourly job: one process an hour checks (the claim), and each finding is an error naming its ids", async () => {
    const w = await buildWorld(db());
    await exec(sql`update companies set balance_cents = balance_cents + 1 where id = ${w.a.companyId}`);
    let now = w.clock.now();
    // The first claim ever only records the time: a fresh deployment is checked an hour later.
    expect(await claimRun(db(), now)).toBe(false);
    const logs = captureLogs("info");
    const job = () => startMoneyCheckJob({ db: db(), logger: logs.logger, now: () => now }, false);
    const one = job();
    const two = job();
    expect(await one.runOnce()).toBeNull();
    now = new Date(now.getTime() + 60 * MINUTE);
    // Two processes at the same moment: one checks, the other finds the hour taken.
    const results = await Promise.all([one.runOnce(), two.runOnce()]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await one.runOnce()).toBeNull();
    const errors = logs.records().filter((r) => r.level === 50);
    expect(errors).toEqual([
      expect.objectContaining({
        rule: "company-balance",
        companyId: w.a.companyId,
        msg: expect.stringMatching(/^money check: company-balance: company \d+: balance/),
      }),
    ]);
    const [claim] = rowsOf<{ value: string }>(
      await exec(sql`select value from app_settings where key = ${MONEY_CHECK_CLAIM_KEY}`),
    );
    expect(claim?.value).toBe(now.toISOString());
    await Promise.all([one.stop(), two.stop()]);
  });
});

describe("node scripts/check-money.ts on a PGlite directory", () => {
  function run(databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl };
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [join(root, "scripts/check-money.ts")],
        { cwd: root, env },
        (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        },
      );
    });
  }

  it("exits 0 with one line when clean, 1 with the finding when not, and refuses a directory in use", {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rewards-money-check-"));
    try {
      const url = join(dir, "db");
      let database = await openDatabase(url);
      let companyId: number;
      try {
        await database.migrate();
        const w = await buildWorld(database.db);
        companyId = w.a.companyId;
        // While this process holds the directory, the script refuses with the lock's message.
        const held = await run(url);
        expect(held.code).toBe(1);
        expect(held.stderr.trim()).toMatch(/^The database directory .* is in use by another process \(pid \d+\)/);
        expect(held.stdout).toBe("");
      } finally {
        await database.close();
      }

      const clean = await run(url);
      expect(clean, clean.stderr).toMatchObject({
        code: 0,
        stdout: "money reconciles: 2 companies, 5 orders checked\n",
      });

      database = await openDatabase(url);
      try {
        await database.db
          .update(companies)
          .set({ balanceCents: sql`${companies.balanceCents} + 1` })
          .where(eq(companies.id, companyId));
      } finally {
        await database.close();
      }
      const broken = await run(url);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(new RegExp(`^company-balance: company ${companyId}: balance \\d+ cents`));
      expect(broken.stdout.trim().split("\n")).toHaveLength(1);

      // A path with no database is refused, not created and called clean.
      const missing = await run(join(dir, "nothing-here"));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("No database at");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
