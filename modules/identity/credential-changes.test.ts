// Where password reset, password change, email change and two-factor sign-in meet, through the
// API against the real database (PGlite and PostgreSQL). docs/requirements.md §D7 and ADR 0042:
// a password reset, a password change or an email change ends every open sign-in challenge of
// the user (a "verify" one and the company's forced "setup" one, with any app secret waiting for
// its first code) and voids every reset link the user has not used. Otherwise someone holding the
// old password and a challenge finishes signing in after the owner has shut them out.
import { and, eq, isNull } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { accessTokens, recoveryCodes, users } from "../../server/db/schema.ts";
import { snapshot } from "../../tests/security/fixtures.ts";
import { expectJson, expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { TWO_FACTOR_MESSAGES } from "../two-factor/schema.ts";
import {
  accountsApi,
  authenticatorCode,
  call,
  latestCode,
  latestResetToken,
  logIn,
  NEW_PASSWORD,
  ownerWithApp,
  PASSWORD,
  signUpVerified,
} from "./accounts.testkit.ts";

const SESSION_SECRET = "credential-changes-test-session-secret-0123456789";
const MINUTE = 60 * 1000;

type Api = ReturnType<typeof accountsApi>["api"];
type Account = Awaited<ReturnType<typeof signUpVerified>>;

/** The owner's own change, made while someone else holds a challenge: answers the address and password after it. */
type Change = (
  api: Api,
  db: Parameters<typeof signUpVerified>[1],
  owner: Account,
) => Promise<{ email: string; password: string }>;

const changes: Record<string, Change> = {
  "a password reset": async (api, db, owner) => {
    expect((await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: owner.email })).status).toBe(200);
    const token = await latestResetToken(db, owner.email);
    const res = await call(api, "POST", "/api/Identity/ResetPassword", {
      passwordResetToken: token,
      password: NEW_PASSWORD,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return { email: owner.email, password: NEW_PASSWORD };
  },
  "a password change": async (api, _db, owner) => {
    await expectJson(
      await call(
        api,
        "POST",
        "/api/Users/MyPassword",
        { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        owner.accessToken,
      ),
    );
    return { email: owner.email, password: NEW_PASSWORD };
  },
  "an email change": async (api, db, owner) => {
    const newEmail = `moved.${owner.email}`;
    const { requestToken } = await expectJson<{ requestToken: string }>(
      await call(api, "POST", "/api/Users/MyEmail/Request", { newEmail, currentPassword: PASSWORD }, owner.accessToken),
    );
    const verificationCode = await latestCode(db, newEmail);
    await expectJson(
      await call(api, "POST", "/api/Users/MyEmail/Confirm", { requestToken, verificationCode }, owner.accessToken),
    );
    return { email: newEmail, password: PASSWORD };
  },
};

describeEachDatabase("a password or email change ends open sign-ins and reset links", ({ database }) => {
  const config = testConfig({ SESSION_SECRET });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  const setup = () => accountsApi(db(), { config });

  /** Access tokens of the user still open (neither revoked nor expired at the test clock's start). */
  const openTokens = async (userId: number) =>
    db()
      .select({ id: accessTokens.id })
      .from(accessTokens)
      .where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)));
  const userRow = async (userId: number) => (await db().select().from(users).where(eq(users.id, userId)))[0]!;

  /** A verified Owner without an app whose company requires one; their sign-up session stays open (ADR 0042 §8). */
  async function ownerWithRequirement(api: Api) {
    const owner = await signUpVerified(api, db());
    await expectJson(
      await call(api, "PUT", "/api/TwoFactor/company-requirement", { required: true }, owner.accessToken),
    );
    return owner;
  }

  it.each(Object.keys(changes))(
    "a code challenge opened before %s cannot be completed after it; a new login's can",
    async (name) => {
      const { api, clock } = setup();
      const owner = await ownerWithApp(api, db(), clock.now());
      const tokensBefore = (await openTokens(owner.userId)).length;
      // Someone else holds the old password: the login answers a challenge for the code.
      const stolen = await expectJson<{ twoFactor: string; challengeToken: string }>(await logIn(api, owner.email));
      expect(stolen.twoFactor).toBe("verify");

      clock.advance(MINUTE);
      const after = await changes[name]!(api, db(), owner);

      // Even with a right code (a second factor stolen too), the challenge is over.
      clock.advance(MINUTE);
      const refused = await expectProblem(
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: stolen.challengeToken,
          code: authenticatorCode(owner.secret, clock.now()),
        }),
        400,
      );
      expect(refused.detail).toBe(TWO_FACTOR_MESSAGES.challengeInvalid);
      // No session came of it (a reset revokes them all; the others keep the owner's).
      expect((await openTokens(owner.userId)).length).toBeLessThanOrEqual(tokensBefore);

      // The owner's own login after the change works as before.
      const mine = await expectJson<{ twoFactor: string; challengeToken: string }>(
        await logIn(api, after.email, after.password),
      );
      const done = await expectJson<{ accessToken: string }>(
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: mine.challengeToken,
          code: authenticatorCode(owner.secret, clock.now()),
        }),
      );
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, done.accessToken)).status).toBe(200);
    },
  );

  it.each(Object.keys(changes))(
    "the company's set-up challenge opened before %s cannot set an app up or sign in after it, and the app it was shown is forgotten",
    async (name) => {
      const { api, clock } = setup();
      const owner = await ownerWithRequirement(api);
      const tokensBefore = (await openTokens(owner.userId)).length;
      // Someone else holds the old password: the login asks them to set an app up, and they start.
      const stolen = await expectJson<{ twoFactor: string; challengeToken: string }>(await logIn(api, owner.email));
      expect(stolen.twoFactor).toBe("setup");
      const theirs = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: stolen.challengeToken }),
      );

      clock.advance(MINUTE);
      const after = await changes[name]!(api, db(), owner);

      clock.advance(MINUTE);
      const again = await expectProblem(
        await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: stolen.challengeToken }),
        401,
      );
      expect(again.detail).toBe(TWO_FACTOR_MESSAGES.challengeInvalid);
      const confirm = await expectProblem(
        await call(api, "POST", "/api/TwoFactor/confirm", {
          challengeToken: stolen.challengeToken,
          code: authenticatorCode(theirs.secret, clock.now()),
        }),
        401,
      );
      expect(confirm.detail).toBe(TWO_FACTOR_MESSAGES.challengeInvalid);
      // Nothing of theirs is on the account: no app, no recovery codes, no session.
      const row = await userRow(owner.userId);
      expect(row.totpEnabledAt).toBeNull();
      expect(row.totpSecretSealed).toBeNull();
      expect(await db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, owner.userId))).toEqual([]);
      expect((await openTokens(owner.userId)).length).toBeLessThanOrEqual(tokensBefore);

      // The owner's own set-up after the change starts from a new secret, not the one they were shown.
      const mine = await expectJson<{ twoFactor: string; challengeToken: string }>(
        await logIn(api, after.email, after.password),
      );
      expect(mine.twoFactor).toBe("setup");
      const fresh = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: mine.challengeToken }),
      );
      expect(fresh.secret).not.toBe(theirs.secret);
      const confirmed = await expectJson<{ recoveryCodes: string[]; signIn: { accessToken: string } }>(
        await call(api, "POST", "/api/TwoFactor/confirm", {
          challengeToken: mine.challengeToken,
          code: authenticatorCode(fresh.secret, clock.now()),
        }),
      );
      expect(confirmed.recoveryCodes).toHaveLength(10);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, confirmed.signIn.accessToken)).status).toBe(
        200,
      );
    },
  );

  it.each(["an email change", "a password change"])(
    "a reset link issued before %s no longer works after it: a clear message, and nothing changes",
    async (name) => {
      const { api, clock } = setup();
      const owner = await signUpVerified(api, db());
      expect((await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: owner.email })).status).toBe(200);
      const link = await latestResetToken(db(), owner.email);

      clock.advance(MINUTE);
      const after = await changes[name]!(api, db(), owner);

      // Every table but the rate-limit counters (the refused call spends its budget, by design).
      const before = await snapshot(db(), ["rate_limit_counters"]);
      const refused = await expectProblem(
        await call(api, "POST", "/api/Identity/ResetPassword", { passwordResetToken: link, password: "Third#Pass3" }),
        400,
      );
      expect(refused.detail).toBe(DETAILS.resetTokenInvalid);
      expect(await snapshot(db(), ["rate_limit_counters"])).toEqual(before);
      expect((await logIn(api, after.email, after.password)).status).toBe(200);
      expect((await logIn(api, after.email, "Third#Pass3")).status).toBe(400);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, owner.accessToken)).status).toBe(200);

      // A link asked for after the change works.
      expect((await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: after.email })).status).toBe(200);
      const fresh = await latestResetToken(db(), after.email);
      expect(
        (await call(api, "POST", "/api/Identity/ResetPassword", { passwordResetToken: fresh, password: "Third#Pass3" }))
          .status,
      ).toBe(200);
    },
  );

  it("a refused change ends nothing: a wrong current password leaves the open challenge and the reset link working", async () => {
    const { api, clock } = setup();
    const owner = await ownerWithApp(api, db(), clock.now());
    expect((await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: owner.email })).status).toBe(200);
    const link = await latestResetToken(db(), owner.email);
    const challenge = await expectJson<{ challengeToken: string }>(await logIn(api, owner.email));
    await expectProblem(
      await call(
        api,
        "POST",
        "/api/Users/MyPassword",
        { currentPassword: "Wrong#Pass1", newPassword: NEW_PASSWORD },
        owner.accessToken,
      ),
      400,
    );
    clock.advance(MINUTE);
    await expectJson(
      await call(api, "POST", "/api/Identity/login-code", {
        challengeToken: challenge.challengeToken,
        code: authenticatorCode(owner.secret, clock.now()),
      }),
    );
    expect(
      (await call(api, "POST", "/api/Identity/ResetPassword", { passwordResetToken: link, password: NEW_PASSWORD }))
        .status,
    ).toBe(200);
  });
});
