// The bearer check of every authenticated call: requireBearer (bearer.ts) with the verifier
// of the accounts domain (opaque tokens stored hashed; expired, revoked or inactive → 401).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { DETAILS } from "../../core/public-forms.ts";
import { preparedAccessTokenCheck } from "../../modules/identity/service.server.ts";
import type { Db } from "../db/client.ts";
import { ProblemError } from "../http/problem.ts";
import { Refusal } from "../refusal.ts";
import { type Auth, requireBearer, type TokenVerifier } from "./bearer.ts";
import type { ApiEnv } from "./deps.ts";

export type { Auth };

export function accessTokenVerifier(db: Db, now: () => Date): TokenVerifier {
  const verify = preparedAccessTokenCheck(db);
  return (token) => verify(token, now());
}

export function bearerAuth(db: Db, now: () => Date) {
  return requireBearer(accessTokenVerifier(db, now));
}

/** The identity the bearer middleware set; a route without the middleware fails loudly. */
export function requireAuth(c: Context<ApiEnv>): Auth {
  const auth = c.get("auth");
  if (!auth) throw new ProblemError(401, DETAILS.unauthorized);
  return auth;
}

/**
 * The identity of a call only an Owner may make (ADR 0022): a Manager gets 403 and nothing
 * changes. Checked before the handler reads its body, so a refused call has no other effect.
 */
export function requireOwner(c: Context<ApiEnv>): Auth {
  const auth = requireAuth(c);
  if (auth.managerRole !== "owner") throw new Refusal("owner-only");
  return auth;
}

/** Middleware form of requireOwner, before a route's validators: a Manager learns nothing from a 400. */
export const ownerOnly = createMiddleware<ApiEnv>(async (c, next) => {
  requireOwner(c);
  await next();
});
