// Card top-ups of a company's prepaid balance (ADR 0043; docs/requirements.md §D5 "paid from a prepaid
// company balance, topped up by card in the portal"). An Owner asks for a whole number of dollars
// ($10 to $100,000, modules/balance/schema.ts): a `balance_top_ups` row (pending) and a payment
// through the payments port for exactly that amount, no fee and no GST (those are charged when an
// order is paid from the balance). The payment's metadata names the top-up and its company, never
// an order, and its idempotency key is derived from the top-up id, so a repeat is the same payment.
//
// Every path that learns of a payment credits it the same way (creditTopUp): the check call after
// the card form or Stripe Checkout, the Stripe webhook (routed here by `topUpId` in the metadata),
// the simulated card form's success, and the reconciler for a top-up paid but never confirmed.
// The credit is one transaction under a row lock on the top-up: the payment must have succeeded
// and match the top-up (amount, currency, top-up and company in the metadata, and the top-up's
// own payment id), then moveBalance (the only way a balance changes; its unique entry per top-up
// makes a second credit impossible even without the lock), the top-up marked paid, and the audit
// entry. A declined card marks the top-up failed with the processor's message; the same payment
// may still be paid with another card (then it is credited and marked paid).
import { and, asc, eq, gt, gte, inArray, isNotNull, lte, or } from "drizzle-orm";
import type { Db } from "../../server/db/client.ts";
import { balanceTopUps, orders } from "../../server/db/schema.ts";
import type { Logger } from "../../server/logger.ts";
import {
  MAX_PAYMENT_CENTS,
  type Payments,
  type RetrievedPayment,
  type SimulatedCard,
  type SimulatedConfirmResult,
  topUpPaymentIdempotencyKey,
} from "../../server/payments/port.ts";
import { Refusal } from "../../server/refusal.ts";
import { recordAudit } from "../audit/service.server.ts";
import type { Caller } from "../orders/service.server.ts";
import {
  type BalanceEntryView,
  TOP_UP_DETAILS,
  TOP_UP_MAX_CENTS,
  TOP_UP_MIN_CENTS,
  type TopUpCheck,
  type TopUpView,
} from "./schema.ts";
import { balanceOf, balanceStatement, moveBalance } from "./service.server.ts";

export interface TopUpServices {
  db: Db;
  payments: Payments;
  logger: Logger;
  now: () => Date;
}

export type TopUpRow = typeof balanceTopUps.$inferSelect;

/** Who acted, for the audit trail: the Owner and their address, or null for the processor or the reconciler. */
type Actor = Pick<Caller, "userId" | "clientIp"> | null;

/** How a credit was learnt of (the audit entry says which). */
export type TopUpSource = "check" | "simulated-confirm" | "webhook" | "reconcile";

/** The domain's own check of the amount (the API's schema says the same words first). */
export function topUpAmountRefusal(
  amountCents: number,
): Refusal<"top-up-not-whole-dollars" | "top-up-out-of-range" | "over-card-limit"> | null {
  if (!Number.isSafeInteger(amountCents) || amountCents % 100 !== 0) return new Refusal("top-up-not-whole-dollars");
  if (amountCents < TOP_UP_MIN_CENTS || amountCents > TOP_UP_MAX_CENTS) return new Refusal("top-up-out-of-range");
  // Never reached with today's limits; kept so a raised maximum cannot pass the card limit.
  if (amountCents >= MAX_PAYMENT_CENTS) return new Refusal("over-card-limit");
  return null;
}

export function topUpView(row: TopUpRow): TopUpView {
  return {
    id: row.id,
    amount: row.amountCents,
    status: row.status,
    processor: row.processor,
    failureReason: row.status === "paid" ? null : row.failureReason,
    createdAt: row.createdAt.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
  };
}

