// The webhook events' payloads (ADR 0045, docs/API.md "Webhooks"), one builder per type, so what a
// receiver gets is defined in one place. Each is emitted in the transaction of its happening
// (webhooks.ts emitEvents). Ids, amounts in cents (AUD), times in ISO 8601; never an access
// code, a password or a link that signs someone in.
import { inArray } from "drizzle-orm";
import type { Conn } from "../../server/db/client.ts";
import { orders } from "../../server/db/schema.ts";
import { type EmittedEvent, emitEvents } from "./service.server.ts";

/** A release committed: the recipients' reward emails are queued. Subject: the order. */
export function orderReleasedEvent(
  order: {
    id: number;
    companyId: number;
    rewardName: string;
    rewardsCents: number;
    serviceFeeCents: number;
    gstCents: number;
    totalCents: number;
  },
  input: { invoiceNumber: string; recipients: number; releasedAt: Date },
): EmittedEvent {
  return {
    companyId: order.companyId,
    type: "order.released",
    subject: `order:${order.id}`,
    payload: {
      orderId: order.id,
      invoiceNumber: input.invoiceNumber,
      rewardName: order.rewardName,
      currency: "AUD",
      rewardsCents: order.rewardsCents,
      serviceFeeCents: order.serviceFeeCents,
      gstCents: order.gstCents,
      totalCents: order.totalCents,
      recipients: input.recipients,
      releasedAt: input.releasedAt.toISOString(),
    },
  };
}

/** A recipient's reward email was handed to the mail service, or given up on. Subject: the outbox email. */
export function rewardEmailEvent(
  outcome: "delivered" | "failed",
  email: { id: number; companyId: number; orderId: number; userId: number; to: string },
  at: Date,
  reason?: string,
): EmittedEvent {
  return {
    companyId: email.companyId,
    type: outcome === "delivered" ? "email.delivered" : "email.failed",
    subject: `email:${email.id}`,
    payload: {
      emailId: email.id,
      orderId: email.orderId,
      recipient: { userId: email.userId, email: email.to },
      ...(outcome === "delivered" ? { deliveredAt: at.toISOString() } : { failedAt: at.toISOString(), reason }),
    },
  };
}

/**
 * The email events of outbox rows just marked sent or failed, in the caller's transaction: only a
 * recipient's reward email (a row with its order and recipient) makes one.
 */
export async function emitRewardEmailEvents(
  tx: Conn,
  rows: readonly { id: number; orderId: number | null; recipientUserId: number | null; toAddress: string }[],
  outcome: "delivered" | "failed",
  at: Date,
  reason?: string,
): Promise<void> {
  const reward = rows.filter((r) => r.orderId !== null && r.recipientUserId !== null);
  if (reward.length === 0) return;
  const owners = await tx
    .select({ id: orders.id, companyId: orders.companyId })
    .from(orders)
    .where(inArray(orders.id, [...new Set(reward.map((r) => r.orderId as number))]));
  const companyOf = new Map(owners.map((o) => [o.id, o.companyId]));
  const events = reward.flatMap((r) => {
    const companyId = companyOf.get(r.orderId as number);
    if (companyId === undefined) return [];
    const email = {
      id: r.id,
      companyId,
      orderId: r.orderId as number,
      userId: r.recipientUserId as number,
      to: r.toAddress,
    };
    return [rewardEmailEvent(outcome, email, at, reason)];
  });
  await emitEvents(tx, events, at);
}

/** A lot's recipient was reminded that it expires within 30 days. Subject: the lot. */
export function rewardExpiringEvent(lot: {
  id: number;
  companyId: number;
  orderId: number | null;
  userId: number;
  email: string;
  remainingCents: number;
  expiresAt: Date;
  remindedAt: Date;
}): EmittedEvent {
  return {
    companyId: lot.companyId,
    type: "reward.expiring",
    subject: `lot:${lot.id}`,
    payload: {
      lotId: lot.id,
      orderId: lot.orderId,
      recipient: { userId: lot.userId, email: lot.email },
      remainingCents: lot.remainingCents,
      expiresAt: lot.expiresAt.toISOString(),
      remindedAt: lot.remindedAt.toISOString(),
    },
  };
}

/**
 * The same reminder as reward.expiring, under the name of the reward's life-cycle events
 * (reward.redeemed, reward.forfeited): both are emitted together, so an endpoint subscribes to
 * either (ADR 0045). Subject: the lot.
 */
export function rewardExpiryReminderSentEvent(lot: Parameters<typeof rewardExpiringEvent>[0]): EmittedEvent {
  return { ...rewardExpiringEvent(lot), type: "reward.expiry_reminder_sent" };
}

/**
 * What was left of a lot was forfeited: at its expiry (also reward.expired) or when its member
 * was removed from the team (docs/requirements.md §S6). A lot is forfeited once. Subject: the lot.
 */
export function rewardForfeitedEvent(
  lot: Parameters<typeof rewardExpiredEvent>[0] & { reason: "expired" | "member_removed" },
): EmittedEvent {
  const expired = rewardExpiredEvent(lot);
  return { ...expired, type: "reward.forfeited", payload: { ...expired.payload, reason: lot.reason } };
}

/**
 * The catalogue partner reported a recipient's spending (POST /api/Redemptions): the amount and
 * the recipient's balance left, and the lots it was drawn from. Subject: the redemption; a replay
 * of the partner's request changes nothing and emits nothing.
 */
