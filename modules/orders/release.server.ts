// Releasing a paid order (docs/requirements.md §D5): exactly once, in ONE transaction, whichever
// path gets there first (the check call after the return page, the webhook, the simulated
// confirm, a retry). The guard is the reward_releases row with its UNIQUE order_id, inserted
// under a lock on the order row: a second caller waits for the first to commit, then finds the
// order released and changes nothing. A failure anywhere rolls everything back (no history row,
// no account, no credit, no email), and the next attempt releases the whole order.
//
// In the transaction: the order becomes paid (invoice number, times); the history row; per
// order line a recipient account when the member has none (access code + random password,
// stored hashed), a ledger credit, the first-email time and the 18-month expiry when not set;
// the congratulation emails and the payer's tax invoice queued in the outbox; the manager's
// draft emptied only if it is still the version that was paid for; audit entries.
//
// A paid order whose send time is ahead (ADR 0026) is only marked scheduled here (paid, invoiced,
// the draft emptied), under the same locks; the scheduler (scheduled-sends.ts) calls this again
// at its time and the release above happens then. A cancelled order is never released.
//
// Passwords are hashed BEFORE the transaction begins (argon2 is the slow part, and a lock held
// for seconds would stall the other paths): a recipient that gained an account meanwhile simply
// keeps it, and the spare hash is dropped. See RECIPIENT_ARGON2 for the cost parameters.
import { randomInt } from "node:crypto";
import { hash } from "@node-rs/argon2";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Config } from "../../server/config.ts";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import {
  companies,
  orderLines,
  orders,
  recipientAccounts,
  rewardDrafts,
  rewardLedger,
  rewardLots,
  rewardReleases,
  users,
} from "../../server/db/schema.ts";
import { col } from "../../server/db/sql.ts";
import { enqueueEmail, enqueueEmails, type RewardEmail } from "../../server/mail/outbox.ts";
import { addMonths } from "../../server/mail/templates/dates.ts";
import { taxInvoiceEmail } from "../../server/mail/templates/payments.ts";
import { recipientRewardEmail } from "../../server/mail/templates/rewards.ts";
import { recordAudit } from "../audit/service.server.ts";
import { invoicePathSegment } from "../invoices/schema.ts";
import { freezeInvoiceParties, taxInvoiceOfOrder } from "../invoices/service.server.ts";
import { clearDraftIfUnchanged } from "../reward-drafts/service.server.ts";
import { orderReleasedEvent } from "../webhooks/events.server.ts";
import { emitEvent } from "../webhooks/service.server.ts";
import { inactiveLineMembers, MEMBER_REMOVED_REASON, type RemovedMember } from "./release-rules.server.ts";

/** Reward Dollars are valid 18 months from the first congratulatory email (docs/requirements.md §S1). */
export const VALIDITY_MONTHS = 18;

/**
 * argon2id for the machine-made recipient passwords: 14 characters from a 55-symbol alphabet,
 * about 81 bits of entropy, so no guessing attack benefits from a slow hash; a small memory
 * cost keeps a 1,000-recipient release within its time budget (the managers' own,
 * human-chosen passwords keep the library defaults of password.ts). verifyPassword of
 * password.ts checks these hashes too: the parameters live in the PHC string.
 */
export const RECIPIENT_ARGON2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