/** The top-up of the caller's company, or a 404 (another company's id is as unknown as a missing one). */
export async function findTopUp(db: Db, companyId: number, topUpId: number): Promise<TopUpRow> {
  const [row] = await db
    .select()
    .from(balanceTopUps)
    .where(and(eq(balanceTopUps.id, topUpId), eq(balanceTopUps.companyId, companyId)));
  if (!row) throw new Refusal("top-up-not-found");
  return row;
}

async function insertTopUp(s: TopUpServices, caller: Caller, amountCents: number): Promise<TopUpRow> {
  const refused = topUpAmountRefusal(amountCents);
  if (refused) throw refused;
  const at = s.now();
  return s.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(balanceTopUps)
      .values({
        companyId: caller.companyId,
        requestedBy: caller.userId,
        amountCents,
        currency: "aud",
        status: "pending",
        processor: s.payments.kind,
        createdAt: at,
      })
      .returning();
    if (!row) throw new Error("top-up insert returned no row");
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "balance.top_up_started",
      subject: `top_up:${row.id}`,
      data: { amountCents, processor: s.payments.kind },
      clientIp: caller.clientIp ?? null,
      at,
    });
    return row;
  });
}

/**
 * The top-up's payment: created on the first call, the same payment on every later one (the
 * idempotency key is derived from the top-up id; the simulated processor and Stripe both answer
 * the first payment again).
 */
async function paymentOf(
  s: TopUpServices,
  topUp: TopUpRow,
): Promise<{ paymentIntentId: string; clientSecret: string }> {
  let created: { paymentIntentId: string; clientSecret: string };
  try {
    created = await s.payments.createPayment({
      amountCents: topUp.amountCents,
      currency: "aud",
      idempotencyKey: topUpPaymentIdempotencyKey(topUp.id),
      metadata: { topUpId: String(topUp.id), companyId: String(topUp.companyId) },
      description: "Prepaid balance top-up",
    });
  } catch (error) {
    s.logger.error({ topUpId: topUp.id, err: String(error) }, "top-up payment creation failed");
    throw new Refusal("processor-unavailable");
  }
  if (topUp.paymentIntentId !== created.paymentIntentId) {
    await s.db
      .update(balanceTopUps)
      .set({ paymentIntentId: created.paymentIntentId })
      .where(eq(balanceTopUps.id, topUp.id));
  }
  return created;
}

/** An Owner's top-up (the API checked the role): the pending row and the payment to confirm. */
export async function createTopUp(s: TopUpServices, caller: Caller, amountCents: number) {
  const topUp = await insertTopUp(s, caller, amountCents);
  const payment = await paymentOf(s, topUp);
  return { topUp, ...payment };
}

/**
 * Stripe without JavaScript: the top-up paid on Stripe's hosted Checkout page, which returns to
 * `returnUrl` (the portal's top-up page, whose loader makes the check call).
 */
export async function createTopUpCheckout(
  s: TopUpServices,
  caller: Caller,
  amountCents: number,
  returnUrl: (topUpId: number) => string,
): Promise<{ topUp: TopUpRow; url: string }> {
  if (!s.payments.createCheckoutSession) throw new Refusal("stripe-not-in-use");
  const topUp = await insertTopUp(s, caller, amountCents);
  let session: { id: string; url: string };
  try {
    session = await s.payments.createCheckoutSession({
      topUpId: topUp.id,
      companyId: topUp.companyId,
      amountCents: topUp.amountCents,
      currency: "aud",
      idempotencyKey: `top-up-${topUp.id}-checkout`,
      successUrl: returnUrl(topUp.id),
      cancelUrl: returnUrl(topUp.id),
    });
  } catch (error) {
    s.logger.error({ topUpId: topUp.id, err: String(error) }, "top-up checkout session creation failed");
    throw new Refusal("processor-unavailable");
  }
  await s.db.update(balanceTopUps).set({ checkoutSessionId: session.id }).where(eq(balanceTopUps.id, topUp.id));
  return { topUp: { ...topUp, checkoutSessionId: session.id }, url: session.url };
}

/**
 * The payment really paid this top-up: succeeded, the top-up's amount in its currency, metadata
 * naming this top-up and its company, and the top-up's own payment when it knows it already.
 */
