// What the dashboard shows, gathered in one call (GET /api/Dashboard, modules/reward-history/api.server.ts):
// a page of the reward history, the spend picture, the prepaid balance (ADR 0043; every manager
// sees it, only an Owner tops it up), and the approval requests waiting for an Owner (a Manager
// does not decide them, ADR 0022, so theirs is null), and a Manager's own monthly budget this month
// (ADR 0034). The reads are independent;
// on PostgreSQL they run side by side on the pool, on PGlite one after another.

import type { Db } from "../../server/db/client.ts";
import { listApprovals } from "../approvals/service.server.ts";
import { balanceOf } from "../balance/service.server.ts";
import { myBudget } from "../budgets/service.server.ts";
import { type DashboardSummary, REWARD_HISTORY_PAGE_SIZE } from "../identity/schema.ts";
import type { ManagerRole } from "../managers/schema.ts";
import { rewardHistoryPage } from "./service.server.ts";
import { spendSummary } from "./spend.server.ts";

export async function dashboardSummary(
  db: Db,
  caller: { companyId: number; userId: number; managerRole: ManagerRole },
  pageNumber: number,
  now: Date,
): Promise<DashboardSummary> {
  const owner = caller.managerRole === "owner";
  const [history, spend, balanceCents, pendingApprovals, budget] = await Promise.all([
    rewardHistoryPage(db, caller.companyId, pageNumber, REWARD_HISTORY_PAGE_SIZE),
    spendSummary(db, caller.companyId, now),
    balanceOf(db, caller.companyId),
    owner ? listApprovals(db, caller.companyId, "pending") : null,
    owner ? null : myBudget(db, caller, now),
  ]);
  return { history, spend, balance: { balanceCents, canTopUp: owner }, pendingApprovals, budget };
}
