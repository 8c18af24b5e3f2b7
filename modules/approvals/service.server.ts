// Approvals bound to the frozen snapshot (ADR 0022 §6). A Manager's order at or above the
// company's threshold is frozen by "Request approval" exactly as payment freezes it (the server
// computes every amount, orders.ts), with approval_status 'requested' and no payment. An Owner
// approves it (refused when the requester's draft has changed since: what is approved is exactly
// what will be paid) or declines it with a reason (never payable). The requester is emailed
// either way; the Owners are emailed when it is requested. The approved order is paid at its
// own total by the requester (create-payment-intent, orders.ts) or an Owner (payApprovedOrder),
// never as a new snapshot. Every change writes its audit entry in the same transaction.
//
// Locks are taken in the order of every payment path: the draft row, then the order row.
import { and, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { preparedOnce } from "../../server/db/prepared.ts";
import { apiKeys, companies, orderLines, orders, rewardDrafts, users } from "../../server/db/schema.ts";
import { enqueueEmail, enqueueEmails } from "../../server/mail/outbox.ts";
import {
  approvalApprovedEmail,
  approvalDeclinedEmail,
  approvalRequestedEmail,
} from "../../server/mail/templates/approvals.ts";
import { Refusal } from "../../server/refusal.ts";
import { recordAudit } from "../audit/service.server.ts";
import { balanceOf, moveBalance } from "../balance/service.server.ts";
import { type BudgetExcess, budgetUsedCents } from "../budgets/service.server.ts";
import { freezeInvoiceParties } from "../invoices/service.server.ts";
import { releaseOrder } from "../orders/release.server.ts";
import { assertLinesReleasable } from "../orders/release-rules.server.ts";
import {
  type Caller,
  cancelSuperseded,
  claimPaymentPath,
  type FreezeInput,
  insertOrderSnapshot,
  latestApprovalOrder,
  type OrderPayment,
  type OrderRow,
  type PaymentServices,
  paymentForOrder,
  requireCompanyDetails,
  saveWordingFor,
  snapshotOfDraft,
  supersedeAllOrders,
} from "../orders/service.server.ts";
import { approvalDecidedEvent, approvalRequestedEvent, budgetExceededEvent } from "../webhooks/events.server.ts";
import { emitEvent } from "../webhooks/service.server.ts";
import { approvalNeeded, approvalRuleFor, approvalThresholdFor } from "./approval-rule.server.ts";
import type {
  ApprovalDetail,
  ApprovalState,
  ApprovalSummary,
  MyDraftApproval,
  RequestApprovalResponse,
} from "./schema.ts";

export interface ApprovalCaller extends Caller {
  managerRole: "owner" | "manager";
}

export interface ApprovalServices extends PaymentServices {
  /** The portal's address, for the links in the emails. */
  appUrl: string;
}

/** The approval page of an order, and the pages the requester is sent to. */
export const approvalLink = (appUrl: string, orderId: number) => `${appUrl}/portal/approvals/${orderId}`;
const reviewLink = (appUrl: string) => `${appUrl}/portal/reward-my-team-review`;
const draftLink = (appUrl: string) => `${appUrl}/portal/reward-my-team`;

// ─── The threshold ───

export async function getThreshold(db: Conn, companyId: number): Promise<number | null> {
  const [row] = await db
    .select({ cents: companies.approvalThresholdCents })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row?.cents ?? null;
}

/** Sets (or clears, with null) the company's threshold in cents; audited when it changes. */
export async function setThreshold(
  db: Db,
  actor: Caller,
  thresholdCents: number | null,
  now: Date,
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ cents: companies.approvalThresholdCents })
      .from(companies)
      .where(eq(companies.id, actor.companyId))
      .for("update");
    const previous = before?.cents ?? null;
    if (previous === thresholdCents) return thresholdCents;
    await tx.update(companies).set({ approvalThresholdCents: thresholdCents }).where(eq(companies.id, actor.companyId));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "settings.approval_threshold_changed",
      subject: `company:${actor.companyId}`,
      data: { fromCents: previous, toCents: thresholdCents },
      clientIp: actor.clientIp ?? null,
      at: now,
    });
    return thresholdCents;
  });
}

// ─── Reading approvals ───

const requester = alias(users, "requester");
const decider = alias(users, "decider");