export function paysTopUp(
  topUp: Pick<TopUpRow, "id" | "companyId" | "amountCents" | "currency" | "paymentIntentId">,
  payment: RetrievedPayment,
): boolean {
  return (
    payment.status === "succeeded" &&
    payment.amountCents === topUp.amountCents &&
    payment.currency.toLowerCase() === topUp.currency &&
    payment.metadata.topUpId === String(topUp.id) &&
    payment.metadata.companyId === String(topUp.companyId) &&
    (topUp.paymentIntentId === null || topUp.paymentIntentId === payment.paymentIntentId)
  );
}

function mismatchOf(topUp: TopUpRow, payment: RetrievedPayment) {
  return {
    topUpId: topUp.id,
    paymentIntentId: payment.paymentIntentId,
    topUpPaymentIntentId: topUp.paymentIntentId,
    amountCents: payment.amountCents,
    topUpAmountCents: topUp.amountCents,
    currency: payment.currency,
    metadataTopUpId: payment.metadata.topUpId ?? null,
    metadataOrderId: payment.metadata.orderId ?? null,
    metadataCompanyId: payment.metadata.companyId ?? null,
    topUpCompanyId: topUp.companyId,
  };
}

export type CreditOutcome =
  | { outcome: "credited"; balanceAfterCents: number }
  | { outcome: "already_credited" }
  | { outcome: "mismatch" }
  | { outcome: "not_found" };

/**
 * Credits a succeeded payment to the top-up's company, exactly once: one transaction under a
 * row lock on the top-up (concurrent checks, the webhook and the reconciler queue up here; the
 * second finds it paid), the match checked against the locked row, then moveBalance, the top-up
 * marked paid and the audit entry.
 */
export async function creditTopUp(
  s: TopUpServices,
  topUpId: number,
  payment: RetrievedPayment,
  source: TopUpSource,
  actor: Actor,
): Promise<CreditOutcome> {
  const at = s.now();
  const result = await s.db.transaction(async (tx): Promise<CreditOutcome> => {
    const [topUp] = await tx.select().from(balanceTopUps).where(eq(balanceTopUps.id, topUpId)).for("update");
    if (!topUp) return { outcome: "not_found" };
    // A paid top-up names the payment that paid it (paysTopUp), so any other payment for it is a
    // mismatch, logged and refused, never acknowledged as credited: a top-up has one payment (ADR
    // 0041), and money that is not its payment is not kept in silence.
    if (topUp.status === "paid" && topUp.paymentIntentId === payment.paymentIntentId) {
      return { outcome: "already_credited" };
    }
    if (!paysTopUp(topUp, payment)) {
      s.logger.error({ ...mismatchOf(topUp, payment), source }, "a payment does not match its top-up: not credited");
      return { outcome: "mismatch" };
    }
    const moved = await moveBalance(tx, topUp.companyId, {
      kind: "top_up",
      topUpId: topUp.id,
      amountCents: topUp.amountCents,
    });
    await tx
      .update(balanceTopUps)
      .set({ status: "paid", paidAt: at, paymentIntentId: payment.paymentIntentId, failureReason: null })
      .where(eq(balanceTopUps.id, topUp.id));
    // The entry's unique index already held a credit (a row marked otherwise by hand): paid, no second credit.
    if (!moved.moved) return { outcome: "already_credited" };
    await recordAudit(tx, {
      companyId: topUp.companyId,
      actorUserId: actor?.userId ?? null,
      action: "balance.topped_up",
      subject: `top_up:${topUp.id}`,
      data: {
        amountCents: topUp.amountCents,
        balanceAfterCents: moved.balanceAfterCents,
        paymentIntentId: payment.paymentIntentId,
        source,
      },
      clientIp: actor?.clientIp ?? null,
      at,
    });
    return { outcome: "credited", balanceAfterCents: moved.balanceAfterCents };
  });
  if (result.outcome === "credited") {
    s.logger.info({ topUpId, source, balanceAfterCents: result.balanceAfterCents }, "balance topped up");
  }
  return result;
}

