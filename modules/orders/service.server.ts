// Orders and their payments (docs/requirements.md §D5, §D6). create-payment-intent freezes the
// caller's draft into an order (lines, reward name, totals, draft version) and creates the
// payment for the ORDER's total, never for the browser's number: the `amount` the browser sends
// must equal it, or the call is refused (the draft changed). check-payment-intent, the webhook
// and the simulated card form read the payment back and release the order (release.ts).
//
// Decisions (docs/decisions/0041-payments-and-release-once.md):
//   - Calling create twice for an unchanged draft (a double click, a reload of the Review page)
//     reuses the pending order and, through the idempotency key derived from the order id, the
//     same payment. A changed draft makes a new order; the manager's older pending orders OF
//     THEIR DRAFT are marked failed ('superseded') and their payments cancelled, so the old amount
//     cannot be paid. An order a system placed with an API key is never one of them (ADR 0044).
//   - The simulated card form refuses a payment whose order is no longer payable (superseded,
//     or its draft moved on to another version) before touching the card.
//   - A payment that did succeed is always released, even when the draft moved on meanwhile
//     (the money was taken for that snapshot); the draft is then left alone.
//   - A payment releases its order only when it matches the frozen order: its amount in cents,
//     its currency (aud), and the order and company named in its metadata (paysFor). The
//     webhook answers a mismatch 400 and releases nothing.
//   - The API enforces what the portal enforces (docs/requirements.md §S4 portal gate): no order, payment or
//     release for a company without company details (no ABN).
//   - A buyer who paid but never came back (no check call, no webhook) is found by the
//     reconciler (reconcileOrder here, the job in modules/orders/reconciler.server.ts).
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lte, ne, or, sql } from "drizzle-orm";
import { centsToDollars, chargesFor } from "../../core/money.ts";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { companies, orderPayments, orders, rewardDrafts } from "../../server/db/schema.ts";
import type { Logger } from "../../server/logger.ts";
import {
  MAX_PAYMENT_CENTS,
  type Payments,
  paymentIdempotencyKey,
  type RetrievedPayment,
} from "../../server/payments/port.ts";
import { Refusal } from "../../server/refusal.ts";
import {
  type ApprovalRule,
  approvalNeeded,
  approvalRefusalOf,
  approvalRuleFor,
} from "../approvals/approval-rule.server.ts";
import { recordAudit } from "../audit/service.server.ts";
import { REWARD_NAME_MAX, type RewardWording } from "../reward-drafts/schema.ts";
import { loadDraftForOrder, writeRewardWording } from "../reward-drafts/service.server.ts";
import { refundExtraPayment } from "./extra-payments.server.ts";
import { insertOrderLines } from "./order-lines.server.ts";
import { type ReleaseContext, type ReleaseResult, type ReleaseSource, releaseOrder } from "./release.server.ts";
import { type CheckPaymentIntentResponse, PAYMENT_DETAILS } from "./schema.ts";

/** What a payment or an approval request freezes, as the caller sent it (modules/orders/schema.ts). */
export interface FreezeInput {
  amountCents: number;
  rewardName?: string;
  /** Saved to the draft first, in the same transaction (reward-draft.ts writeRewardWording). */
  wording?: RewardWording;
}

/**
 * Saves the wording sent with a payment or an approval request, in the transaction that then
 * freezes the draft; a refused send time rolls it all back and is answered against `sendAt`.
 */
export async function saveWordingFor(tx: Tx, caller: Caller, input: FreezeInput, now: Date): Promise<FreezeInput> {
  if (!input.wording) return input;
  const saved = await writeRewardWording(
    tx,
    { companyId: caller.companyId, userId: caller.userId },
    input.wording,
    now,
  );
  if (!saved.ok) throw new Refusal(saved.refused, { field: "sendAt" });
  return { ...input, rewardName: input.wording.rewardName };
}

export interface Caller {
  companyId: number;
  userId: number;
  /** The caller's address as the edge trusted it, for the audit trail. */
  clientIp?: string | null;
}

/** Who acted on a payment, for the audit trail: the manager and their address, or null for the processor or the reconciler. */
type Actor = Pick<Caller, "userId" | "clientIp"> | null;

export interface PaymentServices {
  db: Db;
  payments: Payments;
  logger: Logger;
  release: Omit<ReleaseContext, "now">;
  now: () => Date;
  /** Called after a release queued emails (the mail worker sends them now). */
  onEmailQueued?: () => void;
}

export interface OrderPayment {
  orderId: number;
  paymentIntentId: string;
  clientSecret: string;
  amountCents: number;
  rewardName: string;
}

/**
 * The portal sends a manager without company details to onboarding (docs/requirements.md §S4 portal gate); the
 * API refuses the same manager's orders, payments and releases, so that no tax invoice is
 * issued to a buyer without an ABN.
 */
