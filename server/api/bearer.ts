// Bearer-token middleware for the authenticated calls of docs/requirements.md §S7. The verifier comes from the
// accounts domain (auth.ts: opaque tokens, stored hashed); this module only reads the header and
// answers 401.
import { createMiddleware } from "hono/factory";
import { DETAILS } from "../../core/public-forms.ts";
import { problemResponse } from "../http/problem.ts";
import { documented } from "../http/route-doc.ts";
import type { ApiBindings, ApiEnv, ApiVariables } from "./deps.ts";

export type Auth = NonNullable<ApiVariables["auth"]>;

/** Resolves a presented token to its user, or null when unknown, expired or revoked. */
export type TokenVerifier = (token: string) => Promise<Auth | null>;

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{16,512})$/i;

/** The check of `token`, made once per set of checks the caller shares (ApiBindings). */
function checkOnce(checks: ApiBindings["bearerChecks"], token: string, verify: TokenVerifier) {
  if (!checks) return verify(token);
  let check = checks.get(token);
  if (!check) {
    check = verify(token);
    checks.set(token, check);
  }
  return check;
}

export function requireBearer(verify: TokenVerifier) {
  // Marked for the OpenAPI document of /api (server/http/route-doc.ts): the routes behind it need a bearer token.
  const check = createMiddleware<ApiEnv>(async (c, next) => {
    const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
    const auth = token ? await checkOnce(c.env?.bearerChecks, token, verify) : null;
    if (!auth) {
      return problemResponse(401, DETAILS.unauthorized, undefined, { "www-authenticate": 'Bearer realm="api"' });
    }
    c.set("auth", { ...auth, clientIp: c.get("clientIp") });
    await next();
  });
  return documented(check, { security: "bearer" });
}
