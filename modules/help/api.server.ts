// POST /api/Help/create-help (docs/requirements.md §S7): the signed-in Contact Us form, { message } only. The
// sender is the token's user; the request is stored with the user and company and emailed to
// SUPPORT_EMAIL through the outbox (modules/help/service.server.ts).
import { Hono, type MiddlewareHandler } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { helpSchema } from "../identity/schema.ts";
import { getMyDetails } from "../identity/service.server.ts";
import { createHelpRequest } from "./service.server.ts";

export function helpRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits) {
  return new Hono<ApiEnv>().post(
    "/Help/create-help",
    limits.perClient("contactSignedIn"),
    auth,
    jsonBody(helpSchema),
    async (c) => {
      const owner = requireAuth(c);
      const body = c.req.valid("json");
      const me = await getMyDetails(deps.db, owner);
      if (!me) throw new ProblemError(401, DETAILS.unauthorized);
      await createHelpRequest(deps.db, deps.config.SUPPORT_EMAIL, {
        firstName: me.firstName,
        lastName: me.lastName,
        email: me.email,
        message: body.message,
        userId: me.id,
        companyId: me.companyId,
      });
      deps.onEmailQueued?.();
      return c.body(null, 200);
    },
  );
}
