// Monthly budgets (docs/decisions/0034-monthly-budgets.md): an Owner gives a Manager, or an API
// key, a budget of reward dollars per Australia/Sydney calendar month. What counts against it:
//   - the reward dollars (rewards_cents, not the fee or GST) of its orders paid or charged in the
//     month: status 'paid' or 'scheduled', by paid_at (a cancelled order is refunded in full and
//     stops counting, which gives its dollars back to the month it was charged in);
//   - and, in the current month, its orders in flight: charged to the balance and not released
//     yet, or holding a live card payment (pending with a payment path), so that two payments
//     under way cannot together pass the budget. An order waiting for approval holds nothing.
// A Manager's budget covers their portal orders (api_key_id and automation_id null); a key's
// covers the orders made with that key (recorded as placed by its Owner, whose own orders hold no
// budget). An automation's orders, placed by the Owner who made it, count against the automation
// budget only (ADR 0035), never a person's.
// The check is race-free by a row lock: the Manager's users row or the key's api_keys row is
// locked FOR NO KEY UPDATE (not FOR UPDATE: an order's insert already holds its foreign key's KEY
// SHARE lock on the row, and two of those asking FOR UPDATE would deadlock) in the transaction that commits the order to being charged (or to a live
// payment), so two orders of one budget are judged one after the other, the second seeing the
// first.
import { and, asc, eq, gte, inArray, isNotNull, isNull, lt, ne, or, type SQL, sum } from "drizzle-orm";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { apiKeys, orders, users } from "../../server/db/schema.ts";
import { recordAudit, sydneyDayStart } from "../audit/service.server.ts";
import type { ManagerRole } from "../managers/schema.ts";
import { sydneyYearMonth } from "../reward-history/spend.server.ts";
import {
  type ApiKeyBudgetUse,
  type BudgetsOverview,
  type BudgetUse,
  budgetLeft,
  type ManagerBudgetUse,
} from "./schema.ts";

/** Whose budget: a Manager's portal orders, or an API key's orders. */
export type BudgetScope = { kind: "manager"; userId: number; companyId: number } | { kind: "apiKey"; apiKeyId: number };

/** The Sydney calendar month of `now`: "YYYY-MM", and the instants it starts and ends. */
export function sydneyMonthOf(now: Date): { month: string; start: Date; end: Date } {
  const month = sydneyYearMonth(now);
  const [y, m] = month.split("-").map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
  return { month, start: sydneyDayStart(`${month}-01`), end: sydneyDayStart(`${next}-01`) };
}

function scopeOf(scope: BudgetScope): SQL {
  return scope.kind === "manager"
    ? // The company leads, so orders_company_placed_by_idx finds a Manager's orders.
      (and(
        eq(orders.companyId, scope.companyId),
        eq(orders.placedBy, scope.userId),
        isNull(orders.apiKeyId),
        isNull(orders.automationId),
      ) as SQL)
    : eq(orders.apiKeyId, scope.apiKeyId);
}

/**
 * The reward dollars counted against a budget in the month of `now` (see the top of this file).
 * `except`: the order being judged, so it is not counted as well: a draft's payment (its own live
 * orders: the one being paid, or the ones it supersedes), or an API order's row, inserted first.
 */
export async function budgetUsedCents(
  db: Conn,
  scope: BudgetScope,
  now: Date,
  except: BeingJudged = {},
): Promise<number> {
  const { start, end } = sydneyMonthOf(now);
  const charged = and(
    inArray(orders.status, ["paid", "scheduled"]),
    isNotNull(orders.paidAt),
    gte(orders.paidAt, start),
    lt(orders.paidAt, end),
  );
  const inFlight = and(
    eq(orders.status, "pending"),
    isNull(orders.paidAt),
    or(isNull(orders.approvalStatus), ne(orders.approvalStatus, "requested")),
    or(eq(orders.processor, "balance"), isNotNull(orders.paymentPath)),
    except.draftId === undefined ? undefined : or(isNull(orders.draftId), ne(orders.draftId, except.draftId)),
  );
  const [row] = await db
    .select({ cents: sum(orders.rewardsCents) })
    .from(orders)
    .where(
      and(
        scopeOf(scope),
        or(charged, inFlight),
        except.orderId === undefined ? undefined : ne(orders.id, except.orderId),
      ),
    );
  return Number(row?.cents ?? 0);
}

