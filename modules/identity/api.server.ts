// Registration and the Identity calls of docs/requirements.md §S7 (Register, VerifyEmailRequest,
// ResendVerifyEmailRequest, VerifyEmail, login, ResetPasswordRequest, ResetPassword), plus what
// the spec implies:
//   POST /api/Identity/logout                     (bearer) revokes the presented token → 204
//   POST /api/Identity/onboarding-video-watched   (bearer) records hasWatchedOnboardingVideo → 204
//   GET  /api/Identity/app-settings               (bearer) { hasProvidedCompanyDetails, hasWatchedOnboardingVideo }
// and login with the right password of an unverified manager emails a new code and answers 403
// with the userId and requestToken of the verify page (refuseUnverifiedLogin).
// Every call here is rate-limited per client address and per account (rate-limits.ts), counted on arrival.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { createFactory } from "hono/factory";
import { DETAILS } from "../../core/public-forms.ts";
import type { RefusalKind } from "../../core/refusals.ts";
import { requireAuth } from "../../server/api/auth.ts";
import { requireCaptcha } from "../../server/api/captcha-guard.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { startLoginChallenge } from "../two-factor/service.server.ts";
import {
  loginSchema,
  registerSchema,
  resetPasswordRequestSchema,
  resetPasswordSchema,
  verifyEmailRequestSchema,
  verifyEmailSchema,
} from "./schema.ts";
import {
  completePasswordReset,
  findPasswordReset,
  getAppSettings,
  type LoginOrigin,
  login,
  markOnboardingVideoWatched,
  registerProgramManager,
  requestPasswordReset,
  requestVerificationCode,
  revokeAccessToken,
  type VerifyEmailResult,
  verifyEmail,
} from "./service.server.ts";
import { passwordRefusedForAddress } from "./sign-in.server.ts";

const verifyFailures: Record<
  Exclude<VerifyEmailResult["status"], "verified" | "second_factor" | "sso_required">,
  RefusalKind
> = {
  wrong_code: "wrong-verification-code",
  too_many: "verification-too-many-attempts",
  expired: "verification-expired",
  used: "verification-used",
  superseded: "verification-superseded",
  invalid_request: "verification-request-invalid",
};

/** Where a login comes from, for the manager's list of sessions: the address the edge trusted and the User-Agent. */
const loginOrigin = (c: Context<ApiEnv>): LoginOrigin => ({
  clientIp: c.get("clientIp"),
  userAgent: c.req.header("user-agent"),
});

const resetFailures = {
  invalid: "reset-link-invalid",
  expired: "reset-link-expired",
  used: "reset-link-used",
} as const;

