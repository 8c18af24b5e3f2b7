// Scheduled sends: an order paid at checkout and released at the time the manager chose
// (modules/scheduled-sends/schema.ts). release.ts marks a paid order whose time is ahead `scheduled`; this module
// releases scheduled orders when they come due, and lets the company reschedule or cancel them
// until then.
//
// Exactly once, with any number of processes: the release's own guard (release.ts: the order
// row locked, the UNIQUE reward_releases row) decides; an advisory claim per order keeps two
// processes from hashing the same order's passwords at once. Cancelling takes the same order
// row lock, so a cancel and a release cannot both happen: whichever commits first wins, and the
// other finds the order no longer scheduled.
//
// A cancelled order is refunded in full after its cancellation commits (a network call holds no
// locks). The refund's idempotency key makes a retry the same refund. A refund that failed is
// retried by the scheduler as a webhook delivery is (ADR 0045 §2, the same backoff function:
// 30 s doubling to hourly, ±10 % jitter), each try claimed by moving its due time ahead, until it
// goes through (only then is the payer emailed) or, at its last try 72 hours after the cancel, is
// marked failed: support is emailed and the order's page says so (ADR 0041). The scheduler takes refunds by their due time, all that are due in a
// pass, so refunds that keep failing wait out their backoff and never hold back another.
import { and, asc, eq, exists, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Conn } from "../../server/db/client.ts";
import { balanceEntries, companies, orderLines, orders, rewardReleases, users } from "../../server/db/schema.ts";
import { nextAttemptAfter, withAdvisoryClaim } from "../../server/jobs/engine.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { scheduledRewardCancelledEmail } from "../../server/mail/templates/payments.ts";
import { orderRefundFailedEmail } from "../../server/mail/templates/support.ts";
import { refundIdempotencyKey } from "../../server/payments/port.ts";
import { Refusal } from "../../server/refusal.ts";
import { recordAudit } from "../audit/service.server.ts";
import { moveBalance } from "../balance/service.server.ts";
import { retryExtraPaymentRefunds } from "../orders/extra-payments.server.ts";
import { releaseOrder } from "../orders/release.server.ts";
import { MEMBER_REMOVED_REASON, removedMembersOf } from "../orders/release-rules.server.ts";
import type { Caller, PaymentServices } from "../orders/service.server.ts";
import { WEBHOOK_RETRY_WINDOW_MS } from "../webhooks/schema.ts";
import { type RewardOrderView, scheduleRefusal } from "./schema.ts";

/** The advisory-lock namespace of the scheduler's claims (the reconciler has its own). */
const LOCK_NAMESPACE = 0x5343_4831; // "SCH1"

/**
 * A balance order charged this long ago and still pending was not released by the call that
 * charged it (its process died, or the release failed): the scheduler releases it (ADR 0043 §5).
 * Younger ones are left to that call.
 */
export const CHARGED_RELEASE_GRACE_MS = 60_000;

/** A refund is retried for as long as a webhook delivery is, counted from the cancel (ADR 0045 §2). */
export const REFUND_RETRY_WINDOW_MS = WEBHOOK_RETRY_WINDOW_MS;

/**
 * How long a refund try's claim holds it from other passes: longer than a processor call can take
 * (the Stripe client's 20 s timeout and two retries), so a live try never overlaps another; a
 * process that dies mid-call leaves the refund due again after this.
 */
const REFUND_CLAIM_MS = 5 * 60_000;

/** A cancelled order whose refund is owed and due at `now`: not made, not given up on. */
const refundDue = (now: Date) =>
  and(
    eq(orders.status, "cancelled"),
    isNull(orders.refundedAt),
    isNull(orders.refundFailedAt),
    or(isNotNull(orders.paymentIntentId), eq(orders.processor, "balance")),
    or(isNull(orders.refundNextAttemptAt), lte(orders.refundNextAttemptAt, now)),
  );

/** Paid from the prepaid balance (its 'order' entry exists) but neither released nor scheduled yet. */
const chargedButPending = (before: Date) =>
  and(
    eq(orders.status, "pending"),
    eq(orders.processor, "balance"),
    isNull(orders.releasedAt),
    // From the approval when there was one (it charged the order then), else from the order.
    lte(sql`coalesce(${orders.approvalDecidedAt}, ${orders.createdAt})`, before),
    exists(
      sql`(select 1 from ${balanceEntries} where ${balanceEntries.orderId} = ${orders.id} and ${balanceEntries.kind} = 'order')`,
    ),
  );

export interface DueSummary {
  released: number;
  /** Claimed by another process at the moment, or no longer due. */
  skipped: number;
  refunded: number;
  errors: number;
}

