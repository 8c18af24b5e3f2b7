// Register and the Identity calls (docs/requirements.md §S7, §S8), against the real database (PGlite and
// PostgreSQL): success, each validation failure with its message, duplicate email, expired and
// reused codes and tokens, too many attempts, per-account rate limits, revoked tokens.
import { count, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import {
  accessTokens,
  companies,
  emailOutbox,
  emailVerifications,
  passwordResets,
  users,
} from "../../server/db/schema.ts";
import { expectProblem, fakeCaptcha } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import {
  accountsApi,
  call,
  emailsTo,
  lastEmailTo,
  latestCode,
  latestResetToken,
  logIn,
  NEW_PASSWORD,
  PASSWORD,
  registration,
  signUp,
  signUpVerified,
} from "./accounts.testkit.ts";
import { randomToken, sha256Hex } from "./identity-crypto.server.ts";

const APP_URL = "https://rewards.test";
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachDatabase("accounts API", ({ database }) => {
  const config = testConfig({ APP_URL });
  const db = () => database().db;
  const setup = (options: Partial<Parameters<typeof accountsApi>[1]> = {}) => accountsApi(db(), { config, ...options });

  beforeEach(() => truncateAll(db()));

  describe("POST /api/Register", () => {
    it("creates the company and its unverified program manager, answers userId and requestToken, and queues the code email", async () => {
      const captcha = fakeCaptcha(true);
      const { api, onEmailQueued } = setup({ captcha });
      const body = registration({ email: "  Jane.Citizen@Example.com ", companyName: "Acme Pty Ltd" });
      const res = await call(api, "POST", "/api/Register", body);
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { userId: string; requestToken: string };
      expect(Object.keys(answer).sort()).toEqual(["requestToken", "userId"]);
      // userId is the user's random public id, never the sequential internal one.
      expect(answer.userId).toMatch(UUID);
      expect(answer.requestToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const [user] = await db().select().from(users).where(eq(users.publicId, answer.userId));
      expect(user).toBeDefined();
      expect(String(user?.id)).not.toBe(answer.userId);
      expect(user).toMatchObject({
        firstName: "Jane",
        lastName: "Citizen",
        email: "Jane.Citizen@Example.com",
        role: "program_manager",
        managerRole: "owner",
        isActive: true,
        emailVerifiedAt: null,
        hasWatchedOnboardingVideo: false,
      });
      expect(user?.passwordHash).toMatch(/^\$argon2id\$/);
      expect(user?.passwordHash).not.toContain(PASSWORD);
      const [company] = await db()
        .select()
        .from(companies)
        .where(eq(companies.id, user?.companyId ?? 0));
      expect(company).toMatchObject({ name: "Acme Pty Ltd", abn: null, size: null, industry: null });

      const mail = await lastEmailTo(db(), "Jane.Citizen@Example.com");
      expect(mail.subject).toBe("Your verification code");
      const code = await latestCode(db(), "Jane.Citizen@Example.com");
      expect(code).toMatch(/^\d{6}$/);
      expect(mail.html).toContain(code);
      expect(mail.html).toMatch(/^<!doctype html>/);
      expect(mail.text).toContain("expires in 10 minutes");
      expect(onEmailQueued).toHaveBeenCalledTimes(1);
      expect(captcha.checks).toEqual([{ token: "captcha-token", isV3: true, action: "signup", remoteIp: undefined }]);

      // Only hashes are stored.
      const [verification] = await db().select().from(emailVerifications);
      expect(verification?.requestTokenHash).not.toContain(answer.requestToken);
      expect(verification?.codeHash).not.toContain(code);
      expect(verification?.expiresAt.toISOString()).toBe("2025-03-01T09:10:00.000Z");
    });

    it("refuses an address already used, in any letter case: 409 with SPEC's detail, nothing stored, no email", async () => {
      const { api } = setup();
      await signUp(api, db(), { email: "taken@example.com" });
      const res = await call(api, "POST", "/api/Register", registration({ email: "TAKEN@Example.COM" }));
      const problem = await expectProblem(res, 409);
      expect(problem.detail).toBe("Email is already used, please use another one.");
      expect((await db().select({ n: count() }).from(users))[0]?.n).toBe(1);
      expect((await db().select({ n: count() }).from(companies))[0]?.n).toBe(1);
      expect((await db().select({ n: count() }).from(emailOutbox))[0]?.n).toBe(1);
    });

    it("lets an address be used again once its user is inactive", async () => {
      const { api } = setup();
      const first = await signUp(api, db(), { email: "again@example.com" });
      await db().update(users).set({ isActive: false }).where(eq(users.id, first.userId));
      const res = await call(api, "POST", "/api/Register", registration({ email: "again@example.com" }));
      expect(res.status).toBe(200);
    });

    it("refuses a failed captcha with SPEC's detail; nothing stored", async () => {
      const { api } = setup({ captcha: fakeCaptcha(false) });
      const problem = await expectProblem(await call(api, "POST", "/api/Register", registration()), 400);
      expect(problem.detail).toBe(DETAILS.captchaFailed);
      expect((await db().select({ n: count() }).from(users))[0]?.n).toBe(0);
      expect((await db().select({ n: count() }).from(emailOutbox))[0]?.n).toBe(0);
    });

    it.each([
      ["firstName", undefined, "First Name is required."],
      ["firstName", "   ", "First Name is required."],
      ["firstName", "a".repeat(65), "First Name must be at most 64 characters."],
      ["lastName", undefined, "Last Name is required."],
      ["lastName", "b".repeat(65), "Last Name must be at most 64 characters."],
      ["email", undefined, "Email is required."],
      ["email", "not-an-email", "The email format is incorrect."],
      ["email", `${"e".repeat(245)}@example.com`, "Email must be at most 256 characters."],
      ["companyName", undefined, "Company Name is required."],
      ["companyName", "c".repeat(101), "Company Name must be at most 100 characters."],
      ["password", undefined, "Password is required."],
      ["password", "", "Password is required."],
      ["password", "Secr#24", "Password must be at least 8 characters."],
      [
        "password",
        "Secret2024",
        'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
      ],
      ["password", "Secret#abc", "Password must contain at least one number."],
      ["password", "secret#2024", "Password must contain at least one capital letter."],
    ])("%s = %j → 400 %s", async (field, value, message) => {
      const { api } = setup();
      const body: Record<string, unknown> = registration();
      if (value === undefined) delete body[field];
      else body[field] = value;
      const problem = await expectProblem(await call(api, "POST", "/api/Register", body), 400);
      expect(problem.detail).toBe(message);
      expect(problem.errors?.[field]).toContain(message);
      expect((await db().select({ n: count() }).from(users))[0]?.n).toBe(0);
    });

    it("lists every failed password rule in errors.password", async () => {
      const { api } = setup();
      const problem = await expectProblem(
        await call(api, "POST", "/api/Register", registration({ password: "abc" })),
        400,
      );
      expect(problem.errors?.password).toHaveLength(4);
    });

    it("accepts names of 64 and a company name of 100 characters", async () => {
      const { api } = setup();
      const res = await call(
        api,
        "POST",
        "/api/Register",
        registration({ firstName: "a".repeat(64), lastName: "b".repeat(64), companyName: "c".repeat(100) }),
      );
      expect(res.status).toBe(200);
    });

    it("refuses a body that is not JSON", async () => {
      const { api } = setup();
      await expectProblem(await call(api, "POST", "/api/Register", "{nope"), 400);
    });

    it("never logs the password, the code or the request token", async () => {
      const logs = captureLogs("trace");
      const { api } = setup({ logger: logs.logger });
      const account = await signUpVerified(api, db());
      expect(logs.leaked(account.password, account.code, account.requestToken, account.accessToken)).toEqual([]);
    });
  });

  describe("VerifyEmailRequest and ResendVerifyEmailRequest", () => {
    it.each(["/api/Identity/VerifyEmailRequest", "/api/Identity/ResendVerifyEmailRequest"])(
      "%s emails a new code with a new requestToken; the old code stops working",
      async (path) => {
        const { api, onEmailQueued } = setup();
        const account = await signUp(api, db());
        const res = await call(api, "POST", path, { userId: account.publicId });
        expect(res.status).toBe(200);
        const { requestToken } = (await res.json()) as { requestToken: string };
        expect(requestToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(requestToken).not.toBe(account.requestToken);
        expect(await emailsTo(db(), account.email)).toHaveLength(2);
        expect(onEmailQueued).toHaveBeenCalledTimes(2);
        const newCode = await latestCode(db(), account.email);

        const old = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: account.publicId,
          requestToken: account.requestToken,
          verificationCode: account.code,
        });
        expect((await expectProblem(old, 400)).detail).toBe(DETAILS.verificationSuperseded);
        // The new code with the old token is no good either.
        const mixed = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: account.publicId,
          requestToken: account.requestToken,
          verificationCode: newCode,
        });
        expect((await expectProblem(mixed, 400)).detail).toBe(DETAILS.verificationSuperseded);

        const ok = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: account.publicId,
          requestToken,
          verificationCode: newCode,
        });
        expect(ok.status).toBe(200);
      },
    );

    it("accepts userId in upper case and with spaces around it (the same UUID)", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const upper = ` ${account.publicId.toUpperCase()} `;
      const res = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: upper });
      expect(res.status).toBe(200);
      const { requestToken } = (await res.json()) as { requestToken: string };
      const verified = await call(api, "POST", "/api/Identity/VerifyEmail", {
        userId: upper,
        requestToken,
        verificationCode: await latestCode(db(), account.email),
      });
      expect(verified.status).toBe(200);
    });

    it("cannot be aimed at a stranger: their internal id or a random UUID is a 400, no code voided or emailed", async () => {
      const { api, onEmailQueued } = setup();
      const victim = await signUp(api, db());
      onEmailQueued.mockClear();
      const guesses: unknown[] = [
        victim.userId,
        String(victim.userId),
        victim.userId + 1,
        crypto.randomUUID(),
        "00000000-0000-0000-0000-000000000000",
      ];
      for (const path of ["/api/Identity/VerifyEmailRequest", "/api/Identity/ResendVerifyEmailRequest"]) {
        for (const userId of guesses) {
          const problem = await expectProblem(await call(api, "POST", path, { userId }), 400);
          expect([DETAILS.verificationRequestInvalid, "userId is required."], `${path} ${userId}`).toContain(
            problem.detail,
          );
        }
      }
      expect((await db().select({ n: count() }).from(emailOutbox))[0]?.n).toBe(1);
      expect(onEmailQueued).not.toHaveBeenCalled();
      // Nothing was voided: the victim's first code still works.
      const ok = await call(api, "POST", "/api/Identity/VerifyEmail", {
        userId: victim.publicId,
        requestToken: victim.requestToken,
        verificationCode: victim.code,
      });
      expect(ok.status).toBe(200);
    });

    it("VerifyEmail with the right token and code is refused under the internal id or another user's UUID", async () => {
      const { api } = setup();
      const a = await signUp(api, db());
      const b = await signUp(api, db());
      for (const userId of [a.userId, String(a.userId), b.publicId, crypto.randomUUID()]) {
        const res = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId,
          requestToken: a.requestToken,
          verificationCode: a.code,
        });
        expect(res.status, String(userId)).toBe(400);
      }
      const [user] = await db().select().from(users).where(eq(users.id, a.userId));
      expect(user?.emailVerifiedAt).toBeNull();
    });

    it("refuses an unknown user, a team member and a missing userId", async () => {
      const { api } = setup();
      const unknown = await call(api, "POST", "/api/Identity/VerifyEmailRequest", { userId: crypto.randomUUID() });
      expect((await expectProblem(unknown, 400)).detail).toBe(DETAILS.verificationRequestInvalid);
      const manager = await signUp(api, db());
      const [member] = await db()
        .insert(users)
        .values({
          companyId: (await db().select().from(users).where(eq(users.id, manager.userId)))[0]!.companyId,
          firstName: "Team",
          lastName: "Member",
          email: "member@example.com",
          role: "member",
        })
        .returning();
      const asMember = await call(api, "POST", "/api/Identity/VerifyEmailRequest", { userId: member?.publicId });
      expect((await expectProblem(asMember, 400)).detail).toBe(DETAILS.verificationRequestInvalid);
      const missing = await call(api, "POST", "/api/Identity/VerifyEmailRequest", {});
      expect((await expectProblem(missing, 400)).detail).toBe("userId is required.");
      for (const bad of ["12abc", "", 42, `${crypto.randomUUID()}x`, "{00000000-0000-0000-0000-000000000000}"]) {
        const res = await call(api, "POST", "/api/Identity/VerifyEmailRequest", { userId: bad });
        expect((await expectProblem(res, 400)).detail, String(bad)).toBe("userId is required.");
      }
    });

    it("refuses a user whose email is already verified", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const res = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      expect((await expectProblem(res, 400)).detail).toBe("This email address is already verified. Please log in.");
    });

    it("limits new codes per user: the 6th within 10 minutes is 429, another user is unaffected", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const other = await signUp(api, db());
      for (let i = 0; i < 5; i++) {
        const path = i % 2 ? "/api/Identity/ResendVerifyEmailRequest" : "/api/Identity/VerifyEmailRequest";
        expect((await call(api, "POST", path, { userId: account.publicId })).status).toBe(200);
      }
      const limited = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await emailsTo(db(), account.email)).toHaveLength(6);
      const fine = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: other.publicId });
      expect(fine.status).toBe(200);
    });
  });

  describe("POST /api/Identity/VerifyEmail", () => {
    const verify = (api: Parameters<typeof call>[0], body: Record<string, unknown>) =>
      call(api, "POST", "/api/Identity/VerifyEmail", body);

    it("verifies the email and answers an access token that works", async () => {
      const { api, clock } = setup();
      const account = await signUp(api, db());
      const res = await verify(api, {
        userId: account.publicId,
        requestToken: account.requestToken,
        verificationCode: account.code,
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { accessToken: string };
      expect(Object.keys(body)).toEqual(["accessToken"]);
      expect(body.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [user] = await db().select().from(users).where(eq(users.id, account.userId));
      expect(user?.emailVerifiedAt?.toISOString()).toBe(clock.now().toISOString());
      const me = await call(api, "GET", "/api/Users/MyDetails", undefined, body.accessToken);
      expect(me.status).toBe(200);
      // The token is stored hashed.
      const [stored] = await db().select().from(accessTokens);
      expect(stored?.tokenHash).not.toBe(body.accessToken);
      expect(stored?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it("answers SPEC's detail for a wrong code", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const wrong = account.code === "000000" ? "111111" : "000000";
      const res = await verify(api, {
        userId: account.publicId,
        requestToken: account.requestToken,
        verificationCode: wrong,
      });
      expect((await expectProblem(res, 400)).detail).toBe(
        "Invalid verification code. Please try again or resend code again.",
      );
    });

    it.each([["12345"], ["1234567"], ["12a456"], [""], [123456], [undefined]])(
      "refuses the malformed code %j with SPEC's message",
      async (code) => {
        const { api } = setup();
        const account = await signUp(api, db());
        const res = await verify(api, {
          userId: account.publicId,
          requestToken: account.requestToken,
          verificationCode: code,
        });
        const problem = await expectProblem(res, 400);
        expect(problem.detail).toBe("Verification Code must have exactly 6 digits.");
        expect(problem.errors?.verificationCode).toEqual(["Verification Code must have exactly 6 digits."]);
      },
    );

    it("allows 4 wrong tries and then the right code", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const wrong = account.code === "000000" ? "111111" : "000000";
      const body = { userId: account.publicId, requestToken: account.requestToken };
      for (let i = 0; i < 4; i++) {
        expect((await expectProblem(await verify(api, { ...body, verificationCode: wrong }), 400)).detail).toBe(
          DETAILS.invalidVerificationCode,
        );
      }
      expect((await verify(api, { ...body, verificationCode: account.code })).status).toBe(200);
    });

    it("after the 5th wrong try a new code is needed, even for the right code", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const wrong = account.code === "000000" ? "111111" : "000000";
      const body = { userId: account.publicId, requestToken: account.requestToken };
      for (let i = 0; i < 4; i++) await verify(api, { ...body, verificationCode: wrong });
      const fifth = await verify(api, { ...body, verificationCode: wrong });
      expect((await expectProblem(fifth, 400)).detail).toBe(
        "Too many incorrect attempts. Please resend code to get a new verification code.",
      );
      const right = await verify(api, { ...body, verificationCode: account.code });
      expect((await expectProblem(right, 400)).detail).toBe(DETAILS.verificationTooManyAttempts);
      const [row] = await db().select().from(emailVerifications);
      expect(row?.attempts).toBe(5);
      expect(row?.consumedAt).toBeNull();

      // Resend, and the new code works.
      const resend = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      const { requestToken } = (await resend.json()) as { requestToken: string };
      const ok = await verify(api, {
        userId: account.publicId,
        requestToken,
        verificationCode: await latestCode(db(), account.email),
      });
      expect(ok.status).toBe(200);
    });

    it("expires the code after 10 minutes", async () => {
      const { api, clock } = setup();
      const account = await signUp(api, db());
      const body = { userId: account.publicId, requestToken: account.requestToken, verificationCode: account.code };
      clock.advance(10 * MINUTE);
      expect((await expectProblem(await verify(api, body), 400)).detail).toBe(
        "This verification code has expired. Please resend code to get a new one.",
      );
    });

    it("still takes the code just before 10 minutes", async () => {
      const { api, clock } = setup();
      const account = await signUp(api, db());
      clock.advance(10 * MINUTE - 1000);
      const res = await verify(api, {
        userId: account.publicId,
        requestToken: account.requestToken,
        verificationCode: account.code,
      });
      expect(res.status).toBe(200);
    });

    it("does not take a used code twice", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const again = await verify(api, {
        userId: account.publicId,
        requestToken: account.requestToken,
        verificationCode: account.code,
      });
      expect((await expectProblem(again, 400)).detail).toBe(
        "This verification code has already been used. Please resend code to get a new one.",
      );
      expect((await db().select({ n: count() }).from(accessTokens))[0]?.n).toBe(1);
    });

    it("refuses a request token of another user, or an unknown one", async () => {
      const { api } = setup();
      const a = await signUp(api, db());
      const b = await signUp(api, db());
      const crossed = await verify(api, { userId: b.publicId, requestToken: a.requestToken, verificationCode: a.code });
      expect((await expectProblem(crossed, 400)).detail).toBe(DETAILS.verificationRequestInvalid);
      const unknown = await verify(api, { userId: a.publicId, requestToken: "x".repeat(43), verificationCode: a.code });
      expect((await expectProblem(unknown, 400)).detail).toBe(DETAILS.verificationRequestInvalid);
      const missing = await verify(api, { userId: a.publicId, verificationCode: a.code });
      expect((await expectProblem(missing, 400)).detail).toBe("requestToken is required.");
    });

    it("limits wrong codes per user across request tokens: after 10, even the right code is 429", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");
      for (let i = 0; i < 5; i++) {
        await verify(api, {
          userId: account.publicId,
          requestToken: account.requestToken,
          verificationCode: wrongFor(account.code),
        });
      }
      const resend = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      const { requestToken } = (await resend.json()) as { requestToken: string };
      const code = await latestCode(db(), account.email);
      for (let i = 0; i < 5; i++) {
        await verify(api, { userId: account.publicId, requestToken, verificationCode: wrongFor(code) });
      }
      const resend2 = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      const { requestToken: third } = (await resend2.json()) as { requestToken: string };
      const limited = await verify(api, {
        userId: account.publicId,
        requestToken: third,
        verificationCode: await latestCode(db(), account.email),
      });
      expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
    });
  });

  describe("POST /api/Identity/login", () => {
    it("answers accessToken and appSettings; the address is matched in any letter case", async () => {
      const captcha = fakeCaptcha(true);
      const { api } = setup({ captcha });
      const account = await signUpVerified(api, db(), { email: "Login.Me@example.com" });
      const res = await logIn(api, "  login.me@EXAMPLE.com ");
      expect(res.status).toBe(200);
      const body = (await res.json()) as { accessToken: string; appSettings: Record<string, boolean> };
      expect(body.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.accessToken).not.toBe(account.accessToken);
      expect(body.appSettings).toEqual({ hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: false });
      expect(captcha.checks.at(-1)).toMatchObject({ action: "login", isV3: true, token: "captcha-token" });
    });

    it("reflects the saved company details and the watched video in appSettings", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const saved = await call(
        api,
        "PUT",
        "/api/Companies/",
        { name: "Acme", ABN: "51824753556", size: "11-50", industry: "Retail" },
        account.accessToken,
      );
      expect(saved.status).toBe(200);
      const watched = await call(api, "POST", "/api/Identity/onboarding-video-watched", undefined, account.accessToken);
      expect(watched.status).toBe(204);
      const body = (await (await logIn(api, account.email)).json()) as { appSettings: Record<string, boolean> };
      expect(body.appSettings).toEqual({ hasProvidedCompanyDetails: true, hasWatchedOnboardingVideo: true });
    });

    it.each([
      ["a wrong password", "known", "Wrong#Pass1"],
      ["an unknown address", "nobody@example.com", PASSWORD],
    ])("refuses %s with SPEC's detail", async (_name, who, password) => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const res = await logIn(api, who === "known" ? account.email : who, password);
      expect((await expectProblem(res, 400)).detail).toBe("Invalid login credentials");
    });

    it("refuses a team member, who has no password", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const [manager] = await db().select().from(users).where(eq(users.id, account.userId));
      await db().insert(users).values({
        companyId: manager!.companyId,
        firstName: "Team",
        lastName: "Member",
        email: "member@example.com",
        role: "member",
        emailVerifiedAt: new Date(),
      });
      expect((await expectProblem(await logIn(api, "member@example.com", ""), 400)).detail).toBe(
        "Password is required.",
      );
      expect((await expectProblem(await logIn(api, "member@example.com"), 400)).detail).toBe(
        DETAILS.invalidLoginCredentials,
      );
    });

    describe("an unverified email", () => {
      it("with the right password: 403 with SPEC's detail, and a new code emailed whose userId and requestToken the problem carries", async () => {
        const { api, onEmailQueued } = setup();
        const account = await signUp(api, db(), { email: "Not.Yet@example.com" });
        onEmailQueued.mockClear();
        const res = await logIn(api, " not.yet@EXAMPLE.com ");
        const problem = (await expectProblem(res, 403)) as { detail: string; userId?: string; requestToken?: string };
        expect(problem.detail).toBe("Please verify your email before logging in.");
        expect(problem.userId).toBe(account.publicId);
        expect(problem.requestToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(problem.requestToken).not.toBe(account.requestToken);
        expect(res.headers.get("content-type")).toContain("application/problem+json");

        const mails = await emailsTo(db(), account.email);
        expect(mails.map((m) => m.subject)).toEqual(["Your verification code", "Your verification code"]);
        expect(onEmailQueued).toHaveBeenCalledTimes(1);
        const code = await latestCode(db(), account.email);
        // The code of sign-up is void, as after a resend.
        const old = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: account.publicId,
          requestToken: account.requestToken,
          verificationCode: account.code,
        });
        expect((await expectProblem(old, 400)).detail).toBe(DETAILS.verificationSuperseded);
        const verified = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: problem.userId,
          requestToken: problem.requestToken,
          verificationCode: code,
        });
        expect(verified.status).toBe(200);
        // Verified, the same password logs in.
        expect((await logIn(api, account.email)).status).toBe(200);
      });

      it("with a wrong password: exactly the answer of a wrong password for any account; no code emailed or voided", async () => {
        const { api, onEmailQueued } = setup();
        const unverified = await signUp(api, db());
        const verified = await signUpVerified(api, db());
        onEmailQueued.mockClear();
        const answer = async (res: Response) => ({
          status: res.status,
          type: res.headers.get("content-type"),
          body: await res.json(),
        });
        const forUnverified = await answer(await logIn(api, unverified.email, "Wrong#Pass1"));
        expect(forUnverified.status).toBe(400);
        expect(forUnverified.body).toEqual({
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          detail: DETAILS.invalidLoginCredentials,
        });
        expect(await answer(await logIn(api, verified.email, "Wrong#Pass1"))).toEqual(forUnverified);
        expect(await answer(await logIn(api, "nobody@example.com", "Wrong#Pass1"))).toEqual(forUnverified);
        expect(onEmailQueued).not.toHaveBeenCalled();
        expect(await emailsTo(db(), unverified.email)).toHaveLength(1);
        const ok = await call(api, "POST", "/api/Identity/VerifyEmail", {
          userId: unverified.publicId,
          requestToken: unverified.requestToken,
          verificationCode: unverified.code,
        });
        expect(ok.status).toBe(200);
      });

      it("the codes it emails share the user's resend budget: past it, 429 and no email, by login or by resend", async () => {
        const { api } = setup();
        const account = await signUp(api, db());
        for (let i = 0; i < 3; i++) {
          const res = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
          expect(res.status).toBe(200);
        }
        for (let i = 0; i < 2; i++) await expectProblem(await logIn(api, account.email), 403);
        const limited = await logIn(api, account.email);
        expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
        const resend = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
        expect((await expectProblem(resend, 429)).detail).toBe(DETAILS.tooManyAttempts);
        // Sign-up's code and five more.
        expect(await emailsTo(db(), account.email)).toHaveLength(6);
      });

      it("the code it emails counts against the client's verify budget: once spent, 429 and no email", async () => {
        // RATE_LIMIT_FACTOR 0.2: the client's verify budget is 6 (VerifyEmail, the code requests and these logins).
        const { api } = setup({ config: testConfig({ APP_URL, RATE_LIMIT_FACTOR: "0.2" }) });
        const first = await signUp(api, db());
        const second = await signUp(api, db());
        await expectProblem(await logIn(api, first.email), 403);
        // Five more verify calls from this client (wrong codes; past the user's own budget they are 429s,
        // counted by the client's budget all the same).
        for (let i = 0; i < 5; i++) {
          await call(api, "POST", "/api/Identity/VerifyEmail", {
            userId: second.publicId,
            requestToken: second.requestToken,
            verificationCode: "000000",
          });
        }
        const limited = await logIn(api, second.email);
        expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyRequests);
        expect(await emailsTo(db(), second.email)).toHaveLength(1);
      });

      it("the right password of an unverified account does not clear the address's failed logins", async () => {
        const { api } = setup();
        const account = await signUp(api, db());
        for (let i = 0; i < 9; i++) expect((await logIn(api, account.email, "Wrong#Pass1")).status).toBe(400);
        await expectProblem(await logIn(api, account.email), 403);
        const limited = await logIn(api, account.email, "Wrong#Pass1");
        expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
      });
    });

    it("refuses a failed captcha with SPEC's detail", async () => {
      const { api } = setup({ captcha: fakeCaptcha(false) });
      const res = await logIn(api, "someone@example.com");
      expect((await expectProblem(res, 400)).detail).toBe(
        "Captcha verification failed. Please complete additional verification steps.",
      );
    });

    it.each([
      [{ password: PASSWORD }, "Email is required."],
      [{ userName: " ", password: PASSWORD }, "Email is required."],
      [{ userName: "a@example.com" }, "Password is required."],
      [{ userName: "a@example.com", password: "" }, "Password is required."],
    ])("validates %j → %s", async (body, message) => {
      const { api } = setup();
      const res = await call(api, "POST", "/api/Identity/login", body);
      expect((await expectProblem(res, 400)).detail).toBe(message);
    });

    it("locks an address after 10 failed logins (429 even for the right password); other addresses still work", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const other = await signUpVerified(api, db());
      for (let i = 0; i < 10; i++) {
        expect((await logIn(api, account.email.toUpperCase(), "Wrong#Pass1")).status).toBe(400);
      }
      const limited = await logIn(api, account.email);
      expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await logIn(api, other.email)).status).toBe(200);
    });

    it("a successful login clears the failure count", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      for (let i = 0; i < 9; i++) await logIn(api, account.email, "Wrong#Pass1");
      expect((await logIn(api, account.email)).status).toBe(200);
      for (let i = 0; i < 9; i++) expect((await logIn(api, account.email, "Wrong#Pass1")).status).toBe(400);
      expect((await logIn(api, account.email)).status).toBe(200);
    });

    it("RATE_LIMIT_FACTOR scales the per-account budget", async () => {
      const { api } = setup({ config: testConfig({ APP_URL, RATE_LIMIT_FACTOR: "0.2" }) });
      const account = await signUpVerified(api, db());
      for (let i = 0; i < 2; i++) expect((await logIn(api, account.email, "Wrong#Pass1")).status).toBe(400);
      expect((await logIn(api, account.email, "Wrong#Pass1")).status).toBe(429);
    });
  });

  describe("access tokens", () => {
    it("expire 12 hours after they are issued (fixed, not sliding)", async () => {
      const { api, clock } = setup();
      const account = await signUpVerified(api, db());
      clock.advance(12 * HOUR - 1000);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken)).status).toBe(200);
      clock.advance(1000);
      const expired = await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken);
      expect((await expectProblem(expired, 401)).detail).toBe(DETAILS.unauthorized);
    });

    it("logout revokes the presented token only: 204, then 401 for it; the user's other token still works", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const second = ((await (await logIn(api, account.email)).json()) as { accessToken: string }).accessToken;
      const out = await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken);
      expect(out.status).toBe(204);
      const after = await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken);
      expect((await expectProblem(after, 401)).detail).toBe(DETAILS.unauthorized);
      expect(
        (await expectProblem(await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken), 401))
          .detail,
      ).toBe(DETAILS.unauthorized);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, second)).status).toBe(200);
      const [row] = await db().select().from(accessTokens).where(eq(accessTokens.userId, account.userId));
      expect(row).toBeTruthy();
    });

    it("an inactive user's tokens answer 401", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      await db().update(users).set({ isActive: false }).where(eq(users.id, account.userId));
      await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken), 401);
    });

    it.each([
      ["POST", "/api/Identity/logout"],
      ["POST", "/api/Identity/onboarding-video-watched"],
      ["GET", "/api/Identity/app-settings"],
    ])("%s %s needs a token", async (method, path) => {
      const { api } = setup();
      const res = await call(api, method, path);
      expect((await expectProblem(res, 401)).detail).toBe(DETAILS.unauthorized);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      await expectProblem(await call(api, method, path, undefined, "y".repeat(43)), 401);
    });
  });

  describe("onboarding video and app settings", () => {
    it("records the watched video on the user; app-settings reads both flags", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const other = await signUpVerified(api, db());
      const before = await call(api, "GET", "/api/Identity/app-settings", undefined, account.accessToken);
      expect(await before.json()).toEqual({ hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: false });
      const res = await call(api, "POST", "/api/Identity/onboarding-video-watched", undefined, account.accessToken);
      expect(res.status).toBe(204);
      // Idempotent.
      expect(
        (await call(api, "POST", "/api/Identity/onboarding-video-watched", undefined, account.accessToken)).status,
      ).toBe(204);
      const after = await call(api, "GET", "/api/Identity/app-settings", undefined, account.accessToken);
      expect(await after.json()).toEqual({ hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: true });
      const untouched = await call(api, "GET", "/api/Identity/app-settings", undefined, other.accessToken);
      expect(await untouched.json()).toEqual({ hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: false });
    });
  });

  describe("POST /api/Identity/ResetPasswordRequest", () => {
    it.each(["Email", "email"])("accepts %s, answers 200 and emails a one-hour link", async (key) => {
      const { api, onEmailQueued } = setup();
      const account = await signUpVerified(api, db());
      const res = await call(api, "POST", "/api/Identity/ResetPasswordRequest", { [key]: account.email.toUpperCase() });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("");
      const mail = await lastEmailTo(db(), account.email);
      expect(mail.subject).toBe("Reset your password");
      const token = await latestResetToken(db(), account.email);
      expect(mail.text).toContain(`${APP_URL}/corporate/forgot-password?passwordResetToken=${token}`);
      expect(mail.html).toContain(`${APP_URL}/corporate/forgot-password?passwordResetToken=${token}`);
      expect(mail.text).toContain("valid for 1 hour");
      expect(onEmailQueued).toHaveBeenCalled();
      const [row] = await db().select().from(passwordResets);
      expect(row?.tokenHash).not.toBe(token);
      expect(row?.expiresAt.toISOString()).toBe("2025-03-01T10:00:00.000Z");
    });

    it("answers the same 200 for an unknown address and for a team member, and sends nothing", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const [manager] = await db().select().from(users).where(eq(users.id, account.userId));
      await db().insert(users).values({
        companyId: manager!.companyId,
        firstName: "Team",
        lastName: "Member",
        email: "member@example.com",
        role: "member",
      });
      const before = (await db().select({ n: count() }).from(emailOutbox))[0]?.n;
      for (const email of ["nobody@example.com", "member@example.com"]) {
        const res = await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: email });
        expect(res.status).toBe(200);
        expect(await res.text()).toBe("");
      }
      expect((await db().select({ n: count() }).from(emailOutbox))[0]?.n).toBe(before);
      expect((await db().select({ n: count() }).from(passwordResets))[0]?.n).toBe(0);
    });

    it.each([[{}], [{ Email: "" }], [{ email: "   " }]])("refuses %j with 'Email is required.'", async (body) => {
      const { api } = setup();
      const res = await call(api, "POST", "/api/Identity/ResetPasswordRequest", body);
      expect((await expectProblem(res, 400)).detail).toBe("Email is required.");
    });

    it("limits requests per address (known or not): the 6th within the hour is 429", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      // Each address from a client of its own: the per-client budget (10 in 10 minutes) is another limit.
      let client = 0;
      const request = (email: string) =>
        api.request("/api/Identity/ResetPasswordRequest", {
          method: "POST",
          headers: { "content-type": "application/json", "x-rewards-client-ip": `198.51.100.${++client}` },
          body: JSON.stringify({ Email: email }),
        });
      for (const email of [account.email, "nobody@example.com"]) {
        for (let i = 0; i < 5; i++) expect((await request(email)).status).toBe(200);
        expect((await expectProblem(await request(email), 429)).detail).toBe(DETAILS.tooManyAttempts);
      }
    });
  });

  describe("POST /api/Identity/ResetPassword", () => {
    async function requestReset(api: Parameters<typeof call>[0], email: string) {
      expect((await call(api, "POST", "/api/Identity/ResetPasswordRequest", { Email: email })).status).toBe(200);
      return latestResetToken(db(), email);
    }

    it("sets the new password, revokes every access token of the user, and the old password stops working", async () => {
      const logs = captureLogs("trace");
      const { api } = setup({ logger: logs.logger });
      const account = await signUpVerified(api, db());
      const other = await signUpVerified(api, db());
      const second = ((await (await logIn(api, account.email)).json()) as { accessToken: string }).accessToken;
      const token = await requestReset(api, account.email);
      const res = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: token,
        password: NEW_PASSWORD,
      });
      expect(res.status).toBe(200);
      for (const t of [account.accessToken, second]) {
        await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, t), 401);
      }
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, other.accessToken)).status).toBe(200);
      expect((await logIn(api, account.email)).status).toBe(400);
      expect((await logIn(api, account.email, NEW_PASSWORD)).status).toBe(200);
      expect(logs.leaked(token, NEW_PASSWORD)).toEqual([]);
    });

    it("is single use", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const token = await requestReset(api, account.email);
      const body = { passwordResetToken: token, password: NEW_PASSWORD };
      expect((await call(api, "POST", "/api/Identity/ResetPassword", body)).status).toBe(200);
      const again = await call(api, "POST", "/api/Identity/ResetPassword", { ...body, password: "Third#Pass3" });
      expect((await expectProblem(again, 400)).detail).toBe(
        "This password reset link has already been used. Please request a new one.",
      );
      expect((await logIn(api, account.email, NEW_PASSWORD)).status).toBe(200);
    });

    it("using one link voids the user's other links", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const first = await requestReset(api, account.email);
      const second = await requestReset(api, account.email);
      expect(
        (await call(api, "POST", "/api/Identity/ResetPassword", { passwordResetToken: second, password: NEW_PASSWORD }))
          .status,
      ).toBe(200);
      const old = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: first,
        password: "Third#Pass3",
      });
      expect((await expectProblem(old, 400)).detail).toBe(DETAILS.resetTokenUsed);
    });

    it("expires after 1 hour", async () => {
      const { api, clock } = setup();
      const account = await signUpVerified(api, db());
      const token = await requestReset(api, account.email);
      clock.advance(HOUR);
      const res = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: token,
        password: NEW_PASSWORD,
      });
      expect((await expectProblem(res, 400)).detail).toBe(
        "This password reset link has expired. Please request a new one.",
      );
      expect((await logIn(api, account.email)).status).toBe(200);
    });

    it("works just before the hour is up", async () => {
      const { api, clock } = setup();
      const account = await signUpVerified(api, db());
      const token = await requestReset(api, account.email);
      clock.advance(HOUR - 1000);
      const res = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: token,
        password: NEW_PASSWORD,
      });
      expect(res.status).toBe(200);
    });

    it("refuses an unknown token", async () => {
      const { api } = setup();
      const res = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: "z".repeat(43),
        password: NEW_PASSWORD,
      });
      expect((await expectProblem(res, 400)).detail).toBe(
        "This password reset link is not valid. Please request a new one.",
      );
    });

    it.each([
      [{ password: NEW_PASSWORD }, "passwordResetToken is required."],
      [{ passwordResetToken: "t".repeat(43) }, "Password is required."],
      [{ passwordResetToken: "t".repeat(43), password: "Sh0rt!A" }, "Password must be at least 8 characters."],
      [
        { passwordResetToken: "t".repeat(43), password: "NoSpecial1" },
        'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
      ],
      [{ passwordResetToken: "t".repeat(43), password: "NoNumber!" }, "Password must contain at least one number."],
      [
        { passwordResetToken: "t".repeat(43), password: "nocapital1!" },
        "Password must contain at least one capital letter.",
      ],
    ])("validates %j → %s", async (body, message) => {
      const { api } = setup();
      const res = await call(api, "POST", "/api/Identity/ResetPassword", body);
      expect((await expectProblem(res, 400)).detail).toBe(message);
    });

    it("a weak new password leaves the link usable", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      const token = await requestReset(api, account.email);
      const weak = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: token,
        password: "weak",
      });
      await expectProblem(weak, 400);
      const ok = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: token,
        password: NEW_PASSWORD,
      });
      expect(ok.status).toBe(200);
    });

    it("lets a manager who never verified reset, which verifies the address (the link proves it)", async () => {
      const { api } = setup();
      const account = await signUp(api, db());
      expect((await logIn(api, account.email)).status).toBe(403);
      const token = await requestReset(api, account.email);
      expect(
        (await call(api, "POST", "/api/Identity/ResetPassword", { passwordResetToken: token, password: NEW_PASSWORD }))
          .status,
      ).toBe(200);
      expect((await logIn(api, account.email, NEW_PASSWORD)).status).toBe(200);
      // The pending code is of no use any more.
      const resend = await call(api, "POST", "/api/Identity/ResendVerifyEmailRequest", { userId: account.publicId });
      expect((await expectProblem(resend, 400)).detail).toBe(DETAILS.emailAlreadyVerified);
    });

    it("limits resets per user: the 6th within the hour is 429", async () => {
      const { api } = setup();
      const account = await signUpVerified(api, db());
      // Links inserted directly, so the request budget (5 per address per hour) does not interfere.
      const freshToken = async () => {
        const token = randomToken();
        await db()
          .insert(passwordResets)
          .values({ userId: account.userId, tokenHash: sha256Hex(token), expiresAt: new Date("2025-03-01T10:00:00Z") });
        return token;
      };
      let password = NEW_PASSWORD;
      for (let i = 0; i < 5; i++) {
        password = `Pass#${i}Word`;
        const res = await call(api, "POST", "/api/Identity/ResetPassword", {
          passwordResetToken: await freshToken(),
          password,
        });
        expect(res.status).toBe(200);
      }
      const limited = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: await freshToken(),
        password: NEW_PASSWORD,
      });
      expect((await expectProblem(limited, 429)).detail).toBe(DETAILS.tooManyAttempts);
      expect((await logIn(api, account.email, password)).status).toBe(200);
    });
  });
});
