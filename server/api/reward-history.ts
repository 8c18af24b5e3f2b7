// GET /api/RewardHistory/get-reward-history (SPEC §7): the dashboard's "Most Recent Reward
// History": the releases of the caller's company, newest first, as { rewardReleaseId,
// rewardDate (ISO 8601), rewardName, amount (Reward Dollars, two decimals) }, and (not in SPEC)
// the invoiceNumber of the order's tax invoice (GET /Invoices/:invoiceNumber).
import { Hono, type MiddlewareHandler } from "hono";
import { rewardHistory } from "../domain/reward-history.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

export function rewardHistoryRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  return new Hono<ApiEnv>().get("/RewardHistory/get-reward-history", auth, async (c) => {
    const { companyId } = requireAuth(c);
    return c.json(await rewardHistory(deps.db, companyId));
  });
}