export async function requireCompanyDetails(db: Db, companyId: number): Promise<void> {
  const [company] = await db
    .select({ abn: companies.abn, detailsUpdatedAt: companies.detailsUpdatedAt })
    .from(companies)
    .where(eq(companies.id, companyId));
  if (!company?.abn || !company.detailsUpdatedAt) throw new Refusal("company-details-required");
}

export type OrderRow = typeof orders.$inferSelect;

/** The caller's draft, checked and priced as an order would freeze it (inside the caller's transaction). */
export interface DraftSnapshot {
  draft: NonNullable<Awaited<ReturnType<typeof loadDraftForOrder>>>;
  lines: NonNullable<Awaited<ReturnType<typeof loadDraftForOrder>>>["lines"];
  charges: ReturnType<typeof chargesFor>;
  rewardName: string;
}

/**
 * Locks the caller's draft row until commit (no draft change slips in, two creates queue up)
 * and checks it as an order: not empty, not $0, named, under the card limit, and priced at the
 * total the browser showed.
 */
export async function snapshotOfDraft(
  tx: Tx,
  caller: Caller,
  input: { amountCents: number; rewardName?: string },
): Promise<DraftSnapshot> {
  const draft = await loadDraftForOrder(tx, caller);
  const lines = (draft?.lines ?? []).filter((l) => l.amountDollars > 0);
  if (!draft || draft.lines.length === 0) throw new Refusal("empty-draft");
  const charges = chargesFor(lines.map((l) => l.amountDollars));
  if (charges.rewardsCents === 0) throw new Refusal("zero-total");
  const rewardName = (input.rewardName?.trim() || draft.name).trim();
  if (rewardName === "") throw new Refusal("reward-name-required");
  if (rewardName.length > REWARD_NAME_MAX) {
    throw new Refusal("reward-name-too-long");
  }
  if (charges.totalCents >= MAX_PAYMENT_CENTS) throw new Refusal("over-card-limit");
  if (input.amountCents !== charges.totalCents) throw new Refusal("amount-changed");
  return { draft, lines, charges, rewardName };
}

/**
 * The orders a new order of the caller's draft may supersede: the portal's, placed from a draft.
 * An order a system placed with an API key (api_key_id set, no draft) is recorded as placed by the
 * key's Owner (ADR 0044 §5) but is not theirs to replace: it waits for an approval of its own, or
 * it is charged to the balance and must end released or refunded (ADR 0043 §5). Superseding it
 * would strand it, since the scheduler's backstop only looks at pending orders
 * (modules/api-v1/api-orders.test.ts: "survives its Owner's card checkout").
 */
const draftOrder = isNull(orders.apiKeyId);

/**
 * The caller's live draft orders, locked (unless `lock` is false): pending ones, and declined ones
 * whose payment could still be retried in an old tab.
 */
export async function liveDraftOrders(tx: Conn, caller: Caller, lock = true): Promise<OrderRow[]> {
  const query = tx
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.companyId, caller.companyId),
        eq(orders.placedBy, caller.userId),
        draftOrder,
        or(
          eq(orders.status, "pending"),
          and(eq(orders.status, "failed"), ne(orders.failureReason, "superseded"), isNotNull(orders.paymentIntentId)),
        ),
      ),
    )
    .orderBy(desc(orders.id));
  return lock ? query.for("update") : query;
}

/**
 * An order charged to the prepaid balance from the portal (payment_path 'balance', claimed and
 * charged in one transaction: balance-payments.ts) and not released yet is paid: a card call
 * must neither supersede it nor pay that reward list again (ADR 0043).
 */
const notPaidFromBalance = or(isNull(orders.paymentPath), ne(orders.paymentPath, "balance"));

/** Refuses a card payment or an approval request while the caller's reward list is being paid from the balance. */
export function refusePaidFromBalance(live: readonly OrderRow[]): void {
  if (live.some((o) => o.paymentPath === "balance")) throw new Refusal("paid-from-balance");
}

/**
 * Marks the caller's other live draft orders superseded (a manager has at most one live payment).
 * The write repeats `draftOrder`: whatever rows it is handed, a key's order is never superseded.
 */
export async function supersedeOrders(tx: Tx, old: readonly OrderRow[]): Promise<void> {
  for (const o of old) {
    await tx
      .update(orders)
      .set({ status: "failed", failureReason: "superseded" })
      .where(and(eq(orders.id, o.id), ne(orders.status, "paid"), draftOrder, notPaidFromBalance));
  }
}

/** Supersedes every live draft order of the caller; answers them (their payments are cancelled after commit). */
export async function supersedeAllOrders(tx: Tx, caller: Caller): Promise<OrderRow[]> {
  const live = await liveDraftOrders(tx, caller);
  refusePaidFromBalance(live);
  await supersedeOrders(tx, live);
  return live;
}

