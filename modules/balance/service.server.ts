// A company's prepaid balance (ADR 0043): what a system's orders are paid from, topped up by card
// by an Owner. companies.balance_cents is the running sum of balance_entries; each movement
// changes both in one statement pair inside the caller's transaction. The conditional update
// (balance_cents >= the amount taken) and the column's check make an overdraft impossible even
// when two orders race, and the entries' unique indexes make each top-up credit once and each
// order charge and refund at most once.
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Conn, Tx } from "../../server/db/client.ts";
import { balanceEntries, companies } from "../../server/db/schema.ts";

export type BalanceMovement =
  | { kind: "top_up"; topUpId: number; amountCents: number }
  | { kind: "order"; orderId: number; amountCents: number }
  | { kind: "refund"; orderId: number; amountCents: number };

export type MoveResult = { moved: true; balanceAfterCents: number } | { moved: false; reason: "short" | "repeated" };

/**
 * Applies one movement (amountCents always positive; the kind says which way). An order the
 * balance cannot cover is `short` and changes nothing; a movement already made (the same top-up,
 * or the same order's charge or refund) is `repeated` and changes nothing.
 */
export async function moveBalance(tx: Tx, companyId: number, movement: BalanceMovement): Promise<MoveResult> {
  if (!Number.isSafeInteger(movement.amountCents) || movement.amountCents <= 0) {
    throw new Error("a balance movement is a positive whole number of cents");
  }
  const signed = movement.kind === "order" ? -movement.amountCents : movement.amountCents;
  // The entry first: its unique index turns a repeat into a no-op before the balance moves.
  const [entry] = await tx
    .insert(balanceEntries)
    .values({
      companyId,
      kind: movement.kind,
      amountCents: signed,
      balanceAfterCents: 0,
      topUpId: movement.kind === "top_up" ? movement.topUpId : null,
      orderId: movement.kind === "top_up" ? null : movement.orderId,
    })
    .onConflictDoNothing()
    .returning({ id: balanceEntries.id });
  if (!entry) return { moved: false, reason: "repeated" };
  const [company] = await tx
    .update(companies)
    .set({ balanceCents: sql`${companies.balanceCents} + ${signed}` })
    .where(
      movement.kind === "order"
        ? and(eq(companies.id, companyId), gte(companies.balanceCents, movement.amountCents))
        : eq(companies.id, companyId),
    )
    .returning({ balanceCents: companies.balanceCents });
  if (!company) {
    // Short: take the entry back, so the transaction may go on (the caller decides) unchanged.
    await tx.delete(balanceEntries).where(eq(balanceEntries.id, entry.id));
    return { moved: false, reason: "short" };
  }
  await tx
    .update(balanceEntries)
    .set({ balanceAfterCents: company.balanceCents })
    .where(eq(balanceEntries.id, entry.id));
  return { moved: true, balanceAfterCents: company.balanceCents };
}

export async function balanceOf(db: Conn, companyId: number): Promise<number> {
  const [row] = await db
    .select({ balanceCents: companies.balanceCents })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row?.balanceCents ?? 0;
}

/** The latest movements, newest first (the Balance page's statement). */
export async function balanceStatement(db: Conn, companyId: number, limit = 50) {
  return db
    .select({
      id: balanceEntries.id,
      kind: balanceEntries.kind,
      amountCents: balanceEntries.amountCents,
      balanceAfterCents: balanceEntries.balanceAfterCents,
      topUpId: balanceEntries.topUpId,
      orderId: balanceEntries.orderId,
      createdAt: balanceEntries.createdAt,
    })
    .from(balanceEntries)
    .where(eq(balanceEntries.companyId, companyId))
    .orderBy(desc(balanceEntries.createdAt), desc(balanceEntries.id))
    .limit(limit);
}
