// The portal's reward list paid from the company's prepaid balance (ADR 0043). The card path's rules hold (ADR 0041): the server computes
// every amount from the frozen draft, a manager has one live payment, the release is exactly once.
//
// One payment per reward list, whichever way:
//   1. Every card payment of the caller's live draft orders is stopped first, outside any
//      transaction (a network call holds no locks): a PaymentIntent cancelled, a Checkout Session
//      expired, then read back. One that succeeded or is still processing refuses the balance
//      (409): the card paid, or may yet.
//   2. One transaction under the draft's row lock (the lock every freeze takes): the draft
//      snapshot, then the caller's live orders, locked. A card payment saved on one of them after
//      step 1 (another tab) refuses (409): it was not stopped. Then the order is claimed for the
//      balance (payment_path 'balance', processor 'balance'; a new order supersedes the others,
//      or an approved order switches its claim) and charged (moveBalance, whose unique index makes
//      one charge per order). A short balance is 402 and the whole transaction rolls back.
//   3. After commit: releaseOrder (at once, or marked scheduled), exactly once as for any order;
//      the scheduler's backstop releases a charged order whose release failed (scheduled-sends.ts).
// A card call after the claim sees it: freezeOrder refuses (refusePaidFromBalance), savePayment
// saves no payment on a claimed order, and a card payment that succeeds all the same is an extra
// payment and refunded (releaseWith in orders.ts).
import { and, desc, eq, isNotNull, isNull, ne, or } from "drizzle-orm";
import type { Tx } from "../../server/db/client.ts";
import { orders, rewardDrafts } from "../../server/db/schema.ts";
import { Refusal } from "../../server/refusal.ts";
import { approvalNeeded, approvalRuleFor } from "../approvals/approval-rule.server.ts";
import { recordAudit } from "../audit/service.server.ts";
import { freezeInvoiceParties } from "../invoices/service.server.ts";
import { releaseOrder } from "../orders/release.server.ts";
import {
  approvedSnapshot,
  type Caller,
  type FreezeInput,
  insertOrderSnapshot,
  liveDraftOrders,
  type OrderRow,
  type PaymentServices,
  reopenApproved,
  requireCompanyDetails,
  saveWordingFor,
  snapshotOfDraft,
  supersedeOrders,
} from "../orders/service.server.ts";
import { loadDraftForOrder } from "../reward-drafts/service.server.ts";
import { balanceOf, moveBalance } from "./service.server.ts";

export interface BalancePayment {
  orderId: number;
  amountCents: number;
  balanceCents: number;
  sendAt: Date | null;
}