function randomFrom(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A readable access code: three groups of four from 32 unambiguous symbols (60 bits), "K7QM-4XTP-9RWB". */
export function newAccessCode(): string {
  return `${randomFrom(CODE_ALPHABET, 4)}-${randomFrom(CODE_ALPHABET, 4)}-${randomFrom(CODE_ALPHABET, 4)}`;
}

/** A random recipient password: 14 characters, no look-alikes (0/O, 1/l/I). */
export function newRecipientPassword(): string {
  return randomFrom(PASSWORD_ALPHABET, 14);
}

export function hashRecipientPassword(password: string): Promise<string> {
  return hash(password, RECIPIENT_ARGON2);
}

/** balance: paid from the company's prepaid balance (an API order, or its approval: api-orders.ts, ADR 0044). */
export type ReleaseSource = "check" | "webhook" | "simulated-confirm" | "retry" | "reconcile" | "scheduler" | "balance";

export interface ReleaseContext {
  config: Pick<
    Config,
    "APP_URL" | "CATALOGUE_URL" | "SUPPORT_EMAIL" | "supplierName" | "supplierAbn" | "supplierIsPlaceholder"
  >;
  now: Date;
  /** Test seam: called after each order line is written; throwing aborts the release. */
  onReleaseLine?: (index: number) => void | Promise<void>;
}

export type ReleaseResult =
  | { released: true; releaseId: number; emails: number }
  | {
      released: false;
      /**
       * scheduled: paid and waiting for its send time (the scheduler releases it); cancelled:
       * refunded instead; member_removed: cancelled now, because a line's member was removed since
       * it was paid, and refunded by the scheduler's pass (release-rules.ts).
       */
      reason: "already_released" | "not_found" | "scheduled" | "cancelled" | "member_removed";
    };

/** Emails per INSERT (one json parameter of about 3 KB a message). */
const EMAIL_BATCH = 250;

export function invoiceNumberFor(orderId: number): string {
  return `INV-${String(orderId).padStart(6, "0")}`;
}

/** What a release is asked for: the order, the payment that paid it, and who (or what) asks. */
export interface ReleaseInput {
  orderId: number;
  paymentIntentId?: string;
  source: ReleaseSource;
  actorUserId?: number | null;
  /** The acting manager's address (null for the processor's webhook or the reconciler). */
  clientIp?: string | null;
}

/**
 * Releases order `orderId` once. The caller has already established that its payment succeeded
 * for the order's total. Answers released: false when another path already did it.
 */
export async function releaseOrder(db: Db, input: ReleaseInput, ctx: ReleaseContext): Promise<ReleaseResult> {
  // Callers in this process that arrive while a release of the same order runs wait for it
  // instead of hashing passwords for nothing; the database guard still decides (and covers
  // other processes).
  let inFlight = inFlightByDb.get(db);
  if (!inFlight) {
    inFlight = new Map();
    inFlightByDb.set(db, inFlight);
  }
  const key = input.orderId;
  const running = inFlight.get(key);
  if (running) {
    await running.catch(() => undefined);
    return releaseOnce(db, input, ctx);
  }
  const attempt = releaseOnce(db, input, ctx);
  inFlight.set(key, attempt);
  try {
    return await attempt;
  } finally {
    inFlight.delete(key);
  }
}

const inFlightByDb = new WeakMap<Db, Map<number, Promise<ReleaseResult>>>();

async function releaseOnce(db: Db, input: ReleaseInput, ctx: ReleaseContext): Promise<ReleaseResult> {
  const [head] = await db
    .select({
      companyId: orders.companyId,
      draftId: orders.draftId,
      releasedAt: orders.releasedAt,
      status: orders.status,
      sendAt: orders.sendAt,
    })
    .from(orders)
    .where(eq(orders.id, input.orderId));
  if (!head) return { released: false, reason: "not_found" };
  if (head.releasedAt) return { released: false, reason: "already_released" };
  if (head.status === "cancelled") return { released: false, reason: "cancelled" };
  // A payment for an order whose time has not come only marks it scheduled: no accounts yet.
  if (!isDue(head.sendAt, ctx.now)) return scheduleOnce(db, input, ctx);

  // Outside the transaction: fresh credentials for the recipients who have no account yet.
  const lineUsers = await db
    .select({ userId: orderLines.userId })
    .from(orderLines)
    .where(eq(orderLines.orderId, input.orderId));
  const existing = await db
    .select({ userId: recipientAccounts.userId })
    .from(recipientAccounts)
    .where(eq(recipientAccounts.companyId, head.companyId));
  const has = new Set(existing.map((r) => r.userId));
  const fresh = new Map<number, { accessCode: string; password: string; passwordHash: string }>();
  await Promise.all(
    lineUsers
      .filter((l) => !has.has(l.userId))
      .map(async (l) => {
        const password = newRecipientPassword();
        fresh.set(l.userId, {
          accessCode: newAccessCode(),
          password,
          passwordHash: await hashRecipientPassword(password),
        });
      }),
  );

  const outcome = await db.transaction(async (tx) => {
    const order = await lockDraftThenOrder(tx, head.draftId, input.orderId);
    if (!order) return { released: false as const, reason: "not_found" as const };
    if (order.releasedAt) return { released: false as const, reason: "already_released" as const };
    if (order.status === "cancelled") return { released: false as const, reason: "cancelled" as const };
    // Rescheduled to a later time since it was read: the scheduler releases it then.
    if (!isDue(order.sendAt, ctx.now)) return { released: false as const, reason: "scheduled" as const };
    const now = ctx.now;
    // A member removed since the payment (it was in flight, so removal could not see it paid) is
    // never credited: the whole order is cancelled and refunded instead (release-rules.ts).
    const removed = await inactiveLineMembers(tx, order.id);
    if (removed.length > 0) {
      await cancelForRemovedMembers(tx, order, removed, input, now);
      return { released: false as const, reason: "member_removed" as const };
    }
    // A scheduled order was paid (and invoiced) when it was scheduled.
    const wasScheduled = order.status === "scheduled";

    const [release] = await tx
      .insert(rewardReleases)
      .values({
        companyId: order.companyId,
        orderId: order.id,
        rewardName: order.rewardName,
        amountCents: order.rewardsCents,
        releasedAt: now,
      })
      .onConflictDoNothing({ target: rewardReleases.orderId })
      .returning({ id: rewardReleases.id });
    if (!release) return { released: false as const, reason: "already_released" as const };

    const invoiceNumber = order.invoiceNumber ?? invoiceNumberFor(order.id);
    await tx
      .update(orders)
      .set({
        status: "paid",
        paidAt: order.paidAt ?? now,
        releasedAt: now,
        invoiceNumber,
        failureReason: null,
        // The payment that paid it: a scheduled order's since it was paid; else this one (the
        // first to succeed wins; any other is refunded, modules/orders/extra-payments.server.ts).
        paymentIntentId: order.paidAt ? order.paymentIntentId : (input.paymentIntentId ?? order.paymentIntentId),
      })
      .where(eq(orders.id, order.id));
    // The tax invoice's buyer and supplier as they are now (a balance order froze them when charged).
    await freezeInvoiceParties(tx, order.id, ctx.config);

    const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, order.id)).orderBy(orderLines.id);

    // Set-based statements: the rows travel as ONE json parameter or come straight from the
    // order lines (drizzle's multi-row VALUES binds every column of every row: several times
    // slower for 1,000 rows on PGlite).
    // Recipient accounts: insert the missing ones; an access code that collides gets another.
    let missing = lines.map((l) => l.userId).filter((id) => fresh.has(id));
    for (let attempt = 0; missing.length > 0 && attempt < 5; attempt++) {
      const rows = missing.map((userId) => {
        const f = fresh.get(userId)!;
        return { u: userId, a: f.accessCode, p: f.passwordHash };
      });
      await tx.execute(sql`
        insert into ${recipientAccounts} (${col(recipientAccounts.companyId)}, ${col(recipientAccounts.userId)}, ${col(recipientAccounts.accessCode)}, ${col(recipientAccounts.passwordHash)}, ${col(recipientAccounts.createdAt)})
        select ${order.companyId}::bigint, r.u, r.a, r.p, ${now.toISOString()}::timestamptz
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(u bigint, a text, p text)
        on conflict do nothing`);
      const present = await accountsOf(tx, order.companyId, order.id);
      const got = new Set(present.map((a) => a.userId));
      missing = missing.filter((id) => !got.has(id));
      for (const id of missing) fresh.get(id)!.accessCode = newAccessCode();
    }
    if (missing.length > 0) throw new Error("could not give every recipient a unique access code");

    // The first congratulatory email starts the 18-month validity.
    await tx
      .update(recipientAccounts)
      .set({ firstEmailAt: now, expiresAt: addMonths(now, VALIDITY_MONTHS) })
      .where(
        and(
          eq(recipientAccounts.companyId, order.companyId),
          isNull(recipientAccounts.firstEmailAt),
          inArray(
            recipientAccounts.userId,
            tx.select({ userId: orderLines.userId }).from(orderLines).where(eq(orderLines.orderId, order.id)),
          ),
        ),
      );
    const accounts = new Map((await accountsOf(tx, order.companyId, order.id)).map((a) => [a.userId, a]));

    // One lot per recipient, valid 18 months from this release's email (not from the recipient's
    // first reward), and its credit in the ledger; straight from the order lines.
    const expiresAt = addMonths(now, VALIDITY_MONTHS);
    await tx.execute(sql`
      insert into ${rewardLots} (${col(rewardLots.companyId)}, ${col(rewardLots.userId)}, ${col(rewardLots.orderId)}, ${col(rewardLots.amountCents)}, ${col(rewardLots.remainingCents)}, ${col(rewardLots.issuedAt)}, ${col(rewardLots.expiresAt)})
      select ${col(orderLines.companyId)}, ${col(orderLines.userId)}, ${col(orderLines.orderId)}, ${col(orderLines.amountCents)}, ${col(orderLines.amountCents)}, ${now.toISOString()}::timestamptz, ${expiresAt.toISOString()}::timestamptz
      from ${orderLines} where ${col(orderLines.orderId)} = ${order.id}`);
    await tx.execute(sql`
      insert into ${rewardLedger} (${col(rewardLedger.companyId)}, ${col(rewardLedger.userId)}, ${col(rewardLedger.orderId)}, ${col(rewardLedger.kind)}, ${col(rewardLedger.amountCents)}, ${col(rewardLedger.lotId)}, ${col(rewardLedger.createdAt)})
      select ${col(rewardLots.companyId)}, ${col(rewardLots.userId)}, ${col(rewardLots.orderId)}, 'credit', ${col(rewardLots.amountCents)}, ${col(rewardLots.id)}, ${now.toISOString()}::timestamptz
      from ${rewardLots} where ${col(rewardLots.orderId)} = ${order.id}`);

    const [company] = await tx
      .select({ name: companies.name })
      .from(companies)
      .where(eq(companies.id, order.companyId));
    const companyName = company?.name ?? "Your company";

    // The congratulation emails, queued in batches as they are rendered.
    let pending: RewardEmail[] = [];
    let emails = 0;
    for (const [index, line] of lines.entries()) {
      const account = accounts.get(line.userId);
      if (!account) throw new Error(`recipient ${line.userId} has no account`);
      const f = fresh.get(line.userId);
      const password = f && f.accessCode === account.accessCode ? f.password : null;
      pending.push({
        about: { orderId: order.id, userId: line.userId },
        ...recipientRewardEmail({
          to: line.email,
          firstName: line.firstName,
          companyName,
          rewardName: order.rewardName,
          message: line.message ?? order.message,
          senderName: order.senderName,
          amountCents: line.amountCents,
          accessCode: account.accessCode,
          password,
          expiresAt,
          catalogueUrl: ctx.config.CATALOGUE_URL,
          supportEmail: ctx.config.SUPPORT_EMAIL,
        }),
      });
      if (pending.length >= EMAIL_BATCH) {
        await enqueueEmails(tx, pending, now);
        emails += pending.length;
        pending = [];
      }
      await ctx.onReleaseLine?.(index);
    }
    await enqueueEmails(tx, pending, now);
    emails += pending.length;

    if (!wasScheduled && (await queueTaxInvoice(tx, order, ctx))) {
      emails++;
    }

    // Empty the draft only if it is still what was paid for (the manager may have started anew).
    const draftCleared = await clearDraftIfUnchanged(tx, order.draftId, order.draftVersion, now);
    // The company's webhooks learn of it iff this transaction commits (ADR 0045).
    await emitEvent(tx, orderReleasedEvent(order, { invoiceNumber, recipients: lines.length, releasedAt: now }), now);

    await recordAudit(tx, ...(wasScheduled ? [] : [paidAudit(order, input, invoiceNumber, now)]), {
      companyId: order.companyId,
      actorUserId: input.actorUserId ?? null,
      action: "reward.released",
      subject: `release:${release.id}`,
      data: { orderId: order.id, recipients: lines.length, rewardsCents: order.rewardsCents, draftCleared },
      clientIp: input.clientIp,
      at: now,
    });
    return { released: true as const, releaseId: release.id, emails };
  });
  return outcome;
}

