// Monthly budgets this month (ADR 0034):
//   GET /api/Budgets (bearer) → BudgetsOverview: for an Owner every active manager's and every live
//       API key's budget with what was used and is left this Sydney month; for a Manager their own.
// Setting a budget is an Owner's call on the manager or the key (PUT /api/Managers/{id}/budget,
// managers.ts; PUT /api/ApiKeys/{id}/budget, api-keys.ts).
import { Hono, type MiddlewareHandler } from "hono";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { budgetsOverview } from "./service.server.ts";

export function budgetsRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  return new Hono<ApiEnv>().get("/Budgets", auth, async (c) =>
    c.json(await budgetsOverview(deps.db, requireAuth(c), now())),
  );
}
