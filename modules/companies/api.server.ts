// The caller's company (docs/requirements.md §S7 PUT /api/Companies/; ADR 0022):
//   GET /api/Companies   (bearer) { id, name, ABN, size, industry, hasProvidedCompanyDetails }
//   PUT /api/Companies   (bearer, Owner) saves { name, ABN, size, industry } → the same shape
// Only ever the company of the access token; there is no company id in the call. Saving is an
// Owner's (a Manager gets 403 and nothing changes) and is in the audit trail.
import { Hono, type MiddlewareHandler } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { requireAuth, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { companyDetailsSchema } from "../identity/schema.ts";
import { getCompanyDetails, saveCompanyDetails } from "./service.server.ts";

/** The role is checked before the body is read (ADR 0022): a Manager's call has no other effect. */
const ownerOnly: MiddlewareHandler<ApiEnv> = async (c, next) => {
  requireOwner(c);
  await next();
};

export function companiesRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  return new Hono<ApiEnv>()
    .get("/Companies", auth, async (c) => {
      const details = await getCompanyDetails(deps.db, requireAuth(c).companyId);
      if (!details) throw new ProblemError(401, DETAILS.unauthorized);
      return c.json(details);
    })
    .put("/Companies", auth, ownerOnly, jsonBody(companyDetailsSchema), async (c) => {
      const { companyId, userId } = requireOwner(c);
      const body = c.req.valid("json");
      const saved = await saveCompanyDetails(
        deps.db,
        companyId,
        { name: body.name, abn: body.ABN, size: body.size, industry: body.industry },
        now(),
        { userId, clientIp: c.get("clientIp") },
      );
      if (!saved) throw new ProblemError(401, DETAILS.unauthorized);
      return c.json(saved);
    });
}
