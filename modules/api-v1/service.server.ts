// Orders a company's own system places with an API key (ADR 0044): POST /api/v1/orders, paid from
// the company's prepaid balance (balance.ts), safe to retry with an Idempotency-Key.
//
// In ONE transaction: the order row, then the API key's api_idempotency_keys row for the key
// (per API key, not per company: two systems of one company reusing a value are two requests,
// docs/requirements.md §D7; the unique index on (api key, key) makes a concurrent replay WAIT for the first
// transaction; it then finds the row and answers that order, or 409 for another body; its own
// order row rolls back with it), the recipients matched or created as team members by address
// (as the reward CSV import does), the lines, and then either
//   - total ≥ the company's approval threshold, or reward dollars past the key's monthly budget
//     (budgets.ts, ADR 0034; the key's row is locked until commit, so two orders of one key are
//     judged one after the other): approval 'requested', nothing charged, the Owners emailed (as a
//     Manager's portal request, approvals.ts); an Owner's approval charges the balance and
//     releases it; or
//   - the balance charged (moveBalance, kind 'order'); a short balance is a 402 and the whole
//     transaction rolls back: no order, no member, no idempotency row, no charge.
// After commit the order is released (release.ts: at once, or marked scheduled when sendAt is
// ahead). A process that dies between the commit and the release leaves a charged order still
// 'pending': the scheduler's pass (scheduled-sends.ts releaseDueOrders) releases every such
// order, and a replay of the same request releases it at once.
import { createHash } from "node:crypto";
import { and, count, eq, inArray, lte, ne, sql } from "drizzle-orm";
import { chargesFor } from "../../core/money.ts";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { apiIdempotencyKeys, apiKeys, companies, orderLines, orders, users } from "../../server/db/schema.ts";
import { Refusal } from "../../server/refusal.ts";
import { needsApproval } from "../approvals/approval-rule.server.ts";
import { announceApprovalRequest, getThreshold } from "../approvals/service.server.ts";
import { recordAudit } from "../audit/service.server.ts";
import { balanceOf, moveBalance } from "../balance/service.server.ts";
import { type BudgetExcess, budgetUsedCents, lockBudgetExcess } from "../budgets/service.server.ts";
import { releaseDelivery } from "../deliveries/service.server.ts";
import { freezeInvoiceParties } from "../invoices/service.server.ts";
import { insertOrderLines } from "../orders/order-lines.server.ts";
import { releaseOrder } from "../orders/release.server.ts";
import { type PaymentServices, requireCompanyDetails } from "../orders/service.server.ts";
import { scheduleRefusal } from "../scheduled-sends/schema.ts";
import { rewardOrderView } from "../scheduled-sends/service.server.ts";
import { type MatchedMember, matchOrCreateMembers } from "../team/members.server.ts";
import { IDEMPOTENCY_KEY_TTL_MS, type V1CreateOrder, type V1Order, type V1Quote } from "./schema.ts";

/** The key that places the order: its company, its id and the Owner who made it. */
export interface ApiOrderCaller {
  companyId: number;
  apiKeyId: number;
  createdBy: number;
  clientIp?: string | null;
}

export interface ApiOrderServices extends PaymentServices {
  /** The portal's address, for the link in the Owners' approval email. */
  appUrl: string;
}

/** 201 a new order, 202 a new order waiting for an Owner's approval, 200 a replay of the same request. */
export type PlacedOrder = { status: 200 | 201 | 202; order: V1Order };

/** Answers the replay of an existing order; thrown inside the transaction so its own writes roll back. */
class Replay extends Error {
  readonly orderId: number;
  constructor(orderId: number) {
    super("idempotent replay");
    this.orderId = orderId;
  }
}

/** A JSON text of `value` with every object's members in code-point order: the same body, the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The request's fingerprint: SHA-256 of the canonical JSON of the VALIDATED body (trimmed names,
 * the send time as one instant), so a retry that differs only in spacing, member order or the
 * zone the time is written in is the same request.
 */
export function requestHash(body: V1CreateOrder): string {
  const normal = {
    rewardName: body.rewardName,
    message: body.message ?? "",
    sendAt: body.sendAt ? new Date(body.sendAt).toISOString() : null,
    recipients: body.recipients.map((r) => ({
      email: r.email.toLowerCase(),
      firstName: r.firstName,
      lastName: r.lastName,
      amount: r.amount,
    })),
  };
  return createHash("sha256").update(canonicalJson(normal)).digest("hex");
}