/**
 * Cancels the payments of superseded orders (a PaymentIntent is cancelled, a Checkout Session
 * expired): outside the transaction (a network call holds no locks). One that was paid all the
 * same is released (the money was taken for that snapshot).
 */
export async function cancelSuperseded(s: Pick<PaymentServices, "payments" | "logger">, old: readonly OrderRow[]) {
  for (const o of old) {
    const cancelled = o.checkoutSessionId
      ? s.payments.expireCheckoutSession?.(o.checkoutSessionId)
      : o.paymentIntentId
        ? s.payments.cancel(o.paymentIntentId)
        : undefined;
    await cancelled?.catch((error: unknown) => {
      s.logger.warn({ orderId: o.id, err: String(error) }, "could not cancel a superseded payment");
    });
  }
}

/** Inserts the frozen order and its lines (and the audit entry), in the caller's transaction. */
export async function insertOrderSnapshot(
  tx: Tx,
  caller: Caller,
  snapshot: DraftSnapshot,
  extra: { processor: Payments["kind"] | "balance"; now: Date; approvalStatus?: "requested"; clientIp?: string | null },
): Promise<OrderRow> {
  const { draft, lines, charges, rewardName } = snapshot;
  const [order] = await tx
    .insert(orders)
    .values({
      companyId: caller.companyId,
      placedBy: caller.userId,
      draftId: draft.draftId,
      draftVersion: draft.version,
      rewardName,
      message: draft.message,
      senderName: draft.senderName,
      sendAt: draft.sendAt,
      ...charges,
      currency: "aud",
      status: "pending",
      processor: extra.processor,
      approvalStatus: extra.approvalStatus ?? null,
      createdAt: extra.now,
    })
    .returning();
  if (!order) throw new Error("order insert returned no row");
  await insertOrderLines(
    tx,
    caller.companyId,
    order.id,
    lines.map((l) => ({
      userId: l.userId,
      firstName: l.firstName,
      lastName: l.lastName,
      email: l.email,
      amountCents: l.amountDollars * 100,
    })),
  );
  await recordAudit(tx, {
    companyId: caller.companyId,
    actorUserId: caller.userId,
    action: "order.created",
    subject: `order:${order.id}`,
    data: { draftVersion: draft.version, recipients: lines.length, totalCents: charges.totalCents },
    clientIp: extra.clientIp ?? null,
    at: extra.now,
  });
  return order;
}

/**
 * The approved order a Manager's draft above the threshold is paid with (ADR 0022 §6): the
 * newest approval order of this draft, approved, at the draft's current version and name. Any
 * other state is refused and nothing changes: no approval yet (403), waiting, declined, or the
 * draft edited since (409).
 */
export async function approvedSnapshot(tx: Tx, caller: Caller, snapshot: DraftSnapshot, rule: ApprovalRule) {
  const latest = await latestApprovalOrder(tx, caller, snapshot.draft.draftId, true);
  if (!latest) throw approvalRefusalOf(rule);
  const sameSnapshot =
    latest.draftVersion === snapshot.draft.version &&
    latest.rewardName === snapshot.rewardName &&
    latest.totalCents === snapshot.charges.totalCents;
  if (!sameSnapshot) {
    if (latest.approvalStatus === "approved") throw new Refusal("changed-since-approval");
    throw approvalRefusalOf(rule);
  }
  if (latest.approvalStatus === "requested") throw new Refusal("approval-awaiting");
  if (latest.approvalStatus === "declined") throw new Refusal("approval-declined");
  return latest;
}

/**
 * The newest approval order of the caller's draft that is still live: not superseded and not
 * released (a paid order's draft has moved on). Locked with `lock`.
 */
export async function latestApprovalOrder(
  tx: Conn,
  caller: Caller,
  draftId: number,
  lock = false,
): Promise<OrderRow | undefined> {
  const query = tx
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.companyId, caller.companyId),
        eq(orders.placedBy, caller.userId),
        eq(orders.draftId, draftId),
        isNotNull(orders.approvalStatus),
        // Paid (released, or scheduled and waiting): the draft has moved on.
        isNull(orders.paidAt),
        or(isNull(orders.failureReason), ne(orders.failureReason, "superseded")),
      ),
    )
    .orderBy(desc(orders.id))
    .limit(1);
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

/**
 * An approved order ready to take a payment again: a card declined at the check call marked it
 * failed, but the approval still stands for the same snapshot (another card may pay it).
 */
export async function reopenApproved(tx: Tx, order: OrderRow): Promise<OrderRow> {
  if (order.status !== "failed") return order;
  const [row] = await tx
    .update(orders)
    .set({ status: "pending", failureReason: null })
    .where(eq(orders.id, order.id))
    .returning();
  return row ?? order;
}

/**
 * Claims the order's way of paying in the transaction that froze or reused it, under the draft's
 * lock, before any payment exists: a card-form call and a Checkout call racing for one draft
 * queue on that lock, and the second sees the first's claim (the payment ids are only saved after
 * the processor answered, too late to tell them apart). ADR 0041 "One live payment per order".
 */
