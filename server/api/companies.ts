// PUT /api/Companies/ (SPEC §7): the caller's company details { name, ABN, size, industry }.
// Only ever the company of the access token; there is no company id in the call.
import { Hono, type MiddlewareHandler } from "hono";
import { companyDetailsSchema } from "../../core/account-forms.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { saveCompanyDetails } from "../domain/company.ts";
import { ProblemError } from "../http/problem.ts";
import { jsonBody } from "../http/validate.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

export function companiesRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  return new Hono<ApiEnv>().put("/Companies", auth, jsonBody(companyDetailsSchema), async (c) => {
    const { companyId } = requireAuth(c);
    const body = c.req.valid("json");
    const saved = await saveCompanyDetails(
      deps.db,
      companyId,
      { name: body.name, abn: body.ABN, size: body.size, industry: body.industry },
      now(),
    );
    if (!saved) throw new ProblemError(401, DETAILS.unauthorized);
    return c.json(saved);
  });
}