/**
 * The order is cancelled instead of released, in the release's transaction: no lot, no credit, no
 * email to anyone on it. Its refund is owed from now (refund_next_attempt_at unset), so the
 * scheduler's next pass makes it the way it refunds a cancelled scheduled order, to the card or
 * the balance, with its retries, and emails the payer (scheduled-sends.ts refundCancelled). The
 * order's page says why (cancelReason).
 */
async function cancelForRemovedMembers(
  tx: Tx,
  order: typeof orders.$inferSelect,
  removed: RemovedMember[],
  input: ReleaseInput,
  now: Date,
): Promise<void> {
  await tx
    .update(orders)
    .set({
      status: "cancelled",
      // Paid (the money is taken until the refund), so its page shows it and why.
      paidAt: order.paidAt ?? now,
      cancelledAt: now,
      cancelledBy: null,
      failureReason: MEMBER_REMOVED_REASON,
      // The payment that paid it, to be refunded (a balance order's refund goes to the balance).
      paymentIntentId: order.paidAt ? order.paymentIntentId : (input.paymentIntentId ?? order.paymentIntentId),
    })
    .where(eq(orders.id, order.id));
  await recordAudit(tx, {
    companyId: order.companyId,
    actorUserId: null,
    action: "order.cancelled",
    subject: `order:${order.id}`,
    data: {
      reason: MEMBER_REMOVED_REASON,
      removedUserIds: removed.map((m) => m.userId),
      source: input.source,
      totalCents: order.totalCents,
    },
    clientIp: input.clientIp ?? null,
    at: now,
  });
}

