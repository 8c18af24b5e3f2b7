// A manager's own settings (ADR 0022), every call about the token's own user only:
//   PUT  /api/Users/MyDetails/Name          (bearer) { firstName, lastName } → { firstName, lastName, fullName }
//   POST /api/Users/MyEmail/Request         (bearer) { newEmail, currentPassword } → { requestToken, newEmail };
//                                            a 6-digit code goes to the new address
//   POST /api/Users/MyEmail/Confirm         (bearer) { requestToken, verificationCode } → { email };
//                                            the old address is told of the change
//   POST /api/Users/MyPassword              (bearer) { currentPassword, newPassword } → { endedSessions };
//                                            every other session of the manager ends
//   GET  /api/Users/MySessions              (bearer) [{ id, createdAt, expiresAt, clientIp, userAgent, current }]
//   POST /api/Users/MySessions/SignOutOthers (bearer) → { endedSessions }
// A wrong current password counts against the budgets a login's does (rate-limits.ts
// loginAttempt, keyed by the manager rather than an address typed in), so a stolen session is
// no faster way to guess it; a code request and a code attempt count like verification's.
import { Hono, type MiddlewareHandler } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { emailChangeConfirmSchema, emailChangeRequestSchema, myNameSchema, passwordChangeSchema } from "./schema.ts";
import {
  changeMyPassword,
  confirmEmailChange,
  listMySessions,
  requestEmailChange,
  signOutOtherSessions,
  updateMyName,
} from "./service.server.ts";

/** The account key of a manager's password and code budgets (not an address: it can change). */
const accountKey = (userId: number) => `manager:${userId}`;

export function settingsRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits, now: () => Date) {
  const ctx = (clientIp: string | undefined) => ({ now: now(), clientIp });

  return new Hono<ApiEnv>()
    .put("/Users/MyDetails/Name", auth, jsonBody(myNameSchema), async (c) => {
      const saved = await updateMyName(deps.db, requireAuth(c), c.req.valid("json"), ctx(c.get("clientIp")));
      if (!saved) throw new ProblemError(401, DETAILS.unauthorized);
      return c.json(saved);
    })
    .post("/Users/MyEmail/Request", auth, jsonBody(emailChangeRequestSchema), async (c) => {
      const owner = requireAuth(c);
      const clientIp = c.get("clientIp");
      await limits.loginAttempt(accountKey(owner.userId), clientIp);
      const body = c.req.valid("json");
      const result = await requestEmailChange(deps.db, owner, body, ctx(clientIp));
      if (result.status === "gone") throw new ProblemError(401, DETAILS.unauthorized);
      if (result.status === "wrong_password") {
        throw new Refusal("wrong-current-password");
      }
      await limits.loginSucceeded(accountKey(owner.userId), clientIp);
      if (result.status === "same") throw new Refusal("same-email");
      if (result.status === "taken") throw new Refusal("email-in-use", { field: "newEmail" });
      // Counted only when a code is emailed: the same budget verification codes have.
      await limits.perAccount("verifyRequestUser", accountKey(owner.userId));
      deps.onEmailQueued?.();
      return c.json({ requestToken: result.requestToken, newEmail: result.newEmail });
    })
    .post("/Users/MyEmail/Confirm", auth, jsonBody(emailChangeConfirmSchema), async (c) => {
      const owner = requireAuth(c);
      await limits.perAccount("verifyUser", accountKey(owner.userId));
      const body = c.req.valid("json");
      const result = await confirmEmailChange(
        deps.db,
        owner,
        { requestToken: body.requestToken, code: body.verificationCode },
        ctx(c.get("clientIp")),
      );
      switch (result.status) {
        case "changed":
          deps.onEmailQueued?.();
          return c.json({ email: result.email });
        case "invalid_request":
          throw new Refusal("no-email-change");
        case "taken":
          throw new Refusal("email-in-use");
        case "used":
          throw new Refusal("verification-used");
        case "superseded":
          throw new Refusal("verification-superseded");
        case "too_many":
          throw new Refusal("verification-too-many-attempts");
        case "expired":
          throw new Refusal("verification-expired");
        case "wrong_code":
          throw new Refusal("wrong-verification-code", { field: "verificationCode" });
      }
    })
    .post("/Users/MyPassword", auth, jsonBody(passwordChangeSchema), async (c) => {
      const owner = requireAuth(c);
      const clientIp = c.get("clientIp");
      await limits.loginAttempt(accountKey(owner.userId), clientIp);
      const result = await changeMyPassword(deps.db, owner, c.req.valid("json"), ctx(clientIp));
      if (result.status === "gone") throw new ProblemError(401, DETAILS.unauthorized);
      if (result.status === "wrong_password") {
        throw new Refusal("wrong-current-password");
      }
      await limits.loginSucceeded(accountKey(owner.userId), clientIp);
      return c.json({ endedSessions: result.endedSessions });
    })
    .get("/Users/MySessions", auth, async (c) => {
      return c.json(await listMySessions(deps.db, requireAuth(c), now()));
    })
    .post("/Users/MySessions/SignOutOthers", auth, async (c) => {
      const endedSessions = await signOutOtherSessions(deps.db, requireAuth(c), ctx(c.get("clientIp")));
      return c.json({ endedSessions });
    });
}