/** A declined (or cancelled) payment: the top-up is failed with the processor's message; nothing else changes. */
export async function failTopUp(s: TopUpServices, topUp: TopUpRow, reason: string, actor: Actor): Promise<boolean> {
  const at = s.now();
  return s.db.transaction(async (tx) => {
    const rows = await tx
      .update(balanceTopUps)
      .set({ status: "failed", failureReason: reason.slice(0, 500) })
      .where(and(eq(balanceTopUps.id, topUp.id), inArray(balanceTopUps.status, ["pending", "failed"])))
      .returning({ id: balanceTopUps.id, status: balanceTopUps.status });
    // A repeat of the same message (a second check of one decline) is not a second audit entry.
    if (rows.length === 0 || (topUp.status === "failed" && topUp.failureReason === reason)) return false;
    await recordAudit(tx, {
      companyId: topUp.companyId,
      actorUserId: actor?.userId ?? null,
      action: "balance.top_up_failed",
      subject: `top_up:${topUp.id}`,
      data: { amountCents: topUp.amountCents, reason },
      clientIp: actor?.clientIp ?? null,
      at,
    });
    return true;
  });
}

function processorDown(s: TopUpServices, topUp: TopUpRow, error: unknown): Refusal {
  s.logger.error({ topUpId: topUp.id, err: String(error) }, "top-up payment retrieval failed");
  return new Refusal("processor-unavailable");
}

/** The PaymentIntent behind a top-up: its own, or the one its Checkout Session made (null: not paid yet). */
async function paymentIntentOf(s: TopUpServices, topUp: TopUpRow): Promise<string | null> {
  if (topUp.paymentIntentId) return topUp.paymentIntentId;
  if (!topUp.checkoutSessionId || !s.payments.retrieveCheckoutSession) return null;
  const session = await s.payments.retrieveCheckoutSession(topUp.checkoutSessionId);
  if (!session?.paymentIntentId) return null;
  if (session.metadata.topUpId !== String(topUp.id)) {
    s.logger.error({ topUpId: topUp.id, sessionId: session.id }, "the Checkout Session is not this top-up's");
    return null;
  }
  return session.paymentIntentId;
}

/**
 * The check call (POST /api/Balance/TopUps/{id}/check, after the card form or Checkout): the
 * payment's state read from the processor, the balance credited once when it succeeded and
 * matches, the top-up failed when the card was declined. Idempotent.
 */
export async function checkTopUp(
  s: TopUpServices,
  caller: Caller,
  topUpId: number,
  source: TopUpSource = "check",
): Promise<TopUpCheck> {
  const topUp = await findTopUp(s.db, caller.companyId, topUpId);
  const answer = async (status: TopUpCheck["status"], message?: string): Promise<TopUpCheck> => ({
    topUpId: topUp.id,
    amount: topUp.amountCents,
    status,
    ...(message ? { message } : {}),
    balance: await balanceOf(s.db, caller.companyId),
  });
  if (topUp.status === "paid") return answer("succeeded");
  if (topUp.processor !== s.payments.kind) return answer("failed", TOP_UP_DETAILS.otherProcessor);

  const paymentIntentId = await paymentIntentOf(s, topUp).catch((error: unknown) => {
    throw processorDown(s, topUp, error);
  });
  // No payment yet (a Checkout page left or cancelled): nothing was paid, the top-up stays as it is.
  if (!paymentIntentId) return answer("requires_payment_method", topUp.failureReason ?? undefined);
  const payment = await s.payments.retrieve(paymentIntentId).catch((error: unknown) => {
    throw processorDown(s, topUp, error);
  });
  if (!payment) return answer("failed", topUp.failureReason ?? undefined);

  switch (payment.status) {
    case "succeeded": {
      const credit = await creditTopUp(s, topUp.id, payment, source, caller);
      if (credit.outcome === "mismatch") return answer("failed", TOP_UP_DETAILS.mismatch);
      return answer("succeeded");
    }
    case "processing":
    case "requires_capture":
    case "requires_confirmation":
      return answer("processing");
    case "requires_action":
      return answer("requires_action");
    default: {
      // requires_payment_method (never paid yet, or a declined attempt), canceled, failed.
      const reason = payment.lastError ?? (payment.status === "requires_payment_method" ? null : payment.status);
      if (!reason) return answer("requires_payment_method");
      await failTopUp(s, topUp, reason, caller);
      return answer("failed", reason);
    }
  }
}

