// Reward lots (docs/requirements.md §S1: Reward Dollars are valid 18 months from the congratulatory email; ADR
// 0027): each release gives each recipient one lot (release.ts), valid 18 months
// from that release's email. This module is everything that happens to a lot afterwards:
//
//   - the expiry job (runExpiryJob): what is unspent at expiry is forfeited (the lot's remaining
//     set to 0 and a 'forfeit' ledger entry with its lot_id), and 30 days before a lot expires its
//     recipient is emailed a reminder with the amount and the date. Every process may run it at
//     once: each batch is ONE statement that locks its lots (FOR UPDATE) and changes only lots
//     still matching its condition, so a second run waiting on those locks re-reads them, finds
//     them already forfeited or reminded, and skips them (PostgreSQL's READ COMMITTED re-check).
//     Exactly once by construction, without a claim or a leader.
//   - spending reported by the catalogue partner (redeem, POST /api/Redemptions): drawn from the
//     oldest unexpired lot first (expiry, then id); above the balance it is refused and nothing
//     changes; the partner's idempotency key is UNIQUE and inserted first, so a replay (even ten
//     at once) waits for the first, then answers its outcome and changes nothing.
//
// Each of these emits its webhook events in its own transaction (ADR 0045
// "Reward-life events"): reward.expiring / reward.expiry_reminder_sent per reminded lot,
// reward.expired / reward.forfeited per forfeited lot (also when a member is removed), and
// reward.redeemed per redemption.
//   - balances for My Team: what is left of each member's unexpired lots and the next expiry.
//
// The lot's remainingCents is stored, and the ledger keeps every movement with its lot, so the
// ledger's sum is still the recipient's balance (ADR 0027).
import { createHash } from "node:crypto";
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Config } from "../../server/config.ts";
import type { Db, Tx } from "../../server/db/client.ts";
import { auditLog, recipientAccounts, redemptions, rewardLedger, rewardLots, users } from "../../server/db/schema.ts";
import { col, rowsOf, unnestRows } from "../../server/db/sql.ts";
import { enqueueEmails, type RewardEmail } from "../../server/mail/outbox.ts";
import { rewardExpiryReminderEmail } from "../../server/mail/templates/rewards.ts";
import { recordAudit } from "../audit/service.server.ts";
import {
  rewardExpiredEvent,
  rewardExpiringEvent,
  rewardExpiryReminderSentEvent,
  rewardForfeitedEvent,
  rewardRedeemedEvent,
} from "../webhooks/events.server.ts";
import { emitEvents } from "../webhooks/service.server.ts";

/** A lot's recipient is reminded this many days before it expires. */
export const REMINDER_DAYS = 30;
const DAY_MS = 24 * 60 * 60_000;

/** The most one redemption may spend: far above any reward, far below bigint trouble. */
export const MAX_REDEMPTION_CENTS = 100_000_000;

/** Lots per forfeiture transaction: short row locks, one statement each. */
const FORFEIT_BATCH = 10_000;
/** Lots per reminder transaction (each renders an email in the process). */
const REMINDER_BATCH = 2_000;
/** Emails per outbox INSERT (one json parameter of about 3 KB a message). */
const EMAIL_BATCH = 500;

/**
 * Where a job's walk over the lots (by expiry, then id) has got to: each batch starts after the
 * previous one's last lot instead of stepping again over the index entries of the lots it has
 * just changed (a reminded lot stays in the open-lots index; a forfeited one leaves only a dead
 * entry until vacuum), which made every batch slower than the one before.
 */
interface Cursor {
  expiresAt: Date;
  id: number;
}

/** Lots after `cursor` in (expiry, id) order (all at the start); the first term is the index's range condition. */
function after(cursor: Cursor | null) {
  if (!cursor) return sql`true`;
  const at = cursor.expiresAt.toISOString();
  return sql`${col(rewardLots.expiresAt)} >= ${at}::timestamptz and (${col(rewardLots.expiresAt)} > ${at}::timestamptz or ${col(rewardLots.id)} > ${cursor.id})`;
}

// ─── The expiry job ──────────────────────────────────────────────────────────────────────────

/** A forfeited lot as the forfeiture statement answers it (json: ids may come as numbers or strings). */
interface ForfeitedLot {
  id: number | string;
  companyId: number | string;
  userId: number | string;
  orderId: number | string | null;
  cents: number | string;
  expiresAt: string;
}