/** The order a budget check is judging (see budgetUsedCents). */
export interface BeingJudged {
  draftId?: number;
  orderId?: number;
}

/** How an order passes its budget: what it is over by, and the figures the approval names. */
export interface BudgetExcess {
  scope: BudgetScope;
  month: string;
  budgetCents: number;
  usedCents: number;
  rewardsCents: number;
  overCents: number;
}

/**
 * Locks the budget's row (the Manager's users row, or the key's api_keys row; FOR NO KEY UPDATE, see
 * the top of this file) until commit and
 * answers how far an order of `rewardsCents` would take it over, or null when it fits, when there
 * is no budget, or for an Owner's own portal order (Owners are the approvers, ADR 0034).
 */
export async function lockBudgetExcess(
  tx: Tx,
  scope: BudgetScope,
  rewardsCents: number,
  now: Date,
  except: BeingJudged = {},
): Promise<BudgetExcess | null> {
  let budgetCents: number | null;
  if (scope.kind === "manager") {
    const [row] = await tx
      .select({ budget: users.monthlyBudgetCents, role: users.managerRole })
      .from(users)
      .where(eq(users.id, scope.userId))
      .for("no key update");
    budgetCents = row?.role === "manager" ? row.budget : null;
  } else {
    const [row] = await tx
      .select({ budget: apiKeys.monthlyBudgetCents })
      .from(apiKeys)
      .where(eq(apiKeys.id, scope.apiKeyId))
      .for("no key update");
    budgetCents = row?.budget ?? null;
  }
  if (budgetCents === null) return null;
  const usedCents = await budgetUsedCents(tx, scope, now, except);
  const overCents = usedCents + rewardsCents - budgetCents;
  if (overCents <= 0) return null;
  return { scope, month: sydneyYearMonth(now), budgetCents, usedCents, rewardsCents, overCents };
}

// ─── Setting a budget (an Owner) ───

export interface BudgetActor {
  companyId: number;
  userId: number;
  clientIp?: string | null;
}

/**
 * Sets (or clears, with null) a manager's monthly budget; audited with the old and new value when
 * it changes. "not_found": not an active manager of the actor's company.
 */
export async function setManagerBudget(
  db: Db,
  actor: BudgetActor,
  managerId: number,
  budgetCents: number | null,
  now: Date,
): Promise<{ id: number; monthlyBudgetCents: number | null } | "not_found"> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ budget: users.monthlyBudgetCents })
      .from(users)
      .where(
        and(
          eq(users.id, managerId),
          eq(users.companyId, actor.companyId),
          eq(users.role, "program_manager"),
          eq(users.isActive, true),
        ),
      )
      .for("update");
    if (!row) return "not_found";
    if (row.budget !== budgetCents) {
      await tx.update(users).set({ monthlyBudgetCents: budgetCents }).where(eq(users.id, managerId));
      await recordAudit(tx, {
        companyId: actor.companyId,
        actorUserId: actor.userId,
        action: "budget.manager_changed",
        subject: `user:${managerId}`,
        data: { fromCents: row.budget, toCents: budgetCents },
        clientIp: actor.clientIp ?? null,
        at: now,
      });
    }
    return { id: managerId, monthlyBudgetCents: budgetCents };
  });
}

/**
 * Sets (or clears) an API key's monthly budget; audited when it changes. "not_found": not a key of
 * the actor's company, or revoked.
 */
