// When a release may pay a member (docs/rules.md "When a release may pay a member"; ADR 0026
// amendment "Removal and paid orders not yet sent"). Between an order's payment and its release a
// member of its lines may be removed from the team (docs/requirements.md §S6: removal inactivates
// access and forfeits unspent Reward Dollars), so whatever releases or charges an order re-reads
// the lines' members here, in its own transaction:
//   - removal (team.ts deleteUser) is refused while the member is on a paid order not yet released
//     (scheduled, or charged to the balance and awaiting its release): removalBlocker. A card
//     refund is one per order (server/payments/port.ts), so a line cannot be refunded alone.
//   - an approval (approvals.ts approveRequest, payApprovedOrder) is refused before anything is
//     charged when a line's member was removed since the request: assertLinesReleasable.
//   - the release (release.ts releaseOrder) finds which lines' members are inactive
//     (inactiveLineMembers): a payment in flight when the member was removed; the order is then
//     cancelled whole and refunded the way a cancelled scheduled order is (scheduled-sends.ts).
// The users rows are locked FOR SHARE: removal's UPDATE takes the row lock, so a removal racing a
// release or an approval waits for it (or it for the removal) and each sees the other's outcome.
import { and, asc, eq, exists, inArray, isNull, or, sql } from "drizzle-orm";
import type { Conn, Tx } from "../../server/db/client.ts";
import { balanceEntries, orderLines, orders, users } from "../../server/db/schema.ts";
import { Refusal } from "../../server/refusal.ts";

/** orders.failure_reason of an order cancelled at its release because a line's member was removed. */
export const MEMBER_REMOVED_REASON = "member_removed";

export interface RemovedMember {
  userId: number;
  firstName: string;
  lastName: string;
}

/** The members of the order's lines who are no longer active, their users rows locked FOR SHARE. */
export async function inactiveLineMembers(tx: Tx, orderId: number): Promise<RemovedMember[]> {
  const rows = await tx
    .select({ userId: users.id, firstName: users.firstName, lastName: users.lastName, isActive: users.isActive })
    .from(users)
    .where(
      inArray(
        users.id,
        tx.select({ userId: orderLines.userId }).from(orderLines).where(eq(orderLines.orderId, orderId)),
      ),
    )
    .orderBy(asc(users.id))
    .for("share");
  return rows.filter((r) => !r.isActive).map(({ isActive: _, ...member }) => member);
}

/** The names of the order's line members who are no longer active ("Olivia Nguyen"), for the payer. */
export async function removedMembersOf(db: Conn, orderId: number): Promise<string[]> {
  const rows = await db
    .select({ firstName: orderLines.firstName, lastName: orderLines.lastName })
    .from(orderLines)
    .innerJoin(users, eq(users.id, orderLines.userId))
    .where(and(eq(orderLines.orderId, orderId), eq(users.isActive, false)))
    .orderBy(asc(orderLines.id));
  return rows.map((r) => `${r.firstName} ${r.lastName}`);
}

/** Refuses (409, nothing written) when a line's member of the order is no longer active. */
export async function assertLinesReleasable(tx: Tx, orderId: number): Promise<void> {
  const [removed] = await inactiveLineMembers(tx, orderId);
  if (removed)
    throw new Refusal("member-removed-since-request", { firstName: removed.firstName, lastName: removed.lastName });
}

/**
 * Throws Refusal member-on-unreleased-order when the member is on a paid order of the company that is not released
 * yet: scheduled, or charged to the balance and awaiting its release. Called by removal after it
 * took the member's row lock (so a release that holds it has committed, and one that comes later
 * sees the member inactive).
 */
export async function assertRemovable(
  tx: Tx,
  companyId: number,
  member: { userId: number; firstName: string; lastName: string },
): Promise<void> {
  const [order] = await tx
    .select({ id: orders.id, status: orders.status, sendAt: orders.sendAt })
    .from(orders)
    .innerJoin(orderLines, eq(orderLines.orderId, orders.id))
    .where(
      and(
        eq(orders.companyId, companyId),
        eq(orderLines.userId, member.userId),
        isNull(orders.releasedAt),
        or(
          eq(orders.status, "scheduled"),
          and(
            eq(orders.status, "pending"),
            exists(
              sql`(select 1 from ${balanceEntries} where ${balanceEntries.orderId} = ${orders.id} and ${balanceEntries.kind} = 'order')`,
            ),
          ),
        ),
      ),
    )
    .orderBy(asc(orders.id))
    .limit(1);
  if (!order) return;
  throw new Refusal("member-on-unreleased-order", {
    name: `${member.firstName} ${member.lastName}`,
    orderId: order.id,
    scheduledFor: order.status === "scheduled" ? order.sendAt : null,
  });
}
