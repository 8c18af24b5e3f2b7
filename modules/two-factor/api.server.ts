// Two-factor sign-in (ADR 0042):
//   POST /api/Identity/login-code            (public) { challengeToken, code | recoveryCode } → { accessToken, appSettings }
//   GET  /api/TwoFactor                      (bearer) the caller's status and the company's requirement
//   POST /api/TwoFactor/setup                (bearer, or a set-up challenge) → { secret, otpauthUri }
//   POST /api/TwoFactor/confirm              (bearer with { password }, or a set-up challenge) { code } → { recoveryCodes, signIn }
//                                            (signIn: with a challenge, { accessToken, appSettings } as login answers; else null)
//   POST /api/TwoFactor/disable              (bearer) { password } → 204; refused while the company requires it
//   POST /api/TwoFactor/recovery-codes       (bearer) { password } → { recoveryCodes }
//   PUT  /api/TwoFactor/company-requirement  (bearer, Owner) { required } → { required }
// /api/Identity/login answers { twoFactor: "verify" | "setup", challengeToken } in place of the
// token when a second factor is owed (modules/identity/api.server.ts). Every code and password checked
// here spends the login budgets of rate-limits.ts, as a password at login does, and every code
// checked against a login challenge spends one of its five attempts first (countChallengeAttempt;
// docs/requirements.md §D7, ADR 0042).
import { Hono, type MiddlewareHandler } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import type { RefusalKind } from "../../core/refusals.ts";
import { requireAuth, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { documented } from "../../server/http/route-doc.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { resolveSessionSecret } from "../../server/secret.ts";
import { getAppSettings } from "../identity/service.server.ts";
import {
  loginCodeSchema,
  twoFactorConfirmSchema,
  twoFactorPasswordSchema,
  twoFactorRequirementSchema,
  twoFactorSetupSchema,
} from "./schema.ts";
import {
  type Actor,
  type ChallengePurpose,
  confirmSetup,
  countChallengeAttempt,
  disableTwoFactor,
  findLoginChallenge,
  managerEmail,
  noticeSecondFactorFailures,
  regenerateRecoveryCodes,
  type SecondFactorResult,
  type SetupStarter,
  setCompanyRequirement,
  signInWithSecondFactor,
  startSetup,
  type TwoFactorKeys,
  twoFactorKeys,
  twoFactorStatus,
} from "./service.server.ts";

const secondFactorFailures: Record<Exclude<SecondFactorResult["status"], "ok">, RefusalKind> = {
  wrong_code: "wrong-code",
  reused_code: "code-reused",
  wrong_recovery_code: "wrong-recovery-code",
  not_on: "challenge-expired",
};

export function twoFactorRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits, now: () => Date) {
  // The keys come from the server secret, the one the web sessions are sealed with: SESSION_SECRET,
  // or the one generated once and kept in the database (server/secret.ts).
  let keys: Promise<TwoFactorKeys> | undefined;
  const keysOf = (): Promise<TwoFactorKeys> => {
    keys ??= resolveSessionSecret(deps.db, deps.config.SESSION_SECRET).then(
      ({ secret }) => twoFactorKeys(secret),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    );
    return keys;
  };

  /** A bearer when the call has one; otherwise the handler takes the challenge token of the body. */
  const bearerOrChallenge = documented<MiddlewareHandler<ApiEnv>>(
    (c, next) => (c.req.header("authorization") ? auth(c, next) : next()),
    { security: "bearerOrChallenge" },
  );

  const ownerOnly: MiddlewareHandler<ApiEnv> = async (c, next) => {
    requireOwner(c);
    await next();
  };

  type Caller = Actor & { challenge?: { id: number; email: string }; startedBy: SetupStarter };

  /** The manager a set-up call speaks for: the bearer's, or that of an open set-up challenge. */
  async function setupCaller(
    c: Parameters<MiddlewareHandler<ApiEnv>>[0],
    challengeToken: string | undefined,
  ): Promise<Caller> {
    const bearer = c.get("auth");
    if (bearer) {
      return {
        userId: bearer.userId,
        companyId: bearer.companyId,
        clientIp: c.get("clientIp"),
        startedBy: `token:${bearer.tokenId}`,
      };
    }
    if (!challengeToken) throw new ProblemError(401, DETAILS.unauthorized);
    const found = await findLoginChallenge(deps.db, challengeToken, "setup", now());
    if (found.status === "too_many") throw new Refusal("challenge-locked");
    if (found.status !== "ok") throw new Refusal("challenge-ended");
    return {
      userId: found.userId,
      companyId: found.companyId,
      clientIp: c.get("clientIp"),
      challenge: { id: found.challengeId, email: found.email },
      startedBy: `challenge:${found.challengeId}`,
    };
  }

  /** A code or a password is about to be checked: one attempt of the login budgets for the account. */
  async function spendLoginBudget(userId: number, email: string | undefined, clientIp: string | undefined) {
    const account = email ?? (await managerEmail(deps.db, userId));
    if (!account) throw new ProblemError(401, DETAILS.unauthorized);
    await limits.loginAttempt(account, clientIp);
    return account;
  }

  /** A session opened by a login's second step: as after a right password alone, the settings come with it. */
  async function signedIn(
    c: Parameters<MiddlewareHandler<ApiEnv>>[0],
    caller: Actor,
    email: string,
    accessToken: string,
  ) {
    // The second step is done: as after a right password without one, this address's failures are forgotten.
    await limits.loginSucceeded(email, c.get("clientIp"));
    const appSettings = await getAppSettings(deps.db, caller);
    if (!appSettings) throw new ProblemError(401, DETAILS.unauthorized);
    return { accessToken, appSettings };
  }

  const wrongPassword = () => new Refusal("wrong-password");

  const challengeFailure = (status: "invalid" | "too_many") =>
    new Refusal(status === "too_many" ? "challenge-too-many" : "challenge-expired");

  return new Hono<ApiEnv>()
    .post("/Identity/login-code", limits.perClient("login"), jsonBody(loginCodeSchema), async (c) => {
      const body = c.req.valid("json");
      const purpose: ChallengePurpose = "verify";
      const found = await findLoginChallenge(deps.db, body.challengeToken, purpose, now());
      if (found.status !== "ok") throw challengeFailure(found.status);
      await spendLoginBudget(found.userId, found.email, c.get("clientIp"));
      // The challenge's attempt is spent before the code is checked, never after (docs/requirements.md §D7).
      const attempt = await countChallengeAttempt(deps.db, found.challengeId, now());
      if (attempt.status !== "counted") throw challengeFailure(attempt.status);
      const caller: Actor = { userId: found.userId, companyId: found.companyId, clientIp: c.get("clientIp") };
      const done = await signInWithSecondFactor(
        deps.db,
        await keysOf(),
        caller,
        found.challengeId,
        { code: body.code, recoveryCode: body.recoveryCode },
        now(),
        { clientIp: c.get("clientIp"), userAgent: c.req.header("user-agent") },
      );
      if (done.status === "signed_in") return c.json(await signedIn(c, caller, found.email, done.accessToken));
      if (done.status === "challenge_ended") throw challengeFailure("invalid");
      if (done.status === "sso_required") throw new Refusal("single-sign-on-required");
      if (attempt.last) {
        // Used up by wrong codes, by someone who knew the password: its owner hears of it, once.
        if (await noticeSecondFactorFailures(deps.db, found.userId, deps.config.APP_URL, now())) deps.onEmailQueued?.();
        throw challengeFailure("too_many");
      }
      throw new Refusal(secondFactorFailures[done.status]);
    })
    .get("/TwoFactor", auth, async (c) => {
      const status = await twoFactorStatus(deps.db, requireAuth(c).userId);
      if (!status) throw new ProblemError(401, DETAILS.unauthorized);
      return c.json(status);
    })
    .post(
      "/TwoFactor/setup",
      limits.perClient("login"),
      bearerOrChallenge,
      jsonBody(twoFactorSetupSchema),
      async (c) => {
        const caller = await setupCaller(c, c.req.valid("json").challengeToken);
        const started = await startSetup(deps.db, await keysOf(), caller.userId, caller.startedBy);
        if (started.status === "already_on") throw new Refusal("two-factor-already-on");
        if (started.status !== "ready") throw new ProblemError(401, DETAILS.unauthorized);
        return c.json({ secret: started.secret, otpauthUri: started.otpauthUri });
      },
    )
    .post(
      "/TwoFactor/confirm",
      limits.perClient("login"),
      bearerOrChallenge,
      jsonBody(twoFactorConfirmSchema),
      async (c) => {
        const body = c.req.valid("json");
        const caller = await setupCaller(c, body.challengeToken);
        // A signed-in manager gives the password again: a session alone (maybe a stolen one)
        // enrols no second factor. A login's set-up challenge was opened by the password and
        // stands in for it (domain/two-factor.ts EnrolmentProof; ADR 0042).
        if (!caller.challenge && body.password === undefined) {
          throw new Refusal("password-required");
        }
        const email = await spendLoginBudget(caller.userId, caller.challenge?.email, c.get("clientIp"));
        const confirmed = await confirmSetup(
          deps.db,
          await keysOf(),
          caller,
          body.code,
          now(),
          caller.challenge
            ? {
                challengeId: caller.challenge.id,
                origin: { clientIp: c.get("clientIp"), userAgent: c.req.header("user-agent") },
              }
            : { password: body.password ?? "" },
          caller.startedBy,
        );
        switch (confirmed.status) {
          case "enabled":
            break;
          case "wrong_password":
            throw wrongPassword();
          case "wrong_code":
            if (confirmed.last) throw challengeFailure("too_many");
            throw new Refusal("wrong-code");
          case "too_many":
            throw new Refusal("challenge-locked");
          case "challenge_ended":
            throw new Refusal("challenge-ended");
          case "no_setup":
            throw new Refusal("two-factor-setup-first");
          case "already_on":
            throw new Refusal("two-factor-already-on");
          case "sso_required":
            throw new Refusal("single-sign-on-required");
          default:
            throw new ProblemError(401, DETAILS.unauthorized);
        }
        // With a challenge, the forced set-up of a login is done: the session it was waiting for,
        // opened in the transaction that turned the app on.
        const signIn = confirmed.accessToken ? await signedIn(c, caller, email, confirmed.accessToken) : null;
        return c.json({ recoveryCodes: confirmed.recoveryCodes, signIn });
      },
    )
    .post("/TwoFactor/disable", limits.perClient("login"), auth, jsonBody(twoFactorPasswordSchema), async (c) => {
      const { userId, companyId } = requireAuth(c);
      const email = await spendLoginBudget(userId, undefined, c.get("clientIp"));
      const actor = { userId, companyId, clientIp: c.get("clientIp") };
      const result = await disableTwoFactor(deps.db, actor, c.req.valid("json").password, now());
      if (result.status === "wrong_password") throw wrongPassword();
      if (result.status === "required") throw new Refusal("two-factor-required-by-company");
      if (result.status === "not_on") throw new Refusal("two-factor-not-on");
      if (result.status !== "ok") throw new ProblemError(401, DETAILS.unauthorized);
      await limits.loginSucceeded(email, c.get("clientIp"));
      return c.body(null, 204);
    })
    .post(
      "/TwoFactor/recovery-codes",
      limits.perClient("login"),
      auth,
      jsonBody(twoFactorPasswordSchema),
      async (c) => {
        const { userId, companyId } = requireAuth(c);
        const email = await spendLoginBudget(userId, undefined, c.get("clientIp"));
        const actor = { userId, companyId, clientIp: c.get("clientIp") };
        const result = await regenerateRecoveryCodes(
          deps.db,
          await keysOf(),
          actor,
          c.req.valid("json").password,
          now(),
        );
        if (result.status === "wrong_password") throw wrongPassword();
        if (result.status === "not_on") throw new Refusal("two-factor-not-on");
        if (result.status !== "ok") throw new ProblemError(401, DETAILS.unauthorized);
        await limits.loginSucceeded(email, c.get("clientIp"));
        return c.json({ recoveryCodes: result.recoveryCodes });
      },
    )
    .put("/TwoFactor/company-requirement", auth, ownerOnly, jsonBody(twoFactorRequirementSchema), async (c) => {
      const { userId, companyId } = requireAuth(c);
      const { required } = c.req.valid("json");
      const saved = await setCompanyRequirement(
        deps.db,
        { userId, companyId, clientIp: c.get("clientIp") },
        required,
        now(),
      );
      if (!saved) throw new ProblemError(401, DETAILS.unauthorized);
      return c.json({ required });
    });
}