export interface ExpiryJobOptions {
  now: Date;
  config: Pick<Config, "CATALOGUE_URL" | "SUPPORT_EMAIL">;
  /** Stops between batches (the process is closing); what is left waits for the next run. */
  isStopped?: () => boolean;
  forfeitBatch?: number;
  reminderBatch?: number;
}

export interface ExpirySummary {
  forfeitedLots: number;
  forfeitedCents: number;
  remindedLots: number;
}

/** Forfeits what expired by `now`, then queues the reminders of lots expiring within 30 days. */
export async function runExpiryJob(db: Db, options: ExpiryJobOptions): Promise<ExpirySummary> {
  const forfeited = await forfeitExpiredLots(db, options);
  const remindedLots = await remindExpiringLots(db, options);
  return { forfeitedLots: forfeited.lots, forfeitedCents: forfeited.cents, remindedLots };
}

/**
 * Every lot with something left whose expiry is at or before `now`: remaining becomes 0, a
 * 'forfeit' ledger entry of what was left (with its lot), and one audit entry per company and
 * batch; each batch in one statement and one transaction.
 */
export async function forfeitExpiredLots(
  db: Db,
  options: Pick<ExpiryJobOptions, "now" | "isStopped" | "forfeitBatch">,
): Promise<{ lots: number; cents: number }> {
  const now = options.now.toISOString();
  const batch = options.forfeitBatch ?? FORFEIT_BATCH;
  let lots = 0;
  let cents = 0;
  let cursor: Cursor | null = null;
  for (;;) {
    if (options.isStopped?.()) break;
    // The CTE locks its lots; a concurrent run blocked on one of them re-checks the condition
    // once it is free and leaves out what this one forfeited.
    // One transaction with the lots' webhook events (ADR 0045): they exist iff the forfeiture does.
    const result: unknown = await db.transaction(async (tx) => {
      const forfeited: unknown = await tx.execute(sql`
      with due as (
        select ${col(rewardLots.id)} as id, ${col(rewardLots.remainingCents)} as cents
        from ${rewardLots}
        where ${col(rewardLots.remainingCents)} > 0 and ${col(rewardLots.forfeitedAt)} is null
          and ${col(rewardLots.expiresAt)} <= ${now}::timestamptz and ${after(cursor)}
        order by ${col(rewardLots.expiresAt)}, ${col(rewardLots.id)}
        limit ${batch}
        for update
      ), done as (
        update ${rewardLots} l set ${col(rewardLots.remainingCents)} = 0, ${col(rewardLots.forfeitedAt)} = ${now}::timestamptz
        from due where l.id = due.id
        returning l.id, l.company_id, l.user_id, l.order_id, l.expires_at, due.cents
      ), ledger as (
        insert into ${rewardLedger} (${col(rewardLedger.companyId)}, ${col(rewardLedger.userId)}, ${col(rewardLedger.orderId)}, ${col(rewardLedger.kind)}, ${col(rewardLedger.amountCents)}, ${col(rewardLedger.lotId)}, ${col(rewardLedger.createdAt)})
        select company_id, user_id, order_id, 'forfeit', cents, id, ${now}::timestamptz from done
      ), audit as (
        insert into ${auditLog} (${col(auditLog.companyId)}, ${col(auditLog.actorUserId)}, ${col(auditLog.action)}, ${col(auditLog.subject)}, ${col(auditLog.data)}, ${col(auditLog.createdAt)})
        select company_id, null, 'reward.forfeited', 'company:' || company_id,
          jsonb_build_object('lots', count(*), 'forfeitedCents', sum(cents), 'recipients', count(distinct user_id)),
          ${now}::timestamptz
        from done group by company_id
      )
      select count(*)::int as lots, coalesce(sum(cents), 0)::bigint as cents,
        (select expires_at from done order by expires_at desc, id desc limit 1) as last_expires_at,
        (select id from done order by expires_at desc, id desc limit 1) as last_id,
        (select coalesce(json_agg(json_build_object('id', id, 'companyId', company_id, 'userId', user_id,
          'orderId', order_id, 'cents', cents, 'expiresAt', expires_at)), '[]'::json) from done) as forfeited
      from done`);
      const [head] = rowsOf<{ forfeited: ForfeitedLot[] | string | null }>(forfeited);
      const lotsOut: ForfeitedLot[] =
        typeof head?.forfeited === "string" ? JSON.parse(head.forfeited) : (head?.forfeited ?? []);
      const at = new Date(now);
      await emitEvents(
        tx,
        lotsOut.flatMap((l) => {
          const lot = {
            id: Number(l.id),
            companyId: Number(l.companyId),
            orderId: l.orderId === null ? null : Number(l.orderId),
            userId: Number(l.userId),
            forfeitedCents: Number(l.cents),
            expiresAt: new Date(l.expiresAt),
            forfeitedAt: at,
          };
          return [rewardExpiredEvent(lot), rewardForfeitedEvent({ ...lot, reason: "expired" })];
        }),
        at,
      );
      return forfeited;
    });
    const [row] = rowsOf<{
      lots: number;
      cents: string | number;
      last_expires_at: Date | string | null;
      last_id: string | number | null;
    }>(result);
    const n = Number(row?.lots ?? 0);
    if (n === 0 || !row?.last_expires_at) break;
    lots += n;
    cents += Number(row.cents);
    cursor = { expiresAt: new Date(row.last_expires_at), id: Number(row.last_id) };
  }
  return { lots, cents };
}