export async function claimPaymentPath(tx: Tx, order: OrderRow, path: "intent" | "checkout"): Promise<OrderRow> {
  if (order.paymentPath === path) return order;
  const [row] = await tx
    .update(orders)
    .set({ paymentPath: path })
    .where(and(eq(orders.id, order.id), isNull(orders.paymentPath)))
    .returning();
  if (!row) throw new Refusal("payment-stale");
  return row;
}

/**
 * Freezes the caller's draft into an order, or reuses the pending order of the same draft
 * version; older pending draft orders of the caller are superseded and their payments cancelled
 * (never a key's order, see `draftOrder`).
 * A Manager's order at or above the company's threshold, or past their monthly budget, is never
 * frozen here: it is the order an Owner approved, or a refusal (ADR 0022 §6, ADR 0034).
 */
async function freezeOrder(
  s: PaymentServices,
  caller: Caller,
  input: FreezeInput,
  path: "intent" | "checkout",
): Promise<OrderRow> {
  const now = s.now();
  const frozen = await s.db.transaction(async (tx) => {
    const snapshot = await snapshotOfDraft(tx, caller, await saveWordingFor(tx, caller, input, now));
    const { draft, charges, rewardName } = snapshot;

    // The budget's row stays locked until commit: a payment under way here holds its dollars
    // (budgets.ts) before another payment of the same Manager is judged.
    const rule = await approvalRuleFor(tx, caller, charges, now, draft.draftId);
    if (approvalNeeded(rule, charges.totalCents)) {
      const approved = await approvedSnapshot(tx, caller, snapshot, rule);
      // One way of paying per order (see below); an approved order cannot be frozen again.
      if (approved.paymentPath !== null && approved.paymentPath !== path) {
        throw new Refusal("paid-another-way");
      }
      return { order: await claimPaymentPath(tx, await reopenApproved(tx, approved), path), superseded: [] };
    }

    const pending = await liveDraftOrders(tx, caller);
    refusePaidFromBalance(pending);
    const reusable = pending.find(
      (o) =>
        o.status === "pending" &&
        // An approval order is paid only through its approval (above); below the threshold a
        // new order replaces it.
        o.approvalStatus === null &&
        o.draftId === draft.draftId &&
        o.draftVersion === draft.version &&
        o.rewardName === rewardName &&
        o.totalCents === charges.totalCents &&
        o.processor === s.payments.kind &&
        // One way of paying per order: the Payment Element's PaymentIntent, or a Checkout
        // Session (which makes its own); switching supersedes the other way's order.
        (o.paymentPath === null || o.paymentPath === path),
    );
    const superseded = pending.filter((o) => o !== reusable);
    await supersedeOrders(tx, superseded);
    const order =
      reusable ??
      (await insertOrderSnapshot(tx, caller, snapshot, {
        processor: s.payments.kind,
        now,
        clientIp: caller.clientIp,
      }));
    return { order: await claimPaymentPath(tx, order, path), superseded };
  });

  await cancelSuperseded(s, frozen.superseded);
  return frozen.order;
}

/**
 * Freezes the caller's draft into an order (or reuses the pending order of the same draft
 * version) and makes sure it has a payment. `amountCents` is what the browser showed.
 */
export async function createOrderPayment(
  s: PaymentServices,
  caller: Caller,
  input: FreezeInput,
): Promise<OrderPayment> {
  await requireCompanyDetails(s.db, caller.companyId);
  const order = await freezeOrder(s, caller, input, "intent");
  return paymentForOrder(s, order);
}

/** Makes sure a frozen order has its payment (the idempotency key makes a repeat the same payment). */
export async function paymentForOrder(s: PaymentServices, order: OrderRow): Promise<OrderPayment> {
  let created: { paymentIntentId: string; clientSecret: string };
  try {
    created = await s.payments.createPayment({
      orderId: order.id,
      amountCents: order.totalCents,
      currency: "aud",
      idempotencyKey: paymentIdempotencyKey(order.id),
      metadata: { orderId: String(order.id), companyId: String(order.companyId) },
      description: `Reward Dollars: ${order.rewardName}`,
    });
  } catch (error) {
    s.logger.error({ orderId: order.id, err: String(error) }, "payment creation failed");
    throw new Refusal("processor-unavailable");
  }
  await savePayment(s, order, { paymentIntentId: created.paymentIntentId }, () =>
    s.payments.cancel(created.paymentIntentId),
  );
  return {
    orderId: order.id,
    paymentIntentId: created.paymentIntentId,
    clientSecret: created.clientSecret,
    amountCents: order.totalCents,
    rewardName: order.rewardName,
  };
}