export interface SchedulerOptions {
  /** PostgreSQL: claim each order with an advisory lock (several processes share one database). */
  advisoryLocks: boolean;
  /** Orders looked at per pass (a pass goes on until none is due). */
  batchSize?: number;
  /** Orders released side by side; PGlite has one connection, so 1 there. */
  concurrency?: number;
}

/**
 * Releases every scheduled order whose time has come (at s.now()), then retries the refunds of
 * cancelled orders that did not go through. Safe to run in every process at once.
 */
export async function releaseDueOrders(
  s: PaymentServices,
  options: SchedulerOptions,
  isStopped: () => boolean = () => false,
): Promise<DueSummary> {
  const summary: DueSummary = { released: 0, skipped: 0, refunded: 0, errors: 0 };
  const batchSize = options.batchSize ?? 200;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const now = s.now();
  // Orders that failed or were skipped in this pass are not asked for again until the next one.
  const passed = new Set<number>();
  for (;;) {
    const due = await s.db
      .select({ id: orders.id })
      .from(orders)
      .where(
        or(
          and(eq(orders.status, "scheduled"), lte(orders.sendAt, now)),
          chargedButPending(new Date(now.getTime() - CHARGED_RELEASE_GRACE_MS)),
        ),
      )
      .orderBy(asc(orders.sendAt), asc(orders.id))
      .limit(batchSize + passed.size);
    const todo = due.map((d) => d.id).filter((id) => !passed.has(id));
    if (todo.length === 0 || isStopped()) break;
    let next = 0;
    const worker = async () => {
      while (next < todo.length && !isStopped()) {
        const id = todo[next++] as number;
        passed.add(id);
        try {
          const step = () =>
            releaseOrder(s.db, { orderId: id, source: "scheduler", actorUserId: null }, { ...s.release, now });
          const result = options.advisoryLocks ? await withAdvisoryClaim(s.db, LOCK_NAMESPACE, id, step) : await step();
          if (result?.released) summary.released++;
          else summary.skipped++;
        } catch (error) {
          summary.errors++;
          s.logger.warn({ orderId: id, err: String(error) }, "scheduler: could not release a scheduled order");
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  }
  if (summary.released > 0) s.onEmailQueued?.();
  summary.refunded = (await retryRefunds(s, now, isStopped)) + (await retryExtraPaymentRefunds(s, isStopped));
  if (summary.released + summary.errors + summary.refunded > 0) s.logger.info({ ...summary }, "scheduler pass");
  return summary;
}

/**
 * Tries every refund that is due, the longest due first, batch after batch until none is left:
 * each try either makes the refund or moves its next try ahead, so a refund that keeps failing is
 * out of the way until its backoff ends. Each refund is tried at most once a pass.
 */
async function retryRefunds(s: PaymentServices, now: Date, isStopped: () => boolean): Promise<number> {
  const batchSize = 100;
  const passed = new Set<number>();
  let refunded = 0;
  for (;;) {
    const due = await s.db
      .select({ id: orders.id })
      .from(orders)
      .where(refundDue(now))
      .orderBy(asc(sql`coalesce(${orders.refundNextAttemptAt}, ${orders.cancelledAt})`), asc(orders.id))
      .limit(batchSize + passed.size);
    const todo = due.map((d) => d.id).filter((id) => !passed.has(id));
    if (todo.length === 0 || isStopped()) break;
    for (const id of todo) {
      if (isStopped()) break;
      passed.add(id);
      if (await refundCancelled(s, id)) refunded++;
    }
  }
  return refunded;
}

async function companyOrder(db: Conn, companyId: number, orderId: number) {
  const [order] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.companyId, companyId)));
  return order;
}

/** GET /RewardOrders/:orderId: a paid order of the caller's company; null for any other. */
export async function rewardOrderView(db: Conn, companyId: number, orderId: number): Promise<RewardOrderView | null> {
  const order = await companyOrder(db, companyId, orderId);
  if (!order?.paidAt) return null;
  const [release] = await db
    .select({ id: rewardReleases.id })
    .from(rewardReleases)
    .where(eq(rewardReleases.orderId, order.id));
  const [count] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(orderLines)
    .where(eq(orderLines.orderId, order.id));
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    orderId: order.id,
    state: order.status === "cancelled" ? "cancelled" : order.status === "scheduled" ? "scheduled" : "released",
    rewardName: order.rewardName,
    sendAt: iso(order.sendAt),
    recipientCount: count?.n ?? 0,
    rewardsCents: order.rewardsCents,
    serviceFeeCents: order.serviceFeeCents,
    gstCents: order.gstCents,
    totalCents: order.totalCents,
    invoiceNumber: order.invoiceNumber,
    paidAt: iso(order.paidAt),
    releasedAt: iso(order.releasedAt),
    rewardReleaseId: release?.id ?? null,
    cancelledAt: iso(order.cancelledAt),
    refundedAt: iso(order.refundedAt),
    refundFailedAt: iso(order.refundFailedAt),
    cancelledForRemoved:
      order.status === "cancelled" && order.failureReason === MEMBER_REMOVED_REASON
        ? await removedMembersOf(db, order.id)
        : null,
    paidFrom: order.processor === "balance" ? "balance" : "card",
  };
}