/**
 * Every lot with something left that expires within REMINDER_DAYS of `now` (and not yet) and
 * whose recipient was not reminded: reminded_at is set and one email per lot is queued, in the
 * same transaction (the outbox sends it). A lot found already expired is not reminded: the
 * forfeiture took it.
 */
export async function remindExpiringLots(
  db: Db,
  options: Pick<ExpiryJobOptions, "now" | "config" | "isStopped" | "reminderBatch">,
): Promise<number> {
  const now = options.now;
  const until = new Date(now.getTime() + REMINDER_DAYS * DAY_MS);
  const batch = options.reminderBatch ?? REMINDER_BATCH;
  let reminded = 0;
  let cursor: Cursor | null = null;
  for (;;) {
    if (options.isStopped?.()) break;
    const n = await db.transaction(async (tx) => {
      const result = await tx.execute(sql`
        with due as (
          select ${col(rewardLots.id)} as id from ${rewardLots}
          where ${col(rewardLots.remainingCents)} > 0 and ${col(rewardLots.forfeitedAt)} is null
            and ${col(rewardLots.remindedAt)} is null
            and ${col(rewardLots.expiresAt)} > ${now.toISOString()}::timestamptz
            and ${col(rewardLots.expiresAt)} <= ${until.toISOString()}::timestamptz and ${after(cursor)}
          order by ${col(rewardLots.expiresAt)}, ${col(rewardLots.id)}
          limit ${batch}
          for update
        ), done as (
          update ${rewardLots} l set ${col(rewardLots.remindedAt)} = ${now.toISOString()}::timestamptz
          from due where l.id = due.id
          returning l.id, l.company_id, l.user_id, l.order_id, l.remaining_cents, l.expires_at
        )
        select d.id, d.company_id, d.order_id, d.user_id, d.remaining_cents, d.expires_at, u.email, u.first_name,
          c.name as company_name, o.reward_name, a.access_code
        from done d
        join users u on u.id = d.user_id
        join companies c on c.id = d.company_id
        left join orders o on o.id = d.order_id
        left join recipient_accounts a on a.company_id = d.company_id and a.user_id = d.user_id
        order by d.expires_at, d.id`);
      const rows = rowsOf<{
        id: number | string;
        company_id: number | string;
        order_id: number | string | null;
        user_id: number | string;
        remaining_cents: number | string;
        expires_at: Date | string;
        email: string;
        first_name: string;
        company_name: string;
        reward_name: string | null;
        access_code: string | null;
      }>(result);
      for (let i = 0; i < rows.length; i += EMAIL_BATCH) {
        const emails: RewardEmail[] = rows.slice(i, i + EMAIL_BATCH).map((r) =>
          rewardExpiryReminderEmail({
            to: r.email,
            firstName: r.first_name,
            companyName: r.company_name,
            rewardName: r.reward_name,
            amountCents: Number(r.remaining_cents),
            expiresAt: new Date(r.expires_at),
            accessCode: r.access_code,
            catalogueUrl: options.config.CATALOGUE_URL,
            supportEmail: options.config.SUPPORT_EMAIL,
          }),
        );
        await enqueueEmails(tx, emails, now);
      }
      // One transaction with the reminders: the webhook events exist iff they were queued (ADR 0045).
      await emitEvents(
        tx,
        rows.flatMap((r) => {
          const lot = {
            id: Number(r.id),
            companyId: Number(r.company_id),
            orderId: r.order_id === null ? null : Number(r.order_id),
            userId: Number(r.user_id),
            email: r.email,
            remainingCents: Number(r.remaining_cents),
            expiresAt: new Date(r.expires_at),
            remindedAt: now,
          };
          return [rewardExpiringEvent(lot), rewardExpiryReminderSentEvent(lot)];
        }),
        now,
      );
      const last = rows.at(-1);
      if (last) cursor = { expiresAt: new Date(last.expires_at), id: Number(last.id) };
      return rows.length;
    });
    if (n === 0) break;
    reminded += n;
  }
  return reminded;
}