/** Whether an order with this send time is released now (no send time: at once). */
function isDue(sendAt: Date | null, now: Date): boolean {
  return !sendAt || sendAt.getTime() <= now.getTime();
}

function paidAudit(order: typeof orders.$inferSelect, input: ReleaseInput, invoiceNumber: string, now: Date) {
  return {
    companyId: order.companyId,
    actorUserId: input.actorUserId ?? null,
    action: "order.paid",
    subject: `order:${order.id}`,
    data: {
      source: input.source,
      paymentIntentId: order.paidAt ? order.paymentIntentId : (input.paymentIntentId ?? order.paymentIntentId),
      totalCents: order.totalCents,
      invoiceNumber,
      ...(order.sendAt && !isDue(order.sendAt, now) ? { sendAt: order.sendAt.toISOString() } : {}),
    },
    clientIp: input.clientIp ?? null,
    at: now,
  };
}

/**
 * A paid order whose send time is ahead: marked scheduled (paid, invoiced, the payer's tax
 * invoice queued, the draft emptied), once, under the same locks as a release; the scheduler
 * releases it at its time (scheduled-sends.ts).
 */
/**
 * Locks the order's draft (when it has one: an API order has none, ADR 0044), then the order:
 * create-payment-intent takes them in the same order, so the two never wait on each other.
 */