const summaryColumns = {
  order: orders,
  requesterFirst: requester.firstName,
  requesterLast: requester.lastName,
  requesterEmail: requester.email,
  deciderFirst: decider.firstName,
  deciderLast: decider.lastName,
  draftVersion: rewardDrafts.version,
  apiKeyName: apiKeys.name,
  recipientCount: sql<number>`(select count(*)::int from ${orderLines} where ${orderLines.orderId} = ${orders.id})`,
};

type SummaryRow = {
  order: OrderRow;
  requesterFirst: string;
  requesterLast: string;
  requesterEmail: string;
  deciderFirst: string | null;
  deciderLast: string | null;
  draftVersion: number | null;
  apiKeyName: string | null;
  recipientCount: number;
};

function summaryQuery(db: Conn) {
  return db
    .select(summaryColumns)
    .from(orders)
    .innerJoin(requester, eq(requester.id, orders.placedBy))
    .leftJoin(decider, eq(decider.id, orders.approvalDecidedBy))
    .leftJoin(rewardDrafts, eq(rewardDrafts.id, orders.draftId))
    .leftJoin(apiKeys, eq(apiKeys.id, orders.apiKeyId));
}

export function stateOf(order: OrderRow): ApprovalState {
  if (order.releasedAt || order.paidAt) return "paid";
  // An order a system placed with an API key is charged to the balance by its approval (ADR 0044).
  if (order.processor === "balance" && order.approvalStatus === "approved") return "paid";
  if (order.approvalStatus === "declined") return "declined";
  if (order.failureReason === "superseded") return "superseded";
  return order.approvalStatus === "approved" ? "approved" : "requested";
}

function toSummary(row: SummaryRow): ApprovalSummary {
  const o = row.order;
  return {
    orderId: o.id,
    rewardName: o.rewardName,
    state: stateOf(o),
    approvalStatus: o.approvalStatus ?? "requested",
    totalCents: o.totalCents,
    recipientCount: Number(row.recipientCount),
    // A system's order (ADR 0044) was asked for by its API key; the email is the key's Owner's.
    requestedBy: {
      userId: o.placedBy,
      // An automation's run (ADR 0035) is named as the automation, not the Owner who made it.
      name:
        row.apiKeyName !== null
          ? `API key “${row.apiKeyName}”`
          : o.automationId !== null
            ? `Automation “${o.rewardName}”`
            : `${row.requesterFirst} ${row.requesterLast}`,
      email: row.requesterEmail,
    },
    requestedAt: o.createdAt.toISOString(),
    decidedBy:
      o.approvalDecidedBy !== null
        ? { userId: o.approvalDecidedBy, name: `${row.deciderFirst ?? ""} ${row.deciderLast ?? ""}`.trim() }
        : null,
    decidedAt: o.approvalDecidedAt?.toISOString() ?? null,
    reason: o.approvalReason,
    draftChanged: !o.releasedAt && row.draftVersion !== o.draftVersion,
    viaApiKey: o.apiKeyId !== null,
    overBudgetCents: o.overBudgetCents,
  };
}

export const APPROVAL_LIST_LIMIT = 50;

// The pending list is on every Owner's dashboard request.
const pendingOf = preparedOnce((db) =>
  summaryQuery(db)
    .where(
      and(
        eq(orders.companyId, sql.placeholder("companyId")),
        eq(orders.approvalStatus, "requested"),
        eq(orders.status, "pending"),
      ),
    )
    .orderBy(orders.id)
    .limit(APPROVAL_LIST_LIMIT)
    .prepare("approvals_pending"),
);

/**
 * An Owner's lists: `pending` (waiting for a decision, oldest first) or `decided` (approved and
 * declined, newest decision first, the last 50).
 */
export async function listApprovals(db: Db, companyId: number, which: "pending" | "decided") {
  const rows =
    which === "pending"
      ? await pendingOf(db).execute({ companyId })
      : await summaryQuery(db)
          .where(
            and(
              eq(orders.companyId, companyId),
              inArray(orders.approvalStatus, ["approved", "declined"]),
              isNotNull(orders.approvalDecidedAt),
            ),
          )
          .orderBy(desc(orders.approvalDecidedAt), desc(orders.id))
          .limit(APPROVAL_LIST_LIMIT);
  return rows.map(toSummary);
}

const SHOWN_LINES = 100;

