// POST /api/Help/create-help (docs/requirements.md §S7): the signed-in Contact Us form, { message } only. The
// sender is the token's user; the request is stored with the user and company and emailed to
// SUPPORT_EMAIL through the outbox (server/domain/help.ts).
import { Hono, type MiddlewareHandler } from "hono";
import { helpSchema } from "../../core/account-forms.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { createHelpRequest } from "../domain/help.ts";
import { getMyDetails } from "../domain/identity.ts";
import { ProblemError } from "../http/problem.ts";
import { jsonBody } from "../http/validate.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import type { RateLimits } from "./rate-limits.ts";

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
