// Approvals (ADR 0022 §6; the rules in modules/approvals/service.server.ts):
//   GET  /Approvals/threshold              Owner → { thresholdDollars, thresholdCents } (null: no approval step)
//   PUT  /Approvals/threshold              Owner { thresholdDollars: whole dollars | null | "" } → the same
//   GET  /Approvals/my-draft               any manager → { thresholdCents, order } for the caller's draft
//   POST /Approvals/request                any manager { amount (cents), rewardName? } → { orderId, state, created }
//   GET  /Approvals?status=pending|decided Owner → ApprovalSummary[]
//   GET  /Approvals/:orderId               Owner, or the requester → ApprovalDetail
//   POST /Approvals/:orderId/approve       Owner → 204 (409 when the requester's draft changed since)
//   POST /Approvals/:orderId/decline       Owner { reason } → 204
//   POST /Approvals/:orderId/payment-intent Owner, or the requester → the payment of the approved
//        order for its own total (as create-payment-intent answers); 409 once the draft changed.
//        Not rate-limited as a card attempt (docs/requirements.md §D7): it only answers the order's one payment
//        (one idempotency key per order); the card is tried, and counted, when it is confirmed.
// Owner-only calls check the role before reading a body (requireOwner: 403, nothing changes);
// another company's order is a 404.
import { Hono, type MiddlewareHandler } from "hono";
import { ownerOnly, requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { paymentServicesOf } from "../../server/api/payment-services.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { idParams, jsonBody, queryParams } from "../../server/http/validate.ts";
import type { Payments } from "../../server/payments/port.ts";
import { type CreatePaymentIntentResponse, createPaymentIntentSchema } from "../orders/schema.ts";
import { type ApprovalThresholdResponse, approvalThresholdSchema, declineApprovalSchema } from "./schema.ts";
import {
  type ApprovalCaller,
  type ApprovalServices,
  approvalForMyDraft,
  approveRequest,
  declineRequest,
  getApproval,
  getThreshold,
  listApprovals,
  payApprovedOrder,
  requestApproval,
  setThreshold,
} from "./service.server.ts";

const orderParam = idParams({ orderId: "order-not-found" });

const listQuery = queryParams((q: { status?: string }) => {
  const status = q.status ?? "pending";
  if (status !== "pending" && status !== "decided") {
    throw new ProblemError(400, "status must be pending or decided.", {
      status: ["status must be pending or decided."],
    });
  }
  return { status: status as "pending" | "decided" };
});

const thresholdAnswer = (cents: number | null): ApprovalThresholdResponse => ({
  thresholdDollars: cents === null ? null : cents / 100,
  thresholdCents: cents,
});

export function approvalsRoutes(deps: ApiDeps, payments: Payments, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  const services: ApprovalServices = { ...paymentServicesOf(deps, payments, now), appUrl: deps.config.APP_URL };
  const callerOf = (c: Parameters<typeof requireAuth>[0]): ApprovalCaller => {
    const a = requireAuth(c);
    return { companyId: a.companyId, userId: a.userId, managerRole: a.managerRole, clientIp: c.get("clientIp") };
  };

  return new Hono<ApiEnv>()
    .get("/Approvals/threshold", auth, ownerOnly, async (c) => {
      const { companyId } = requireAuth(c);
      return c.json(thresholdAnswer(await getThreshold(deps.db, companyId)));
    })
    .put("/Approvals/threshold", auth, ownerOnly, jsonBody(approvalThresholdSchema), async (c) => {
      const caller = callerOf(c);
      const { thresholdDollars } = c.req.valid("json");
      return c.json(thresholdAnswer(await setThreshold(deps.db, caller, thresholdDollars, now())));
    })
    .get("/Approvals/my-draft", auth, async (c) => {
      return c.json(await approvalForMyDraft(deps.db, callerOf(c), now()));
    })
    .post("/Approvals/request", auth, jsonBody(createPaymentIntentSchema), async (c) => {
      const caller = callerOf(c);
      const body = c.req.valid("json");
      const answer = await requestApproval(services, caller, {
        amountCents: body.amount,
        rewardName: body.rewardName,
        wording: body.wording,
      });
      return c.json(answer);
    })
    .get("/Approvals", auth, ownerOnly, listQuery, async (c) => {
      const { companyId } = requireAuth(c);
      return c.json(await listApprovals(deps.db, companyId, c.req.valid("query").status));
    })
    .get("/Approvals/:orderId", auth, orderParam, async (c) => {
      const { orderId } = c.req.valid("param");
      return c.json(await getApproval(deps.db, callerOf(c), orderId));
    })
    .post("/Approvals/:orderId/approve", auth, ownerOnly, orderParam, async (c) => {
      const { orderId } = c.req.valid("param");
      await approveRequest(services, callerOf(c), orderId);
      return c.body(null, 204);
    })
    .post("/Approvals/:orderId/decline", auth, ownerOnly, orderParam, jsonBody(declineApprovalSchema), async (c) => {
      const { orderId } = c.req.valid("param");
      const { reason } = c.req.valid("json");
      await declineRequest(services, callerOf(c), orderId, reason);
      return c.body(null, 204);
    })
    .post("/Approvals/:orderId/payment-intent", auth, orderParam, async (c) => {
      const { orderId } = c.req.valid("param");
      const created = await payApprovedOrder(services, callerOf(c), orderId);
      const answer: CreatePaymentIntentResponse = {
        clientSecret: created.clientSecret,
        paymentIntentId: created.paymentIntentId,
        orderId: created.orderId,
        amount: created.amountCents,
        processor: payments.kind,
      };
      return c.json(answer);
    });
}