async function lockDraftThenOrder(tx: Tx, draftId: number | null, orderId: number) {
  if (draftId !== null) {
    await tx.select({ id: rewardDrafts.id }).from(rewardDrafts).where(eq(rewardDrafts.id, draftId)).for("update");
  }
  const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
  return order;
}

async function scheduleOnce(db: Db, input: ReleaseInput, ctx: ReleaseContext): Promise<ReleaseResult> {
  return db.transaction(async (tx) => {
    const [head] = await tx.select({ draftId: orders.draftId }).from(orders).where(eq(orders.id, input.orderId));
    if (!head) return { released: false as const, reason: "not_found" as const };
    const order = await lockDraftThenOrder(tx, head.draftId, input.orderId);
    if (!order) return { released: false as const, reason: "not_found" as const };
    if (order.releasedAt) return { released: false as const, reason: "already_released" as const };
    if (order.status === "cancelled") return { released: false as const, reason: "cancelled" as const };
    if (order.status === "scheduled") return { released: false as const, reason: "scheduled" as const };
    // Came due meanwhile (a slow payment): the caller's next attempt releases it.
    if (isDue(order.sendAt, ctx.now)) return { released: false as const, reason: "scheduled" as const };
    const now = ctx.now;
    const invoiceNumber = invoiceNumberFor(order.id);
    const paid = {
      ...order,
      status: "scheduled" as const,
      paidAt: now,
      invoiceNumber,
      failureReason: null,
      paymentIntentId: input.paymentIntentId ?? order.paymentIntentId,
    };
    await tx
      .update(orders)
      .set({
        status: paid.status,
        paidAt: paid.paidAt,
        invoiceNumber,
        failureReason: null,
        paymentIntentId: paid.paymentIntentId,
      })
      .where(eq(orders.id, order.id));
    await freezeInvoiceParties(tx, order.id, ctx.config);
    await queueTaxInvoice(tx, paid, ctx);
    const draftCleared = await clearDraftIfUnchanged(tx, order.draftId, order.draftVersion, now);
    await recordAudit(tx, {
      ...paidAudit(order, input, invoiceNumber, now),
      data: { ...paidAudit(order, input, invoiceNumber, now).data, draftCleared },
    });
    return { released: false as const, reason: "scheduled" as const };
  });
}

