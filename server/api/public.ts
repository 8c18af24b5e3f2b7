// The public calls of SPEC §7: the catalogue, the waitlist and the anonymous contact form.
import { Hono } from "hono";
import { DETAILS, helpAnonymousSchema, waitListSchema } from "../../core/public-forms.ts";
import { listLatestRewards } from "../domain/catalogue.ts";
import { createHelpRequest } from "../domain/help.ts";
import { joinWaitlist } from "../domain/waitlist.ts";
import { ProblemError } from "../http/problem.ts";
import { jsonBody } from "../http/validate.ts";
import { requireCaptcha } from "./captcha-guard.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import type { RateLimits } from "./rate-limits.ts";

export function publicRoutes(deps: ApiDeps, limits: RateLimits) {
  const api = new Hono<ApiEnv>();

  api.get("/Catalogue/latest-reward", async (c) => {
    return c.json(await listLatestRewards(deps.db));
  });

  api.post("/WaitList", limits.perClient("waitlist"), async (c) => {
    const body = await jsonBody(c, waitListSchema);
    await requireCaptcha(deps, c, body, "waitlist");
    const result = await joinWaitlist(deps.db, {
      firstName: body.firstName,
      lastName: body.lastName,
      email: body.email,
      companyName: body.companyName,
      isOptedIn: body.isOptedIn,
    });
    if (result === "duplicate") throw new ProblemError(409, DETAILS.waitlistDuplicate);
    return c.body(null, 200);
  });

  api.post("/Help/create-help-anonymous", limits.perClient("contact"), async (c) => {
    const body = await jsonBody(c, helpAnonymousSchema);
    await requireCaptcha(deps, c, body, "help");
    await createHelpRequest(deps.db, deps.config.SUPPORT_EMAIL, {
      firstName: body.firstName,
      lastName: body.lastName,
      email: body.email,
      message: body.message,
    });
    deps.onEmailQueued?.();
    return c.body(null, 200);
  });

  return api;
}
