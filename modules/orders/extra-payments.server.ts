// A second card payment for one order (ADR 0041). An order
// claims one way of paying when it is frozen (orders.payment_path), so the portal never makes two
// payments for it; this is what happens if one succeeds anyway (a payment made before that claim
// existed, a superseded tab paid after all): the first succeeded payment releases the order
// (release.ts, exactly once), and every other succeeded payment naming the same order is recorded
// once (extra_payments, unique per payment), refunded in full, audited, and its payer emailed.
//
// The refund is a network call, so it runs after the row is recorded; its idempotency key makes
// every try the same refund. A try that fails is retried by the scheduler's pass with the
// refunds' backoff (the webhooks' schedule) for 72 hours from when it was found, then support is
// emailed (the same policy as a cancelled order's refund, scheduled-sends.ts).
import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import { companies, extraPayments, orders, users } from "../../server/db/schema.ts";
import { nextAttemptAfter } from "../../server/jobs/engine.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { extraPaymentRefundedEmail } from "../../server/mail/templates/payments.ts";
import { extraPaymentRefundFailedEmail } from "../../server/mail/templates/support.ts";
import type { RetrievedPayment } from "../../server/payments/port.ts";
import { recordAudit } from "../audit/service.server.ts";
import { WEBHOOK_RETRY_WINDOW_MS } from "../webhooks/schema.ts";
import type { OrderRow, PaymentServices } from "./service.server.ts";

/** The idempotency key of an extra payment's refund: one payment, at most one refund. */
export function extraPaymentRefundKey(paymentIntentId: string): string {
  return `payment-${paymentIntentId}-refund`;
}

/** How long a try's claim keeps other passes off it: longer than a processor call can take. */
const CLAIM_MS = 5 * 60_000;

type ExtraPayment = typeof extraPayments.$inferSelect;

const refundDue = (now: Date) =>
  and(
    isNull(extraPayments.refundedAt),
    isNull(extraPayments.refundFailedAt),
    or(isNull(extraPayments.refundNextAttemptAt), lte(extraPayments.refundNextAttemptAt, now)),
  );

/**
 * `payment` succeeded for `order`, which another payment paid: recorded (once, whoever reports it:
 * the webhook, the return page's check, the reconciler) and audited, then refunded at once.
 */
export async function refundExtraPayment(
  s: PaymentServices,
  order: Pick<OrderRow, "id" | "companyId" | "paymentIntentId">,
  payment: RetrievedPayment,
): Promise<void> {
  const now = s.now();
  const found = await s.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(extraPayments)
      .values({
        companyId: order.companyId,
        orderId: order.id,
        paymentIntentId: payment.paymentIntentId,
        amountCents: payment.amountCents,
        foundAt: now,
      })
      .onConflictDoNothing({ target: extraPayments.paymentIntentId })
      .returning({ id: extraPayments.id });
    if (!row) return undefined;
    await recordAudit(tx, {
      companyId: order.companyId,
      actorUserId: null,
      action: "order.extra_payment",
      subject: `order:${order.id}`,
      data: {
        paymentIntentId: payment.paymentIntentId,
        paidBy: order.paymentIntentId,
        amountCents: payment.amountCents,
      },
      at: now,
    });
    return row.id;
  });
  if (found === undefined) return;
  s.logger.warn(
    { orderId: order.id, paymentIntentId: payment.paymentIntentId, paidBy: order.paymentIntentId },
    "a second payment for an order: refunding it",
  );
  await tryRefund(s, found);
}

/** The scheduler's share: every extra payment whose refund try is due, the longest due first. */
export async function retryExtraPaymentRefunds(s: PaymentServices, isStopped: () => boolean): Promise<number> {
  const due = await s.db
    .select({ id: extraPayments.id })
    .from(extraPayments)
    .where(refundDue(s.now()))
    .orderBy(asc(extraPayments.refundNextAttemptAt), asc(extraPayments.id))
    .limit(100);
  let refunded = 0;
  for (const { id } of due) {
    if (isStopped()) break;
    if (await tryRefund(s, id)) refunded++;
  }
  return refunded;
}

/**
 * One try: claimed by moving its due time ahead, the processor's refund, then the refund recorded
 * with the payer's email and the audit entry in one transaction. A failed try is counted and the
 * next one set by the backoff; the last, 72 hours after it was found, emails support. Never throws.
 */
