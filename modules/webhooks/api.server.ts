// A company's webhooks (ADR 0045), an Owner's calls:
//   GET    /api/Webhooks                         → [{ id, url, events, createdAt, createdBy, lastDelivery }]
//   POST   /api/Webhooks  { url, events }        → 201 { id, url, events, secret, createdAt }
//                                                  (the secret is answered this once; it is kept sealed)
//   DELETE /api/Webhooks/{id}                    → 204
//   GET    /api/Webhooks/{id}/deliveries         → { endpoint, deliveries: [...newest first] }
//   POST   /api/Webhooks/{id}/deliveries/{deliveryId}/resend → 202 { id, status: "pending" }
//   POST   /api/Webhooks/{id}/ping               → 202 { eventId, deliveryId }
// Another company's endpoint (or delivery) is 404. The role is checked before the body is read
// (ADR 0022 §2): a Manager gets 403 and nothing changes. Ping and re-send share two budgets, one
// per endpoint and one per company (rate-limits.ts webhookSendEndpoint, webhookSendCompany; ADR
// 0045): on the operations, so the Settings pages' forms, which call them, are limited too.
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { parseId } from "../../core/fields.ts";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { fieldRefused } from "../../server/api/refusals.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { resolveSessionSecret } from "../../server/secret.ts";
import { registerWebhookSchema } from "./schema.ts";
import {
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  pingEndpoint,
  registerEndpoint,
  resendDelivery,
  type WebhookKeys,
  webhookKeys,
  webhookUrlProblem,
} from "./service.server.ts";

const endpointParam = idParams({ id: "webhook-not-found" });
const deliveryParams = idParams({ id: "webhook-not-found", deliveryId: "delivery-not-found" });

const actorOf = (c: Context<ApiEnv>) => {
  const { companyId, userId } = requireOwner(c);
  return { companyId, userId, clientIp: c.get("clientIp") ?? null };
};

export function webhooksRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date, limits: RateLimits) {
  // The seal's keys come from the server secret, as the TOTP secrets' do (two-factor.ts).
  let keys: Promise<WebhookKeys> | undefined;
  const keysOf = (): Promise<WebhookKeys> => {
    keys ??= resolveSessionSecret(deps.db, deps.config.SESSION_SECRET).then(
      ({ secret }) => webhookKeys(secret),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    );
    return keys;
  };
  // Outside a deployment (a local run, the tests) a receiver on this machine may be called over http.
  const allowLocal = !deps.config.isDeployment;
  // Counted when the call arrives, after the Owner check and the ids' validation and before the
  // endpoint is looked up, so N calls at once are N (a missing endpoint's call counts too). The
  // endpoint's key carries the company: another company naming this id spends its own budget,
  // never this endpoint's. The endpoint's budget first: a call it refuses leaves the company's alone.
  const sendBudget = createMiddleware<ApiEnv>(async (c, next) => {
    const { companyId } = requireOwner(c);
    // As a number: `012` names endpoint 12 (core/fields.ts parseId) and must not buy a fresh budget.
    await limits.perAccount("webhookSendEndpoint", `company:${companyId}:endpoint:${parseId(c.req.param("id"))}`);
    await limits.perAccount("webhookSendCompany", `company:${companyId}`);
    await next();
  });

  return new Hono<ApiEnv>()
    .get("/Webhooks", auth, ownerOnly, async (c) => c.json(await listEndpoints(deps.db, actorOf(c).companyId)))
    .post("/Webhooks", auth, ownerOnly, jsonBody(registerWebhookSchema), async (c) => {
      const body = c.req.valid("json");
      // Before the keys: a refused URL changes nothing, not even the generated server secret.
      const urlProblem = webhookUrlProblem(body.url, { allowLocal });
      if (urlProblem) throw fieldRefused("url", urlProblem);
      const outcome = await registerEndpoint(deps.db, await keysOf(), actorOf(c), body, now(), { allowLocal });
      if (!outcome.ok) {
        throw outcome.reason === "url" ? fieldRefused("url", outcome.detail) : new Refusal("too-many-webhooks");
      }
      return c.json(outcome.endpoint, 201);
    })
    .delete("/Webhooks/:id", auth, ownerOnly, endpointParam, async (c) => {
      const found = await deleteEndpoint(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (!found) throw new Refusal("webhook-not-found");
      return c.body(null, 204);
    })
    .get("/Webhooks/:id/deliveries", auth, ownerOnly, endpointParam, async (c) => {
      const page = await listDeliveries(deps.db, actorOf(c).companyId, c.req.valid("param").id);
      if (!page) throw new Refusal("webhook-not-found");
      return c.json(page);
    })
    .post("/Webhooks/:id/deliveries/:deliveryId/resend", auth, ownerOnly, deliveryParams, sendBudget, async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      const outcome = await resendDelivery(deps.db, actorOf(c), id, deliveryId, now());
      if (outcome === "endpoint_not_found") throw new Refusal("webhook-not-found");
      if (outcome === "delivery_not_found") throw new Refusal("delivery-not-found");
      deps.onWebhookQueued?.();
      return c.json({ id: deliveryId, status: "pending" as const }, 202);
    })
    .post("/Webhooks/:id/ping", auth, ownerOnly, endpointParam, sendBudget, async (c) => {
      const sent = await pingEndpoint(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (!sent) throw new Refusal("webhook-not-found");
      deps.onWebhookQueued?.();
      return c.json(sent, 202);
    });
}