/** Deletes a batch of expired Idempotency-Keys (each answers its order for 24 hours, no longer). */
export async function sweepIdempotencyKeys(db: Conn, now: Date, limit = 500): Promise<number> {
  const gone = await db
    .delete(apiIdempotencyKeys)
    .where(
      inArray(
        apiIdempotencyKeys.id,
        db
          .select({ id: apiIdempotencyKeys.id })
          .from(apiIdempotencyKeys)
          .where(lte(apiIdempotencyKeys.expiresAt, now))
          .limit(limit),
      ),
    )
    .returning({ id: apiIdempotencyKeys.id });
  return gone.length;
}

/**
 * POST /api/v1/orders (see the top of this file). `body` is validated (modules/api-v1/schema.ts);
 * `idempotencyKey` is the header's value, already checked.
 */
export async function placeApiOrder(
  s: ApiOrderServices,
  caller: ApiOrderCaller,
  idempotencyKey: string,
  body: V1CreateOrder,
): Promise<PlacedOrder> {
  const now = s.now();
  const sendAt = body.sendAt ? new Date(body.sendAt) : null;
  if (sendAt) {
    const refused = scheduleRefusal(sendAt, now);
    if (refused) throw new Refusal(refused, { field: "sendAt" });
  }
  await requireCompanyDetails(s.db, caller.companyId);
  await sweepIdempotencyKeys(s.db, now);
  const hash = requestHash(body);
  const charges = chargesFor(body.recipients.map((r) => r.amount));

  let placed: { orderId: number; awaitingApproval: boolean };
  try {
    placed = await s.db.transaction(async (tx) => {
      const [company] = await tx
        .select({ name: companies.name })
        .from(companies)
        .where(eq(companies.id, caller.companyId));
      const placedBy = await payerOf(tx, caller);
      const [order] = await tx
        .insert(orders)
        .values({
          companyId: caller.companyId,
          placedBy,
          apiKeyId: caller.apiKeyId,
          draftId: null,
          draftVersion: null,
          rewardName: body.rewardName,
          message: body.message ?? "",
          // The recipients' email names the company: there is no manager behind a system's order.
          senderName: company?.name ?? "",
          sendAt,
          ...charges,
          currency: "aud",
          status: "pending",
          processor: "balance",
          createdAt: now,
        })
        .returning({ id: orders.id });
      if (!order) throw new Error("order insert returned no row");

      // The key's row: a concurrent transaction with the same key waits here until the first
      // commits (then conflicts) or rolls back (then inserts). An expired row is taken over.
      const [claimed] = await tx
        .insert(apiIdempotencyKeys)
        .values({
          companyId: caller.companyId,
          apiKeyId: caller.apiKeyId,
          idempotencyKey,
          requestHash: hash,
          orderId: order.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
        })
        .onConflictDoUpdate({
          target: [apiIdempotencyKeys.apiKeyId, apiIdempotencyKeys.idempotencyKey],
          set: {
            requestHash: hash,
            orderId: order.id,
            createdAt: now,
            expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
          },
          setWhere: lte(apiIdempotencyKeys.expiresAt, now),
        })
        .returning({ id: apiIdempotencyKeys.id });
      if (!claimed) {
        const [used] = await tx
          .select({ requestHash: apiIdempotencyKeys.requestHash, orderId: apiIdempotencyKeys.orderId })
          .from(apiIdempotencyKeys)
          .where(
            and(
              eq(apiIdempotencyKeys.apiKeyId, caller.apiKeyId),
              eq(apiIdempotencyKeys.idempotencyKey, idempotencyKey),
            ),
          );
        if (!used) throw new Error("an idempotency key conflicted but cannot be read");
        if (used.requestHash !== hash) throw new Refusal("idempotency-key-reused");
        throw new Replay(used.orderId);
      }

      // As the reward CSV import matches them (members.ts): a manager's address is refused.
      const members = await matchOrCreateMembers(tx, caller.companyId, body.recipients, now, (index) => {
        throw new Refusal("recipient-manager-email", { index });
      });
      await insertOrderLines(
        tx,
        caller.companyId,
        order.id,
        body.recipients.map((r, index) => {
          const member = members[index] as MatchedMember;
          return {
            userId: member.id,
            firstName: member.firstName,
            lastName: member.lastName,
            email: member.email,
            amountCents: r.amount * 100,
          };
        }),
      );

      const thresholdCents = await getThreshold(tx, caller.companyId);
      const budget = await lockBudgetExcess(
        tx,
        { kind: "apiKey", apiKeyId: caller.apiKeyId },
        charges.rewardsCents,
        now,
        {
          orderId: order.id,
        },
      );
      const awaitingApproval = budget !== null || needsApproval(thresholdCents, charges.totalCents);
      await recordAudit(tx, {
        companyId: caller.companyId,
        actorUserId: null,
        action: "order.created",
        subject: `order:${order.id}`,
        data: {
          apiKeyId: caller.apiKeyId,
          recipients: body.recipients.length,
          totalCents: charges.totalCents,
          ...(sendAt ? { sendAt: sendAt.toISOString() } : {}),
        },
        clientIp: caller.clientIp ?? null,
        at: now,
      });
      if (awaitingApproval) {
        await requestOwnersApproval(s, tx, caller, {
          orderId: order.id,
          rewardName: body.rewardName,
          totalCents: charges.totalCents,
          recipientCount: body.recipients.length,
          thresholdCents,
          budget,
          now,
        });
      } else {
        await chargeBalance(tx, caller.companyId, order.id, charges.totalCents);
        // Charged: the tax invoice's parties are frozen now (ADR 0025, amendment), not at the release.
        await freezeInvoiceParties(tx, order.id, s.release.config);
      }
      return { orderId: order.id, awaitingApproval };
    });
  } catch (error) {
    if (!(error instanceof Replay)) throw error;
    const existing = await v1OrderAnswer(s.db, caller.companyId, error.orderId);
    if (!existing) throw new Error(`order ${error.orderId} of an idempotency key is missing`);
    if (existing.state !== "processing") return { status: 200, order: existing };
    // Charged but not released (the first call's process died, or its release failed): release now.
    await releaseCharged(s, error.orderId, now);
    return { status: 200, order: (await v1OrderAnswer(s.db, caller.companyId, error.orderId)) as V1Order };
  }

  if (placed.awaitingApproval) {
    s.onEmailQueued?.();
  } else {
    await releaseCharged(s, placed.orderId, now);
  }
  const order = await v1OrderAnswer(s.db, caller.companyId, placed.orderId);
  if (!order) throw new Error(`order ${placed.orderId} vanished`);
  return { status: placed.awaitingApproval ? 202 : 201, order };
}

