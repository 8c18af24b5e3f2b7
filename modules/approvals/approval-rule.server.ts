// When an order needs an Owner's approval (ADR 0022 §6, ADR 0034): a Manager's order whose total
// is at or above the company's threshold, or whose reward dollars would take the Manager past
// their monthly budget (budgets.ts). An Owner's own order never does (Owners are the approvers),
// nor does any order while no threshold or budget applies. Read in the caller's transaction, with
// the role as the database has it now (a change of role holds at the next call).
import { and, eq } from "drizzle-orm";
import type { Conn, Tx } from "../../server/db/client.ts";
import { companies, users } from "../../server/db/schema.ts";
import { Refusal } from "../../server/refusal.ts";
import { type BudgetExcess, lockBudgetExcess } from "../budgets/service.server.ts";

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

/** What decides an order's approval: the threshold that applies, and how far it passes a budget (null: it fits). */
export interface ApprovalRule {
  thresholdCents: number | null;
  budget: BudgetExcess | null;
}

/**
 * The rule for a Manager's portal order of `charges`, in the transaction that freezes, charges or
 * requests approval for it: the budget's row is locked until commit (budgets.ts), so two payments
 * of one Manager are judged one after the other. `draftId`: the draft being paid (its own live
 * orders are not counted twice).
 */
export async function approvalRuleFor(
  tx: Tx,
  caller: { companyId: number; userId: number },
  charges: { rewardsCents: number; totalCents: number },
  now: Date,
  draftId: number,
): Promise<ApprovalRule> {
  const thresholdCents = await approvalThresholdFor(tx, caller);
  const budget = await lockBudgetExcess(
    tx,
    { kind: "manager", userId: caller.userId, companyId: caller.companyId },
    charges.rewardsCents,
    now,
    {
      draftId,
    },
  );
  return { thresholdCents, budget };
}

/** Whether the rule holds the order for an Owner's approval: over a budget, or at or above the threshold. */
export function approvalNeeded(rule: ApprovalRule, totalCents: number): boolean {
  return rule.budget !== null || needsApproval(rule.thresholdCents, totalCents);
}

/** The refusal of a payment the rule holds: over the budget when it is over one, else the threshold's. */
export function approvalRefusalOf(rule: ApprovalRule): Refusal<"over-budget" | "approval-required"> {
  if (rule.budget) return new Refusal("over-budget", { overCents: rule.budget.overCents });
  return new Refusal("approval-required", { thresholdCents: rule.thresholdCents ?? 0 });
}
