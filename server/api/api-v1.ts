// The calls a company's own systems make with an API key (ADR 0028), read-only so far:
//   GET /api/v1/orders?pageNumber&pageSize → the company's paid orders, newest first (as GET /api/RewardHistory)
//   GET /api/v1/orders/{orderId}           → the order (as GET /api/RewardOrders/{orderId}) and, once
//                                            released, `recipients`: each one's email delivery (as
//                                            GET /api/RewardReleases/{releaseId}); null before
//   GET /api/v1/openapi.json                → the OpenAPI 3.1 document of these calls (openapi.ts), no key
// A key acts for its company with the Manager role; another company's order answers 404.
import { Hono } from "hono";
import { API_KEY_DETAILS } from "../../core/api-keys.ts";
import { type V1Order, type V1OrderPage, v1OrdersQuerySchema } from "../../core/api-v1.ts";
import { releaseDelivery } from "../domain/delivery.ts";
import { rewardHistoryPage } from "../domain/reward-history.ts";
import { rewardOrderView } from "../domain/scheduled-sends.ts";
import { ProblemError } from "../http/problem.ts";
import { idParams, queryParams } from "../http/validate.ts";
import { apiKeyAuth, requireApiKey } from "./api-keys.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import { openApiJson } from "./openapi.ts";
import type { RateLimits } from "./rate-limits.ts";

const pageQuery = queryParams((query: { pageNumber?: string; pageSize?: string }) =>
  v1OrdersQuerySchema.parse({ pageNumber: query.pageNumber, pageSize: query.pageSize }),
);
const orderParam = idParams({ orderId: API_KEY_DETAILS.orderNotFound });

export function apiV1Routes(deps: ApiDeps, limits: RateLimits, now: () => Date) {
  const key = apiKeyAuth(deps, limits, now);
  return (
    new Hono<ApiEnv>()
      // Public (no key middleware): a system reads the contract before it holds a key.
      .get("/v1/openapi.json", (c) =>
        c.body(openApiJson(), 200, { "content-type": "application/json", "cache-control": "public, max-age=3600" }),
      )
      .get("/v1/orders", key, pageQuery, async (c) => {
        const { pageNumber, pageSize } = c.req.valid("query");
        const page = await rewardHistoryPage(deps.db, requireApiKey(c).companyId, pageNumber, pageSize);
        return c.json(page satisfies V1OrderPage);
      })
      .get("/v1/orders/:orderId", key, orderParam, async (c) => {
        const { companyId } = requireApiKey(c);
        const order = await rewardOrderView(deps.db, companyId, c.req.valid("param").orderId);
        if (!order) throw new ProblemError(404, API_KEY_DETAILS.orderNotFound);
        const delivery = order.rewardReleaseId
          ? await releaseDelivery(deps.db, companyId, order.rewardReleaseId)
          : null;
        return c.json({ ...order, recipients: delivery?.recipients ?? null } satisfies V1Order);
      })
  );
}