/**
 * Saves the payment the processor made on its order, unless another call superseded the order
 * while the processor was answering: that call could not cancel a payment it did not see, so this
 * one cancels it and refuses (the browser starts again on the new total). Whichever commits
 * first, the other sees it: the supersede locks the order row this update writes.
 */
async function savePayment(
  s: PaymentServices,
  order: OrderRow,
  payment: { paymentIntentId: string } | { checkoutSessionId: string },
  cancel: () => Promise<void>,
): Promise<void> {
  const saved = await s.db.transaction(async (tx) => {
    // Kept whether or not the order takes it, and when a later payment writes over it: the
    // reconciler's backstop asks about every payment of the order it does not name (ADR 0041
    // amendment of 2026-11-28), so a second one paid without a webhook is still refunded.
    await tx
      .insert(orderPayments)
      .values({
        companyId: order.companyId,
        orderId: order.id,
        processor: s.payments.kind,
        paymentId: "paymentIntentId" in payment ? payment.paymentIntentId : payment.checkoutSessionId,
        createdAt: s.now(),
      })
      .onConflictDoNothing({ target: orderPayments.paymentId });
    return tx
      .update(orders)
      .set(payment)
      .where(
        and(
          eq(orders.id, order.id),
          or(isNull(orders.failureReason), ne(orders.failureReason, "superseded")),
          // Claimed by the balance meanwhile (an approved order paid from the balance in another tab).
          notPaidFromBalance,
        ),
      )
      .returning({ id: orders.id });
  });
  if (saved.length > 0) return;
  await cancel().catch((error: unknown) => {
    s.logger.warn({ orderId: order.id, err: String(error) }, "could not cancel a superseded payment");
  });
  throw new Refusal("payment-stale");
}

/** Stripe without JavaScript: the same order, paid on Stripe's hosted Checkout page. */
export async function createOrderCheckout(
  s: PaymentServices,
  caller: Caller,
  input: FreezeInput,
  appUrl: string,
): Promise<{ url: string; orderId: number; amountCents: number }> {
  if (!s.payments.createCheckoutSession) throw new Refusal("stripe-not-in-use");
  await requireCompanyDetails(s.db, caller.companyId);
  const order = await freezeOrder(s, caller, input, "checkout");
  const back = `${appUrl}/portal/payment-confirmation?payment_intent={CHECKOUT_SESSION_ID}`;
  let session: { id: string; url: string };
  try {
    session = await s.payments.createCheckoutSession({
      orderId: order.id,
      companyId: order.companyId,
      amountCents: order.totalCents,
      currency: "aud",
      rewardName: order.rewardName,
      idempotencyKey: `order-${order.id}-checkout`,
      successUrl: back,
      cancelUrl: back,
    });
  } catch (error) {
    s.logger.error({ orderId: order.id, err: String(error) }, "checkout session creation failed");
    throw new Refusal("processor-unavailable");
  }
  await savePayment(s, order, { checkoutSessionId: session.id }, async () => {
    await s.payments.expireCheckoutSession?.(session.id);
  });
  return { url: session.url, orderId: order.id, amountCents: order.totalCents };
}

async function findCompanyOrder(db: Db, companyId: number, paymentIntent: string): Promise<OrderRow | undefined> {
  const column = paymentIntent.startsWith("cs_") ? orders.checkoutSessionId : orders.paymentIntentId;
  const [order] = await db
    .select()
    .from(orders)
    .where(and(eq(column, paymentIntent), eq(orders.companyId, companyId)));
  return order;
}

/**
 * The payment really paid this order: the frozen total in cents, its currency, and metadata
 * naming this order and its company (every payment is created with both).
 */
export function paysFor(
  order: Pick<OrderRow, "id" | "companyId" | "totalCents" | "currency">,
  payment: RetrievedPayment,
): boolean {
  return (
    payment.amountCents === order.totalCents &&
    payment.currency.toLowerCase() === order.currency &&
    payment.metadata.orderId === String(order.id) &&
    payment.metadata.companyId === String(order.companyId)
  );
}

function mismatchOf(order: OrderRow, payment: RetrievedPayment) {
  return {
    orderId: order.id,
    paymentIntentId: payment.paymentIntentId,
    amountCents: payment.amountCents,
    orderTotalCents: order.totalCents,
    currency: payment.currency,
    metadataOrderId: payment.metadata.orderId ?? null,
    metadataCompanyId: payment.metadata.companyId ?? null,
    orderCompanyId: order.companyId,
  };
}

/**
 * A succeeded payment that pays for `order` (paysFor): releases the order with it, once. The first
 * payment to succeed pays the order; a payment that finds the order paid by another one, before
 * or inside the release's lock, is a second payment for it and is refunded (extra-payments.ts).
 */
