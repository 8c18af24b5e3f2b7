// A company's API keys (ADR 0028), an Owner's calls:
//   GET    /api/ApiKeys        (bearer, Owner) → [{ id, name, prefix, createdAt, createdBy, lastUsedAt, expiresAt, revokedAt }]
//   POST   /api/ApiKeys        (bearer, Owner) { name, expiresAt? } → 201 { id, name, prefix, key, createdAt, expiresAt }
//                              (the key is answered this once; only its hash is kept)
//   DELETE /api/ApiKeys/{id}   (bearer, Owner) → 204; another company's key → 404
//   PUT    /api/ApiKeys/{id}/budget (bearer, Owner) { budgetDollars } → { id, monthlyBudgetCents }: the key's monthly
//                              budget (ADR 0034), whole dollars or null for none; audited; a revoked key → 404
// and the middleware of the calls a key makes (/api/v1, api-v1.ts): `Authorization: Bearer rk_…`.
// The role is checked before the body is read (ADR 0022 §2): a Manager gets 403 and nothing changes.
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { fieldRefused } from "../../server/api/refusals.ts";
import { ProblemError, problemResponse } from "../../server/http/problem.ts";
import { documented } from "../../server/http/route-doc.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { setBudgetSchema } from "../budgets/schema.ts";
import { setApiKeyBudget } from "../budgets/service.server.ts";
import { API_KEY_DETAILS, apiKeyExpiryProblem, createApiKeySchema } from "./schema.ts";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "./service.server.ts";

const keyParam = idParams({ id: "api-key-not-found" });

const actorOf = (c: Context<ApiEnv>) => {
  const { companyId, userId } = requireOwner(c);
  return { companyId, userId, clientIp: c.get("clientIp") ?? null };
};

export function apiKeysRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  return new Hono<ApiEnv>()
    .get("/ApiKeys", auth, ownerOnly, async (c) => c.json(await listApiKeys(deps.db, actorOf(c).companyId)))
    .post("/ApiKeys", auth, ownerOnly, jsonBody(createApiKeySchema), async (c) => {
      const actor = actorOf(c);
      const body = c.req.valid("json");
      const at = now();
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
      const problem = expiresAt ? apiKeyExpiryProblem(expiresAt, at) : null;
      if (problem) throw fieldRefused("expiresAt", problem);
      return c.json(await createApiKey(deps.db, actor, { name: body.name, expiresAt }, at), 201);
    })
    .put("/ApiKeys/:id/budget", auth, ownerOnly, keyParam, jsonBody(setBudgetSchema), async (c) => {
      const { budgetDollars } = c.req.valid("json");
      const result = await setApiKeyBudget(deps.db, actorOf(c), c.req.valid("param").id, budgetDollars, now());
      if (result === "not_found") throw new Refusal("api-key-not-found");
      return c.json(result);
    })
    .delete("/ApiKeys/:id", auth, ownerOnly, keyParam, async (c) => {
      const found = await revokeApiKey(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (!found) throw new Refusal("api-key-not-found");
      return c.body(null, 204);
    });
}

const KEY_BEARER = /^Bearer\s+(rk_\S{1,200})\s*$/i;

/**
 * The check of every /api/v1 call: a company API key (not a manager's token), valid (neither
 * revoked nor expired), within its own budget (RATE_RULES.apiKey). Sets `apiKey` for the handler.
 */
export function apiKeyAuth(deps: ApiDeps, limits: RateLimits, now: () => Date): MiddlewareHandler<ApiEnv> {
  // Marked for the OpenAPI document of /api (server/http/route-doc.ts).
  return documented<MiddlewareHandler<ApiEnv>>(
    async (c, next) => {
      const key = KEY_BEARER.exec(c.req.header("authorization") ?? "")?.[1];
      const owner = key ? await verifyApiKey(deps.db, key, now(), c.get("clientIp")) : null;
      if (!owner) {
        return problemResponse(401, API_KEY_DETAILS.unauthorized, undefined, {
          "www-authenticate": 'Bearer realm="api/v1"',
        });
      }
      await limits.perAccount("apiKey", `key:${owner.apiKeyId}`);
      c.set("apiKey", owner);
      await next();
    },
    { security: "apiKey" },
  );
}

/** The key the middleware accepted; a route without it fails loudly. */
export function requireApiKey(c: Context<ApiEnv>) {
  const owner = c.get("apiKey");
  if (!owner) throw new ProblemError(401, API_KEY_DETAILS.unauthorized);
  return owner;
}
