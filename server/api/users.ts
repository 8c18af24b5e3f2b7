// The Users calls of SPEC §7. This issue: GET /api/Users/MyDetails (the team issue adds the rest).
import { Hono, type MiddlewareHandler } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { getMyDetails } from "../domain/identity.ts";
import { ProblemError } from "../http/problem.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

export function usersRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  const api = new Hono<ApiEnv>();

  /** { id, companyId, firstName, lastName, email, phone, companyName, fullName } of the token's user. */
  api.get("/Users/MyDetails", auth, async (c) => {
    const details = await getMyDetails(deps.db, requireAuth(c));
    if (!details) throw new ProblemError(401, DETAILS.unauthorized);
    return c.json(details);
  });

  return api;
}