export function identityRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits, now: () => Date) {
  // Both answer a new request token and email a new code; every earlier code stops working.
  const requestCode = createFactory<ApiEnv>().createHandlers(
    limits.perClient("verify"),
    jsonBody(verifyEmailRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      await limits.perAccount("verifyRequestUser", body.userId);
      const result = await requestVerificationCode(deps.db, body.userId, now());
      if (result.status === "unknown") throw new Refusal("verification-request-invalid");
      if (result.status === "already_verified") throw new Refusal("email-already-verified");
      deps.onEmailQueued?.();
      return c.json({ requestToken: result.requestToken });
    },
  );

  /**
   * The right password of a manager whose email is not verified: a new code is emailed, as
   * ResendVerifyEmailRequest would email it and within the same budgets (the client's verify
   * budget and the user's code emails, docs/requirements.md §D7), so logging in is no way around them. The
   * 403 carries what the verify page's address needs (userId, requestToken, as Register answers
   * them). Only someone who knows the password gets here; a wrong one has already been refused
   * like any other, so the answer tells no more about the account than it told before.
   */
  async function refuseUnverifiedLogin(clientIp: string | undefined, publicId: string): Promise<never> {
    await limits.clientAttempt("verify", clientIp);
    await limits.perAccount("verifyRequestUser", publicId);
    const issued = await requestVerificationCode(deps.db, publicId, now());
    // Verified (by a code or a reset) or removed since the password was checked.
    if (issued.status === "already_verified") throw new Refusal("email-verified-meanwhile");
    if (issued.status !== "issued") throw new ProblemError(400, DETAILS.invalidLoginCredentials);
    deps.onEmailQueued?.();
    throw new Refusal("email-not-verified", { userId: publicId, requestToken: issued.requestToken });
  }

  return (
    new Hono<ApiEnv>()
      .post("/Register", limits.perClient("register"), jsonBody(registerSchema), async (c) => {
        const body = c.req.valid("json");
        await limits.perAccount("registerEmail", body.email);
        await requireCaptcha(deps, c, body, "signup");
        const result = await registerProgramManager(
          deps.db,
          {
            firstName: body.firstName,
            lastName: body.lastName,
            email: body.email,
            companyName: body.companyName,
            password: body.password,
          },
          now(),
        );
        if (result.status === "duplicate") throw new Refusal("email-in-use");
        deps.onEmailQueued?.();
        return c.json({ userId: result.userId, requestToken: result.requestToken });
      })
      .post("/Identity/VerifyEmailRequest", ...requestCode)
      .post("/Identity/ResendVerifyEmailRequest", ...requestCode)
      .post("/Identity/VerifyEmail", limits.perClient("verify"), jsonBody(verifyEmailSchema), async (c) => {
        const body = c.req.valid("json");
        await limits.perAccount("verifyUser", body.userId);
        const result = await verifyEmail(
          deps.db,
          { userId: body.userId, requestToken: body.requestToken, code: body.verificationCode },
          now(),
          loginOrigin(c),
        );
        if (result.status === "verified") return c.json({ accessToken: result.accessToken });
        if (result.status === "sso_required") throw new Refusal("single-sign-on-required");
        if (result.status === "second_factor") {
          // As login answers (ADR 0042): the address is verified, and a second factor comes first.
          const challenge = await startLoginChallenge(deps.db, result.userId, result.purpose, now());
          return c.json({ twoFactor: result.purpose, challengeToken: challenge.challengeToken });
        }
        throw new Refusal(verifyFailures[result.status]);
      })
      .post("/Identity/login", limits.perClient("login"), jsonBody(loginSchema), async (c) => {
        const body = c.req.valid("json");
        await limits.loginAttempt(body.userName, c.get("clientIp"));
        await requireCaptcha(deps, c, body, "login");
        // An address in a domain that requires single sign-on is refused before its password is
        // checked (ADR 0046); the rest of who may sign in is the chokepoint's (domain/sign-in.ts).
        if (await passwordRefusedForAddress(deps.db, body.userName)) throw new Refusal("single-sign-on-required");
        const result = await login(deps.db, { email: body.userName, password: body.password }, now(), loginOrigin(c));
        if (result.status === "not_verified") return refuseUnverifiedLogin(c.get("clientIp"), result.publicId);
        if (result.status === "sso_required") throw new Refusal("single-sign-on-required");
        if (result.status === "second_factor") {
          // No token yet (ADR 0042): a challenge for the code, or for setting an app up. The
          // address's failures are not forgotten until the code is right too (modules/two-factor/api.server.ts).
          const challenge = await startLoginChallenge(deps.db, result.userId, result.purpose, now());
          return c.json({ twoFactor: result.purpose, challengeToken: challenge.challengeToken });
        }
        if (result.status !== "ok") throw new ProblemError(400, DETAILS.invalidLoginCredentials);
        await limits.loginSucceeded(body.userName, c.get("clientIp"));
        return c.json({ accessToken: result.accessToken, appSettings: result.appSettings });
      })
      .post("/Identity/logout", auth, async (c) => {
        await revokeAccessToken(deps.db, requireAuth(c).tokenId, now());
        return c.body(null, 204);
      })
      .post("/Identity/onboarding-video-watched", auth, async (c) => {
        await markOnboardingVideoWatched(deps.db, requireAuth(c));
        return c.body(null, 204);
      })
      .get("/Identity/app-settings", auth, async (c) => {
        const settings = await getAppSettings(deps.db, requireAuth(c));
        if (!settings) throw new ProblemError(401, DETAILS.unauthorized);
        return c.json(settings);
      })
      // Always 200 for a well-formed request: the answer never tells whether the address exists.
      .post(
        "/Identity/ResetPasswordRequest",
        limits.perClient("resetRequest"),
        jsonBody(resetPasswordRequestSchema),
        async (c) => {
          const body = c.req.valid("json");
          await limits.perAccount("resetRequestEmail", body.email);
          // Decided by the domain alone, so it tells nothing about whether the address has an account.
          if (await passwordRefusedForAddress(deps.db, body.email)) throw new Refusal("single-sign-on-required");
          const { queued } = await requestPasswordReset(deps.db, body.email, deps.config.APP_URL, now());
          if (queued) deps.onEmailQueued?.();
          return c.body(null, 200);
        },
      )
      .post("/Identity/ResetPassword", limits.perClient("reset"), jsonBody(resetPasswordSchema), async (c) => {
        const body = c.req.valid("json");
        const reset = await findPasswordReset(deps.db, body.passwordResetToken, now());
        if (reset.status !== "valid") throw new Refusal(resetFailures[reset.status]);
        await limits.perAccount("resetUser", reset.userId);
        const outcome = await completePasswordReset(deps.db, reset, body.password, now());
        if (outcome === "sso_required") throw new Refusal("single-sign-on-required");
        if (outcome === "used") throw new Refusal("reset-link-used");
        return c.body(null, 200);
      })
  );
}
