// A manager's own settings and the company's details (ADR 0022), against the real database
// (PGlite and PostgreSQL): each change with its audit row, and each bad input (wrong current
// password, weak new password, wrong, expired, used or superseded email code, a taken address,
// an invalid ABN, a Manager saving company details) answered with a clear message and no change.
import { and, desc, eq, isNull } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import {
  accessTokens,
  auditLog,
  companies,
  emailChanges,
  emailOutbox,
  users,
  webSessions,
} from "../../server/db/schema.ts";
import { snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import {
  accountsApi,
  call,
  emailsTo,
  lastEmailTo,
  latestCode,
  logIn,
  NEW_PASSWORD,
  PASSWORD,
  signUpVerified,
} from "../identity/accounts.testkit.ts";
import { SETTINGS_DETAILS } from "./schema.ts";

const MINUTE = 60 * 1000;
const UA = "Mozilla/5.0 (X11; Linux x86_64) SettingsTest/1.0";
const valid = { name: "Acme Holdings", ABN: "51824753556", size: "51-200", industry: "Information Technology" };

type Api = ReturnType<typeof accountsApi>["api"];

/** A call from a given client address (as the edge passes it) and User-Agent. */
function from(api: Api, ip: string, method: string, path: string, body?: unknown, token?: string, ua = UA) {
  const headers: Record<string, string> = { "x-rewards-client-ip": ip, "user-agent": ua };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  return api.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function tokenOf(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

describeEachDatabase("settings API", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  const userRow = async (id: number) => (await db().select().from(users).where(eq(users.id, id)))[0]!;
  const auditOf = async (action: string) =>
    db().select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id));
  /** Every table but the rate-limit counters (a refused attempt spends its budget, by design). */
  const state = () => snapshot(db(), ["rate_limit_counters"]);

  describe("PUT /api/Users/MyDetails/Name", () => {
    it("sets the caller's own name (trimmed), shown by MyDetails, with an audit row", async () => {
      const { api, clock } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db(), { firstName: "Jane", lastName: "Citizen" });
      const res = await from(
        api,
        "203.0.113.7",
        "PUT",
        "/api/Users/MyDetails/Name",
        {
          firstName: "  Janet ",
          lastName: "Smith",
        },
        me.accessToken,
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ firstName: "Janet", lastName: "Smith", fullName: "Janet Smith" });
      const details = await (await call(api, "GET", "/api/Users/MyDetails", undefined, me.accessToken)).json();
      expect(details).toMatchObject({ firstName: "Janet", lastName: "Smith", fullName: "Janet Smith" });
      const [entry] = await auditOf("manager.name_changed");
      expect(entry).toMatchObject({
        actorUserId: me.userId,
        subject: `user:${me.userId}`,
        clientIp: "203.0.113.7",
        data: { from: { firstName: "Jane", lastName: "Citizen" }, to: { firstName: "Janet", lastName: "Smith" } },
      });
      expect(entry?.createdAt.toISOString()).toBe(clock.now().toISOString());
    });

    it.each([
      [{ firstName: "", lastName: "Smith" }, "firstName", "First Name is required."],
      [{ firstName: "   ", lastName: "Smith" }, "firstName", "First Name is required."],
      [{ lastName: "Smith" }, "firstName", "First Name is required."],
      [{ firstName: "Jan", lastName: "" }, "lastName", "Last Name is required."],
      [{ firstName: "J".repeat(65), lastName: "Smith" }, "firstName", "First Name must be at most 64 characters."],
      [{ firstName: "Jan", lastName: "S".repeat(65) }, "lastName", "Last Name must be at most 64 characters."],
    ])("%j → 400 %s: %s, nothing changes", async (body, field, message) => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const before = await state();
      const problem = await expectProblem(
        await call(api, "PUT", "/api/Users/MyDetails/Name", body, me.accessToken),
        400,
      );
      expect(problem.errors?.[field]).toEqual([message]);
      expect(await state()).toEqual(before);
    });

    it("answers 401 without a token", async () => {
      const { api } = accountsApi(db(), { config });
      await expectProblem(await call(api, "PUT", "/api/Users/MyDetails/Name", { firstName: "A", lastName: "B" }), 401);
    });
  });

  describe("email change", () => {
    const request = (api: Api, token: string, newEmail: string, currentPassword = PASSWORD) =>
      from(api, "203.0.113.8", "POST", "/api/Users/MyEmail/Request", { newEmail, currentPassword }, token);
    const confirm = (api: Api, token: string, requestToken: string, verificationCode: string) =>
      from(api, "203.0.113.8", "POST", "/api/Users/MyEmail/Confirm", { requestToken, verificationCode }, token);
    const requested = async (res: Response) => {
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as { requestToken: string; newEmail: string };
    };

    it("emails a code to the new address; the code switches the address, the old one is told, and sign-in follows", async () => {
      const { api, onEmailQueued } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db(), { firstName: "Jane" });
      const answer = await requested(await request(api, me.accessToken, " new.jane@example.com "));
      expect(answer.newEmail).toBe("new.jane@example.com");
      expect(onEmailQueued).toHaveBeenCalled();
      const codeEmail = await lastEmailTo(db(), "new.jane@example.com");
      expect(codeEmail.subject).toBe("Confirm your new email address");
      // Stored hashed: neither the token nor the code is in the row.
      const [row] = await db().select().from(emailChanges);
      const code = await latestCode(db(), "new.jane@example.com");
      expect(JSON.stringify(row)).not.toContain(answer.requestToken);
      expect(JSON.stringify(row)).not.toContain(code);
      expect((await userRow(me.userId)).email).toBe(me.email);

      const res = await confirm(api, me.accessToken, answer.requestToken, code);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ email: "new.jane@example.com" });
      expect((await userRow(me.userId)).email).toBe("new.jane@example.com");
      const notice = await lastEmailTo(db(), me.email);
      expect(notice.subject).toBe("Your sign-in email address was changed");
      expect(notice.text).toContain("new.jane@example.com");

      expect((await logIn(api, "new.jane@example.com")).status).toBe(200);
      expect((await logIn(api, me.email)).status).toBe(400);
      expect((await auditOf("manager.email_change_requested"))[0]?.data).toEqual({ newEmail: "new.jane@example.com" });
      expect((await auditOf("manager.email_changed"))[0]).toMatchObject({
        actorUserId: me.userId,
        clientIp: "203.0.113.8",
        data: { from: me.email, to: "new.jane@example.com" },
      });

      // Single use.
      const again = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 400);
      expect(again.detail).toBe(DETAILS.verificationUsed);
    });

    it("a wrong current password → 400, no code, no row, no change", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const before = await state();
      const problem = await expectProblem(await request(api, me.accessToken, "x@example.com", "Wrong#Pass1"), 400);
      expect(problem.detail).toBe(SETTINGS_DETAILS.wrongCurrentPassword);
      expect(problem.errors?.currentPassword).toEqual([SETTINGS_DETAILS.wrongCurrentPassword]);
      expect(await state()).toEqual(before);
      expect(await emailsTo(db(), "x@example.com")).toHaveLength(0);
    });

    it.each([
      [{ newEmail: "not-an-address", currentPassword: PASSWORD }, "newEmail", "The email format is incorrect."],
      [{ newEmail: "", currentPassword: PASSWORD }, "newEmail", "New Email is required."],
      [
        { newEmail: `${"a".repeat(250)}@ex.com`, currentPassword: PASSWORD },
        "newEmail",
        "New Email must be at most 256 characters.",
      ],
      [{ newEmail: "x@example.com", currentPassword: "" }, "currentPassword", "Current Password is required."],
    ])("%j → 400 %s: %s, nothing changes", async (body, field, message) => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const before = await state();
      const problem = await expectProblem(
        await call(api, "POST", "/api/Users/MyEmail/Request", body, me.accessToken),
        400,
      );
      expect(problem.errors?.[field]).toEqual([message]);
      expect(await state()).toEqual(before);
    });

    it("the caller's own address → 400; an active manager's (any company) or a team member's of the company → 409 SPEC's message", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const other = await signUpVerified(api, db());
      const member = await call(
        api,
        "POST",
        "/api/Users/create-user",
        { firstName: "Tim", lastName: "Member", email: "tim.member@example.com" },
        me.accessToken,
      );
      expect(member.status).toBe(200);
      const before = await state();
      const same = await expectProblem(await request(api, me.accessToken, me.email.toUpperCase()), 400);
      expect(same.detail).toBe(SETTINGS_DETAILS.sameEmail);
      for (const taken of [other.email, other.email.toUpperCase(), "tim.member@example.com"]) {
        const problem = await expectProblem(await request(api, me.accessToken, taken), 409);
        expect(problem.detail).toBe("Email is already used, please use another one.");
        expect(problem.errors?.newEmail).toEqual([DETAILS.emailAlreadyUsed]);
      }
      expect(await state()).toEqual(before);
    });

    it("an address taken between the request and the code → 409, the address stays", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const answer = await requested(await request(api, me.accessToken, "contested@example.com"));
      const code = await latestCode(db(), "contested@example.com");
      await signUpVerified(api, db(), { email: "contested@example.com" });
      const problem = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 409);
      expect(problem.detail).toBe(DETAILS.emailAlreadyUsed);
      expect((await userRow(me.userId)).email).toBe(me.email);
      expect(await auditOf("manager.email_changed")).toHaveLength(0);
    });

    it("a wrong code → 400 and a try counted; the fifth wrong try ends the request, even for the right code", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const answer = await requested(await request(api, me.accessToken, "tries@example.com"));
      const code = await latestCode(db(), "tries@example.com");
      const wrong = code === "000000" ? "111111" : "000000";
      for (let i = 1; i <= 4; i++) {
        const problem = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, wrong), 400);
        expect(problem.detail).toBe(DETAILS.invalidVerificationCode);
        expect(problem.errors?.verificationCode).toEqual([DETAILS.invalidVerificationCode]);
      }
      const fifth = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, wrong), 400);
      expect(fifth.detail).toBe(DETAILS.verificationTooManyAttempts);
      const right = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 400);
      expect(right.detail).toBe(DETAILS.verificationTooManyAttempts);
      expect((await userRow(me.userId)).email).toBe(me.email);
    });

    it.each([
      ["abc123", "Verification Code must have exactly 6 digits."],
      ["", "Verification Code must have exactly 6 digits."],
    ])("a malformed code %j → 400 %s", async (code, message) => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const answer = await requested(await request(api, me.accessToken, "malformed@example.com"));
      const problem = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 400);
      expect(problem.errors?.verificationCode).toEqual([message]);
      const [row] = await db().select().from(emailChanges);
      expect(row?.attempts).toBe(0);
    });

    it("a code after 10 minutes → 400 expired, the address stays", async () => {
      const { api, clock } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const answer = await requested(await request(api, me.accessToken, "late@example.com"));
      const code = await latestCode(db(), "late@example.com");
      clock.advance(10 * MINUTE);
      const problem = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 400);
      expect(problem.detail).toBe(DETAILS.verificationExpired);
      expect((await userRow(me.userId)).email).toBe(me.email);
    });

    it("a newer request voids the earlier code; the newest works", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const first = await requested(await request(api, me.accessToken, "first@example.com"));
      const firstCode = await latestCode(db(), "first@example.com");
      const second = await requested(await request(api, me.accessToken, "second@example.com"));
      const problem = await expectProblem(await confirm(api, me.accessToken, first.requestToken, firstCode), 400);
      expect(problem.detail).toBe(DETAILS.verificationSuperseded);
      const code = await latestCode(db(), "second@example.com");
      expect((await confirm(api, me.accessToken, second.requestToken, code)).status).toBe(200);
      expect((await userRow(me.userId)).email).toBe("second@example.com");
    });

    it("another manager's request token is no request of the caller's → 400, nothing changes", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const other = await signUpVerified(api, db());
      const answer = await requested(await request(api, other.accessToken, "others.new@example.com"));
      const code = await latestCode(db(), "others.new@example.com");
      const problem = await expectProblem(await confirm(api, me.accessToken, answer.requestToken, code), 400);
      expect(problem.detail).toBe(SETTINGS_DETAILS.noEmailChange);
      expect((await userRow(me.userId)).email).toBe(me.email);
      expect((await userRow(other.userId)).email).toBe(other.email);
    });
  });

  describe("POST /api/Users/MyPassword", () => {
    const change = (api: Api, token: string, currentPassword: string, newPassword: string, ip = "198.51.100.4") =>
      from(api, ip, "POST", "/api/Users/MyPassword", { currentPassword, newPassword }, token);

    it("sets the new password and ends every other session; the caller's stays", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const other = await tokenOf(
        await from(api, "192.0.2.9", "POST", "/api/Identity/login", {
          userName: me.email,
          password: PASSWORD,
        }),
      );
      const current = await tokenOf(await logIn(api, me.email));
      // A web session of the manager's (the session store sets its user).
      await db()
        .insert(webSessions)
        .values({
          id: "other-browser",
          data: { sealed: "x" },
          userId: me.userId,
          expiresAt: new Date(Date.now() + 3_600_000),
        });
      const res = await change(api, current, PASSWORD, NEW_PASSWORD);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ endedSessions: 2 });
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, current)).status).toBe(200);
      await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, other), 401);
      await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, me.accessToken), 401);
      expect(await db().select().from(webSessions).where(eq(webSessions.userId, me.userId))).toHaveLength(0);
      expect((await logIn(api, me.email)).status).toBe(400);
      expect((await logIn(api, me.email, NEW_PASSWORD)).status).toBe(200);
      expect((await auditOf("manager.password_changed"))[0]).toMatchObject({
        actorUserId: me.userId,
        clientIp: "198.51.100.4",
        data: { endedSessions: 2 },
      });
      // No password, old or new, in the trail.
      expect(JSON.stringify(await db().select().from(auditLog))).not.toContain(NEW_PASSWORD);
    });

    it("a wrong current password → 400 with its message; nothing changes, no session ends", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const other = await tokenOf(await logIn(api, me.email));
      const before = await state();
      const problem = await expectProblem(await change(api, me.accessToken, "Wrong#Pass1", NEW_PASSWORD), 400);
      expect(problem.detail).toBe(SETTINGS_DETAILS.wrongCurrentPassword);
      expect(problem.errors?.currentPassword).toEqual([SETTINGS_DETAILS.wrongCurrentPassword]);
      expect(await state()).toEqual(before);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, other)).status).toBe(200);
    });

    it.each([
      ["Sh#1a", "Password must be at least 8 characters."],
      [
        "nospecial1A",
        'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
      ],
      ["NoNumber#A", "Password must contain at least one number."],
      ["nocapital#1", "Password must contain at least one capital letter."],
      ["", "Password is required."],
    ])("a weak new password %j → 400 %s, nothing changes", async (newPassword, message) => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const before = await state();
      const problem = await expectProblem(await change(api, me.accessToken, PASSWORD, newPassword), 400);
      expect(problem.errors?.newPassword).toContain(message);
      expect(await state()).toEqual(before);
    });

    it("wrong current passwords are limited like logins: the 11th from one address → 429, and the right one then too", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      for (let i = 0; i < 10; i++) {
        await expectProblem(await change(api, me.accessToken, `Wrong#Pass${i}`, NEW_PASSWORD, "198.51.100.77"), 400);
      }
      const limited = await expectProblem(
        await change(api, me.accessToken, PASSWORD, NEW_PASSWORD, "198.51.100.77"),
        429,
      );
      expect(limited.detail).toBe(DETAILS.tooManyAttempts);
      expect((await logIn(api, me.email)).status).toBe(200);
    });

    it("answers 401 with a revoked token", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      await call(api, "POST", "/api/Identity/logout", undefined, me.accessToken);
      await expectProblem(await change(api, me.accessToken, PASSWORD, NEW_PASSWORD), 401);
    });
  });

  describe("sessions", () => {
    it("a login records its address and User-Agent; the list shows open logins, newest first, the caller's marked", async () => {
      const { api, clock } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      clock.advance(MINUTE);
      const phone = await tokenOf(
        await from(
          api,
          "192.0.2.10",
          "POST",
          "/api/Identity/login",
          { userName: me.email, password: PASSWORD },
          undefined,
          "Phone/1",
        ),
      );
      clock.advance(MINUTE);
      const laptop = await tokenOf(
        await from(
          api,
          "192.0.2.11",
          "POST",
          "/api/Identity/login",
          { userName: me.email, password: PASSWORD },
          undefined,
          "Laptop/2",
        ),
      );
      const res = await call(api, "GET", "/api/Users/MySessions", undefined, phone);
      expect(res.status).toBe(200);
      const list = (await res.json()) as {
        clientIp: string | null;
        userAgent: string | null;
        current: boolean;
        createdAt: string;
      }[];
      expect(list.map((s) => [s.clientIp, s.userAgent, s.current])).toEqual([
        ["192.0.2.11", "Laptop/2", false],
        ["192.0.2.10", "Phone/1", true],
        [null, null, false],
      ]);
      expect(list[0]?.createdAt).toBe(clock.now().toISOString());
      // Logged out and expired logins are not listed; another manager's never.
      await call(api, "POST", "/api/Identity/logout", undefined, laptop);
      const other = await signUpVerified(api, db());
      const mine = (await (await call(api, "GET", "/api/Users/MySessions", undefined, phone)).json()) as unknown[];
      expect(mine).toHaveLength(2);
      const theirs = (await (
        await call(api, "GET", "/api/Users/MySessions", undefined, other.accessToken)
      ).json()) as unknown[];
      expect(theirs).toHaveLength(1);
      clock.advance(13 * 60 * MINUTE);
      const fresh = await tokenOf(await logIn(api, me.email));
      expect(
        (await (await call(api, "GET", "/api/Users/MySessions", undefined, fresh)).json()) as unknown[],
      ).toHaveLength(1);
    });

    it("sign out of all other sessions: the others end (tokens and web sessions), the caller's stays, audited", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      const current = await tokenOf(await logIn(api, me.email));
      const other = await signUpVerified(api, db());
      await db()
        .insert(webSessions)
        .values([
          { id: "mine", data: { sealed: "x" }, userId: me.userId, expiresAt: new Date(Date.now() + 3_600_000) },
          { id: "theirs", data: { sealed: "y" }, userId: other.userId, expiresAt: new Date(Date.now() + 3_600_000) },
        ]);
      const res = await from(api, "192.0.2.20", "POST", "/api/Users/MySessions/SignOutOthers", undefined, current);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ endedSessions: 1 });
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, current)).status).toBe(200);
      await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, me.accessToken), 401);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, other.accessToken)).status).toBe(200);
      expect((await db().select({ id: webSessions.id }).from(webSessions)).map((r) => r.id)).toEqual(["theirs"]);
      const open = await db()
        .select()
        .from(accessTokens)
        .where(and(eq(accessTokens.userId, me.userId), isNull(accessTokens.revokedAt)));
      expect(open).toHaveLength(1);
      expect((await auditOf("manager.sessions_ended"))[0]).toMatchObject({
        actorUserId: me.userId,
        clientIp: "192.0.2.20",
        data: { endedSessions: 1 },
      });
    });
  });

  describe("company details", () => {
    const companyOf = async (userId: number) => {
      const user = await userRow(userId);
      return (await db().select().from(companies).where(eq(companies.id, user.companyId)))[0]!;
    };

    it("GET answers the caller's company; an Owner's PUT saves it with an audit row", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db(), { companyName: "Acme" });
      const empty = await (await call(api, "GET", "/api/Companies", undefined, me.accessToken)).json();
      expect(empty).toMatchObject({ name: "Acme", ABN: "", size: "", industry: "", hasProvidedCompanyDetails: false });
      const res = await from(api, "192.0.2.30", "PUT", "/api/Companies", valid, me.accessToken);
      expect(res.status).toBe(200);
      const saved = await (await call(api, "GET", "/api/Companies", undefined, me.accessToken)).json();
      expect(saved).toMatchObject({ ...valid, hasProvidedCompanyDetails: true });
      expect((await auditOf("settings.company_updated"))[0]).toMatchObject({
        actorUserId: me.userId,
        subject: `company:${(await companyOf(me.userId)).id}`,
        clientIp: "192.0.2.30",
        data: { from: { name: "Acme", abn: null }, to: { name: "Acme Holdings", abn: "51824753556" } },
      });
    });

    it("a Manager's PUT → 403 with its message, checked before the body: nothing changes", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db(), { companyName: "Acme" });
      await db().update(users).set({ managerRole: "manager" }).where(eq(users.id, me.userId));
      const before = await state();
      for (const body of [valid, { ...valid, ABN: "123" }, "not json"]) {
        const problem = await expectProblem(await call(api, "PUT", "/api/Companies", body, me.accessToken), 403);
        expect(problem.detail).toBe("Only an Owner of your company can do this.");
      }
      expect(await state()).toEqual(before);
      // Reading is every manager's.
      expect((await call(api, "GET", "/api/Companies", undefined, me.accessToken)).status).toBe(200);
    });

    it("an ABN failing its check digits → 400 with its message, nothing changes", async () => {
      const { api } = accountsApi(db(), { config });
      const me = await signUpVerified(api, db());
      await call(api, "PUT", "/api/Companies", valid, me.accessToken);
      const before = await state();
      const problem = await expectProblem(
        await call(api, "PUT", "/api/Companies", { ...valid, name: "Other", ABN: "51824753557" }, me.accessToken),
        400,
      );
      expect(problem.errors?.ABN).toEqual(["ABN is not valid; please check the number."]);
      expect(await state()).toEqual(before);
    });
  });

  it("no settings call of one manager touches another's row", async () => {
    const { api } = accountsApi(db(), { config });
    const me = await signUpVerified(api, db());
    const other = await signUpVerified(api, db(), { firstName: "Olly" });
    await call(api, "PUT", "/api/Users/MyDetails/Name", { firstName: "Mine", lastName: "Only" }, me.accessToken);
    expect((await userRow(other.userId)).firstName).toBe("Olly");
    expect(await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, other.email))).toHaveLength(1);
  });
});