/**
 * One approval order for an Owner or its requester. Another company's order, or an order that
 * needed no approval, is a 404; another Manager's request a 403.
 */
export async function getApproval(db: Db, caller: ApprovalCaller, orderId: number): Promise<ApprovalDetail> {
  const [row] = await summaryQuery(db).where(
    and(eq(orders.id, orderId), eq(orders.companyId, caller.companyId), isNotNull(orders.approvalStatus)),
  );
  if (!row) throw new Refusal("order-not-found");
  // An order placed with an API key has no requester in the portal (placed_by is the key's Owner).
  const isRequester = askedByManager(row.order) && row.order.placedBy === caller.userId;
  if (!isRequester && caller.managerRole !== "owner") throw new Refusal("owner-only");
  const lines = await db
    .select({
      firstName: orderLines.firstName,
      lastName: orderLines.lastName,
      email: orderLines.email,
      amountCents: orderLines.amountCents,
    })
    .from(orderLines)
    .where(eq(orderLines.orderId, orderId))
    .orderBy(orderLines.id)
    .limit(SHOWN_LINES);
  const summary = toSummary(row);
  const o = row.order;
  return {
    ...summary,
    rewardsCents: o.rewardsCents,
    serviceFeeCents: o.serviceFeeCents,
    gstCents: o.gstCents,
    lines: lines.map((l) => ({ name: `${l.firstName} ${l.lastName}`, email: l.email, amountCents: l.amountCents })),
    payable: summary.state === "approved" && !summary.draftChanged,
    isRequester,
  };
}

/** What the Review page needs about the caller's draft (see MyDraftApproval). */
export async function approvalForMyDraft(db: Db, caller: Caller, now: Date): Promise<MyDraftApproval> {
  const thresholdCents = await approvalThresholdFor(db, caller);
  const [draft] = await db
    .select({ id: rewardDrafts.id })
    .from(rewardDrafts)
    .where(and(eq(rewardDrafts.userId, caller.userId), eq(rewardDrafts.companyId, caller.companyId)));
  const [me] = await db
    .select({ budget: users.monthlyBudgetCents, role: users.managerRole })
    .from(users)
    .where(eq(users.id, caller.userId));
  // The payment re-checks under the budget's lock (approval-rule.ts); this only guides the page.
  const budgetLeftCents =
    me?.role === "manager" && me.budget !== null
      ? Math.max(
          0,
          me.budget -
            (await budgetUsedCents(db, { kind: "manager", userId: caller.userId, companyId: caller.companyId }, now, {
              draftId: draft?.id,
            })),
        )
      : null;
  const latest = draft ? await latestApprovalOrder(db, caller, draft.id) : undefined;
  if (!latest) return { thresholdCents, budgetLeftCents, order: null };
  const [row] = await summaryQuery(db).where(eq(orders.id, latest.id));
  return { thresholdCents, budgetLeftCents, order: row ? toSummary(row) : null };
}

/**
 * A manager asked for this order's approval (not a system's API key, not an automation's run,
 * ADR 0035): they cannot decide it themselves, and they are emailed the decision.
 */
function askedByManager(order: { apiKeyId: number | null; automationId: number | null }): boolean {
  return order.apiKeyId === null && order.automationId === null;
}

// ─── Requesting ───

export async function activeOwners(tx: Conn, companyId: number) {
  return tx
    .select({ id: users.id, email: users.email, firstName: users.firstName })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.managerRole, "owner"), eq(users.isActive, true)));
}

/**
 * What every approval request does once its order is marked requested, in the caller's
 * transaction: the audit entry, the approval.requested event (ADR 0045) and an email to every
 * Owner. A manager's request (requestApproval) and a system's order (api-orders.ts) share it.
 */