// ─── Redemptions (the catalogue partner's spending) ──────────────────────────────────────────

export interface RedeemInput {
  accessCode: string;
  amountCents: number;
  idempotencyKey: string;
  now: Date;
}

/** What POST /api/Redemptions answers, the first time and on every replay. */
export interface RedemptionView {
  redemptionId: number;
  amountCents: number;
  /** The recipient's balance right after this redemption. */
  balanceCents: number;
  /** What was drawn from which lot, oldest expiry first. */
  lots: Array<{ lotId: number; amountCents: number; expiresAt: string }>;
}

export type RedeemOutcome =
  | { kind: "redeemed"; redemption: RedemptionView }
  | { kind: "replayed"; redemption: RedemptionView }
  | { kind: "not_found" }
  | { kind: "insufficient"; balanceCents: number }
  | { kind: "key_reused" };

/** An access code as recipients read it: "k7qm-4xtp-9rwb " is "K7QM-4XTP-9RWB". */
export function normaliseAccessCode(code: string): string {
  return code.trim().toUpperCase();
}

/** What makes two requests "the same body": the access code and the amount. */
export function redemptionRequestHash(accessCode: string, amountCents: number): string {
  return createHash("sha256")
    .update(`${normaliseAccessCode(accessCode)}\n${amountCents}`)
    .digest("hex");
}

/** Thrown inside the redemption's transaction to roll it back. */
/** The access code's member was removed from the team (docs/requirements.md §S6). */
class RemovedMember extends Error {
  constructor() {
    super("member removed");
  }
}

class Insufficient extends Error {
  readonly balanceCents: number;
  constructor(balanceCents: number) {
    super("insufficient balance");
    this.balanceCents = balanceCents;
  }
}

/**
 * Spends `amountCents` of the recipient with `accessCode`, oldest unexpired lot first, once per
 * idempotency key. Refused (nothing changes) when the code is unknown, the balance is short, or
 * the key was used for another request.
 */
export async function redeem(db: Db, input: RedeemInput): Promise<RedeemOutcome> {
  const accessCode = normaliseAccessCode(input.accessCode);
  const requestHash = redemptionRequestHash(accessCode, input.amountCents);
  const earlier = await replayOf(db, input.idempotencyKey, requestHash);
  if (earlier) return earlier;

  const [account] = await db
    .select({ companyId: recipientAccounts.companyId, userId: recipientAccounts.userId })
    .from(recipientAccounts)
    .where(eq(recipientAccounts.accessCode, accessCode));
  if (!account) return { kind: "not_found" };

  let outcome: RedemptionView | "taken";
  try {
    outcome = await db.transaction(async (tx) => {
      // The key first: a concurrent request with the same key waits here for this transaction,
      // then finds the key taken and answers this one's outcome.
      const [row] = await tx
        .insert(redemptions)
        .values({
          idempotencyKey: input.idempotencyKey,
          requestHash,
          companyId: account.companyId,
          userId: account.userId,
          amountCents: input.amountCents,
          createdAt: input.now,
        })
        .onConflictDoNothing({ target: redemptions.idempotencyKey })
        .returning({ id: redemptions.id });
      if (!row) return "taken" as const;
      // A removed member's code redeems nothing (docs/requirements.md §S6): the row is locked
      // FOR SHARE, so a removal racing this waits for it or it for the removal.
      const [member] = await tx
        .select({ isActive: users.isActive })
        .from(users)
        .where(eq(users.id, account.userId))
        .for("share");
      if (!member?.isActive) throw new RemovedMember();
      return spend(tx, { ...account, redemptionId: row.id, amountCents: input.amountCents, now: input.now });
    });
  } catch (error) {
    // Rolled back: no redemption, no lot touched.
    if (error instanceof Insufficient) return { kind: "insufficient", balanceCents: error.balanceCents };
    // Answered as an unknown code: the account is no longer anyone's to spend.
    if (error instanceof RemovedMember) return { kind: "not_found" };
    throw error;
  }
  if (outcome === "taken") {
    return (await replayOf(db, input.idempotencyKey, requestHash)) ?? { kind: "key_reused" };
  }
  return { kind: "redeemed", redemption: outcome };
}