/**
 * POST /api/v1/quotes: what placeApiOrder would charge for the same validated body, refused with
 * the same words where it would be (the send time, the company's details, a manager's address),
 * and the balance it would leave. Reads only: no order, member, key, charge or audit row.
 */
export async function quoteApiOrder(
  db: Db,
  key: { companyId: number; apiKeyId: number },
  body: V1CreateOrder,
  now: Date,
): Promise<V1Quote> {
  const { companyId } = key;
  if (body.sendAt) {
    const refused = scheduleRefusal(new Date(body.sendAt), now);
    if (refused) throw new Refusal(refused, { field: "sendAt" });
  }
  await requireCompanyDetails(db, companyId);
  const addresses = body.recipients.map((r) => r.email.toLowerCase());
  const managers = await db
    .select({ email: users.email })
    .from(users)
    .where(
      and(
        eq(users.companyId, companyId),
        eq(users.isActive, true),
        ne(users.role, "member"),
        sql`lower(${users.email}) = any(${sql.param(addresses)}::text[])`,
      ),
    );
  if (managers.length > 0) {
    const taken = new Set(managers.map((m) => m.email.toLowerCase()));
    const index = addresses.findIndex((a) => taken.has(a));
    throw new Refusal("recipient-manager-email", { index });
  }
  const charges = chargesFor(body.recipients.map((r) => r.amount));
  const balanceCents = await balanceOf(db, companyId);
  return {
    recipientCount: body.recipients.length,
    ...charges,
    balanceCents,
    balanceAfterCents: balanceCents - charges.totalCents,
    coveredByBalance: balanceCents >= charges.totalCents,
    approvalRequired:
      needsApproval(await getThreshold(db, companyId), charges.totalCents) ||
      (await overKeyBudget(db, key.apiKeyId, charges.rewardsCents, now)),
  };
}

/** Whether `rewardsCents` more would pass the key's monthly budget (a quote's guess; the order re-checks under lock). */
async function overKeyBudget(db: Db, apiKeyId: number, rewardsCents: number, now: Date): Promise<boolean> {
  const [key] = await db.select({ budget: apiKeys.monthlyBudgetCents }).from(apiKeys).where(eq(apiKeys.id, apiKeyId));
  if (key?.budget === null || key?.budget === undefined) return false;
  return (await budgetUsedCents(db, { kind: "apiKey", apiKeyId }, now)) + rewardsCents > key.budget;
}

/**
 * Releases a charged balance order (release.ts: at once, or marked scheduled when its time is
 * ahead). A failure is logged, not thrown: the order is paid and committed, and the scheduler's
 * next pass releases it.
 */
