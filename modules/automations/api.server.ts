// Automations (ADR 0035; the rules in modules/automations/service.server.ts), Owners only:
//   GET /Automations                                     → AutomationsAnswer (the list, budget, preview)
//   POST /Automations/create-automation                  { occasion, amount, perYear, rewardName, message, enabled } → 201 { automationId }
//   PUT /Automations/:automationId/update-automation     the same body → 204
//   PUT /Automations/:automationId/set-automation-enabled { enabled } → 204 (on again clears a pause)
//   PUT /Automations/update-automation-budget            { budget: whole dollars | null | "" } → 204
// Owner-only calls check the role before reading a body (403, nothing changes); another company's
// automation is a 404.
import { Hono, type MiddlewareHandler } from "hono";
import { ownerOnly, requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import type { Caller } from "../orders/service.server.ts";
import { automationBudgetSchema, automationEnabledSchema, automationSchema } from "./schema.ts";
import {
  createAutomation,
  listAutomations,
  setAutomationBudget,
  setAutomationEnabled,
  updateAutomation,
} from "./service.server.ts";

const automationParam = idParams({ automationId: "automation-not-found" });

export function automationsRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  const callerOf = (c: Parameters<typeof requireAuth>[0]): Caller => {
    const a = requireAuth(c);
    return { companyId: a.companyId, userId: a.userId, clientIp: c.get("clientIp") };
  };
  return new Hono<ApiEnv>()
    .get("/Automations", auth, ownerOnly, async (c) => {
      return c.json(await listAutomations(deps.db, requireAuth(c).companyId, now()));
    })
    .post("/Automations/create-automation", auth, ownerOnly, jsonBody(automationSchema), async (c) => {
      return c.json(await createAutomation(deps.db, callerOf(c), c.req.valid("json"), now()), 201);
    })
    .put("/Automations/update-automation-budget", auth, ownerOnly, jsonBody(automationBudgetSchema), async (c) => {
      await setAutomationBudget(deps.db, callerOf(c), c.req.valid("json").budget, now());
      return c.body(null, 204);
    })
    .put(
      "/Automations/:automationId/update-automation",
      auth,
      ownerOnly,
      automationParam,
      jsonBody(automationSchema),
      async (c) => {
        const { automationId } = c.req.valid("param");
        await updateAutomation(deps.db, callerOf(c), automationId, c.req.valid("json"), now());
        return c.body(null, 204);
      },
    )
    .put(
      "/Automations/:automationId/set-automation-enabled",
      auth,
      ownerOnly,
      automationParam,
      jsonBody(automationEnabledSchema),
      async (c) => {
        const { automationId } = c.req.valid("param");
        await setAutomationEnabled(deps.db, callerOf(c), automationId, c.req.valid("json").enabled, now());
        return c.body(null, 204);
      },
    );
}