async function releaseWith(
  s: PaymentServices,
  order: OrderRow,
  payment: RetrievedPayment,
  source: ReleaseSource,
  actor: Actor,
): Promise<ReleaseResult | { released: false; reason: "extra_payment" }> {
  // An order claimed by the balance is paid by it: a card payment for it is an extra one (refunded).
  const paidByAnother = (o: OrderRow) =>
    (o.paidAt !== null && o.paymentIntentId !== payment.paymentIntentId) || o.paymentPath === "balance";
  if (!paidByAnother(order)) {
    const result = await releaseOrder(
      s.db,
      {
        orderId: order.id,
        paymentIntentId: payment.paymentIntentId,
        source,
        actorUserId: actor?.userId ?? null,
        clientIp: actor?.clientIp,
      },
      { ...s.release, now: s.now() },
    );
    if (result.released) {
      s.logger.info({ orderId: order.id, releaseId: result.releaseId, source }, "reward released");
      s.onEmailQueued?.();
      return result;
    }
    const [now] = await s.db.select().from(orders).where(eq(orders.id, order.id));
    if (!now || !paidByAnother(now)) return result;
    order = now;
  }
  await refundExtraPayment(s, order, payment);
  return { released: false, reason: "extra_payment" };
}

async function markFailed(s: PaymentServices, order: OrderRow, reason: string, actor: Actor) {
  const rows = await s.db
    .update(orders)
    .set({ status: "failed", failureReason: reason })
    // A card's failure (a late webhook of a cancelled card payment) never fails an order the
    // balance paid: it would strand the charge, as the scheduler releases pending orders only.
    .where(and(eq(orders.id, order.id), eq(orders.status, "pending"), notPaidFromBalance))
    .returning({ id: orders.id });
  if (rows.length > 0) {
    await recordAudit(s.db, {
      companyId: order.companyId,
      actorUserId: actor?.userId ?? null,
      action: "order.failed",
      subject: `order:${order.id}`,
      data: { reason },
      clientIp: actor?.clientIp,
      at: s.now(),
    });
  }
}

/**
 * check-payment-intent: the payment's state for the caller's company (another company's id →
 * 404), releasing the order when it succeeded.
 */
export async function checkOrderPayment(
  s: PaymentServices,
  caller: Caller,
  paymentIntent: string,
): Promise<CheckPaymentIntentResponse> {
  await requireCompanyDetails(s.db, caller.companyId);
  const order = await findCompanyOrder(s.db, caller.companyId, paymentIntent);
  if (!order) throw new Refusal("order-not-found");
  const amount = centsToDollars(order.totalCents);
  let paymentIntentId = order.paymentIntentId;
  if (paymentIntent.startsWith("cs_")) {
    // The session names the PaymentIntent Checkout made; settled below like any payment (a paid
    // order is asked too: a second payment through it is refunded, never written over the first).
    const session = await s.payments.retrieveCheckoutSession?.(paymentIntent).catch((error: unknown) => {
      throw processorDown(s, order, error);
    });
    paymentIntentId = session?.paymentIntentId ?? null;
  }
  if (order.paidAt && (paymentIntentId === null || paymentIntentId === order.paymentIntentId)) {
    if (order.releasedAt || !order.sendAt) return { amount, status: "succeeded" };
    return { amount, status: "succeeded", sendAt: order.sendAt.toISOString() };
  }
  if (!paymentIntentId) return { amount, status: "failed" };
  const payment = await s.payments.retrieve(paymentIntentId).catch((error: unknown) => {
    throw processorDown(s, order, error);
  });
  if (!payment) return { amount, status: "failed" };
  return settle(s, order, payment, "check", caller);
}

function processorDown(s: PaymentServices, order: OrderRow, error: unknown): Refusal {
  s.logger.error({ orderId: order.id, err: String(error) }, "payment retrieval failed");
  return new Refusal("processor-unavailable");
}

/** Acts on a payment's state as read from the processor. */
async function settle(
  s: PaymentServices,
  order: OrderRow,
  payment: RetrievedPayment,
  source: ReleaseSource,
  actor: Actor,
): Promise<CheckPaymentIntentResponse> {
  const amount = centsToDollars(order.totalCents);
  switch (payment.status) {
    case "succeeded": {
      if (!paysFor(order, payment)) {
        s.logger.error(mismatchOf(order, payment), "a succeeded payment does not match its order: not released");
        return { amount, status: "failed", message: PAYMENT_DETAILS.checkFailed };
      }
      const result = await releaseWith(s, order, payment, source, actor);
      // Paid for a later time: the page says when the emails go out.
      if (!result.released && result.reason === "scheduled" && order.sendAt) {
        return { amount, status: "succeeded", sendAt: order.sendAt.toISOString() };
      }
      return { amount, status: "succeeded" };
    }
    case "processing":
    case "requires_capture":
    case "requires_confirmation":
      return { amount, status: "processing" };
    case "requires_action":
      return { amount, status: "requires_action" };
    default: {
      // requires_payment_method (never paid, or a declined attempt), canceled, failed.
      if (payment.lastError || payment.status === "canceled" || payment.status === "failed") {
        await markFailed(s, order, payment.lastError ?? payment.status, actor);
      }
      return { amount, status: "failed", ...(payment.lastError ? { message: payment.lastError } : {}) };
    }
  }
}