export async function releaseCharged(
  s: PaymentServices,
  orderId: number,
  now: Date,
  actor?: { userId: number; clientIp?: string | null },
): Promise<void> {
  try {
    const result = await releaseOrder(
      s.db,
      { orderId, source: "balance", actorUserId: actor?.userId ?? null, clientIp: actor?.clientIp ?? null },
      { ...s.release, now },
    );
    if (result.released) s.onEmailQueued?.();
    else if (result.reason === "scheduled") s.onEmailQueued?.();
  } catch (error) {
    s.logger.warn({ orderId, err: String(error) }, "release of a balance order failed: the scheduler releases it");
  }
}

/**
 * Charges the order's total to the company's balance in the caller's transaction; a short
 * balance throws the 402 problem (the caller's transaction then rolls back whole).
 */
export async function chargeBalance(tx: Tx, companyId: number, orderId: number, totalCents: number): Promise<void> {
  const moved = await moveBalance(tx, companyId, { kind: "order", orderId, amountCents: totalCents });
  if (moved.moved || moved.reason === "repeated") return;
  throw new Refusal("balance-short", { balanceCents: await balanceOf(tx, companyId), totalCents });
}

/**
 * Who the order is recorded as placed by (orders.placed_by, the tax invoice's addressee): the
 * Owner who made the key while they are an active Owner, else the company's longest-standing
 * active Owner (a key outlives its maker, ADR 0028 §4; the invoice must still reach an Owner).
 */
async function payerOf(tx: Tx, caller: ApiOrderCaller): Promise<number> {
  const owners = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.companyId, caller.companyId), eq(users.managerRole, "owner"), eq(users.isActive, true)))
    .orderBy(users.id);
  if (owners.some((o) => o.id === caller.createdBy)) return caller.createdBy;
  return owners[0]?.id ?? caller.createdBy;
}

async function requestOwnersApproval(
  s: ApiOrderServices,
  tx: Tx,
  caller: ApiOrderCaller,
  o: {
    orderId: number;
    rewardName: string;
    totalCents: number;
    recipientCount: number;
    thresholdCents: number | null;
    budget: BudgetExcess | null;
    now: Date;
  },
): Promise<void> {
  await tx.update(orders).set({ approvalStatus: "requested" }).where(eq(orders.id, o.orderId));
  const [key] = await tx.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, caller.apiKeyId));
  await announceApprovalRequest(tx, s.appUrl, {
    order: {
      id: o.orderId,
      companyId: caller.companyId,
      rewardName: o.rewardName,
      totalCents: o.totalCents,
      placedBy: null,
    },
    recipientCount: o.recipientCount,
    requesterName: `The API key “${key?.name ?? "API"}”`,
    actorUserId: null,
    apiKeyId: caller.apiKeyId,
    clientIp: caller.clientIp,
    auditData: { totalCents: o.totalCents, thresholdCents: o.thresholdCents, apiKeyId: caller.apiKeyId },
    budget: o.budget,
    now: o.now,
  });
}

/**
 * GET /api/v1/orders/{orderId}: a paid order of the company (as the portal shows it), or an order
 * a key placed that is not paid yet (awaiting approval, declined, or charged and about to be
 * released); null for anything else, another company's order included.
 */
export async function v1OrderAnswer(db: Db, companyId: number, orderId: number): Promise<V1Order | null> {
  const [order] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.companyId, companyId)));
  if (!order) return null;
  if (order.paidAt) {
    const view = await rewardOrderView(db, companyId, orderId);
    if (!view) return null;
    // A key acts with the Manager role (modules/api-v1/api.server.ts); only the recipients are answered.
    const delivery = view.rewardReleaseId
      ? await releaseDelivery(db, { companyId, managerRole: "manager" }, view.rewardReleaseId)
      : null;
    return { ...view, recipients: delivery?.recipients ?? null };
  }
  if (order.apiKeyId === null) return null;
  const [lines] = await db.select({ n: count() }).from(orderLines).where(eq(orderLines.orderId, order.id));
  return {
    orderId: order.id,
    state:
      order.approvalStatus === "requested"
        ? "awaiting_approval"
        : order.approvalStatus === "declined"
          ? "declined"
          : "processing",
    rewardName: order.rewardName,
    sendAt: order.sendAt?.toISOString() ?? null,
    recipientCount: lines?.n ?? 0,
    rewardsCents: order.rewardsCents,
    serviceFeeCents: order.serviceFeeCents,
    gstCents: order.gstCents,
    totalCents: order.totalCents,
    invoiceNumber: null,
    paidAt: null,
    releasedAt: null,
    rewardReleaseId: null,
    cancelledAt: null,
    refundedAt: null,
    refundFailedAt: null,
    cancelledForRemoved: null,
    paidFrom: "balance",
    recipients: null,
  };
}