/** POST /api/Balance/pay-order: the caller's reward list paid from the balance (see the top of this file). */
export async function payOrder(s: PaymentServices, caller: Caller, input: FreezeInput): Promise<BalancePayment> {
  await requireCompanyDetails(s.db, caller.companyId);
  const stopped = await stopCardPayments(s, caller);
  const now = s.now();
  const charged = await s.db.transaction(async (tx) => {
    // A repeat of a post that paid and released already (a double submit) finds the draft emptied
    // by that release: the same answer, and the wording it carries is not written to the new draft.
    const current = await loadDraftForOrder(tx, caller);
    if (current && current.lines.length === 0) {
      const paid = await releasedRepeat(tx, caller, current, input.amountCents);
      if (paid) return { order: paid, repeat: true };
    }
    const snapshot = await snapshotOfDraft(tx, caller, await saveWordingFor(tx, caller, input, now));
    const live = await liveDraftOrders(tx, caller);
    const same = live.find(
      (o) =>
        o.paymentPath === "balance" &&
        o.draftVersion === snapshot.draft.version &&
        o.totalCents === snapshot.charges.totalCents &&
        o.rewardName === snapshot.rewardName,
    );
    // Charged by a post a moment ago and not released yet: the same answer.
    if (same) return { order: same, repeat: true };
    if (live.some((o) => o.paymentPath === "balance")) throw new Refusal("paid-from-balance");
    if (live.some((o) => !stoppedAll(o, stopped))) throw new Refusal("card-under-way");

    // Charged in this transaction with the budget's row locked (ADR 0034): a second payment of the
    // same Manager waits, then counts this one.
    const rule = await approvalRuleFor(tx, caller, snapshot.charges, now, snapshot.draft.draftId);
    let order: OrderRow;
    if (approvalNeeded(rule, snapshot.charges.totalCents)) {
      // The approved snapshot, as the card pays it (ADR 0022 §6): refused unless approved and unchanged.
      order = await reopenApproved(tx, await approvedSnapshot(tx, caller, snapshot, rule));
      if (!stoppedAll(order, stopped)) throw new Refusal("card-under-way");
    } else {
      await supersedeOrders(tx, live);
      order = await insertOrderSnapshot(tx, caller, snapshot, { processor: "balance", now, clientIp: caller.clientIp });
    }
    const claimed = await claimForBalance(tx, order);
    const moved = await moveBalance(tx, caller.companyId, {
      kind: "order",
      orderId: claimed.id,
      amountCents: claimed.totalCents,
    });
    if (!moved.moved) {
      if (moved.reason === "short") {
        throw new Refusal("balance-short", {
          balanceCents: await balanceOf(tx, caller.companyId),
          totalCents: claimed.totalCents,
        });
      }
      throw new Refusal("paid-from-balance");
    }
    // Charged: the tax invoice's parties are frozen now (ADR 0025, amendment), as for an API order.
    await freezeInvoiceParties(tx, claimed.id, s.release.config);
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "order.paid_from_balance",
      subject: `order:${claimed.id}`,
      data: { totalCents: claimed.totalCents, balanceAfterCents: moved.balanceAfterCents },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
    return { order: claimed, repeat: false };
  });

  if (!charged.repeat || !charged.order.releasedAt) {
    try {
      const result = await releaseOrder(
        s.db,
        { orderId: charged.order.id, source: "balance", actorUserId: caller.userId, clientIp: caller.clientIp ?? null },
        { ...s.release, now },
      );
      if (result.released || result.reason === "scheduled") s.onEmailQueued?.();
    } catch (error) {
      // Paid and committed: the scheduler's pass releases it (scheduled-sends.ts chargedButPending).
      s.logger.warn({ orderId: charged.order.id, err: String(error) }, "release of a balance-paid order failed");
    }
  }
  return {
    orderId: charged.order.id,
    amountCents: charged.order.totalCents,
    balanceCents: await balanceOf(s.db, caller.companyId),
    sendAt: charged.order.sendAt,
  };
}

/** Every card payment saved on the order was stopped by this call. */
function stoppedAll(o: OrderRow, stopped: ReadonlySet<string>): boolean {
  return (
    (o.paymentIntentId === null || stopped.has(o.paymentIntentId)) &&
    (o.checkoutSessionId === null || stopped.has(o.checkoutSessionId))
  );
}

/**
 * Claims the order for the balance: it is not paid, not superseded, and holds no card payment any
 * more (the ones it had were stopped). Written under the order's row lock, which savePayment's
 * update waits for, so a card payment is either seen by this call or refused afterwards.
 */
async function claimForBalance(tx: Tx, order: OrderRow): Promise<OrderRow> {
  const [row] = await tx
    .update(orders)
    .set({
      paymentPath: "balance",
      processor: "balance",
      status: "pending",
      failureReason: null,
      paymentIntentId: null,
      checkoutSessionId: null,
    })
    .where(
      and(
        eq(orders.id, order.id),
        isNull(orders.paidAt),
        ne(orders.status, "cancelled"),
        or(isNull(orders.failureReason), ne(orders.failureReason, "superseded")),
      ),
    )
    .returning();
  if (!row) throw new Refusal("payment-stale");
  return row;
}