/**
 * A verified webhook event: payment_intent.succeeded releases, payment_intent.payment_failed
 * marks the order failed. The order comes from the metadata (and must carry the same payment id
 * when it already has one). Unknown orders are acknowledged and ignored.
 */
export async function handlePaymentEvent(
  s: PaymentServices,
  event: { type: "payment_intent.succeeded" | "payment_intent.payment_failed"; payment: RetrievedPayment },
): Promise<"released" | "already_released" | "refunded" | "failed" | "ignored" | "mismatch"> {
  const orderId = Number(event.payment.metadata.orderId);
  if (!Number.isSafeInteger(orderId) || orderId <= 0) return "ignored";
  const [order] = await s.db.select().from(orders).where(eq(orders.id, orderId));
  if (!order) return "ignored";
  if (event.type === "payment_intent.succeeded") {
    if (order.paidAt && order.paymentIntentId === event.payment.paymentIntentId) return "already_released";
    if (!paysFor(order, event.payment)) {
      s.logger.error(
        mismatchOf(order, event.payment),
        "webhook: a succeeded payment does not match its order: not released",
      );
      return "mismatch";
    }
    // A Checkout order learns its PaymentIntent id from the session's return or from this event.
    const result = await releaseWith(s, order, event.payment, "webhook", null);
    if (result.released) return "released";
    return result.reason === "extra_payment" ? "refunded" : "already_released";
  }
  // A declined attempt of a payment that is not the order's changes nothing about the order.
  if (order.paymentIntentId && order.paymentIntentId !== event.payment.paymentIntentId) return "ignored";
  await markFailed(s, order, event.payment.lastError ?? "payment_failed", null);
  return "failed";
}

/**
 * The order behind a simulated payment, if the caller's company owns it and it can still be
 * paid: a superseded order, or one whose draft moved on, is refused (409) and its payment
 * cancelled. A paid order is fine (the form answers succeeded again).
 */
export async function payableOrderForPayment(s: PaymentServices, caller: Caller, paymentIntentId: string) {
  await requireCompanyDetails(s.db, caller.companyId);
  const order = await findCompanyOrder(s.db, caller.companyId, paymentIntentId);
  if (!order) throw new Refusal("order-not-found");
  if (order.releasedAt || order.status === "scheduled") return order;
  // Only an approved approval order is ever paid (ADR 0022 §6); the others have no payment anyway.
  if (order.approvalStatus === "requested") throw new Refusal("approval-awaiting");
  if (order.approvalStatus === "declined") throw new Refusal("approval-declined");
  const [draft] = await s.db
    .select({ version: rewardDrafts.version })
    .from(rewardDrafts)
    .where(eq(rewardDrafts.id, order.draftId ?? 0));
  const stale = order.failureReason === "superseded" || !draft || draft.version !== order.draftVersion;
  if (stale) {
    await s.payments.cancel(paymentIntentId).catch(() => {});
    await markFailed(s, order, "superseded", caller);
    throw new Refusal(order.approvalStatus === "approved" ? "changed-since-approval" : "payment-stale");
  }
  return order;
}

/** After the simulated card form or authentication succeeded: release now (no webhook here). */
export async function settleSimulatedPayment(s: PaymentServices, caller: Caller, order: OrderRow) {
  const payment = await s.payments.retrieve(order.paymentIntentId ?? "");
  if (payment) await settle(s, order, payment, "simulated-confirm", caller);
}

export type ReconcileOutcome = "released" | "already_released" | "unpaid" | "mismatch" | "not_found";

/**
 * The reconciler's step for one order (modules/orders/reconciler.server.ts): asks the processor
 * whether the order's payment succeeded and releases the order when it did and matches it.
 * Releasing is exactly once (release.ts), so a race with the check call, the webhook or
 * another process changes nothing. It never marks an order failed: a buyer may still be
 * completing an authentication step, and the check call reports declines to the buyer.
 */
export async function reconcileOrder(s: PaymentServices, orderId: number): Promise<ReconcileOutcome> {
  const [order] = await s.db.select().from(orders).where(eq(orders.id, orderId));
  if (!order) return "not_found";
  if (order.releasedAt || order.paidAt) return "already_released";
  let payment = order.paymentIntentId ? await s.payments.retrieve(order.paymentIntentId) : null;
  if (payment?.status !== "succeeded" && order.checkoutSessionId) {
    // Checkout without a return to the confirmation page: the session names its PaymentIntent.
    const session = await s.payments.retrieveCheckoutSession?.(order.checkoutSessionId);
    if (!session?.paymentIntentId) return "unpaid";
    if (session.metadata.orderId !== String(order.id)) {
      s.logger.error(
        { orderId: order.id, sessionId: session.id },
        "reconciler: the Checkout Session is not this order's",
      );
      return "mismatch";
    }
    payment = await s.payments.retrieve(session.paymentIntentId);
  }
  if (payment?.status !== "succeeded") return "unpaid";
  if (!paysFor(order, payment)) {
    s.logger.error(
      mismatchOf(order, payment),
      "reconciler: a succeeded payment does not match its order: not released",
    );
    return "mismatch";
  }
  const result = await releaseWith(s, order, payment, "reconcile", null);
  return result.released ? "released" : "already_released";
}