/** Locks a scheduled order of the caller's company: 404 for another company's, 409 once sent or cancelled. */
async function lockScheduled(tx: Conn, caller: Caller, orderId: number) {
  const [order] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.companyId, caller.companyId)))
    .for("update");
  if (!order?.paidAt) throw new Refusal("order-not-found");
  if (order.status !== "scheduled") throw new Refusal("not-scheduled");
  return order;
}

/** PUT /RewardOrders/:orderId/schedule: a new time, 10 minutes to 90 days ahead, while still scheduled. */
export async function rescheduleOrder(
  s: PaymentServices,
  caller: Caller,
  orderId: number,
  sendAt: Date,
): Promise<RewardOrderView> {
  const now = s.now();
  const refused = scheduleRefusal(sendAt, now);
  if (refused) throw new Refusal(refused);
  await s.db.transaction(async (tx) => {
    const order = await lockScheduled(tx, caller, orderId);
    if (order.sendAt?.getTime() === sendAt.getTime()) return;
    await tx.update(orders).set({ sendAt }).where(eq(orders.id, order.id));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "order.rescheduled",
      subject: `order:${order.id}`,
      data: { from: order.sendAt?.toISOString() ?? null, to: sendAt.toISOString() },
      clientIp: caller.clientIp,
      at: now,
    });
  });
  return (await rewardOrderView(s.db, caller.companyId, orderId)) as RewardOrderView;
}

/**
 * POST /RewardOrders/:orderId/cancel: a scheduled order is cancelled (never released), then
 * refunded in full and its payer emailed. A refund that fails now is retried by the scheduler
 * with backoff (refundCancelled).
 */
export async function cancelScheduledOrder(
  s: PaymentServices,
  caller: Caller,
  orderId: number,
  appUrl: string,
): Promise<RewardOrderView> {
  const now = s.now();
  await s.db.transaction(async (tx) => {
    const order = await lockScheduled(tx, caller, orderId);
    await tx
      .update(orders)
      .set({ status: "cancelled", cancelledAt: now, cancelledBy: caller.userId })
      .where(eq(orders.id, order.id));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "order.cancelled",
      subject: `order:${order.id}`,
      data: { sendAt: order.sendAt?.toISOString() ?? null, totalCents: order.totalCents },
      clientIp: caller.clientIp,
      at: now,
    });
  });
  await refundCancelled(s, orderId, appUrl).catch((error: unknown) => {
    // The cancel stands; a try whose failure could not be written is due again after its claim.
    s.logger.warn({ orderId, err: String(error) }, "refund of a cancelled order failed: the scheduler retries it");
  });
  return (await rewardOrderView(s.db, caller.companyId, orderId)) as RewardOrderView;
}

/**
 * One try at a cancelled order's refund, when it is due: claimed by moving its due time ahead (so
 * two passes never try it at once), the processor's refund (same idempotency key on every try),
 * then, in one transaction, the refund recorded, the payer's email queued and the audit entry. A
 * try that fails for any reason (the processor, or recording it) is counted and the next one set
 * by the webhooks' backoff; at the last try, 72 hours after the cancel, the refund is marked failed
 * and support emailed (refundFailed). Never throws for a failed try. True when this call recorded
 * the refund.
 */
async function refundCancelled(s: PaymentServices, orderId: number, appUrl?: string): Promise<boolean> {
  const now = s.now();
  const claimedUntil = new Date(now.getTime() + REFUND_CLAIM_MS);
  const [order] = await s.db
    .update(orders)
    .set({ refundNextAttemptAt: claimedUntil })
    .where(and(eq(orders.id, orderId), refundDue(now)))
    .returning();
  if (!order) return false;
  const fromBalance = order.processor === "balance";
  try {
    return await makeRefund(s, order, now, appUrl);
  } catch (error) {
    const attempts = order.refundAttempts + 1;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    const giveUpAt = new Date((order.cancelledAt ?? now).getTime() + REFUND_RETRY_WINDOW_MS);
    // Only while this try's claim holds (another pass cannot have settled it meanwhile).
    const mine = and(eq(orders.id, order.id), isNull(orders.refundedAt), eq(orders.refundNextAttemptAt, claimedUntil));
    if (now.getTime() >= giveUpAt.getTime()) {
      await refundFailed(s, order, attempts, reason, now, mine);
      return false;
    }
    const nextAt = nextAttemptAfter(attempts, now, giveUpAt);
    await s.db
      .update(orders)
      .set({ refundAttempts: attempts, refundLastError: reason, refundNextAttemptAt: nextAt })
      .where(mine);
    s.logger.warn(
      { orderId, attempts, nextAttemptAt: nextAt.toISOString(), err: reason, toBalance: fromBalance },
      "refund of a cancelled order failed: retried later",
    );
    return false;
  }
}

