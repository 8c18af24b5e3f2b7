// Paid orders by their id, for any manager of the company (not in SPEC; modules/scheduled-sends/schema.ts):
//   GET  /RewardOrders/:orderId            → RewardOrderView: scheduled, released or cancelled
//   PUT  /RewardOrders/:orderId/schedule   { sendAt } → RewardOrderView: a new time, while scheduled
//   POST /RewardOrders/:orderId/cancel     → RewardOrderView: cancelled and refunded in full
// Another company's order (or an unpaid one) answers 404; one already sent or cancelled 409.
import { Hono, type MiddlewareHandler } from "hono";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { paymentServicesOf } from "../../server/api/payment-services.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import type { Payments } from "../../server/payments/port.ts";
import { Refusal } from "../../server/refusal.ts";
import { rescheduleSchema } from "../scheduled-sends/schema.ts";
import { cancelScheduledOrder, rescheduleOrder, rewardOrderView } from "../scheduled-sends/service.server.ts";

const orderParam = idParams({ orderId: "order-not-found" });

export function rewardOrdersRoutes(
  deps: ApiDeps,
  payments: Payments,
  auth: MiddlewareHandler<ApiEnv>,
  now: () => Date,
) {
  const services = paymentServicesOf(deps, payments, now);
  const callerOf = (c: Parameters<typeof requireAuth>[0]) => {
    const { companyId, userId } = requireAuth(c);
    return { companyId, userId, clientIp: c.get("clientIp") };
  };

  return new Hono<ApiEnv>()
    .get("/RewardOrders/:orderId", auth, orderParam, async (c) => {
      const view = await rewardOrderView(deps.db, requireAuth(c).companyId, c.req.valid("param").orderId);
      if (!view) throw new Refusal("order-not-found");
      return c.json(view);
    })
    .put("/RewardOrders/:orderId/schedule", auth, orderParam, jsonBody(rescheduleSchema), async (c) => {
      const { orderId } = c.req.valid("param");
      const sendAt = new Date(c.req.valid("json").sendAt);
      return c.json(await rescheduleOrder(services, callerOf(c), orderId, sendAt));
    })
    .post("/RewardOrders/:orderId/cancel", auth, orderParam, async (c) => {
      const { orderId } = c.req.valid("param");
      return c.json(await cancelScheduledOrder(services, callerOf(c), orderId, deps.config.APP_URL));
    });
}
