// Enqueueing is a plain insert, so it joins whatever transaction the caller is in: the email
// exists if and only if the change that caused it was committed.
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Conn, Db } from "../db/client.ts";
import { emailOutbox } from "../db/schema.ts";
import { col } from "../db/sql.ts";
import { claimDue } from "../jobs/engine.ts";
import type { EmailContent } from "./port.ts";

export async function enqueueEmail(db: Conn, email: EmailContent, now: Date = new Date()): Promise<number> {
  // Due time from the application's clock, the one the worker compares with: the database's
  // now() has microseconds, so a message could look due a fraction of a millisecond too late.
  const [row] = await db
    .insert(emailOutbox)
    // createdAt from the same clock: the retry window (worker.ts) counts from it.
    .values({
      toAddress: email.to,
      subject: email.subject,
      html: email.html,
      text: email.text,
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning({ id: emailOutbox.id });
  if (!row) throw new Error("outbox insert returned no row");
  return row.id;
}

/**
 * Queues many emails in one statement (a release queues one per recipient): the rows
 * enqueueEmail writes, due at `now`, in the caller's transaction. Callers batch a few hundred
 * at a time to keep the one JSON parameter small.
 */
export async function enqueueEmails(db: Conn, emails: readonly RewardEmail[], now: Date = new Date()): Promise<void> {
  if (emails.length === 0) return;
  const rows = emails.map((e) => ({
    t: e.to,
    s: e.subject,
    h: e.html,
    x: e.text,
    o: e.about?.orderId ?? null,
    u: e.about?.userId ?? null,
  }));
  await db.execute(sql`
    insert into ${emailOutbox} (${col(emailOutbox.toAddress)}, ${col(emailOutbox.subject)}, ${col(emailOutbox.html)}, ${col(emailOutbox.text)}, ${col(emailOutbox.nextAttemptAt)}, ${col(emailOutbox.createdAt)}, ${col(emailOutbox.orderId)}, ${col(emailOutbox.recipientUserId)})
    select r.t, r.s, r.h, r.x, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, r.o, r.u
    from json_to_recordset(${JSON.stringify(rows)}::json) as r(t text, s text, h text, x text, o bigint, u bigint)`);
}

/** An email, and when it is a recipient's reward email, the order and recipient it is about. */
export type RewardEmail = EmailContent & { about?: { orderId: number; userId: number } };

export type OutboxRow = typeof emailOutbox.$inferSelect;

/**
 * Claims up to `limit` due messages by moving them to `sending` with a lease. A lease that runs
 * out (a worker that died mid-send) makes the row due again.
 */
export async function claimDueEmails(db: Db, now: Date, limit: number, leaseMs: number): Promise<OutboxRow[]> {
  const lockedUntil = new Date(now.getTime() + leaseMs);
  return claimDue<number, OutboxRow>(
    db,
    {
      table: emailOutbox,
      id: emailOutbox.id,
      due: or(
        and(eq(emailOutbox.status, "pending"), lte(emailOutbox.nextAttemptAt, now)),
        and(eq(emailOutbox.status, "sending"), or(isNull(emailOutbox.lockedUntil), lte(emailOutbox.lockedUntil, now))),
      ),
      orderBy: [asc(emailOutbox.nextAttemptAt), asc(emailOutbox.id)],
      limit,
    },
    (tx, ids) =>
      tx
        .update(emailOutbox)
        .set({ status: "sending", lockedUntil, attempts: sql`${emailOutbox.attempts} + 1` })
        .where(inArray(emailOutbox.id, ids))
        .returning(),
  );
}

/**
 * Extends the lease of messages a live worker still holds (claimed, not yet settled), so that
 * no other process takes them back while that worker is still sending them (worker.ts). Never
 * shortens a lease, and leaves rows that are no longer `sending` alone.
 */
export async function renewLeases(db: Db, ids: number[], lockedUntil: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(emailOutbox)
    .set({ lockedUntil: sql`greatest(${emailOutbox.lockedUntil}, ${lockedUntil.toISOString()}::timestamptz)` })
    .where(and(inArray(emailOutbox.id, ids), eq(emailOutbox.status, "sending")));
}

/**
 * What a delivered message's html and text become when its transport does not keep bodies
 * (docs/requirements.md §D7): recipient, subject, status and times stay; codes, links and passwords go.
 */
export const REDACTED_AFTER_DELIVERY = "[redacted after delivery]";
/** The same for a message given up on: it will never be sent, so its secrets have no job left. */
export const REDACTED_NOT_DELIVERED = "[redacted: not delivered]";

/**
 * Marks delivered messages sent (one statement for all of them); with `redact`, their bodies are
 * blanked in that same statement, so no moment exists where a sent row still holds its secrets.
 * `onSettled` is told the rows in that same transaction (a recipient's reward email makes its
 * `email.delivered` webhook event there: modules/webhooks/events.server.ts, handed in by server/main.ts).
 */
export async function markSentMany(
  db: Db,
  ids: number[],
  transport: string,
  now: Date,
  options: { redact: boolean; onSettled?: OnEmailSettled },
): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction(async (tx) => {
    const sent = await tx
      .update(emailOutbox)
      .set({
        status: "sent",
        sentAt: now,
        lockedUntil: null,
        lastError: null,
        transport,
        ...(options.redact ? { html: REDACTED_AFTER_DELIVERY, text: REDACTED_AFTER_DELIVERY } : {}),
      })
      .where(inArray(emailOutbox.id, ids))
      .returning(settledColumns);
    await options.onSettled?.(tx, sent, "delivered", now);
  });
}

/** A settled email as `onSettled` is told of it. */
export interface SettledEmail {
  id: number;
  orderId: number | null;
  recipientUserId: number | null;
  toAddress: string;
}

/**
 * Told the emails just marked sent or failed, in the marking transaction (what the mail does not
 * know itself: which email is a module's, such as a reward email's webhook event).
 */
export type OnEmailSettled = (
  tx: Conn,
  rows: readonly SettledEmail[],
  outcome: "delivered" | "failed",
  at: Date,
  reason?: string,
) => Promise<void>;

/** What `onSettled` is told of each row. */
const settledColumns = {
  id: emailOutbox.id,
  orderId: emailOutbox.orderId,
  recipientUserId: emailOutbox.recipientUserId,
  toAddress: emailOutbox.toAddress,
};

/** A transient failure: the message waits in `pending` until `nextAttemptAt`. */
export async function scheduleRetry(db: Db, id: number, error: string, nextAttemptAt: Date): Promise<void> {
  await db
    .update(emailOutbox)
    .set({ status: "pending", nextAttemptAt, lockedUntil: null, lastError: error.slice(0, 1000) })
    .where(eq(emailOutbox.id, id));
}

/**
 * Gives up on a message: `failed` with the reason in `lastError`, for the manager to see. Never
 * claimed again (claimDueEmails takes only pending and expired sending rows). `onSettled` is
 * told in the same transaction (a recipient's reward email makes its `email.failed` webhook event).
 */
export async function markFailed(
  db: Db,
  id: number,
  error: string,
  options: { redact: boolean; onSettled?: OnEmailSettled },
  now: Date = new Date(),
): Promise<void> {
  await db.transaction(async (tx) => {
    const failed = await tx
      .update(emailOutbox)
      .set({
        status: "failed",
        lockedUntil: null,
        lastError: error.slice(0, 1000),
        ...(options.redact ? { html: REDACTED_NOT_DELIVERED, text: REDACTED_NOT_DELIVERED } : {}),
      })
      .where(eq(emailOutbox.id, id))
      .returning(settledColumns);
    await options.onSettled?.(tx, failed, "failed", now, error.slice(0, 300));
  });
}

/** The newest messages, for the dev mailbox page and for tests. */
export async function listRecentEmails(db: Db, limit = 50): Promise<OutboxRow[]> {
  return db.select().from(emailOutbox).orderBy(sql`${emailOutbox.id} desc`).limit(limit);
}
