// A company's managers (ADR 0022 §1, §3–§5):
//   GET    /api/Managers                    (bearer, Owner) { managers, invites }: the active managers and pending invitations
//   POST   /api/Managers/invites            (bearer, Owner) { email, role } → 201 { id, email, managerRole, expiresAt }; emails the link
//   DELETE /api/Managers/invites/{id}       (bearer, Owner) withdraws a pending invitation → 204
//   PUT    /api/Managers/{id}/role          (bearer, Owner) { role } → { id, managerRole }; never the last Owner's
//   DELETE /api/Managers/{id}               (bearer, Owner) removes a manager and ends their sessions → 204; never the last Owner
//   PUT    /api/Managers/{id}/budget        (bearer, Owner) { budgetDollars } → { id, monthlyBudgetCents }: the monthly
//                                           budget (ADR 0034), whole dollars or null for none; audited
//   POST   /api/ManagerInvites/preview      (public) { token } → { companyName, inviterName, email, managerRole }
//   POST   /api/ManagerInvites/accept       (public) { token, firstName, lastName, password, confirmPassword }
//                                           → { accessToken, appSettings } as login answers
// The Owner-only calls check the role before they read a body (requireOwner: a Manager gets 403
// and nothing changes); another company's manager or invitation answers 404. An unknown link
// answers 404, an expired, used or withdrawn one 410, each with its own message, as does one whose
// inviter was removed or lost the Owner role it offers (ADR 0022 amendment). The token
// travels in the body, never in a URL the logs keep.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { setBudgetSchema } from "../budgets/schema.ts";
import { setManagerBudget } from "../budgets/service.server.ts";
import { startLoginChallenge } from "../two-factor/service.server.ts";
import { acceptInviteSchema, changeManagerRoleSchema, inviteManagerSchema, invitePreviewSchema } from "./schema.ts";
import {
  type Actor,
  acceptInvite,
  changeManagerRole,
  inviteManager,
  type LinkProblem,
  listManagers,
  previewInvite,
  removeManager,
  revokeInvite,
} from "./service.server.ts";

/** The role is checked before the body is read (ADR 0022 §2): a Manager's call has no other effect. */
const actorOf = (c: Context<ApiEnv>): Actor => ({ ...requireOwner(c), clientIp: c.get("clientIp") ?? null });

const managerParam = idParams({ id: "manager-not-found" });
const inviteParam = idParams({ id: "invite-not-found" });

/**
 * A link that cannot be used: unknown → 404; expired, used, withdrawn, or its inviter no longer
 * the Owner it needs (ADR 0022 amendment) → 410 Gone.
 */
function linkProblem(status: LinkProblem): Refusal {
  const kind = (
    {
      invalid: "invite-invalid",
      expired: "invite-expired",
      used: "invite-used",
      revoked: "invite-revoked",
      inviter_gone: "inviter-gone",
    } as const
  )[status];
  return new Refusal(kind);
}

export function managersRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits, now: () => Date) {
  return new Hono<ApiEnv>()
    .get("/Managers", auth, ownerOnly, async (c) => c.json(await listManagers(deps.db, actorOf(c), now())))
    .post("/Managers/invites", auth, ownerOnly, jsonBody(inviteManagerSchema), async (c) => {
      const actor = actorOf(c);
      // Each invitation emails a stranger: an Owner's budget keeps the portal from being a mailer.
      await limits.perAccount("managerInvite", actor.userId);
      const body = c.req.valid("json");
      const result = await inviteManager(deps.db, actor, body, deps.config.APP_URL, now());
      if (result.status === "email_in_use") throw new Refusal("email-in-use");
      if (result.status === "details_missing") throw new Refusal("company-details-first");
      deps.onEmailQueued?.();
      const { status: _status, ...invite } = result;
      return c.json(invite, 201);
    })
    .delete("/Managers/invites/:id", auth, ownerOnly, inviteParam, async (c) => {
      const result = await revokeInvite(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (result === "not_found") throw new Refusal("invite-not-found");
      if (result === "not_pending") throw new Refusal("invite-not-pending");
      return c.body(null, 204);
    })
    .put("/Managers/:id/role", auth, ownerOnly, managerParam, jsonBody(changeManagerRoleSchema), async (c) => {
      const result = await changeManagerRole(
        deps.db,
        actorOf(c),
        c.req.valid("param").id,
        c.req.valid("json").role,
        now(),
      );
      if (result.status === "not_owner") throw new Refusal("owner-only");
      if (result.status === "not_found") throw new Refusal("manager-not-found");
      if (result.status === "last_owner") throw new Refusal("last-owner");
      return c.json({ id: result.id, managerRole: result.managerRole });
    })
    .put("/Managers/:id/budget", auth, ownerOnly, managerParam, jsonBody(setBudgetSchema), async (c) => {
      const { budgetDollars } = c.req.valid("json");
      const result = await setManagerBudget(deps.db, actorOf(c), c.req.valid("param").id, budgetDollars, now());
      if (result === "not_found") throw new Refusal("manager-not-found");
      return c.json(result);
    })
    .delete("/Managers/:id", auth, ownerOnly, managerParam, async (c) => {
      const result = await removeManager(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (result === "not_owner") throw new Refusal("owner-only");
      if (result === "not_found") throw new Refusal("manager-not-found");
      if (result === "last_owner") throw new Refusal("last-owner");
      return c.body(null, 204);
    })
    .post(
      "/ManagerInvites/preview",
      limits.perClient("managerInviteLink"),
      jsonBody(invitePreviewSchema),
      async (c) => {
        const result = await previewInvite(deps.db, c.req.valid("json").token, now());
        if (result.status !== "valid") throw linkProblem(result.status);
        const { status: _status, ...preview } = result;
        return c.json(preview);
      },
    )
    .post("/ManagerInvites/accept", limits.perClient("managerInviteLink"), jsonBody(acceptInviteSchema), async (c) => {
      const body = c.req.valid("json");
      const result = await acceptInvite(deps.db, body, now(), {
        clientIp: c.get("clientIp"),
        userAgent: c.req.header("user-agent"),
      });
      if (result.status === "email_in_use") throw new Refusal("email-in-use");
      // The company requires single sign-on (ADR 0046): no password; the page offers the provider.
      if (result.status === "sso_required") {
        throw new Refusal("invite-through-provider");
      }
      if (result.status === "accepted_setup_owed") {
        // The company requires a second factor: a set-up challenge, as login answers (ADR 0042).
        const challenge = await startLoginChallenge(deps.db, result.userId, "setup", now());
        return c.json({ twoFactor: "setup" as const, challengeToken: challenge.challengeToken });
      }
      if (result.status !== "accepted") throw linkProblem(result.status);
      return c.json({ accessToken: result.accessToken, appSettings: result.appSettings });
    });
}