export function rewardRedeemedEvent(r: {
  redemptionId: number;
  companyId: number;
  userId: number;
  amountCents: number;
  balanceCents: number;
  lots: readonly { lotId: number; amountCents: number; expiresAt: string }[];
  redeemedAt: Date;
}): EmittedEvent {
  return {
    companyId: r.companyId,
    type: "reward.redeemed",
    subject: `redemption:${r.redemptionId}`,
    payload: {
      redemptionId: r.redemptionId,
      recipient: { userId: r.userId },
      currency: "AUD",
      amountCents: r.amountCents,
      balanceCents: r.balanceCents,
      lots: r.lots.map((l) => ({ lotId: l.lotId, amountCents: l.amountCents, expiresAt: l.expiresAt })),
      redeemedAt: r.redeemedAt.toISOString(),
    },
  };
}

/** A lot expired and what was left of it was forfeited. Subject: the lot. */
export function rewardExpiredEvent(lot: {
  id: number;
  companyId: number;
  orderId: number | null;
  userId: number;
  forfeitedCents: number;
  expiresAt: Date;
  forfeitedAt: Date;
}): EmittedEvent {
  return {
    companyId: lot.companyId,
    type: "reward.expired",
    subject: `lot:${lot.id}`,
    payload: {
      lotId: lot.id,
      orderId: lot.orderId,
      recipient: { userId: lot.userId },
      forfeitedCents: lot.forfeitedCents,
      expiresAt: lot.expiresAt.toISOString(),
      forfeitedAt: lot.forfeitedAt.toISOString(),
    },
  };
}

/** An order waits for an Owner's approval. Subject: the order. */
export function approvalRequestedEvent(
  order: { id: number; companyId: number; rewardName: string; totalCents: number; placedBy: number | null },
  input: { recipients: number; requestedAt: Date; apiKeyId?: number | null },
): EmittedEvent {
  return {
    companyId: order.companyId,
    type: "approval.requested",
    subject: `order:${order.id}`,
    payload: {
      orderId: order.id,
      rewardName: order.rewardName,
      currency: "AUD",
      totalCents: order.totalCents,
      recipients: input.recipients,
      requestedBy: input.apiKeyId ? { apiKeyId: input.apiKeyId } : { userId: order.placedBy },
      requestedAt: input.requestedAt.toISOString(),
    },
  };
}

/**
 * An order went to an Owner's approval because it would pass a monthly budget (ADR 0034): whose
 * budget, the budget, what was used of it this month, the order's reward dollars and total, and
 * how far it is over. Subject: the order.
 */
export function budgetExceededEvent(
  order: { id: number; companyId: number; rewardsCents: number; totalCents: number },
  budget: {
    scope: { kind: "manager"; userId: number } | { kind: "apiKey"; apiKeyId: number };
    month: string;
    budgetCents: number;
    usedCents: number;
    overCents: number;
  },
  at: Date,
): EmittedEvent {
  return {
    companyId: order.companyId,
    type: "budget.exceeded",
    subject: `order:${order.id}`,
    payload: {
      orderId: order.id,
      budgetOf: budget.scope.kind === "manager" ? { userId: budget.scope.userId } : { apiKeyId: budget.scope.apiKeyId },
      month: budget.month,
      currency: "AUD",
      monthlyBudgetCents: budget.budgetCents,
      usedCents: budget.usedCents,
      orderRewardsCents: order.rewardsCents,
      orderTotalCents: order.totalCents,
      overByCents: budget.overCents,
      at: at.toISOString(),
    },
  };
}

/** An Owner approved or declined an order. Subject: the order. */
export function approvalDecidedEvent(
  order: { id: number; companyId: number; totalCents: number },
  decision: { approved: boolean; decidedBy: number; decidedAt: Date; reason?: string },
): EmittedEvent {
  return {
    companyId: order.companyId,
    type: "approval.decided",
    subject: `order:${order.id}`,
    payload: {
      orderId: order.id,
      decision: decision.approved ? "approved" : "declined",
      ...(decision.approved ? {} : { reason: decision.reason ?? null }),
      totalCents: order.totalCents,
      decidedBy: { userId: decision.decidedBy },
      decidedAt: decision.decidedAt.toISOString(),
    },
  };
}

/**
 * An automation run placed its orders (ADR 0035): how many rewards, how many charged and sent, how
 * many waiting for an Owner's approval (the automation budget), and the total. Subject: the run's
 * first order (each committed run places at least one, and no other run places the same one).
 */
export function automationRunEvent(run: {
  companyId: number;
  firstOrderId: number;
  orderIds: number[];
  rewards: number;
  birthdays: number;
  anniversaries: number;
  charged: number;
  awaitingApproval: number;
  rewardsCents: number;
  totalCents: number;
  ranAt: Date;
}): EmittedEvent {
  return {
    companyId: run.companyId,
    type: "automation.run",
    subject: `automation-run:order:${run.firstOrderId}`,
    payload: {
      orderIds: run.orderIds,
      rewards: run.rewards,
      birthdays: run.birthdays,
      anniversaries: run.anniversaries,
      ordersCharged: run.charged,
      ordersAwaitingApproval: run.awaitingApproval,
      currency: "AUD",
      rewardsCents: run.rewardsCents,
      totalCents: run.totalCents,
      ranAt: run.ranAt.toISOString(),
    },
  };
}