export type PaymentReconcileOutcome =
  | "released"
  | "refunded"
  | "already_released"
  | "unpaid"
  | "mismatch"
  | "settled"
  | "not_found";

/**
 * The reconciler's backstop for one payment the order does not name (modules/orders/reconciler.server.ts;
 * ADR 0041): a payment written over by a later one, a Checkout Session of
 * an order another payment paid, a payment saved on an order superseded meanwhile. Asked at the
 * processor; a succeeded one that pays for the order goes through `releaseWith` like the webhook's:
 * it releases the order if nothing paid it yet, else it is an extra payment, recorded, refunded,
 * audited and its payer emailed once (extra-payments.ts). A payment that can pay nothing more
 * (succeeded and acted on, cancelled, expired, unknown to the processor, or not this order's) is
 * settled and never asked about again; one that may still be paid is asked again next pass.
 */
export async function reconcileOrderPayment(s: PaymentServices, id: number): Promise<PaymentReconcileOutcome> {
  const [row] = await s.db
    .select({ paymentId: orderPayments.paymentId, settledAt: orderPayments.settledAt, order: orders })
    .from(orderPayments)
    .innerJoin(orders, eq(orders.id, orderPayments.orderId))
    .where(eq(orderPayments.id, id));
  if (!row) return "not_found";
  if (row.settledAt) return "settled";
  const { order } = row;
  const settle = async () => {
    await s.db
      .update(orderPayments)
      .set({ settledAt: s.now() })
      .where(and(eq(orderPayments.id, id), isNull(orderPayments.settledAt)));
  };
  let paymentIntentId: string = row.paymentId;
  if (row.paymentId.startsWith("cs_")) {
    const session = await s.payments.retrieveCheckoutSession?.(row.paymentId);
    if (!session || (!session.paymentIntentId && session.status !== "open")) {
      await settle();
      return "unpaid";
    }
    if (!session.paymentIntentId) return "unpaid";
    if (session.metadata.orderId !== String(order.id)) {
      s.logger.error(
        { orderId: order.id, sessionId: session.id },
        "reconciler: the Checkout Session is not this order's",
      );
      await settle();
      return "mismatch";
    }
    paymentIntentId = session.paymentIntentId;
  }
  // The session whose payment paid the order: nothing more to find.
  if (order.paidAt && order.paymentIntentId === paymentIntentId) {
    await settle();
    return "already_released";
  }
  const payment = await s.payments.retrieve(paymentIntentId);
  if (!payment || payment.status === "canceled") {
    await settle();
    return "unpaid";
  }
  if (payment.status !== "succeeded") return "unpaid";
  if (!paysFor(order, payment)) {
    s.logger.error(mismatchOf(order, payment), "reconciler: a succeeded payment does not match its order");
    await settle();
    return "mismatch";
  }
  const result = await releaseWith(s, order, payment, "reconcile", null);
  await settle();
  if (result.released) return "released";
  return result.reason === "extra_payment" ? "refunded" : "already_released";
}

/**
 * The backstop's candidates: unsettled payments of this processor made within the age window that
 * their order does not name as its payer. An unpaid order's own PaymentIntent and Checkout Session
 * are left to the order scan (reconcileOrder), which asks about them already.
 */
export async function orderPaymentsToReconcile(
  s: PaymentServices,
  window: { olderThan: Date; newerThan: Date; afterId: number; limit: number },
): Promise<number[]> {
  const rows = await s.db
    .select({ id: orderPayments.id })
    .from(orderPayments)
    .innerJoin(orders, eq(orders.id, orderPayments.orderId))
    .where(
      and(
        isNull(orderPayments.settledAt),
        eq(orderPayments.processor, s.payments.kind),
        lte(orderPayments.createdAt, window.olderThan),
        gte(orderPayments.createdAt, window.newerThan),
        gt(orderPayments.id, window.afterId),
        sql`${orderPayments.paymentId} is distinct from ${orders.paymentIntentId}`,
        or(isNotNull(orders.paidAt), sql`${orderPayments.paymentId} is distinct from ${orders.checkoutSessionId}`),
      ),
    )
    .orderBy(asc(orderPayments.id))
    .limit(window.limit);
  return rows.map((r) => r.id);
}
