// Two-factor sign-in's guards through the API, against the real database (PGlite and PostgreSQL;
// the concurrent cases on PostgreSQL only, where requests really run side by side). docs/requirements.md §D7
// and ADR 0042:
//   - a second factor is enrolled only after the current password is given again: a bearer token
//     alone (a stolen session) cannot put someone's authenticator on the account. The company's
//     forced set-up at login needs no password again: its challenge was opened by the password and
//     ends with any password reset, change or email change;
//   - a login challenge's five attempts are counted before the code is checked, never after, so
//     however many requests arrive at once, at most five codes are ever checked; a challenge used
//     up by wrong codes emails its owner once ("someone who knows your password tried to sign in");
//   - the forced set-up turns the app on, ends its challenge and opens the session in one
//     transaction, so a challenge ended meanwhile (a password reset) leaves no app on.
import { and, eq, isNull } from "drizzle-orm";
import { TOTP } from "otpauth";
import pg from "pg";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { accessTokens, auditLog, loginChallenges, recoveryCodes, users } from "../../server/db/schema.ts";
import { snapshot } from "../../tests/security/fixtures.ts";
import { expectJson, expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import {
  accountsApi,
  authenticatorCode,
  call,
  emailsTo,
  logIn,
  ownerWithApp,
  PASSWORD,
  signUpVerified,
} from "../identity/accounts.testkit.ts";
import { PASSWORD_MESSAGES } from "../identity/password.ts";
import { TWO_FACTOR_MESSAGES } from "./schema.ts";

const SESSION_SECRET = "two-factor-guards-test-session-secret-0123456789";
const MINUTE = 60 * 1000;
/** The subject of the email a challenge used up by wrong codes sends its owner. */
const NOTICE_SUBJECT = "Someone tried to sign in with your password";

type Api = ReturnType<typeof accountsApi>["api"];

/** Codes that are surely wrong at `at`: none is the code of the step before, of, or after it. */
function wrongCodes(secret: string, at: Date, count: number): string[] {
  const near = new Set([-30_000, 0, 30_000].map((d) => authenticatorCode(secret, new Date(at.getTime() + d))));
  const out: string[] = [];
  for (let n = 104_729; out.length < count; n += 7_919) {
    const code = String(n % 1_000_000).padStart(6, "0");
    if (!near.has(code) && !out.includes(code)) out.push(code);
  }
  return out;
}

describeEachDatabase(
  "two-factor sign-in: enrolment needs the password, attempts counted first",
  ({ kind, database }) => {
    // Every request of the bursts below must reach the code check: the login budgets (ten per
    // account and address) are a separate guard, tested in two-factor.test.ts.
    const config = testConfig({ SESSION_SECRET, RATE_LIMIT_FACTOR: "50" });
    const db = () => database().db;
    beforeEach(() => truncateAll(db()));
    afterEach(() => vi.restoreAllMocks());
    // One PGlite connection runs one request's statements at a time: nothing to race there.
    const onPostgres = kind === "postgres" ? it : it.skip;

    const setup = () => accountsApi(db(), { config });
    const userRow = async (userId: number) => (await db().select().from(users).where(eq(users.id, userId)))[0]!;
    const openTokens = async (userId: number) =>
      (
        await db()
          .select({ id: accessTokens.id })
          .from(accessTokens)
          .where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
      ).length;
    const notices = async (email: string) => (await emailsTo(db(), email)).filter((m) => m.subject === NOTICE_SUBJECT);

    /** A verified Owner without an app whose company requires one, at the start of a login's forced set-up. */
    async function ownerInForcedSetup(api: Api) {
      const owner = await signUpVerified(api, db());
      await expectJson(
        await call(api, "PUT", "/api/TwoFactor/company-requirement", { required: true }, owner.accessToken),
      );
      const login = await expectJson<{ twoFactor: string; challengeToken: string }>(await logIn(api, owner.email));
      expect(login.twoFactor).toBe("setup");
      const started = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: login.challengeToken }),
      );
      return { ...owner, challengeToken: login.challengeToken, secret: started.secret };
    }

    // ─── Enrolment ──────────────────────────────────────────────────────────────────────────────

    it("a bearer token alone cannot turn an app on: confirm without the password or with a wrong one is refused and changes nothing; with it, it turns on", async () => {
      const { api, clock } = setup();
      const owner = await signUpVerified(api, db());
      // Whoever holds the session starts a set-up and scans the secret into their own app.
      const theirs = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", {}, owner.accessToken),
      );
      const before = await snapshot(db(), ["rate_limit_counters"]);

      const missing = await expectProblem(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(theirs.secret, clock.now()) },
          owner.accessToken,
        ),
        400,
      );
      expect(missing.errors?.password).toEqual([PASSWORD_MESSAGES.required]);
      const wrong = await expectProblem(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(theirs.secret, clock.now()), password: "Wrong#Pass1" },
          owner.accessToken,
        ),
        400,
      );
      expect(wrong.detail).toBe(TWO_FACTOR_MESSAGES.wrongPassword);
      expect(wrong.errors).toEqual({ password: [TWO_FACTOR_MESSAGES.wrongPassword] });
      // Nothing changed: still off, no recovery codes, no audit entry, the same pending secret.
      expect(await snapshot(db(), ["rate_limit_counters"])).toEqual(before);
      expect((await userRow(owner.userId)).totpEnabledAt).toBeNull();

      // The owner, who knows the password, turns it on.
      const on = await expectJson<{ recoveryCodes: string[]; signIn: null }>(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(theirs.secret, clock.now()), password: PASSWORD },
          owner.accessToken,
        ),
      );
      expect(on.recoveryCodes).toHaveLength(10);
      expect(on.signIn).toBeNull();
      expect((await userRow(owner.userId)).totpEnabledAt).not.toBeNull();
      const actions = await db().select({ action: auditLog.action }).from(auditLog);
      expect(actions.map((a) => a.action)).toEqual(["two_factor.enabled"]);
    });

    it("a waiting secret belongs to the session shown it: a stolen session never learns the secret the owner turns on, and cannot confirm the owner's", async () => {
      const { api, clock } = setup();
      const owner = await signUpVerified(api, db());
      const thief = owner.accessToken;
      // Whoever holds the stolen session starts a set-up first and keeps the secret.
      const stolen = await expectJson<{ secret: string }>(await call(api, "POST", "/api/TwoFactor/setup", {}, thief));
      // The owner, signed in on their own, reloads their set-up: the same secret each time, not the thief's.
      const own = await expectJson<{ accessToken: string }>(await logIn(api, owner.email));
      const mine = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", {}, own.accessToken),
      );
      expect(mine.secret).not.toBe(stolen.secret);
      const again = await expectJson<{ secret: string }>(
        await call(api, "POST", "/api/TwoFactor/setup", {}, own.accessToken),
      );
      expect(again.secret).toBe(mine.secret);

      // The thief, even with the password, cannot turn on the owner's waiting secret from their session…
      const before = await snapshot(db(), ["rate_limit_counters"]);
      await expectProblem(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(mine.secret, clock.now()), password: PASSWORD },
          thief,
        ),
        409,
      );
      // …nor their own one, which the owner's set-up replaced.
      await expectProblem(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(stolen.secret, clock.now()), password: PASSWORD },
          thief,
        ),
        409,
      );
      expect(await snapshot(db(), ["rate_limit_counters"])).toEqual(before);

      // The owner turns on the secret only their session was shown.
      await expectJson(
        await call(
          api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(mine.secret, clock.now()), password: PASSWORD },
          own.accessToken,
        ),
      );
      const row = await userRow(owner.userId);
      expect(row.totpEnabledAt).not.toBeNull();
      expect(row.totpSetupStartedBy).toBeNull();
    });

    it("wrong passwords at confirm spend the login budget like passwords at login (429 past it)", async () => {
      const strict = accountsApi(db(), { config: testConfig({ SESSION_SECRET }) });
      const owner = await signUpVerified(strict.api, db());
      const started = await expectJson<{ secret: string }>(
        await call(strict.api, "POST", "/api/TwoFactor/setup", {}, owner.accessToken),
      );
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await call(
          strict.api,
          "POST",
          "/api/TwoFactor/confirm",
          { code: authenticatorCode(started.secret, strict.clock.now()), password: `Wrong#Pass${i}` },
          owner.accessToken,
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(10).fill(400), 429]);
      expect((await userRow(owner.userId)).totpEnabledAt).toBeNull();
    });

    it("the company's forced set-up needs no password again: its challenge was opened with it", async () => {
      const { api, clock } = setup();
      const owner = await ownerInForcedSetup(api);
      const done = await expectJson<{ recoveryCodes: string[]; signIn: { accessToken: string } }>(
        await call(api, "POST", "/api/TwoFactor/confirm", {
          challengeToken: owner.challengeToken,
          code: authenticatorCode(owner.secret, clock.now()),
        }),
      );
      expect(done.recoveryCodes).toHaveLength(10);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, done.signIn.accessToken)).status).toBe(200);
    });

    // ─── Attempts counted first ─────────────────────────────────────────────────────────────────

    it("five wrong codes use a challenge up: the owner is emailed once; the right code afterwards is refused and sends no second email", async () => {
      const { api, clock, onEmailQueued } = setup();
      const owner = await ownerWithApp(api, db(), clock.now());
      clock.advance(MINUTE);
      const challenge = await expectJson<{ challengeToken: string }>(await logIn(api, owner.email));
      onEmailQueued.mockClear();
      const details: string[] = [];
      for (const code of wrongCodes(owner.secret, clock.now(), 5)) {
        const res = await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          code,
        });
        details.push((await expectProblem(res, 400)).detail);
      }
      expect(details).toEqual([...Array(4).fill(TWO_FACTOR_MESSAGES.wrongCode), TWO_FACTOR_MESSAGES.challengeTooMany]);
      const sent = await notices(owner.email);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.text).toContain("someone who knows your password tried to sign in");
      expect(onEmailQueued).toHaveBeenCalled();

      const dead = await expectProblem(
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          code: authenticatorCode(owner.secret, clock.now()),
        }),
        400,
      );
      expect(dead.detail).toBe(TWO_FACTOR_MESSAGES.challengeTooMany);
      expect(await notices(owner.email)).toHaveLength(1);
    });

    it("a right code as the fifth attempt still signs in, and no email is sent", async () => {
      const { api, clock } = setup();
      const owner = await ownerWithApp(api, db(), clock.now());
      clock.advance(MINUTE);
      const challenge = await expectJson<{ challengeToken: string }>(await logIn(api, owner.email));
      for (const code of wrongCodes(owner.secret, clock.now(), 4)) {
        await expectProblem(
          await call(api, "POST", "/api/Identity/login-code", { challengeToken: challenge.challengeToken, code }),
          400,
        );
      }
      await expectJson(
        await call(api, "POST", "/api/Identity/login-code", {
          challengeToken: challenge.challengeToken,
          code: authenticatorCode(owner.secret, clock.now()),
        }),
      );
      expect(await notices(owner.email)).toEqual([]);
    });

    /**
     * 34 requests written at once on one challenge: the right code after 10, 15, 20 and 25 wrong
     * ones (requests 11, 17, 23 and 29), five times. The codes the server checks are observed where
     * it checks them (otpauth's TOTP#validate, which modules/two-factor/service.server.ts calls for every
     * code). However the requests interleave, at most five codes are checked, and a sign-in happens
     * exactly when the right code is among them.
     */
    const burst = (wrong: string[], right: string) => {
      const order: string[] = [];
      let w = 0;
      for (let i = 1; i <= 34; i++) order.push([11, 17, 23, 29].includes(i) ? right : (wrong[w++] as string));
      return order;
    };

    onPostgres(
      "34 codes at once on one login challenge: at most five are checked, and the right code after five wrong ones never signs in",
      async () => {
        const { api, clock } = setup();
        const owner = await ownerWithApp(api, db(), clock.now());
        const validate = vi.spyOn(TOTP.prototype, "validate");
        for (let run = 0; run < 5; run++) {
          clock.advance(2 * MINUTE); // a new time step: the last run's right code is not "already used"
          const challenge = await expectJson<{ challengeToken: string }>(await logIn(api, owner.email));
          const right = authenticatorCode(owner.secret, clock.now());
          const noticesBefore = (await notices(owner.email)).length;
          const tokensBefore = await openTokens(owner.userId);
          validate.mockClear();
          const answers = await Promise.all(
            burst(wrongCodes(owner.secret, clock.now(), 30), right).map((code) =>
              call(api, "POST", "/api/Identity/login-code", { challengeToken: challenge.challengeToken, code }),
            ),
          );
          const checked = validate.mock.calls.map(([options]) => options.token);
          const signIns = answers.filter((r) => r.status === 200).length;
          expect(checked.length, `run ${run}: codes checked ${checked.join(",")}`).toBeLessThanOrEqual(5);
          expect(signIns, `run ${run}`).toBeLessThanOrEqual(1);
          expect(signIns === 1, `run ${run}: signed in iff the right code was checked`).toBe(checked.includes(right));
          expect(await openTokens(owner.userId)).toBe(tokensBefore + signIns);
          const [row] = await db().select().from(loginChallenges).where(eq(loginChallenges.userId, owner.userId));
          expect(row?.attempts).toBeLessThanOrEqual(5);
          const sent = (await notices(owner.email)).length - noticesBefore;
          if (signIns === 0) expect(sent, `run ${run}: one email for the used-up challenge`).toBe(1);
          else expect(sent).toBeLessThanOrEqual(1);
        }
      },
    );

    onPostgres(
      "34 codes at once on the company's forced set-up challenge: at most five are checked, at most one app turned on",
      async () => {
        const { api, clock } = setup();
        const validate = vi.spyOn(TOTP.prototype, "validate");
        for (let run = 0; run < 5; run++) {
          const owner = await ownerInForcedSetup(api);
          const right = authenticatorCode(owner.secret, clock.now());
          validate.mockClear();
          const answers = await Promise.all(
            burst(wrongCodes(owner.secret, clock.now(), 30), right).map((code) =>
              call(api, "POST", "/api/TwoFactor/confirm", { challengeToken: owner.challengeToken, code }),
            ),
          );
          const checked = validate.mock.calls.map(([options]) => options.token);
          const signIns = answers.filter((r) => r.status === 200).length;
          expect(checked.length, `run ${run}: codes checked ${checked.join(",")}`).toBeLessThanOrEqual(5);
          expect(signIns, `run ${run}`).toBeLessThanOrEqual(1);
          expect(signIns === 1, `run ${run}: turned on iff the right code was checked`).toBe(checked.includes(right));
          expect((await userRow(owner.userId)).totpEnabledAt !== null).toBe(signIns === 1);
          clock.advance(MINUTE);
        }
      },
    );

    // ─── The forced set-up and a challenge ended meanwhile ──────────────────────────────────────

    onPostgres.each(["challenge", "user"] as const)(
      "a set-up challenge ended while its confirm is in flight (the %s row held, as a password reset holds it) leaves no app on and no session",
      async (held) => {
        const { api, clock } = setup();
        const owner = await ownerInForcedSetup(api);
        const [challenge] = await db()
          .select({ id: loginChallenges.id })
          .from(loginChallenges)
          .where(and(eq(loginChallenges.userId, owner.userId), isNull(loginChallenges.consumedAt)));
        const tokensBefore = await openTokens(owner.userId);

        // A second connection plays the password reset: it holds the row, the confirm queues behind
        // it, and meanwhile the reset ends the challenge and forgets the pending secret
        // (identity.ts endSignInsInProgress), then commits.
        const reset = new pg.Client({ connectionString: database().url });
        await reset.connect();
        try {
          await reset.query("begin");
          if (held === "challenge")
            await reset.query("select id from login_challenges where id = $1 for update", [challenge!.id]);
          else await reset.query("select id from users where id = $1 for update", [owner.userId]);
          const confirming = Promise.resolve(
            call(api, "POST", "/api/TwoFactor/confirm", {
              challengeToken: owner.challengeToken,
              code: authenticatorCode(owner.secret, clock.now()),
            }),
          );
          // Wait until the confirm waits for the held row (or has finished without it).
          let settled = false;
          void confirming.then(() => {
            settled = true;
          });
          for (let i = 0; i < 200 && !settled; i++) {
            const waiting = await reset.query(
              "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            );
            if ((waiting.rows[0] as { n: number }).n > 0) break;
            await new Promise((r) => setTimeout(r, 25));
          }
          await reset.query(
            "update login_challenges set consumed_at = now() where user_id = $1 and consumed_at is null",
            [owner.userId],
          );
          await reset.query(
            "update users set totp_secret_sealed = null, totp_last_step = null where id = $1 and totp_enabled_at is null",
            [owner.userId],
          );
          await reset.query("commit");
          const answer = await confirming;
          expect(answer.status, await answer.clone().text()).not.toBe(200);
        } finally {
          await reset.end();
        }
        const row = await userRow(owner.userId);
        expect(row.totpEnabledAt).toBeNull();
        expect(await db().select().from(recoveryCodes).where(eq(recoveryCodes.userId, owner.userId))).toEqual([]);
        expect(await openTokens(owner.userId)).toBe(tokensBefore);
      },
    );
  },
);
