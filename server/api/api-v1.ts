// The calls a company's own systems make with an API key (ADR 0028), read-only so far:
//   GET /api/v1/orders?pageNumber&pageSize → the company's paid orders, newest first (as GET /api/RewardHistory)
//   GET /api/v1/orders/{orderId}           → the order (as GET /api/RewardOrders/{orderId}) and, once
//                                            released, `recipients`: each one's email delivery (as
//                                            GET /api/RewardReleases/{releaseId}); null before
// A key acts for its company with the Manager role; another company's order answers 404.
import { Hono } from "hono";
import { REWARD_HISTORY_PAGE_SIZE } from "../../core/account-forms.ts";
import { API_KEY_DETAILS } from "../../core/api-keys.ts";
import { pageQuerySchema } from "../../core/rewards.ts";
import { releaseDelivery } from "../domain/delivery.ts";
import { rewardHistoryPage } from "../domain/reward-history.ts";
import { rewardOrderView } from "../domain/scheduled-sends.ts";
import { ProblemError } from "../http/problem.ts";
import { idParams, queryParams } from "../http/validate.ts";
import { apiKeyAuth, requireApiKey } from "./api-keys.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import type { RateLimits } from "./rate-limits.ts";

const pageSchema = pageQuerySchema(REWARD_HISTORY_PAGE_SIZE);
const pageQuery = queryParams((query: { pageNumber?: string; pageSize?: string }) =>
  pageSchema.parse({ pageNumber: query.pageNumber, pageSize: query.pageSize }),
);
const orderParam = idParams({ orderId: API_KEY_DETAILS.orderNotFound });

export function apiV1Routes(deps: ApiDeps, limits: RateLimits, now: () => Date) {
  const key = apiKeyAuth(deps, limits, now);
  return new Hono<ApiEnv>()
    .get("/v1/orders", key, pageQuery, async (c) => {
      const { pageNumber, pageSize } = c.req.valid("query");
      return c.json(await rewardHistoryPage(deps.db, requireApiKey(c).companyId, pageNumber, pageSize));
    })
    .get("/v1/orders/:orderId", key, orderParam, async (c) => {
      const { companyId } = requireApiKey(c);
      const order = await rewardOrderView(deps.db, companyId, c.req.valid("param").orderId);
      if (!order) throw new ProblemError(404, API_KEY_DETAILS.orderNotFound);
      const delivery = order.rewardReleaseId ? await releaseDelivery(deps.db, companyId, order.rewardReleaseId) : null;
      return c.json({ ...order, recipients: delivery?.recipients ?? null });
    });
}
