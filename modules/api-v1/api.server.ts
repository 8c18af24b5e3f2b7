// The calls a company's own systems make with an API key (ADR 0028, ADR 0044):
//   POST /api/v1/orders (Idempotency-Key header) { rewardName, message?, sendAt?, recipients: [{ email,
//                                            firstName, lastName, amount }] } → 201 the order (as GET
//                                            below), 202 when it waits for an Owner's approval, 200 when
//                                            the same key and body were sent before (the same order);
//                                            409 the key with another body, 402 the balance short
//                                            (api-orders.ts)
//   POST /api/v1/quotes { as POST /api/v1/orders } → 200 what that order would cost (rewards, fee, GST,
//                                            total) and the balance it would leave; nothing charged or
//                                            kept, no Idempotency-Key needed (api-orders.ts quoteApiOrder)
//   GET /api/v1/orders?pageNumber&pageSize → the company's paid orders, newest first (as GET /api/RewardHistory)
//   GET /api/v1/orders/{orderId}           → the order (as GET /api/RewardOrders/{orderId}, or a key's
//                                            order awaiting approval, declined or processing) and, once
//                                            released, `recipients`: each one's email delivery (as
//                                            GET /api/RewardReleases/{releaseId}); null before
//   GET /api/v1/openapi.json                → the OpenAPI 3.1 document of these calls (openapi.ts), no key
// A key acts for its company with the Manager role; another company's order answers 404.
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { paymentServicesOf } from "../../server/api/payment-services.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { idParams, jsonBody, pageParams } from "../../server/http/validate.ts";
import type { Payments } from "../../server/payments/port.ts";
import { apiKeyAuth, requireApiKey } from "../api-keys/api.server.ts";
import { API_KEY_DETAILS } from "../api-keys/schema.ts";
import { rewardHistoryPage } from "../reward-history/service.server.ts";
import { openApiJson } from "./openapi.server.ts";
import {
  IDEMPOTENCY_KEY_PATTERN,
  V1_ORDER_DETAILS,
  type V1Order,
  type V1OrderPage,
  type V1Quote,
  v1CreateOrderSchema,
  v1OrdersQuerySchema,
} from "./schema.ts";
import { placeApiOrder, quoteApiOrder, v1OrderAnswer } from "./service.server.ts";

const pageQuery = pageParams(v1OrdersQuerySchema);
const orderParam = idParams({ orderId: "order-not-found" });

/** The Idempotency-Key header, required on POST /api/v1/orders: 400 when missing or malformed. */
const idempotencyHeader = validator("header", (headers: Record<string, string | undefined>) => {
  const value = headers["idempotency-key"];
  if (!value || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new ProblemError(400, V1_ORDER_DETAILS.idempotencyKeyRequired, {
      "Idempotency-Key": [V1_ORDER_DETAILS.idempotencyKeyRequired],
    });
  }
  return { "idempotency-key": value };
});

export function apiV1Routes(deps: ApiDeps, limits: RateLimits, now: () => Date, payments: Payments) {
  const key = apiKeyAuth(deps, limits, now);
  const services = { ...paymentServicesOf(deps, payments, now), appUrl: deps.config.APP_URL };
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
      // The body is checked before the header: a bad body is named whatever the header.
      .post("/v1/orders", key, jsonBody(v1CreateOrderSchema), idempotencyHeader, async (c) => {
        const owner = requireApiKey(c);
        const caller = { ...owner, clientIp: c.get("clientIp") ?? null };
        const placed = await placeApiOrder(
          services,
          caller,
          c.req.valid("header")["idempotency-key"],
          c.req.valid("json"),
        );
        return c.json(placed.order satisfies V1Order, placed.status);
      })
      // The order's body and refusals, under the same key and its rate limit; it writes nothing.
      .post("/v1/quotes", key, jsonBody(v1CreateOrderSchema), async (c) => {
        const quote = await quoteApiOrder(deps.db, requireApiKey(c), c.req.valid("json"), now());
        return c.json(quote satisfies V1Quote);
      })
      .get("/v1/orders/:orderId", key, orderParam, async (c) => {
        const { companyId } = requireApiKey(c);
        const order = await v1OrderAnswer(deps.db, companyId, c.req.valid("param").orderId);
        if (!order) throw new ProblemError(404, API_KEY_DETAILS.orderNotFound);
        return c.json(order satisfies V1Order);
      })
  );
}