export async function announceApprovalRequest(
  tx: Tx,
  appUrl: string,
  request: {
    order: { id: number; companyId: number; rewardName: string; totalCents: number; placedBy: number | null };
    recipientCount: number;
    /** Who asked, as the Owners' email names them. */
    requesterName: string;
    actorUserId: number | null;
    apiKeyId?: number;
    clientIp?: string | null;
    auditData: Record<string, unknown>;
    /** The budget the order passes (ADR 0034): kept on the order, audited and announced as budget.exceeded. */
    budget?: BudgetExcess | null;
    now: Date;
  },
): Promise<void> {
  const { order, now, budget } = request;
  if (budget) await tx.update(orders).set({ overBudgetCents: budget.overCents }).where(eq(orders.id, order.id));
  await recordAudit(tx, {
    companyId: order.companyId,
    actorUserId: request.actorUserId,
    action: "approval.requested",
    subject: `order:${order.id}`,
    data: budget
      ? {
          ...request.auditData,
          budget: {
            month: budget.month,
            monthlyBudgetCents: budget.budgetCents,
            usedCents: budget.usedCents,
            overByCents: budget.overCents,
          },
        }
      : request.auditData,
    clientIp: request.clientIp ?? null,
    at: now,
  });
  await emitEvent(
    tx,
    approvalRequestedEvent(order, { recipients: request.recipientCount, requestedAt: now, apiKeyId: request.apiKeyId }),
    now,
  );
  if (budget) {
    await emitEvent(
      tx,
      budgetExceededEvent({ ...order, rewardsCents: budget.rewardsCents, totalCents: order.totalCents }, budget, now),
      now,
    );
  }
  const owners = await activeOwners(tx, order.companyId);
  const emailOrder = {
    rewardName: order.rewardName,
    totalCents: order.totalCents,
    recipientCount: request.recipientCount,
  };
  await enqueueEmails(
    tx,
    owners.map((owner) =>
      approvalRequestedEmail({
        to: owner.email,
        firstName: owner.firstName,
        requesterName: request.requesterName,
        order: emailOrder,
        link: approvalLink(appUrl, order.id),
        overBudgetCents: budget?.overCents ?? null,
      }),
    ),
    now,
  );
}

/**
 * "Request approval": freezes the caller's draft into an order with approval_status 'requested'
 * and no payment, supersedes the caller's other live draft orders (never an order a system placed
 * with an API key, though it names the key's Owner as placed_by: orders.ts `draftOrder`), and
 * emails every Owner. An unchanged draft that already has its request (or approval) answers
 * that order again.
 */
export async function requestApproval(
  s: ApprovalServices,
  caller: Caller,
  input: FreezeInput,
): Promise<RequestApprovalResponse> {
  await requireCompanyDetails(s.db, caller.companyId);
  const now = s.now();
  const result = await s.db.transaction(async (tx) => {
    const snapshot = await snapshotOfDraft(tx, caller, await saveWordingFor(tx, caller, input, now));
    const rule = await approvalRuleFor(tx, caller, snapshot.charges, now, snapshot.draft.draftId);
    if (!approvalNeeded(rule, snapshot.charges.totalCents)) {
      throw new Refusal("approval-not-needed");
    }
    const latest = await latestApprovalOrder(tx, caller, snapshot.draft.draftId, true);
    if (
      latest &&
      latest.draftVersion === snapshot.draft.version &&
      latest.rewardName === snapshot.rewardName &&
      latest.totalCents === snapshot.charges.totalCents
    ) {
      if (latest.approvalStatus === "declined") throw new Refusal("declined-again");
      return { order: latest, created: false, superseded: [] as OrderRow[] };
    }
    const superseded = await supersedeAllOrders(tx, caller);
    const order = await insertOrderSnapshot(tx, caller, snapshot, {
      processor: s.payments.kind,
      now,
      approvalStatus: "requested",
      clientIp: caller.clientIp,
    });
    const [me] = await tx
      .select({ firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(eq(users.id, caller.userId));
    await announceApprovalRequest(tx, s.appUrl, {
      order,
      recipientCount: snapshot.lines.length,
      requesterName: me ? `${me.firstName} ${me.lastName}` : "A manager",
      actorUserId: caller.userId,
      clientIp: caller.clientIp,
      auditData: {
        totalCents: order.totalCents,
        thresholdCents: rule.thresholdCents,
        draftVersion: order.draftVersion,
      },
      budget: rule.budget,
      now,
    });
    return { order, created: true, superseded };
  });
  await cancelSuperseded(s, result.superseded);
  if (result.created) s.onEmailQueued?.();
  return { orderId: result.order.id, state: stateOf(result.order), created: result.created };
}

// ─── Deciding ───

/**
 * Locks the order for a decision (its draft row first, the lock order of every payment path)
 * and checks it is a live request of the caller's company that the caller may decide.
 */
async function lockRequest(tx: Tx, caller: ApprovalCaller, orderId: number) {
  const [head] = await tx
    .select({ draftId: orders.draftId })
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.companyId, caller.companyId), isNotNull(orders.approvalStatus)));
  if (!head) throw new Refusal("order-not-found");
  // An order placed with an API key (ADR 0044) has no draft: nothing to lock or compare.
  let draftVersion: number | null = null;
  if (head.draftId !== null) {
    const [draft] = await tx
      .select({ version: rewardDrafts.version })
      .from(rewardDrafts)
      .where(eq(rewardDrafts.id, head.draftId))
      .for("update");
    draftVersion = draft?.version ?? null;
  }
  const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
  if (!order) throw new Refusal("order-not-found");
  if (order.approvalStatus !== "requested") throw new Refusal("already-decided");
  if (order.status !== "pending") throw new Refusal("request-superseded");
  // A second pair of eyes: an Owner who asked (as a Manager, before a change of role) does not
  // decide. A key's order was asked for by a system, not by the Owner who made the key.
  if (askedByManager(order) && order.placedBy === caller.userId) {
    throw new Refusal("own-request");
  }
  return { order, draftVersion };
}

