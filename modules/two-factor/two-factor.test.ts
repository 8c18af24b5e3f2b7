// Two-factor sign-in through the API (ADR 0042), against the real database (PGlite and
// PostgreSQL): set-up, login with a TOTP code and with a recovery code (once), wrong codes refused
// and rate-limited, the company's requirement forcing set-up at login, an Owner-only requirement,
// turning off and new recovery codes with the password, and the secret sealed at rest.
import { and, count, eq } from "drizzle-orm";
import { TOTP } from "otpauth";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { accessTokens, auditLog, companies, loginChallenges, recoveryCodes, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, logIn, PASSWORD, signUpVerified } from "../identity/accounts.testkit.ts";
import { TWO_FACTOR_MESSAGES } from "./schema.ts";
import { twoFactorKeys } from "./service.server.ts";

const SESSION_SECRET = "two-factor-test-session-secret-0123456789abcdef";
const MINUTE = 60 * 1000;

type Api = ReturnType<typeof accountsApi>["api"];

describeEachDatabase("two-factor sign-in API", ({ database }) => {
  const config = testConfig({ SESSION_SECRET });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  const setup = () => accountsApi(db(), { config });

  /** The code an authenticator app shows at `at` (the same library the server checks with). */
  const codeAt = (secret: string, at: Date) => TOTP.generate({ secret: TOTP_SECRET(secret), timestamp: at.getTime() });
  const TOTP_SECRET = (base32: string) => new TOTP({ secret: base32 }).secret;

  async function json<T>(res: Response, status = 200): Promise<T> {
    expect(res.status, await res.clone().text()).toBe(status);
    return (await res.json()) as T;
  }

  /** Signs up a verified Owner and turns two-factor sign-in on: answers the secret and the recovery codes. */
  async function withTwoFactor(api: Api, clock: { now(): Date }, overrides: Record<string, unknown> = {}) {
    const account = await signUpVerified(api, db(), overrides);
    const started = await json<{ secret: string; otpauthUri: string }>(
      await call(api, "POST", "/api/TwoFactor/setup", {}, account.accessToken),
    );
    const confirmed = await json<{ recoveryCodes: string[] }>(
      await call(
        api,
        "POST",
        "/api/TwoFactor/confirm",
        { code: codeAt(started.secret, clock.now()), password: PASSWORD },
        account.accessToken,
      ),
    );
    return { ...account, secret: started.secret, recoveryCodes: confirmed.recoveryCodes };
  }

  async function challengeOf(api: Api, email: string) {
    return json<{ twoFactor: string; challengeToken: string }>(await logIn(api, email));
  }

  const auditActions = async (userId: number) =>
    (await db().select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.actorUserId, userId))).map(
      (r) => r.action,
    );

  it("sets up an app: a secret and its otpauth URI (the same until confirmed), the first right code turns it on and answers ten recovery codes once", async () => {
    const { api, clock } = setup();
    const account = await signUpVerified(api, db(), { email: "owner@example.com" });
    expect(await json(await call(api, "GET", "/api/TwoFactor", undefined, account.accessToken))).toEqual({
      enabled: false,
      enabledAt: null,
      setupPending: false,
      recoveryCodesLeft: 0,
      companyRequired: false,
    });

    const started = await json<{ secret: string; otpauthUri: string }>(
      await call(api, "POST", "/api/TwoFactor/setup", {}, account.accessToken),
    );
    expect(started.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.otpauthUri).toBe(
      `otpauth://totp/Reward%20Portal:owner%40example.com?issuer=Reward%20Portal&secret=${started.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    // Reloading the page shows the QR code the app already scanned.
    const again = await json<{ secret: string }>(
      await call(api, "POST", "/api/TwoFactor/setup", {}, account.accessToken),
    );
    expect(again.secret).toBe(started.secret);
    expect(
      (await json<{ setupPending: boolean }>(await call(api, "GET", "/api/TwoFactor", undefined, account.accessToken)))
        .setupPending,
    ).toBe(true);

    // A wrong code: a clear message, and it stays off.
    const wrongCode = String((Number(codeAt(started.secret, clock.now())) + 1) % 1_000_000).padStart(6, "0");
    const wrong = await expectProblem(
      await call(api, "POST", "/api/TwoFactor/confirm", { code: wrongCode, password: PASSWORD }, account.accessToken),
      400,
    );
    expect(wrong.detail).toBe(TWO_FACTOR_MESSAGES.wrongCode);
    expect(wrong.errors).toEqual({ code: [TWO_FACTOR_MESSAGES.wrongCode] });
    const malformed = await expectProblem(
      await call(api, "POST", "/api/TwoFactor/confirm", { code: "12345", password: PASSWORD }, account.accessToken),
      400,
    );
    expect(malformed.errors).toEqual({ code: [TWO_FACTOR_MESSAGES.code] });
    const [off] = await db().select().from(users).where(eq(users.id, account.userId));
    expect(off?.totpEnabledAt).toBeNull();
    expect(await db().select().from(recoveryCodes)).toEqual([]);

    // The app's code as it shows it ("123 456") turns it on.
    const code = codeAt(started.secret, clock.now());
    const confirmed = await json<{ recoveryCodes: string[] }>(
      await call(
        api,
        "POST",
        "/api/TwoFactor/confirm",
        { code: `${code.slice(0, 3)} ${code.slice(3)}`, password: PASSWORD },
        account.accessToken,
      ),
    );
    expect(Object.keys(confirmed)).toEqual(["recoveryCodes", "signIn"]);
    expect((confirmed as { signIn?: unknown }).signIn).toBeNull();
    expect(confirmed.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.recoveryCodes).size).toBe(10);
    for (const c of confirmed.recoveryCodes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(await json(await call(api, "GET", "/api/TwoFactor", undefined, account.accessToken))).toEqual({
      enabled: true,
      enabledAt: clock.now().toISOString(),
      setupPending: false,
      recoveryCodesLeft: 10,
      companyRequired: false,
    });
    // Confirming again, or starting again, is refused: it is on.
    const twice = await expectProblem(await call(api, "POST", "/api/TwoFactor/setup", {}, account.accessToken), 409);
    expect(twice.detail).toBe(TWO_FACTOR_MESSAGES.alreadyOn);
    expect(await auditActions(account.userId)).toEqual(["two_factor.enabled"]);
  });

  it("keeps the secret sealed with the server secret and the recovery codes hashed: never in the clear", async () => {
    const { api, clock } = setup();
    const account = await withTwoFactor(api, clock);
    const [row] = await db().select().from(users).where(eq(users.id, account.userId));
    const sealed = row?.totpSecretSealed ?? "";
    expect(sealed).not.toBe("");
    expect(sealed).not.toContain(account.secret);
    expect(sealed.toLowerCase()).not.toContain(account.secret.toLowerCase());
    expect(Buffer.from(sealed, "base64url").toString("latin1")).not.toContain(account.secret);
    // It opens with the server secret, for this user only, and not with another secret.
    expect(twoFactorKeys(SESSION_SECRET).openSecret(sealed, account.userId)).toBe(account.secret);
    expect(twoFactorKeys(SESSION_SECRET).openSecret(sealed, account.userId + 1)).toBeNull();
    expect(twoFactorKeys(`${SESSION_SECRET}-other`).openSecret(sealed, account.userId)).toBeNull();
    const stored = await db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, account.userId));
    expect(stored).toHaveLength(10);
    const text = JSON.stringify(stored);
    for (const code of account.recoveryCodes) {
      expect(text).not.toContain(code);
      expect(text).not.toContain(code.replace("-", ""));
    }
    const challenge = await challengeOf(api, account.email);
    expect(JSON.stringify(await db().select().from(loginChallenges))).not.toContain(challenge.challengeToken);
  });

  it("login with two-factor on answers a challenge and no token; the code answers SPEC's login answer; the same code never twice; the adjacent step is accepted", async () => {
    const { api, clock } = setup();
    const account = await withTwoFactor(api, clock);
    const tokensBefore = (await db().select({ n: count() }).from(accessTokens))[0]?.n;

    clock.advance(MINUTE);
    const challenge = await challengeOf(api, account.email);
    expect(Object.keys(challenge).sort()).toEqual(["challengeToken", "twoFactor"]);
    expect(challenge.twoFactor).toBe("verify");
    expect((await db().select({ n: count() }).from(accessTokens))[0]?.n).toBe(tokensBefore);

    const code = codeAt(account.secret, clock.now());
    const signedIn = await json<{ accessToken: string; appSettings: object }>(
      await call(api, "POST", "/api/Identity/login-code", { challengeToken: challenge.challengeToken, code }),
    );
    expect(Object.keys(signedIn).sort()).toEqual(["accessToken", "appSettings"]);
    expect(signedIn.appSettings).toEqual({ hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: false });
    expect((await call(api, "GET", "/api/Users/MyDetails", undefined, signedIn.accessToken)).status).toBe(200);

    // The challenge is spent.
    const spent = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", { challengeToken: challenge.challengeToken, code }),
      400,
    );
    expect(spent.detail).toBe(TWO_FACTOR_MESSAGES.challengeInvalid);

    // The same code at a new login (within its window): refused.
    const second = await challengeOf(api, account.email);
    const reused = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", { challengeToken: second.challengeToken, code }),
      400,
    );
    expect(reused.detail).toBe(TWO_FACTOR_MESSAGES.reusedCode);

    // 30 s later the app shows the next code; the previous step's code (a slow clock) would be
    // the one just used, so a new code of the step before the current one proves ±30 s instead.
    clock.advance(60 * 1000);
    const behind = codeAt(account.secret, new Date(clock.now().getTime() - 30 * 1000));
    const ok = await call(api, "POST", "/api/Identity/login-code", {
      challengeToken: second.challengeToken,
      code: behind,
    });
    expect(ok.status, await ok.clone().text()).toBe(200);
    // Two steps away is refused.
    clock.advance(5 * MINUTE);
    const third = await challengeOf(api, account.email);
    const far = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: third.challengeToken,
        code: codeAt(account.secret, new Date(clock.now().getTime() - 90 * 1000)),
      }),
      400,
    );
    expect(far.detail).toBe(TWO_FACTOR_MESSAGES.wrongCode);
  });

  it("a recovery code works in place of a code, once; its use is in the audit trail", async () => {
    const { api, clock } = setup();
    const account = await withTwoFactor(api, clock);
    const [first] = account.recoveryCodes;
    const challenge = await challengeOf(api, account.email);
    // Typed in capitals without the hyphen, as people do.
    const signedIn = await json<{ accessToken: string }>(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: challenge.challengeToken,
        recoveryCode: first?.replace("-", "").toUpperCase(),
      }),
    );
    expect(signedIn.accessToken).toBeTruthy();
    expect(await auditActions(account.userId)).toEqual(["two_factor.enabled", "login.recovery_code_used"]);
    expect(
      (
        await json<{ recoveryCodesLeft: number }>(
          await call(api, "GET", "/api/TwoFactor", undefined, signedIn.accessToken),
        )
      ).recoveryCodesLeft,
    ).toBe(9);

    const again = await challengeOf(api, account.email);
    const used = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: again.challengeToken,
        recoveryCode: first,
      }),
      400,
    );
    expect(used.detail).toBe(TWO_FACTOR_MESSAGES.wrongRecoveryCode);
    expect(used.errors).toEqual({ recoveryCode: [TWO_FACTOR_MESSAGES.wrongRecoveryCode] });
    // Neither both nor none.
    const neither = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", { challengeToken: again.challengeToken }),
      400,
    );
    expect(neither.errors?.code).toEqual([TWO_FACTOR_MESSAGES.codeOrRecovery]);
    expect(await auditActions(account.userId)).toEqual(["two_factor.enabled", "login.recovery_code_used"]);
  });

  it("wrong codes: a clear message, the challenge ends after five, a challenge expires, and the login budget runs out (429)", async () => {
    const { api, clock } = setup();
    const account = await withTwoFactor(api, clock);
    const wrongCode = () =>
      String((Number(codeAt(account.secret, clock.now())) + 500_000) % 1_000_000).padStart(6, "0");

    // An expired challenge.
    const old = await challengeOf(api, account.email);
    clock.advance(11 * MINUTE);
    const expired = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: old.challengeToken,
        code: codeAt(account.secret, clock.now()),
      }),
      400,
    );
    expect(expired.detail).toBe(TWO_FACTOR_MESSAGES.challengeInvalid);

    // Attempts so far on this address: 2 passwords. Each login and each code spend one of 10.
    const challenge = await challengeOf(api, account.email);
    const details: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: challenge.challengeToken,
        code: wrongCode(),
      });
      details.push((await expectProblem(res, 400)).detail);
    }
    expect(details).toEqual([...Array(4).fill(TWO_FACTOR_MESSAGES.wrongCode), TWO_FACTOR_MESSAGES.challengeTooMany]);
    // The right code no longer helps on that challenge.
    const dead = await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: challenge.challengeToken,
        code: codeAt(account.secret, clock.now()),
      }),
      400,
    );
    expect(dead.detail).toBe(TWO_FACTOR_MESSAGES.challengeTooMany);

    // 8 attempts spent (2 + 1 + 5); the dead challenge spent none. One more login and one code: 10.
    const next = await challengeOf(api, account.email);
    await expectProblem(
      await call(api, "POST", "/api/Identity/login-code", { challengeToken: next.challengeToken, code: wrongCode() }),
      400,
    );
    const limited = await call(api, "POST", "/api/Identity/login-code", {
      challengeToken: next.challengeToken,
      code: codeAt(account.secret, clock.now()),
    });
    const problem = await expectProblem(limited, 429);
    expect(problem.detail).toBe(DETAILS.tooManyAttempts);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // No token was issued by any of it.
    const tokens = await db().select().from(accessTokens).where(eq(accessTokens.userId, account.userId));
    expect(tokens).toHaveLength(1);
  });

  it("the company's requirement: only an Owner sets it (a Manager gets 403 and nothing changes); a manager without an app is asked to set one up at login, with the challenge in place of a bearer, and then gets the token", async () => {
    const { api, clock } = setup();
    const owner = await signUpVerified(api, db(), { email: "boss@example.com" });
    const other = await signUpVerified(api, db(), { email: "staff@example.com" });
    const [ownerRow] = await db().select().from(users).where(eq(users.id, owner.userId));
    const companyId = ownerRow?.companyId ?? 0;
    // The second account joins the Owner's company as a Manager.
    await db().update(users).set({ companyId, managerRole: "manager" }).where(eq(users.id, other.userId));
    const managerToken = (await json<{ accessToken: string }>(await logIn(api, other.email))).accessToken;

    const refused = await expectProblem(
      await call(api, "PUT", "/api/TwoFactor/company-requirement", { required: true }, managerToken),
      403,
    );
    expect(refused.detail).toBe(DETAILS.ownerOnly);
    const [unchanged] = await db().select().from(companies).where(eq(companies.id, companyId));
    expect(unchanged?.twoFactorRequired).toBe(false);
    expect(await auditActions(other.userId)).toEqual([]);

    expect(
      await json(await call(api, "PUT", "/api/TwoFactor/company-requirement", { required: true }, owner.accessToken)),
    ).toEqual({ required: true });
    const [changed] = await db().select().from(companies).where(eq(companies.id, companyId));
    expect(changed?.twoFactorRequired).toBe(true);
    const [entry] = await db().select().from(auditLog).where(eq(auditLog.actorUserId, owner.userId));
    expect(entry).toMatchObject({
      action: "settings.two_factor_required_changed",
      subject: `company:${companyId}`,
      data: { from: false, to: true },
    });

    // The Manager's next login: a set-up challenge, no token.
    const challenge = await challengeOf(api, other.email);
    expect(challenge.twoFactor).toBe("setup");
    // The set-up challenge is no code challenge.
    expect(
      (
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          code: "123456",
        })
      ).status,
    ).toBe(400);
    // Without a bearer or a challenge: 401.
    expect((await call(api, "POST", "/api/TwoFactor/setup", {})).status).toBe(401);
    expect((await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: "nope" })).status).toBe(401);

    const started = await json<{ secret: string }>(
      await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: challenge.challengeToken }),
    );
    const confirmed = await json<{ recoveryCodes: string[]; signIn: { accessToken: string; appSettings: object } }>(
      await call(api, "POST", "/api/TwoFactor/confirm", {
        challengeToken: challenge.challengeToken,
        code: codeAt(started.secret, clock.now()),
      }),
    );
    expect(confirmed.recoveryCodes).toHaveLength(10);
    expect(Object.keys(confirmed.signIn).sort()).toEqual(["accessToken", "appSettings"]);
    const done = confirmed.signIn;
    const status = await json<{ enabled: boolean; companyRequired: boolean }>(
      await call(api, "GET", "/api/TwoFactor", undefined, done.accessToken),
    );
    expect(status).toMatchObject({ enabled: true, companyRequired: true });
    // The challenge is spent with the login it finished.
    expect((await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: challenge.challengeToken })).status).toBe(
      401,
    );

    // Turning it off is refused while the company requires it.
    const kept = await expectProblem(
      await call(api, "POST", "/api/TwoFactor/disable", { password: PASSWORD }, done.accessToken),
      409,
    );
    expect(kept.detail).toBe(TWO_FACTOR_MESSAGES.requiredByCompany);
    const [still] = await db().select().from(users).where(eq(users.id, other.userId));
    expect(still?.totpEnabledAt).not.toBeNull();

    // From now on the Manager's login asks for a code.
    clock.advance(MINUTE);
    expect((await challengeOf(api, other.email)).twoFactor).toBe("verify");
  });

  it("turning off and new recovery codes need the password; off, the login answers SPEC's shape again", async () => {
    const { api, clock } = setup();
    const account = await withTwoFactor(api, clock);
    const token = account.accessToken;

    const wrong = await expectProblem(
      await call(api, "POST", "/api/TwoFactor/recovery-codes", { password: "Wrong#2024" }, token),
      400,
    );
    expect(wrong.detail).toBe(TWO_FACTOR_MESSAGES.wrongPassword);
    const fresh = await json<{ recoveryCodes: string[] }>(
      await call(api, "POST", "/api/TwoFactor/recovery-codes", { password: PASSWORD }, token),
    );
    expect(fresh.recoveryCodes).toHaveLength(10);
    expect(fresh.recoveryCodes).not.toEqual(account.recoveryCodes);
    // An old code no longer works; a new one does.
    const challenge = await challengeOf(api, account.email);
    expect(
      (
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          recoveryCode: account.recoveryCodes[0],
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          recoveryCode: fresh.recoveryCodes[0],
        })
      ).status,
    ).toBe(200);

    const notOff = await expectProblem(
      await call(api, "POST", "/api/TwoFactor/disable", { password: "Wrong#2024" }, token),
      400,
    );
    expect(notOff.errors).toEqual({ password: [TWO_FACTOR_MESSAGES.wrongPassword] });
    expect((await db().select().from(users).where(eq(users.id, account.userId)))[0]?.totpEnabledAt).not.toBeNull();

    const off = await call(api, "POST", "/api/TwoFactor/disable", { password: PASSWORD }, token);
    expect(off.status).toBe(204);
    const [row] = await db().select().from(users).where(eq(users.id, account.userId));
    expect(row).toMatchObject({ totpEnabledAt: null, totpSecretSealed: null });
    expect(
      await db()
        .select()
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, account.userId))),
    ).toEqual([]);
    expect(await auditActions(account.userId)).toEqual([
      "two_factor.enabled",
      "two_factor.recovery_codes_regenerated",
      "login.recovery_code_used",
      "two_factor.disabled",
    ]);
    clock.advance(MINUTE);
    const login = await json<Record<string, unknown>>(await logIn(api, account.email));
    expect(Object.keys(login).sort()).toEqual(["accessToken", "appSettings"]);
  });
});
