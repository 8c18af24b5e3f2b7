// When an order needs an Owner's approval (ADR 0022 §6): a Manager's order whose total is at or
// above the company's threshold. An Owner's own order never does (Owners are the approvers), nor
// does any order while no threshold is set. Read in the caller's transaction, with the role as
// the database has it now (a change of role holds at the next call).
import { and, eq } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { companies, users } from "../db/schema.ts";

/** The threshold in cents that applies to this caller's orders, or null when none does. */
export async function approvalThresholdFor(
  db: Conn,
  caller: { companyId: number; userId: number },
): Promise<number | null> {
  const [row] = await db
    .select({ role: users.managerRole, thresholdCents: companies.approvalThresholdCents })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.id, caller.userId), eq(users.companyId, caller.companyId)));
  if (row?.role !== "manager") return null;
  return row.thresholdCents ?? null;
}

export function needsApproval(thresholdCents: number | null, totalCents: number): thresholdCents is number {
  return thresholdCents !== null && totalCents >= thresholdCents;
}