/**
 * The order a released balance payment of the caller's draft made, when the post is a repeat of
 * it: the draft was emptied by that release (its version moved on by one) and the total is the
 * one posted.
 */
async function releasedRepeat(
  tx: Tx,
  caller: Caller,
  draft: { draftId: number; version: number },
  amountCents: number,
): Promise<OrderRow | null> {
  const [order] = await tx
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.companyId, caller.companyId),
        eq(orders.placedBy, caller.userId),
        eq(orders.draftId, draft.draftId),
        eq(orders.draftVersion, draft.version - 1),
        eq(orders.paymentPath, "balance"),
        eq(orders.totalCents, amountCents),
        isNotNull(orders.paidAt),
      ),
    )
    .orderBy(desc(orders.id))
    .limit(1);
  return order ?? null;
}

/**
 * Stops the card payments of the caller's live draft orders (and answers their ids): each is
 * cancelled (or its Checkout Session expired) and read back. A payment that succeeded, or that
 * the processor is still working on, refuses the balance payment (409); a processor that cannot be
 * reached refuses it too (503): nothing is charged while a card might still pay.
 */
async function stopCardPayments(s: PaymentServices, caller: Caller): Promise<Set<string>> {
  const stopped = new Set<string>();
  const live = await liveDraftOrders(s.db, caller, false);
  for (const o of [...live, ...(await supersededSameList(s, caller))]) {
    if (o.paymentPath === "balance") continue;
    try {
      if (o.checkoutSessionId) {
        await s.payments.expireCheckoutSession?.(o.checkoutSessionId).catch(() => undefined);
        const session = await s.payments.retrieveCheckoutSession?.(o.checkoutSessionId);
        if (session?.paymentStatus === "paid") throw new Refusal("card-under-way");
        if (session?.paymentIntentId) await stopIntent(s, session.paymentIntentId);
        stopped.add(o.checkoutSessionId);
      }
      if (o.paymentIntentId) {
        await stopIntent(s, o.paymentIntentId);
        stopped.add(o.paymentIntentId);
      }
    } catch (error) {
      if (error instanceof Refusal) throw error;
      s.logger.error({ orderId: o.id, err: String(error) }, "could not stop a card payment before a balance payment");
      throw new Refusal("processor-unavailable");
    }
  }
  return stopped;
}

/**
 * Card orders of the draft as it is now that another way of paying superseded (ADR 0041: the card
 * form and Checkout for one list): their payments were cancelled then, but a cancel that failed
 * would leave a card able to pay this very list, so they are stopped and read back again.
 */
async function supersededSameList(s: PaymentServices, caller: Caller): Promise<OrderRow[]> {
  const [draft] = await s.db
    .select({ id: rewardDrafts.id, version: rewardDrafts.version })
    .from(rewardDrafts)
    .where(and(eq(rewardDrafts.userId, caller.userId), eq(rewardDrafts.companyId, caller.companyId)));
  if (!draft) return [];
  return s.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.companyId, caller.companyId),
        eq(orders.placedBy, caller.userId),
        eq(orders.draftId, draft.id),
        eq(orders.draftVersion, draft.version),
        eq(orders.failureReason, "superseded"),
        isNull(orders.paidAt),
        or(isNotNull(orders.paymentIntentId), isNotNull(orders.checkoutSessionId)),
      ),
    );
}

async function stopIntent(s: PaymentServices, paymentIntentId: string): Promise<void> {
  // Stripe refuses to cancel a payment in a final state: what counts is the state read back.
  await s.payments.cancel(paymentIntentId).catch(() => undefined);
  const payment = await s.payments.retrieve(paymentIntentId);
  if (!payment) return;
  if (payment.status === "canceled") return;
  if (payment.status === "requires_payment_method" || payment.status === "failed") {
    // Declined and never cancelled (a processor that answered the cancel with an error): not stoppable now.
    throw new Error(`payment ${paymentIntentId} could not be cancelled (${payment.status})`);
  }
  throw new Refusal("card-under-way");
}
