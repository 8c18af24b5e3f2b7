// The caller's company's releases, newest first:
//   GET /RewardHistory/get-reward-history (docs/requirements.md §S7): the dashboard's "Most Recent Reward History",
//       the newest 100 as { rewardReleaseId, rewardDate (ISO 8601), rewardName, amount (Reward
//       Dollars, two decimals) }, and (not in SPEC) the invoiceNumber of the order's tax invoice.
//   GET /RewardHistory?pageNumber&pageSize (not in SPEC): one page of all of them (RewardHistoryPage).
//   GET /RewardHistory/export (not in SPEC): all of them as text/csv.
//   GET /Dashboard?pageNumber (not in SPEC): what the dashboard shows in one call
//       (DashboardSummary): that page of the history, the spend picture (released per month over
//       the last 12 months, and totals) and, for an Owner, the approval requests waiting. One call
//       rather than three: each in-process call costs a request, a route match and a JSON round
//       trip, which the dashboard paid three times (docs/BENCHMARKS.md, "Where the Dashboard's
//       time goes").
import { Hono, type MiddlewareHandler } from "hono";
import { csvHeaders } from "../../core/csv-file.ts";
import { pageQuerySchema } from "../../core/paging.ts";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { pageParams } from "../../server/http/validate.ts";
import { REWARD_HISTORY_PAGE_SIZE } from "../identity/schema.ts";
import { dashboardSummary } from "./dashboard.server.ts";
import { rewardHistory, rewardHistoryCsv, rewardHistoryPage } from "./service.server.ts";

/** GET /RewardHistory's page; out-of-range values fall back to the defaults (lenient, core/paging.ts). */
const historyPageQuery = pageParams(pageQuerySchema({ pageSize: REWARD_HISTORY_PAGE_SIZE }));

export function rewardHistoryRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  return new Hono<ApiEnv>()
    .get("/RewardHistory/get-reward-history", auth, async (c) => {
      const { companyId } = requireAuth(c);
      return c.json(await rewardHistory(deps.db, companyId));
    })
    .get("/RewardHistory", auth, historyPageQuery, async (c) => {
      const { companyId } = requireAuth(c);
      const { pageNumber, pageSize } = c.req.valid("query");
      return c.json(await rewardHistoryPage(deps.db, companyId, pageNumber, pageSize));
    })
    .get("/RewardHistory/export", auth, async (c) => {
      const { companyId } = requireAuth(c);
      return c.body(await rewardHistoryCsv(deps.db, companyId), 200, csvHeaders("reward-history.csv"));
    })
    .get("/Dashboard", auth, historyPageQuery, async (c) => {
      const auth = requireAuth(c);
      const { pageNumber } = c.req.valid("query");
      return c.json(await dashboardSummary(deps.db, auth, pageNumber, now()));
    });
}
