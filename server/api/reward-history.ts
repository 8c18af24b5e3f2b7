// The caller's company's releases, newest first:
//   GET /RewardHistory/get-reward-history (docs/requirements.md §S7): the dashboard's "Most Recent Reward History",
//       the newest 100 as { rewardReleaseId, rewardDate (ISO 8601), rewardName, amount (Reward
//       Dollars, two decimals) }, and (not in SPEC) the invoiceNumber of the order's tax invoice.
//   GET /RewardHistory?pageNumber&pageSize (not in SPEC): one page of all of them (RewardHistoryPage).
//   GET /RewardHistory/export (not in SPEC): all of them as text/csv.
//   GET /RewardHistory/spend (not in SPEC): released per month over the last 12 months, and totals.
import { Hono, type MiddlewareHandler } from "hono";
import { REWARD_HISTORY_PAGE_SIZE } from "../../core/account-forms.ts";
import { csvHeaders } from "../../core/csv-file.ts";
import { pageQuerySchema } from "../../core/paging.ts";
import { rewardHistory, rewardHistoryCsv, rewardHistoryPage } from "../domain/reward-history.ts";
import { spendSummary } from "../domain/spend.ts";
import { pageParams } from "../http/validate.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

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
    .get("/RewardHistory/spend", auth, async (c) => {
      const { companyId } = requireAuth(c);
      return c.json(await spendSummary(deps.db, companyId, now()));
    });
}