/**
 * A verified Stripe event whose metadata names a top-up (the webhook routes it here): succeeded
 * credits once, payment_failed marks the top-up failed. An unknown top-up is acknowledged and
 * ignored; a payment that does not match its top-up credits nothing.
 */
export async function handleTopUpEvent(
  s: TopUpServices,
  event: { type: "payment_intent.succeeded" | "payment_intent.payment_failed"; payment: RetrievedPayment },
): Promise<"credited" | "already_credited" | "failed" | "ignored" | "mismatch"> {
  const topUpId = Number(event.payment.metadata.topUpId);
  if (!Number.isSafeInteger(topUpId) || topUpId <= 0) return "ignored";
  const [topUp] = await s.db.select().from(balanceTopUps).where(eq(balanceTopUps.id, topUpId));
  if (!topUp) return "ignored";
  if (event.type === "payment_intent.succeeded") {
    const credit = await creditTopUp(s, topUp.id, event.payment, "webhook", null);
    if (credit.outcome === "credited") return "credited";
    if (credit.outcome === "mismatch") return "mismatch";
    return "already_credited";
  }
  if (topUp.paymentIntentId && topUp.paymentIntentId !== event.payment.paymentIntentId) return "mismatch";
  if (topUp.status === "paid") return "already_credited";
  await failTopUp(s, topUp, event.payment.lastError ?? "payment_failed", null);
  return "failed";
}

export type TopUpReconcileOutcome = "credited" | "already_credited" | "unpaid" | "mismatch" | "not_found";

/**
 * The reconciler's step for one top-up (modules/orders/reconciler.server.ts): credits a top-up whose
 * payment succeeded but whose Owner never came back and whose webhook never arrived. Never marks
 * a top-up failed (the Owner may still be at an authentication step).
 */
export async function reconcileTopUp(s: TopUpServices, topUpId: number): Promise<TopUpReconcileOutcome> {
  const [topUp] = await s.db.select().from(balanceTopUps).where(eq(balanceTopUps.id, topUpId));
  if (!topUp) return "not_found";
  if (topUp.status === "paid") return "already_credited";
  const paymentIntentId = await paymentIntentOf(s, topUp);
  if (!paymentIntentId) return "unpaid";
  const payment = await s.payments.retrieve(paymentIntentId);
  if (payment?.status !== "succeeded") return "unpaid";
  const credit = await creditTopUp(s, topUp.id, payment, "reconcile", null);
  return credit.outcome === "credited" ? "credited" : credit.outcome;
}

/** The reconciler's candidates: unpaid top-ups of this processor with a payment, within the age window. */
export async function topUpsToReconcile(
  s: TopUpServices,
  window: { olderThan: Date; newerThan: Date; afterId: number; limit: number },
): Promise<number[]> {
  const rows = await s.db
    .select({ id: balanceTopUps.id })
    .from(balanceTopUps)
    .where(
      and(
        inArray(balanceTopUps.status, ["pending", "failed"]),
        eq(balanceTopUps.processor, s.payments.kind),
        or(isNotNull(balanceTopUps.paymentIntentId), isNotNull(balanceTopUps.checkoutSessionId)),
        lte(balanceTopUps.createdAt, window.olderThan),
        gte(balanceTopUps.createdAt, window.newerThan),
        gt(balanceTopUps.id, window.afterId),
      ),
    )
    .orderBy(asc(balanceTopUps.id))
    .limit(window.limit);
  return rows.map((r) => r.id);
}