/** Draws the amount from the recipient's open lots (locked, oldest expiry first), in `tx`. */
async function spend(
  tx: Tx,
  input: { companyId: number; userId: number; redemptionId: number; amountCents: number; now: Date },
): Promise<RedemptionView> {
  const open = await tx
    .select({ id: rewardLots.id, remainingCents: rewardLots.remainingCents, expiresAt: rewardLots.expiresAt })
    .from(rewardLots)
    .where(
      and(
        eq(rewardLots.companyId, input.companyId),
        eq(rewardLots.userId, input.userId),
        gt(rewardLots.remainingCents, 0),
        isNull(rewardLots.forfeitedAt),
        gt(rewardLots.expiresAt, input.now),
      ),
    )
    .orderBy(asc(rewardLots.expiresAt), asc(rewardLots.id))
    .for("update");
  const balance = open.reduce((sum, lot) => sum + lot.remainingCents, 0);
  if (balance < input.amountCents) throw new Insufficient(balance);

  const draws: Array<{ lotId: number; amountCents: number; expiresAt: Date }> = [];
  let left = input.amountCents;
  for (const lot of open) {
    if (left === 0) break;
    const take = Math.min(left, lot.remainingCents);
    draws.push({ lotId: lot.id, amountCents: take, expiresAt: lot.expiresAt });
    left -= take;
  }
  const drawn = unnestRows("d", {
    lot: { type: "bigint", values: draws.map((d) => d.lotId) },
    take: { type: "bigint", values: draws.map((d) => d.amountCents) },
  });
  await tx.execute(sql`
    update ${rewardLots} l set ${col(rewardLots.remainingCents)} = l.remaining_cents - d.take
    from ${drawn} where l.id = d.lot`);
  await tx.execute(sql`
    insert into ${rewardLedger} (${col(rewardLedger.companyId)}, ${col(rewardLedger.userId)}, ${col(rewardLedger.orderId)}, ${col(rewardLedger.kind)}, ${col(rewardLedger.amountCents)}, ${col(rewardLedger.lotId)}, ${col(rewardLedger.redemptionId)}, ${col(rewardLedger.createdAt)})
    select l.company_id, l.user_id, l.order_id, 'debit', d.take, l.id, ${input.redemptionId}::bigint, ${input.now.toISOString()}::timestamptz
    from ${drawn} join ${rewardLots} l on l.id = d.lot order by d.n`);
  const balanceCents = balance - input.amountCents;
  await tx.update(redemptions).set({ balanceAfterCents: balanceCents }).where(eq(redemptions.id, input.redemptionId));
  await recordAudit(tx, {
    companyId: input.companyId,
    actorUserId: null,
    action: "reward.redeemed",
    subject: `redemption:${input.redemptionId}`,
    data: { recipientUserId: input.userId, amountCents: input.amountCents, lots: draws.length },
    at: input.now,
  });
  const view: RedemptionView = {
    redemptionId: input.redemptionId,
    amountCents: input.amountCents,
    balanceCents,
    lots: draws.map((d) => ({ lotId: d.lotId, amountCents: d.amountCents, expiresAt: d.expiresAt.toISOString() })),
  };
  // In the redemption's transaction (ADR 0045): the event exists iff the spending does.
  await emitEvents(
    tx,
    [rewardRedeemedEvent({ ...view, companyId: input.companyId, userId: input.userId, redeemedAt: input.now })],
    input.now,
  );
  return view;
}

/** The outcome of the redemption kept under `key`: a replay when the request is the same, else key_reused. */
async function replayOf(db: Db, key: string, requestHash: string): Promise<RedeemOutcome | null> {
  const [row] = await db.select().from(redemptions).where(eq(redemptions.idempotencyKey, key));
  if (!row) return null;
  if (row.requestHash !== requestHash) return { kind: "key_reused" };
  const draws = await db
    .select({ lotId: rewardLedger.lotId, amountCents: rewardLedger.amountCents, expiresAt: rewardLots.expiresAt })
    .from(rewardLedger)
    .innerJoin(rewardLots, eq(rewardLots.id, rewardLedger.lotId))
    .where(and(eq(rewardLedger.redemptionId, row.id), eq(rewardLedger.kind, "debit")))
    .orderBy(asc(rewardLedger.id));
  return {
    kind: "replayed",
    redemption: {
      redemptionId: row.id,
      amountCents: row.amountCents,
      balanceCents: row.balanceAfterCents ?? 0,
      lots: draws.map((d) => ({
        lotId: d.lotId ?? 0,
        amountCents: d.amountCents,
        expiresAt: d.expiresAt.toISOString(),
      })),
    },
  };
}