/**
 * The payer's tax invoice email, queued in the caller's transaction; false when the payer is gone.
 * Made from the invoice as the API answers it (the parties frozen just before), so the email, the
 * page and the PDF say the same (ADR 0025).
 */
async function queueTaxInvoice(tx: Tx, order: typeof orders.$inferSelect, ctx: ReleaseContext): Promise<boolean> {
  const [payer] = await tx
    .select({ email: users.email, firstName: users.firstName })
    .from(users)
    .where(eq(users.id, order.placedBy));
  if (!payer) return false;
  const invoice = await taxInvoiceOfOrder(tx, ctx.config, order.id);
  if (!invoice) throw new Error(`order ${order.id} is not invoiced`);
  await enqueueEmail(
    tx,
    taxInvoiceEmail({
      to: payer.email,
      firstName: payer.firstName,
      invoice,
      invoiceUrl: new URL(
        `/portal/invoices/${invoicePathSegment(invoice.invoiceNumber)}`,
        ctx.config.APP_URL,
      ).toString(),
      sendAt: order.status === "scheduled" ? order.sendAt : null,
    }),
    ctx.now,
  );
  return true;
}

/** The accounts of an order's recipients. */
async function accountsOf(tx: Tx, companyId: number, orderId: number) {
  return tx
    .select({
      userId: recipientAccounts.userId,
      accessCode: recipientAccounts.accessCode,
      expiresAt: recipientAccounts.expiresAt,
    })
    .from(recipientAccounts)
    .innerJoin(
      orderLines,
      and(eq(orderLines.userId, recipientAccounts.userId), eq(orderLines.companyId, recipientAccounts.companyId)),
    )
    .where(and(eq(recipientAccounts.companyId, companyId), eq(orderLines.orderId, orderId)));
}

/** A recipient's Reward Dollar balance in cents: credits less debits and forfeits. */
export async function recipientBalanceCents(db: Conn, companyId: number, userId: number): Promise<number> {
  const [row] = await db
    .select({
      balance: sql<string>`coalesce(sum(case when ${rewardLedger.kind} = 'credit' then ${rewardLedger.amountCents} else -${rewardLedger.amountCents} end), 0)`,
    })
    .from(rewardLedger)
    .where(and(eq(rewardLedger.companyId, companyId), eq(rewardLedger.userId, userId)));
  return Number(row?.balance ?? 0);
}
