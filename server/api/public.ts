// The public calls of docs/requirements.md §S7: the catalogue, the waitlist and the anonymous contact form.
import { Hono } from "hono";
import { helpAnonymousSchema, waitListSchema } from "../../core/public-forms.ts";
import { listLatestRewards } from "../../modules/catalogue/service.server.ts";
import { createHelpRequest } from "../../modules/help/service.server.ts";
import { joinWaitlist } from "../../modules/waitlist/service.server.ts";
import { jsonBody } from "../http/validate.ts";
import { Refusal } from "../refusal.ts";
import { requireCaptcha } from "./captcha-guard.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import type { RateLimits } from "./rate-limits.ts";

export function publicRoutes(deps: ApiDeps, limits: RateLimits) {
  return new Hono<ApiEnv>()
    .get("/Catalogue/latest-reward", async (c) => {
      return c.json(await listLatestRewards(deps.db));
    })
    .post("/WaitList", limits.perClient("waitlist"), jsonBody(waitListSchema), async (c) => {
      const body = c.req.valid("json");
      await requireCaptcha(deps, c, body, "waitlist");
      const result = await joinWaitlist(deps.db, {
        firstName: body.firstName,
        lastName: body.lastName,
        email: body.email,
        companyName: body.companyName,
        isOptedIn: body.isOptedIn,
      });
      if (result === "duplicate") throw new Refusal("waitlist-duplicate");
      return c.body(null, 200);
    })
    .post("/Help/create-help-anonymous", limits.perClient("contact"), jsonBody(helpAnonymousSchema), async (c) => {
      const body = c.req.valid("json");
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
}