// ─── Balances ────────────────────────────────────────────────────────────────────────────────

export interface LotBalance {
  balanceCents: number;
  /** The earliest expiry among the lots with something left; null when nothing is left. */
  nextExpiresAt: Date | null;
}

/**
 * What is left of each recipient's unexpired lots and the earliest of their expiries, for the
 * given members of one company: one aggregate over the recipient index. Members without any
 * are left out of the map.
 */
export async function lotBalances(
  db: Db | Tx,
  companyId: number,
  userIds: readonly number[],
  now: Date,
): Promise<Map<number, LotBalance>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({
      userId: rewardLots.userId,
      balance: sql<string>`sum(${rewardLots.remainingCents})`,
      next: sql<Date | string>`min(${rewardLots.expiresAt})`,
    })
    .from(rewardLots)
    .where(
      and(
        eq(rewardLots.companyId, companyId),
        inArray(rewardLots.userId, [...userIds]),
        gt(rewardLots.remainingCents, 0),
        isNull(rewardLots.forfeitedAt),
        gt(rewardLots.expiresAt, now),
      ),
    )
    .groupBy(rewardLots.userId);
  return new Map(
    rows.map((r) => [r.userId, { balanceCents: Number(r.balance), nextExpiresAt: r.next ? new Date(r.next) : null }]),
  );
}

/**
 * Forfeits everything a member has left (they leave the team, docs/requirements.md §S6), in the caller's
 * transaction: their open lots drop to 0 with a 'forfeit' entry each, locked in the order the
 * expiry job and redemptions lock them. Answers the cents.
 */
export async function forfeitMemberLots(tx: Tx, companyId: number, userId: number, now: Date): Promise<number> {
  const result = await tx.execute(sql`
    with due as (
      select ${col(rewardLots.id)} as id, ${col(rewardLots.remainingCents)} as cents from ${rewardLots}
      where ${col(rewardLots.companyId)} = ${companyId} and ${col(rewardLots.userId)} = ${userId}
        and ${col(rewardLots.remainingCents)} > 0 and ${col(rewardLots.forfeitedAt)} is null
      order by ${col(rewardLots.expiresAt)}, ${col(rewardLots.id)}
      for update
    ), done as (
      update ${rewardLots} l set ${col(rewardLots.remainingCents)} = 0, ${col(rewardLots.forfeitedAt)} = ${now.toISOString()}::timestamptz
      from due where l.id = due.id
      returning l.id, l.company_id, l.user_id, l.order_id, l.expires_at, due.cents
    ), ledger as (
      insert into ${rewardLedger} (${col(rewardLedger.companyId)}, ${col(rewardLedger.userId)}, ${col(rewardLedger.orderId)}, ${col(rewardLedger.kind)}, ${col(rewardLedger.amountCents)}, ${col(rewardLedger.lotId)}, ${col(rewardLedger.createdAt)})
      select company_id, user_id, order_id, 'forfeit', cents, id, ${now.toISOString()}::timestamptz from done
    )
    select coalesce(sum(cents), 0)::bigint as cents,
      (select coalesce(json_agg(json_build_object('id', id, 'companyId', company_id, 'userId', user_id,
        'orderId', order_id, 'cents', cents, 'expiresAt', expires_at)), '[]'::json) from done) as forfeited
    from done`);
  const [head] = rowsOf<{ cents: string | number; forfeited: ForfeitedLot[] | string | null }>(result);
  const lotsOut: ForfeitedLot[] =
    typeof head?.forfeited === "string" ? JSON.parse(head.forfeited) : (head?.forfeited ?? []);
  // In the removal's transaction (ADR 0045): one reward.forfeited per lot that had something left.
  await emitEvents(
    tx,
    lotsOut.map((l) =>
      rewardForfeitedEvent({
        id: Number(l.id),
        companyId: Number(l.companyId),
        orderId: l.orderId === null ? null : Number(l.orderId),
        userId: Number(l.userId),
        forfeitedCents: Number(l.cents),
        expiresAt: new Date(l.expiresAt),
        forfeitedAt: now,
        reason: "member_removed",
      }),
    ),
    now,
  );
  return Number(head?.cents ?? 0);
}