/**
 * The refund is given up on after its last try: marked failed (so no pass tries it again), support
 * emailed and the audit entry written, in one transaction, once whatever races it.
 */
async function refundFailed(
  s: PaymentServices,
  order: typeof orders.$inferSelect,
  attempts: number,
  reason: string,
  now: Date,
  mine: ReturnType<typeof and>,
): Promise<void> {
  const failed = await s.db.transaction(async (tx) => {
    const [row] = await tx
      .update(orders)
      .set({ refundAttempts: attempts, refundLastError: reason, refundNextAttemptAt: null, refundFailedAt: now })
      .where(and(mine, isNull(orders.refundFailedAt)))
      .returning({ id: orders.id });
    if (!row) return false;
    const [company] = await tx
      .select({ name: companies.name })
      .from(companies)
      .where(eq(companies.id, order.companyId));
    const [payer] = await tx.select({ email: users.email }).from(users).where(eq(users.id, order.placedBy));
    await enqueueEmail(
      tx,
      orderRefundFailedEmail({
        to: s.release.config.SUPPORT_EMAIL,
        orderId: order.id,
        companyId: order.companyId,
        companyName: company?.name ?? null,
        refundTo: order.processor === "balance" ? "the company balance" : "the card",
        attempts,
        payerEmail: payer?.email ?? "",
        totalCents: order.totalCents,
        processor: order.processor,
        paymentIntentId: order.paymentIntentId,
        cancelledAt: order.cancelledAt,
        lastError: reason,
      }),
      now,
    );
    await recordAudit(tx, {
      companyId: order.companyId,
      actorUserId: null,
      action: "order.refund_failed",
      subject: `order:${order.id}`,
      data: { attempts, totalCents: order.totalCents },
      at: now,
    });
    return true;
  });
  if (!failed) return;
  s.logger.error(
    { orderId: order.id, attempts, err: reason },
    "refund of a cancelled order given up on: support emailed",
  );
  s.onEmailQueued?.();
}

/** The refund itself: the processor's (or the balance's), then recorded with the payer's notice. */
async function makeRefund(
  s: PaymentServices,
  order: typeof orders.$inferSelect,
  now: Date,
  appUrl?: string,
): Promise<boolean> {
  const fromBalance = order.processor === "balance";
  // A balance order's refund goes back to the balance, in the transaction below (ADR 0043).
  let refundId = `balance:${order.id}`;
  if (order.paymentIntentId && !fromBalance) {
    ({ refundId } = await s.payments.refund({
      paymentIntentId: order.paymentIntentId,
      idempotencyKey: refundIdempotencyKey(order.id),
    }));
  }
  const recorded = await s.db.transaction(async (tx) => {
    const [row] = await tx
      .update(orders)
      .set({ refundId, refundedAt: now })
      .where(and(eq(orders.id, order.id), isNull(orders.refundedAt)))
      .returning({ id: orders.id });
    if (!row) return false;
    if (fromBalance) {
      await moveBalance(tx, order.companyId, { kind: "refund", orderId: order.id, amountCents: order.totalCents });
    }
    const [payer] = await tx
      .select({ email: users.email, firstName: users.firstName })
      .from(users)
      .where(eq(users.id, order.placedBy));
    // Cancelled at its release for a removed member: the payer learns who (release-rules.ts).
    const removed = order.failureReason === MEMBER_REMOVED_REASON ? await removedMembersOf(tx, order.id) : null;
    if (payer && (order.sendAt || removed)) {
      const base = appUrl ?? s.release.config.APP_URL;
      await enqueueEmail(
        tx,
        scheduledRewardCancelledEmail({
          to: payer.email,
          firstName: payer.firstName,
          rewardName: order.rewardName,
          sendAt: order.sendAt,
          removedMembers: removed,
          totalCents: order.totalCents,
          invoiceNumber: order.invoiceNumber,
          orderUrl: new URL(`/portal/scheduled/${order.id}`, base).toString(),
          refundedTo: fromBalance ? "balance" : "card",
        }),
        now,
      );
    }
    await recordAudit(tx, {
      companyId: order.companyId,
      actorUserId: null,
      action: "order.refunded",
      subject: `order:${order.id}`,
      data: { refundId, totalCents: order.totalCents },
      at: now,
    });
    return true;
  });
  if (recorded) s.onEmailQueued?.();
  return recorded;
}