// ─── The Balance page's view (GET /api/Balance) ───

/** The balance and its latest movements, each order named by its invoice number and reward name. */
export async function balanceView(
  db: Db,
  companyId: number,
  limit = 50,
): Promise<{ balance: number; entries: BalanceEntryView[] }> {
  const [balance, rows] = await Promise.all([balanceOf(db, companyId), balanceStatement(db, companyId, limit)]);
  const orderIds = [...new Set(rows.map((r) => r.orderId).filter((id): id is number => id !== null))];
  const named =
    orderIds.length === 0
      ? []
      : await db
          .select({ id: orders.id, invoiceNumber: orders.invoiceNumber, rewardName: orders.rewardName })
          .from(orders)
          .where(and(eq(orders.companyId, companyId), inArray(orders.id, orderIds)));
  const byId = new Map(named.map((o) => [o.id, o]));
  return {
    balance,
    entries: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      amount: r.amountCents,
      balanceAfter: r.balanceAfterCents,
      at: r.createdAt.toISOString(),
      topUpId: r.topUpId,
      order: r.orderId === null ? null : (byId.get(r.orderId) ?? null),
    })),
  };
}

// ─── The simulated card processor (docs/requirements.md §D6): the top-up's card form, no JavaScript needed ───

/** The simulated payment of a payable top-up of the caller's company (404 for another company's). */
async function simulatedPaymentOf(s: TopUpServices, caller: Caller, topUpId: number) {
  if (s.payments.kind !== "simulated" || !s.payments.confirmCard || !s.payments.completeAuthentication) {
    throw new Refusal("simulated-not-in-use");
  }
  const topUp = await findTopUp(s.db, caller.companyId, topUpId);
  if (topUp.processor !== "simulated") throw new Refusal("top-up-other-processor");
  return { topUp, payment: await paymentOf(s, topUp) };
}

export type SimulatedTopUpAnswer = {
  status: "succeeded" | "requires_action" | "failed";
  message?: string;
  field?: keyof SimulatedCard;
  check: TopUpCheck;
};

/** After the card form or the authentication step: the processor's answer, then the check (which credits once). */
async function afterSimulated(
  s: TopUpServices,
  caller: Caller,
  topUpId: number,
  result: SimulatedConfirmResult | null,
): Promise<SimulatedTopUpAnswer> {
  if (!result) throw new Refusal("top-up-not-found");
  const check = await checkTopUp(s, caller, topUpId, "simulated-confirm");
  if (result.status === "failed") {
    return { status: "failed", message: result.message, ...(result.field ? { field: result.field } : {}), check };
  }
  return { status: check.status === "succeeded" ? "succeeded" : result.status, check };
}

/** The simulated card form of a top-up: a declined card fails it with the processor's message. */
export async function payTopUpBySimulatedCard(
  s: TopUpServices,
  caller: Caller,
  topUpId: number,
  card: SimulatedCard,
): Promise<SimulatedTopUpAnswer> {
  const { topUp, payment } = await simulatedPaymentOf(s, caller, topUpId);
  if (topUp.status === "paid") {
    return { status: "succeeded", check: await checkTopUp(s, caller, topUpId) };
  }
  // The simulated processor's card form, through the payments port (server/payments/port.ts).
  const result = (await s.payments.confirmCard?.({ ...payment, ...card }, s.now())) ?? null;
  return afterSimulated(s, caller, topUpId, result);
}

/** The simulated authentication step (4000 0025 0000 3155) of a top-up: complete or fail. */
export async function authenticateSimulatedTopUp(
  s: TopUpServices,
  caller: Caller,
  topUpId: number,
  outcome: "complete" | "fail",
): Promise<SimulatedTopUpAnswer> {
  const { payment } = await simulatedPaymentOf(s, caller, topUpId);
  const result = (await s.payments.completeAuthentication?.({ ...payment, outcome }, s.now())) ?? null;
  return afterSimulated(s, caller, topUpId, result);
}