export async function setApiKeyBudget(
  db: Db,
  actor: BudgetActor,
  keyId: number,
  budgetCents: number | null,
  now: Date,
): Promise<{ id: number; monthlyBudgetCents: number | null } | "not_found"> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ budget: apiKeys.monthlyBudgetCents })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.companyId, actor.companyId), isNull(apiKeys.revokedAt)))
      .for("update");
    if (!row) return "not_found";
    if (row.budget !== budgetCents) {
      await tx.update(apiKeys).set({ monthlyBudgetCents: budgetCents }).where(eq(apiKeys.id, keyId));
      await recordAudit(tx, {
        companyId: actor.companyId,
        actorUserId: actor.userId,
        action: "budget.api_key_changed",
        subject: `api_key:${keyId}`,
        data: { fromCents: row.budget, toCents: budgetCents },
        clientIp: actor.clientIp ?? null,
        at: now,
      });
    }
    return { id: keyId, monthlyBudgetCents: budgetCents };
  });
}

// ─── Reading the budgets ───

async function budgetUseOf(db: Conn, scope: BudgetScope, budgetCents: number | null, now: Date): Promise<BudgetUse> {
  const usedCents = await budgetUsedCents(db, scope, now);
  return {
    month: sydneyYearMonth(now),
    monthlyBudgetCents: budgetCents,
    usedCents,
    leftCents: budgetLeft(budgetCents, usedCents),
  };
}

/**
 * GET /api/Budgets: this month's use of every active manager's and every live key's budget for an
 * Owner; a Manager sees their own row only (and no keys).
 */
export async function budgetsOverview(
  db: Db,
  caller: { companyId: number; userId: number; managerRole: ManagerRole },
  now: Date,
): Promise<BudgetsOverview> {
  const owner = caller.managerRole === "owner";
  const people = await db
    .select({
      id: users.id,
      firstName: users.firstName,
      lastName: users.lastName,
      role: users.managerRole,
      budget: users.monthlyBudgetCents,
    })
    .from(users)
    .where(
      and(
        eq(users.companyId, caller.companyId),
        eq(users.role, "program_manager"),
        eq(users.isActive, true),
        owner ? undefined : eq(users.id, caller.userId),
      ),
    )
    .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id));
  const keys = owner
    ? await db
        .select({ id: apiKeys.id, name: apiKeys.name, budget: apiKeys.monthlyBudgetCents })
        .from(apiKeys)
        .where(and(eq(apiKeys.companyId, caller.companyId), isNull(apiKeys.revokedAt)))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    : [];
  const managers: ManagerBudgetUse[] = [];
  for (const p of people) {
    const role = p.role ?? "manager";
    managers.push({
      userId: p.id,
      name: `${p.firstName} ${p.lastName}`,
      managerRole: role,
      applies: role === "manager",
      ...(await budgetUseOf(db, { kind: "manager", userId: p.id, companyId: caller.companyId }, p.budget, now)),
    });
  }
  const apiKeyUses: ApiKeyBudgetUse[] = [];
  for (const k of keys) {
    apiKeyUses.push({
      apiKeyId: k.id,
      name: k.name,
      ...(await budgetUseOf(db, { kind: "apiKey", apiKeyId: k.id }, k.budget, now)),
    });
  }
  return { month: sydneyYearMonth(now), managers, apiKeys: apiKeyUses };
}

/** The caller's own budget this month for the dashboard: null unless they are a Manager with one. */
export async function myBudget(
  db: Conn,
  caller: { userId: number; companyId: number },
  now: Date,
): Promise<BudgetUse | null> {
  const [row] = await db
    .select({ budget: users.monthlyBudgetCents, role: users.managerRole })
    .from(users)
    .where(eq(users.id, caller.userId));
  if (row?.role !== "manager" || row.budget === null) return null;
  return budgetUseOf(db, { kind: "manager", userId: caller.userId, companyId: caller.companyId }, row.budget, now);
}
