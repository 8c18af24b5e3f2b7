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
import { DETAILS } from "../../core/public-forms.ts";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import { setBudgetSchema } from "../budgets/schema.ts";
import { setManagerBudget } from "../budgets/service.server.ts";
import { SSO_SIGN_IN_DETAILS } from "../single-sign-on/schema.ts";
import { startLoginChallenge } from "../two-factor/service.server.ts";
import {
  acceptInviteSchema,
  changeManagerRoleSchema,
  inviteManagerSchema,
  invitePreviewSchema,
  MANAGER_MESSAGES,
} from "./schema.ts";
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

const managerParam = idParams({ id: MANAGER_MESSAGES.managerNotFound });
const inviteParam = idParams({ id: DETAILS.notFound });

/**
 * A link that cannot be used: unknown → 404; expired, used, withdrawn, or its inviter no longer
 * the Owner it needs (ADR 0022 amendment) → 410 Gone.
 */
function linkProblem(status: LinkProblem): ProblemError {
  if (status === "invalid") return new ProblemError(404, MANAGER_MESSAGES.inviteInvalid);
  const detail = {
    expired: MANAGER_MESSAGES.inviteExpired,
    used: MANAGER_MESSAGES.inviteUsed,
    revoked: MANAGER_MESSAGES.inviteRevoked,
    inviter_gone: MANAGER_MESSAGES.inviterGone,
  }[status];
  return new ProblemError(410, detail);
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
      if (result.status === "email_in_use") throw new ProblemError(409, DETAILS.emailAlreadyUsed);
      if (result.status === "details_missing") throw new ProblemError(409, MANAGER_MESSAGES.detailsFirst);
      deps.onEmailQueued?.();
      const { status: _status, ...invite } = result;
      return c.json(invite, 201);
    })
    .delete("/Managers/invites/:id", auth, ownerOnly, inviteParam, async (c) => {
      const result = await revokeInvite(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (result === "not_found") throw new ProblemError(404, DETAILS.notFound);
      if (result === "not_pending") throw new ProblemError(409, MANAGER_MESSAGES.inviteNotPending);
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
      if (result.status === "not_owner") throw new ProblemError(403, DETAILS.ownerOnly);
      if (result.status === "not_found") throw new ProblemError(404, MANAGER_MESSAGES.managerNotFound);
      if (result.status === "last_owner") throw new ProblemError(409, MANAGER_MESSAGES.lastOwner);
      return c.json({ id: result.id, managerRole: result.managerRole });
    })
    .put("/Managers/:id/budget", auth, ownerOnly, managerParam, jsonBody(setBudgetSchema), async (c) => {
      const { budgetDollars } = c.req.valid("json");
      const result = await setManagerBudget(deps.db, actorOf(c), c.req.valid("param").id, budgetDollars, now());
      if (result === "not_found") throw new ProblemError(404, MANAGER_MESSAGES.managerNotFound);
      return c.json(result);
    })
    .delete("/Managers/:id", auth, ownerOnly, managerParam, async (c) => {
      const result = await removeManager(deps.db, actorOf(c), c.req.valid("param").id, now());
      if (result === "not_owner") throw new ProblemError(403, DETAILS.ownerOnly);
      if (result === "not_found") throw new ProblemError(404, MANAGER_MESSAGES.managerNotFound);
      if (result === "last_owner") throw new ProblemError(409, MANAGER_MESSAGES.lastOwner);
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
      if (result.status === "email_in_use") throw new ProblemError(409, DETAILS.emailAlreadyUsed);
      // The company requires single sign-on (ADR 0036 Amendment): no password; the page offers the provider.
      if (result.status === "sso_required") {
        throw new ProblemError(403, SSO_SIGN_IN_DETAILS.inviteThroughProvider, undefined, {
          signInWithProvider: true,
        });
      }
      if (result.status === "accepted_setup_owed") {
        // The company requires a second factor: a set-up challenge, as login answers (ADR 0023).
        const challenge = await startLoginChallenge(deps.db, result.userId, "setup", now());
        return c.json({ twoFactor: "setup" as const, challengeToken: challenge.challengeToken });
      }
      if (result.status !== "accepted") throw linkProblem(result.status);
      return c.json({ accessToken: result.accessToken, appSettings: result.appSettings });
    });
}