async function decisionContext(tx: Tx, order: OrderRow, deciderId: number) {
  const [who] = await tx
    .select({ firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .where(eq(users.id, deciderId));
  const [asker] = await tx
    .select({ email: users.email, firstName: users.firstName, isActive: users.isActive })
    .from(users)
    .where(eq(users.id, order.placedBy));
  const [lines] = await tx.select({ n: count() }).from(orderLines).where(eq(orderLines.orderId, order.id));
  return {
    approverName: who ? `${who.firstName} ${who.lastName}` : "An Owner",
    asker,
    emailOrder: { rewardName: order.rewardName, totalCents: order.totalCents, recipientCount: lines?.n ?? 0 },
  };
}

/**
 * An Owner approves: refused when the requester's draft is no longer the version frozen. An order
 * a system placed with an API key is paid from the company's balance in the same transaction
 * (there is no manager to pay it; refused whole, 402, when the balance is short) and released
 * after commit (ADR 0044).
 */
export async function approveRequest(s: ApprovalServices, caller: ApprovalCaller, orderId: number) {
  const now = s.now();
  const charged = await s.db.transaction(async (tx) => {
    const { order, draftVersion } = await lockRequest(tx, caller, orderId);
    if (order.draftId !== null && draftVersion !== order.draftVersion) {
      throw new Refusal("draft-changed-since-request");
    }
    // Before anything is charged: a line's member removed since the request (release-rules.ts).
    await assertLinesReleasable(tx, order.id);
    const fromBalance = order.processor === "balance";
    if (fromBalance) {
      const moved = await moveBalance(tx, order.companyId, {
        kind: "order",
        orderId: order.id,
        amountCents: order.totalCents,
      });
      if (!moved.moved && moved.reason === "short") {
        throw new Refusal("balance-short", {
          balanceCents: await balanceOf(tx, order.companyId),
          totalCents: order.totalCents,
        });
      }
      // Charged: the tax invoice's parties are frozen now (ADR 0025, amendment), not at the release.
      await freezeInvoiceParties(tx, order.id, s.release.config);
    }
    await tx
      .update(orders)
      .set({ approvalStatus: "approved", approvalDecidedBy: caller.userId, approvalDecidedAt: now })
      .where(eq(orders.id, order.id));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "approval.approved",
      subject: `order:${order.id}`,
      data: {
        totalCents: order.totalCents,
        requestedBy: order.placedBy,
        draftVersion: order.draftVersion,
        ...(fromBalance ? { chargedToBalance: true, apiKeyId: order.apiKeyId } : {}),
      },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
    await emitEvent(tx, approvalDecidedEvent(order, { approved: true, decidedBy: caller.userId, decidedAt: now }), now);
    const { approverName, asker, emailOrder } = await decisionContext(tx, order, caller.userId);
    // A key's order has no requester to tell: the system reads the order's state.
    if (asker?.isActive && askedByManager(order)) {
      await enqueueEmail(
        tx,
        approvalApprovedEmail({
          to: asker.email,
          firstName: asker.firstName,
          approverName,
          order: emailOrder,
          link: reviewLink(s.appUrl),
        }),
        now,
      );
    }
    return fromBalance;
  });
  s.onEmailQueued?.();
  if (charged) {
    // Paid and committed: a failed release is left to the scheduler's pass (scheduled-sends.ts).
    await releaseOrder(
      s.db,
      { orderId, source: "balance", actorUserId: caller.userId, clientIp: caller.clientIp ?? null },
      { ...s.release, now },
    ).catch((error: unknown) => {
      s.logger.warn({ orderId, err: String(error) }, "release of an approved balance order failed");
    });
    s.onEmailQueued?.();
  }
}

/** An Owner declines with a reason: the order can never be paid. */
export async function declineRequest(s: ApprovalServices, caller: ApprovalCaller, orderId: number, reason: string) {
  const now = s.now();
  await s.db.transaction(async (tx) => {
    const { order } = await lockRequest(tx, caller, orderId);
    await tx
      .update(orders)
      .set({
        approvalStatus: "declined",
        approvalDecidedBy: caller.userId,
        approvalDecidedAt: now,
        approvalReason: reason,
        // Failed for good: no payment path ever takes a declined order up again.
        status: "failed",
        failureReason: "declined",
      })
      .where(eq(orders.id, order.id));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "approval.declined",
      subject: `order:${order.id}`,
      data: { totalCents: order.totalCents, requestedBy: order.placedBy, reason },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
    const decided = { approved: false, decidedBy: caller.userId, decidedAt: now, reason };
    await emitEvent(tx, approvalDecidedEvent(order, decided), now);
    const { approverName, asker, emailOrder } = await decisionContext(tx, order, caller.userId);
    if (asker?.isActive && askedByManager(order)) {
      await enqueueEmail(
        tx,
        approvalDeclinedEmail({
          to: asker.email,
          firstName: asker.firstName,
          approverName,
          reason,
          order: emailOrder,
          link: draftLink(s.appUrl),
        }),
        now,
      );
    }
  });
  s.onEmailQueued?.();
}

// ─── Paying an approved order (an Owner from the approval page, or the requester) ───

/**
 * The payment of an approved order, for its own total: the frozen snapshot that was approved,
 * never a new one. Refused when it is not approved, already paid, replaced, or when the
 * requester's draft changed since (the page then offers to request approval again).
 */
export async function payApprovedOrder(
  s: ApprovalServices,
  caller: ApprovalCaller,
  orderId: number,
): Promise<OrderPayment> {
  await requireCompanyDetails(s.db, caller.companyId);
  const order = await s.db.transaction(async (tx) => {
    const [head] = await tx
      .select({ draftId: orders.draftId, placedBy: orders.placedBy })
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.companyId, caller.companyId), isNotNull(orders.approvalStatus)));
    if (!head) throw new Refusal("order-not-found");
    if (head.placedBy !== caller.userId && caller.managerRole !== "owner") {
      throw new Refusal("owner-only");
    }
    const [draft] =
      head.draftId === null
        ? []
        : await tx
            .select({ version: rewardDrafts.version })
            .from(rewardDrafts)
            .where(eq(rewardDrafts.id, head.draftId))
            .for("update");
    const [row] = await tx.select().from(orders).where(eq(orders.id, orderId)).for("update");
    if (!row) throw new Refusal("order-not-found");
    if (row.releasedAt) throw new Refusal("already-paid");
    if (row.approvalStatus === "requested") throw new Refusal("approval-awaiting");
    if (row.approvalStatus === "declined") throw new Refusal("approval-declined");
    // An API key's order (no draft) is paid from the balance by its approval, never by card.
    if (row.processor === "balance" || row.draftId === null) throw new Refusal("already-paid");
    if (row.failureReason === "superseded" || draft?.version !== row.draftVersion) {
      throw new Refusal("changed-since-approval");
    }
    if (row.paymentPath === "checkout") throw new Refusal("paid-another-way");
    await assertLinesReleasable(tx, row.id);
    if (row.status === "failed") {
      // A card declined at the check call: the approval still stands for this snapshot.
      const [reopened] = await tx
        .update(orders)
        .set({ status: "pending", failureReason: null })
        .where(eq(orders.id, row.id))
        .returning();
      return claimPaymentPath(tx, reopened ?? row, "intent");
    }
    return claimPaymentPath(tx, row, "intent");
  });
  return paymentForOrder(s, order);
}