async function tryRefund(s: PaymentServices, id: number): Promise<boolean> {
  const now = s.now();
  const claimedUntil = new Date(now.getTime() + CLAIM_MS);
  const [extra] = await s.db
    .update(extraPayments)
    .set({ refundNextAttemptAt: claimedUntil })
    .where(and(eq(extraPayments.id, id), refundDue(now)))
    .returning();
  if (!extra) return false;
  const mine = and(
    eq(extraPayments.id, id),
    isNull(extraPayments.refundedAt),
    eq(extraPayments.refundNextAttemptAt, claimedUntil),
  );
  let refundId: string;
  try {
    ({ refundId } = await s.payments.refund({
      paymentIntentId: extra.paymentIntentId,
      idempotencyKey: extraPaymentRefundKey(extra.paymentIntentId),
    }));
  } catch (error) {
    await refundTryFailed(s, extra, error, now, mine);
    return false;
  }
  const recorded = await s.db.transaction(async (tx) => {
    const [row] = await tx
      .update(extraPayments)
      .set({ refundId, refundedAt: now, refundNextAttemptAt: null })
      .where(and(eq(extraPayments.id, id), isNull(extraPayments.refundedAt)))
      .returning({ id: extraPayments.id });
    if (!row) return false;
    const [payer] = await tx
      .select({ email: users.email, firstName: users.firstName, rewardName: orders.rewardName })
      .from(orders)
      .innerJoin(users, eq(users.id, orders.placedBy))
      .where(eq(orders.id, extra.orderId));
    if (payer) {
      await enqueueEmail(
        tx,
        extraPaymentRefundedEmail({
          to: payer.email,
          firstName: payer.firstName,
          rewardName: payer.rewardName,
          orderId: extra.orderId,
          amountCents: extra.amountCents,
          paymentIntentId: extra.paymentIntentId,
          refundId,
        }),
        now,
      );
    }
    await recordAudit(tx, {
      companyId: extra.companyId,
      actorUserId: null,
      action: "order.extra_payment_refunded",
      subject: `order:${extra.orderId}`,
      data: { paymentIntentId: extra.paymentIntentId, refundId, amountCents: extra.amountCents },
      at: now,
    });
    return true;
  });
  if (recorded) {
    s.logger.info(
      { orderId: extra.orderId, paymentIntentId: extra.paymentIntentId, refundId },
      "second payment refunded",
    );
    s.onEmailQueued?.();
  }
  return recorded;
}

async function refundTryFailed(
  s: PaymentServices,
  extra: ExtraPayment,
  error: unknown,
  now: Date,
  mine: ReturnType<typeof and>,
): Promise<void> {
  const attempts = extra.refundAttempts + 1;
  const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
  const giveUpAt = new Date(extra.foundAt.getTime() + WEBHOOK_RETRY_WINDOW_MS);
  if (now.getTime() < giveUpAt.getTime()) {
    const nextAt = nextAttemptAfter(attempts, now, giveUpAt);
    await s.db
      .update(extraPayments)
      .set({ refundAttempts: attempts, refundLastError: reason, refundNextAttemptAt: nextAt })
      .where(mine)
      .catch(() => undefined); // the claim runs out and the try is due again
    s.logger.warn(
      { orderId: extra.orderId, paymentIntentId: extra.paymentIntentId, attempts, err: reason },
      "refund of a second payment failed: retried later",
    );
    return;
  }
  const gaveUp = await s.db.transaction(async (tx) => {
    const [row] = await tx
      .update(extraPayments)
      .set({ refundAttempts: attempts, refundLastError: reason, refundNextAttemptAt: null, refundFailedAt: now })
      .where(mine)
      .returning({ id: extraPayments.id });
    if (!row) return false;
    const [company] = await tx
      .select({ name: companies.name })
      .from(companies)
      .where(eq(companies.id, extra.companyId));
    await enqueueEmail(
      tx,
      extraPaymentRefundFailedEmail({
        to: s.release.config.SUPPORT_EMAIL,
        orderId: extra.orderId,
        companyId: extra.companyId,
        companyName: company?.name ?? null,
        attempts,
        amountCents: extra.amountCents,
        paymentIntentId: extra.paymentIntentId,
        lastError: reason,
      }),
      now,
    );
    await recordAudit(tx, {
      companyId: extra.companyId,
      actorUserId: null,
      action: "order.extra_payment_refund_failed",
      subject: `order:${extra.orderId}`,
      data: { paymentIntentId: extra.paymentIntentId, attempts },
      at: now,
    });
    return true;
  });
  if (gaveUp) {
    s.logger.error(
      { orderId: extra.orderId, paymentIntentId: extra.paymentIntentId, attempts },
      "refund of a second payment given up on: support emailed",
    );
    s.onEmailQueued?.();
  }
}
