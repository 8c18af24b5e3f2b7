// A company's managers (ADR 0022 §1, §3–§5): invitations by email (single use, 7 days, revocable),
// the invitee's preview and accept, roles, removal ending every session, the last Owner, and a
// Manager refused every Owner-only call with nothing changed.
import { and, eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import type { Db } from "../../server/db/client.ts";
import { accessTokens, auditLog, companies, managerInvites, users, webSessions } from "../../server/db/schema.ts";
import { webSessionStore } from "../../server/web-sessions.ts";
import { snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, emailsTo, lastEmailTo, logIn, signUpVerified } from "../identity/accounts.testkit.ts";
import { MANAGER_MESSAGES } from "./schema.ts";

const NEW_MANAGER_PASSWORD = "Welcome#2025";
const DAY_MS = 24 * 60 * 60 * 1000;

type Api = ReturnType<typeof accountsApi>["api"];

/** The invitation token of the newest invitation email to `address` (from the link in its text part). */
async function inviteTokenFor(db: Db, address: string): Promise<string> {
  const row = await lastEmailTo(db, address);
  const match = /\/corporate\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(row.text);
  if (!match?.[1]) throw new Error(`no invitation link in the newest email to ${address}`);
  return decodeURIComponent(match[1]);
}

const acceptBody = (token: string, overrides: Record<string, unknown> = {}) => ({
  token,
  firstName: "Ivy",
  lastName: "Invitee",
  password: NEW_MANAGER_PASSWORD,
  confirmPassword: NEW_MANAGER_PASSWORD,
  ...overrides,
});

describeEachDatabase("a company's managers", ({ database }) => {
  const config = testConfig({ APP_URL: "https://rewards.test" });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  /** An onboarded Owner: signed up, verified, the company details saved (invitations need them). */
  async function owner(api: Api, companyName = "Acme Pty Ltd") {
    const account = await signUpVerified(api, db(), { companyName });
    const details = { name: companyName, ABN: "51824753556", size: "11-50", industry: "Retail" };
    expect((await call(api, "PUT", "/api/Companies/", details, account.accessToken)).status).toBe(200);
    const [row] = await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, account.userId));
    return { ...account, companyId: row?.companyId as number };
  }

  /** Invites `email` as `role` and accepts the emailed link: the new manager with their token. */
  async function invited(api: Api, by: { accessToken: string }, email: string, role: "owner" | "manager") {
    const res = await call(api, "POST", "/api/Managers/invites", { email, role }, by.accessToken);
    expect(res.status, await res.clone().text()).toBe(201);
    const token = await inviteTokenFor(db(), email);
    const accepted = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    const { accessToken } = (await accepted.json()) as { accessToken: string };
    const [row] = await db()
      .select()
      .from(users)
      .where(and(eq(users.email, email), eq(users.isActive, true)));
    return { accessToken, userId: row?.id as number, email };
  }

  describe("inviting and accepting", () => {
    it("an Owner invites; the email names the inviter and the company; the invitee previews, accepts and is signed in with the role", async () => {
      const { api, onEmailQueued } = accountsApi(db(), { config });
      const o = await owner(api);
      const res = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "Ivy@Example.com", role: "manager" },
        o.accessToken,
      );
      expect(res.status).toBe(201);
      const created = (await res.json()) as { id: number; email: string; managerRole: string; expiresAt: string };
      expect(created).toMatchObject({ email: "Ivy@Example.com", managerRole: "manager" });
      expect(new Date(created.expiresAt).getTime() - new Date("2025-03-01T09:00:00.000Z").getTime()).toBe(7 * DAY_MS);
      expect(onEmailQueued).toHaveBeenCalled();

      const email = await lastEmailTo(db(), "Ivy@Example.com");
      expect(email.subject).toBe("Jane Citizen invited you to Acme Pty Ltd on Reward Portal");
      expect(email.text).toContain("Jane Citizen invited you to reward the team of Acme Pty Ltd");
      expect(email.text).toContain("valid for 7 days");
      expect(email.html).toContain("https://rewards.test/corporate/accept-invite?token=");
      const token = await inviteTokenFor(db(), "Ivy@Example.com");
      // Only the token's SHA-256 is stored.
      const [stored] = await db().select().from(managerInvites);
      expect(stored?.tokenHash).not.toContain(token);

      const preview = await call(api, "POST", "/api/ManagerInvites/preview", { token });
      expect(preview.status).toBe(200);
      expect(await preview.json()).toEqual({
        companyName: "Acme Pty Ltd",
        inviterName: "Jane Citizen",
        email: "Ivy@Example.com",
        managerRole: "manager",
        // No single sign-on required: the invitee chooses a password (modules/identity/sign-in.server.ts).
        signInWithProvider: false,
      });

      const list = (await (await call(api, "GET", "/api/Managers", undefined, o.accessToken)).json()) as {
        managers: unknown[];
        invites: Array<{ email: string; invitedByName: string }>;
      };
      expect(list.managers).toHaveLength(1);
      expect(list.invites).toEqual([
        expect.objectContaining({ email: "Ivy@Example.com", invitedByName: "Jane Citizen" }),
      ]);

      const accepted = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
      expect(accepted.status).toBe(200);
      const body = (await accepted.json()) as { accessToken: string; appSettings: Record<string, boolean> };
      expect(body.appSettings).toEqual({ hasProvidedCompanyDetails: true, hasWatchedOnboardingVideo: false });
      const me = (await (await call(api, "GET", "/api/Users/MyDetails", undefined, body.accessToken)).json()) as Record<
        string,
        unknown
      >;
      expect(me).toMatchObject({
        companyId: o.companyId,
        firstName: "Ivy",
        lastName: "Invitee",
        email: "Ivy@Example.com",
        companyName: "Acme Pty Ltd",
        managerRole: "manager",
      });
      const [row] = await db()
        .select()
        .from(users)
        .where(eq(users.id, me.id as number));
      expect(row?.emailVerifiedAt).toBeInstanceOf(Date);
      expect(row?.role).toBe("program_manager");
      // The new manager logs in with the password they chose.
      expect((await logIn(api, "ivy@example.com", NEW_MANAGER_PASSWORD)).status).toBe(200);

      const after = (await (await call(api, "GET", "/api/Managers", undefined, o.accessToken)).json()) as {
        managers: Array<{ email: string; managerRole: string; isYou: boolean }>;
        invites: unknown[];
      };
      expect(after.invites).toEqual([]);
      expect(after.managers.map((m) => [m.email, m.managerRole, m.isYou])).toEqual([
        ["Ivy@Example.com", "manager", false],
        [o.email, "owner", true],
      ]);
      const actions = (await db().select().from(auditLog)).map((a) => a.action).sort();
      // The Owner's onboarding (the company details) and the invitation's two steps.
      expect(actions).toEqual(["manager.invite_accepted", "manager.invited", "settings.company_updated"]);
    });

    it("in a company that requires a second factor, accepting answers a set-up challenge, no token; the set-up then signs the invitee in", async () => {
      const { api, clock } = accountsApi(db(), { config });
      const o = await owner(api);
      await db().update(companies).set({ twoFactorRequired: true }).where(eq(companies.id, o.companyId));
      const res = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "ivy@example.com", role: "manager" },
        o.accessToken,
      );
      expect(res.status).toBe(201);
      const accepted = await call(
        api,
        "POST",
        "/api/ManagerInvites/accept",
        acceptBody(await inviteTokenFor(db(), "ivy@example.com")),
      );
      expect(accepted.status).toBe(200);
      const answer = (await accepted.json()) as { twoFactor: string; challengeToken: string };
      expect(Object.keys(answer).sort()).toEqual(["challengeToken", "twoFactor"]);
      expect(answer.twoFactor).toBe("setup");
      const [ivy] = await db().select().from(users).where(eq(users.email, "ivy@example.com"));
      expect(ivy).toMatchObject({ managerRole: "manager", isActive: true });
      expect(
        await db()
          .select()
          .from(accessTokens)
          .where(eq(accessTokens.userId, ivy?.id as number)),
      ).toEqual([]);

      const started = (await (
        await call(api, "POST", "/api/TwoFactor/setup", { challengeToken: answer.challengeToken })
      ).json()) as { secret: string };
      const code = TOTP.generate({ secret: Secret.fromBase32(started.secret), timestamp: clock.now().getTime() });
      const confirmed = await call(api, "POST", "/api/TwoFactor/confirm", {
        challengeToken: answer.challengeToken,
        code,
      });
      expect(confirmed.status, await confirmed.clone().text()).toBe(200);
      const { signIn } = (await confirmed.json()) as { signIn: { accessToken: string } };
      const me = await call(api, "GET", "/api/Users/MyDetails", undefined, signIn.accessToken);
      expect(((await me.json()) as { email: string }).email).toBe("ivy@example.com");
    });

    it("a used link is refused with its message, and creates nothing", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      await invited(api, o, "ivy@example.com", "manager");
      const token = await inviteTokenFor(db(), "ivy@example.com");
      const before = await snapshot(db());
      const again = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token, { firstName: "Eve" }));
      expect((await expectProblem(again, 410)).detail).toBe(MANAGER_MESSAGES.inviteUsed);
      const preview = await call(api, "POST", "/api/ManagerInvites/preview", { token });
      expect((await expectProblem(preview, 410)).detail).toBe(MANAGER_MESSAGES.inviteUsed);
      expect(await snapshot(db())).toEqual(before);
    });

    it("an expired link (7 days on) is refused with its message, and creates nothing", async () => {
      const { api, clock } = accountsApi(db(), { config });
      const o = await owner(api);
      await call(api, "POST", "/api/Managers/invites", { email: "ivy@example.com", role: "manager" }, o.accessToken);
      const token = await inviteTokenFor(db(), "ivy@example.com");
      clock.advance(7 * DAY_MS - 1000);
      expect((await call(api, "POST", "/api/ManagerInvites/preview", { token })).status).toBe(200);
      clock.advance(1000);
      const before = await snapshot(db());
      const accept = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
      expect((await expectProblem(accept, 410)).detail).toBe(MANAGER_MESSAGES.inviteExpired);
      const preview = await call(api, "POST", "/api/ManagerInvites/preview", { token });
      expect((await expectProblem(preview, 410)).detail).toBe(MANAGER_MESSAGES.inviteExpired);
      expect(await snapshot(db())).toEqual(before);
      // No longer pending either (the Owner signs in again: a token lives 12 hours).
      const fresh = (await (await logIn(api, o.email)).json()) as { accessToken: string };
      const list = (await (await call(api, "GET", "/api/Managers", undefined, fresh.accessToken)).json()) as {
        invites: unknown[];
      };
      expect(list.invites).toEqual([]);
    });

    it("a revoked link is refused with its message; revoking twice is one revocation; a used one cannot be revoked", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const res = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "ivy@example.com", role: "owner" },
        o.accessToken,
      );
      const { id } = (await res.json()) as { id: number };
      const token = await inviteTokenFor(db(), "ivy@example.com");
      expect((await call(api, "DELETE", `/api/Managers/invites/${id}`, undefined, o.accessToken)).status).toBe(204);
      expect((await call(api, "DELETE", `/api/Managers/invites/${id}`, undefined, o.accessToken)).status).toBe(204);
      const before = await snapshot(db());
      const accept = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
      expect((await expectProblem(accept, 410)).detail).toBe(MANAGER_MESSAGES.inviteRevoked);
      expect(await snapshot(db())).toEqual(before);
      expect((await db().select().from(auditLog).where(eq(auditLog.action, "manager.invite_revoked"))).length).toBe(1);

      await invited(api, o, "max@example.com", "manager");
      const [used] = await db().select().from(managerInvites).where(eq(managerInvites.email, "max@example.com"));
      const refused = await call(api, "DELETE", `/api/Managers/invites/${used?.id}`, undefined, o.accessToken);
      expect((await expectProblem(refused, 409)).detail).toBe(MANAGER_MESSAGES.inviteNotPending);
    });

    it("an unknown or malformed link answers 404 with its message", async () => {
      const { api } = accountsApi(db(), { config });
      for (const token of ["x".repeat(43), "nope"]) {
        const res = await call(api, "POST", "/api/ManagerInvites/preview", { token });
        expect((await expectProblem(res, 404)).detail).toBe(MANAGER_MESSAGES.inviteInvalid);
        const accept = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
        expect((await expectProblem(accept, 404)).detail).toBe(MANAGER_MESSAGES.inviteInvalid);
      }
      const missing = await call(api, "POST", "/api/ManagerInvites/preview", {});
      expect((await expectProblem(missing, 400)).detail).toBeTruthy();
    });

    it("accepting checks sign-up's rules: names required, the password rules, the confirmation", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      await call(api, "POST", "/api/Managers/invites", { email: "ivy@example.com", role: "manager" }, o.accessToken);
      const token = await inviteTokenFor(db(), "ivy@example.com");
      const before = await snapshot(db());
      for (const [overrides, field] of [
        [{ firstName: "" }, "firstName"],
        [{ lastName: " " }, "lastName"],
        [{ password: "short", confirmPassword: "short" }, "password"],
        [{ confirmPassword: "Different#2025" }, "confirmPassword"],
      ] as const) {
        const res = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token, overrides));
        const problem = await expectProblem(res, 400);
        expect(JSON.stringify(problem), field).toContain(field);
      }
      expect(await snapshot(db())).toEqual(before);
    });

    it("refuses an address an active manager already signs in with (any company) or a team member of the company holds", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const other = await owner(api, "Other Pty Ltd");
      const member = await call(
        api,
        "POST",
        "/api/Users/create-user",
        { firstName: "Tim", lastName: "Team", email: "tim@example.com" },
        o.accessToken,
      );
      expect(member.status, await member.clone().text()).toBeLessThan(300);
      const before = await snapshot(db());
      for (const email of [other.email, o.email.toUpperCase(), "tim@example.com"]) {
        const res = await call(api, "POST", "/api/Managers/invites", { email, role: "manager" }, o.accessToken);
        expect((await expectProblem(res, 409)).detail, email).toBe(DETAILS.emailAlreadyUsed);
      }
      expect(await snapshot(db())).toEqual(before);
      // A team member of another company may be invited: the address is that company's, not a sign-in.
      const ok = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "tim@example.com", role: "manager" },
        other.accessToken,
      );
      expect(ok.status).toBe(201);
    });

    it("an address taken after the invitation was sent: accepting answers 'Email is already used' and creates nothing", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      await call(api, "POST", "/api/Managers/invites", { email: "ivy@example.com", role: "manager" }, o.accessToken);
      const token = await inviteTokenFor(db(), "ivy@example.com");
      await signUpVerified(api, db(), { email: "ivy@example.com", companyName: "Ivy's Own" });
      const before = await snapshot(db());
      const res = await call(api, "POST", "/api/ManagerInvites/accept", acceptBody(token));
      expect((await expectProblem(res, 409)).detail).toBe(DETAILS.emailAlreadyUsed);
      expect(await snapshot(db())).toEqual(before);
    });

    it("inviting the same address again replaces the pending invitation (the old link stops working)", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      await call(api, "POST", "/api/Managers/invites", { email: "ivy@example.com", role: "manager" }, o.accessToken);
      const first = await inviteTokenFor(db(), "ivy@example.com");
      await call(api, "POST", "/api/Managers/invites", { email: "IVY@example.com", role: "owner" }, o.accessToken);
      const second = await inviteTokenFor(db(), "IVY@example.com");
      expect(second).not.toBe(first);
      expect((await call(api, "POST", "/api/ManagerInvites/preview", { token: first })).status).toBe(410);
      const preview = (await (await call(api, "POST", "/api/ManagerInvites/preview", { token: second })).json()) as {
        managerRole: string;
      };
      expect(preview.managerRole).toBe("owner");
      const list = (await (await call(api, "GET", "/api/Managers", undefined, o.accessToken)).json()) as {
        invites: unknown[];
      };
      expect(list.invites).toHaveLength(1);
    });

    it("refuses a bad invitation body with field messages and changes nothing", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const before = await snapshot(db());
      for (const body of [{}, { email: "not-an-email", role: "manager" }, { email: "a@example.com", role: "admin" }]) {
        await expectProblem(await call(api, "POST", "/api/Managers/invites", body, o.accessToken), 400);
      }
      expect(await snapshot(db())).toEqual(before);
      expect(await emailsTo(db(), "a@example.com")).toEqual([]);
    });

    it("refuses to invite before the company details are saved (the invitee could not get past onboarding), and sends nothing", async () => {
      const { api } = accountsApi(db(), { config });
      const fresh = await signUpVerified(api, db(), { companyName: "Not Yet Pty Ltd" });
      const res = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "early@example.com", role: "manager" },
        fresh.accessToken,
      );
      expect((await expectProblem(res, 409)).detail).toBe(MANAGER_MESSAGES.detailsFirst);
      expect(await db().select().from(managerInvites)).toEqual([]);
      expect(await emailsTo(db(), "early@example.com")).toEqual([]);
    });

    it("limits the invitations an Owner sends per hour (429), counting before any work", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      for (let i = 0; i < 20; i++) {
        const res = await call(
          api,
          "POST",
          "/api/Managers/invites",
          { email: `p${i}@example.com`, role: "manager" },
          o.accessToken,
        );
        expect(res.status).toBe(201);
      }
      const res = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "p20@example.com", role: "manager" },
        o.accessToken,
      );
      expect((await expectProblem(res, 429)).detail).toBe(DETAILS.tooManyAttempts);
      expect(await emailsTo(db(), "p20@example.com")).toEqual([]);
    });
  });

  describe("roles, removal and the last Owner", () => {
    it("an Owner changes a manager's role: it holds at the next call, and is in the audit trail", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const m = await invited(api, o, "ivy@example.com", "manager");
      expect((await call(api, "GET", "/api/Managers", undefined, m.accessToken)).status).toBe(403);
      const res = await call(api, "PUT", `/api/Managers/${m.userId}/role`, { role: "owner" }, o.accessToken);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: m.userId, managerRole: "owner" });
      expect((await call(api, "GET", "/api/Managers", undefined, m.accessToken)).status).toBe(200);
      const [entry] = await db().select().from(auditLog).where(eq(auditLog.action, "manager.role_changed"));
      expect(entry).toMatchObject({
        actorUserId: o.userId,
        subject: `user:${m.userId}`,
        data: { from: "manager", to: "owner" },
      });
    });

    it("removing a manager ends every session at once: tokens revoked, web sessions deleted, the address free again", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const m = await invited(api, o, "ivy@example.com", "manager");
      const second = (await (await logIn(api, "ivy@example.com", NEW_MANAGER_PASSWORD)).json()) as {
        accessToken: string;
      };
      // Web sessions carry their manager (the store sets user_id from the session's user).
      const store = webSessionStore(db(), "s".repeat(32));
      const sid = await store.create({ accessToken: m.accessToken, user: { id: m.userId } });
      const ownerSid = await store.create({ accessToken: o.accessToken, user: { id: o.userId } });
      const anonymous = await store.create({ toast: "x" });
      await store.update(sid, { accessToken: m.accessToken, user: { id: m.userId }, appSettings: {} });
      expect((await db().select().from(webSessions).where(eq(webSessions.id, sid)))[0]?.userId).toBe(m.userId);

      const res = await call(api, "DELETE", `/api/Managers/${m.userId}`, undefined, o.accessToken);
      expect(res.status).toBe(204);
      for (const token of [m.accessToken, second.accessToken]) {
        expect((await call(api, "GET", "/api/Users/MyDetails", undefined, token)).status).toBe(401);
      }
      expect(await store.read(sid)).toBeNull();
      expect(await store.read(ownerSid)).not.toBeNull();
      expect(await store.read(anonymous)).not.toBeNull();
      const tokens = await db().select().from(accessTokens).where(eq(accessTokens.userId, m.userId));
      expect(tokens.every((t) => t.revokedAt !== null)).toBe(true);
      const [row] = await db().select().from(users).where(eq(users.id, m.userId));
      expect(row?.isActive).toBe(false);
      expect((await logIn(api, "ivy@example.com", NEW_MANAGER_PASSWORD)).status).toBe(400);
      const list = (await (await call(api, "GET", "/api/Managers", undefined, o.accessToken)).json()) as {
        managers: unknown[];
      };
      expect(list.managers).toHaveLength(1);
      const [entry] = await db().select().from(auditLog).where(eq(auditLog.action, "manager.removed"));
      expect(entry?.data).toMatchObject({ email: "ivy@example.com", tokensRevoked: 2, webSessionsEnded: 1 });
      // The address can be invited again (removal keeps the row for history, inactive).
      const again = await invited(api, o, "ivy@example.com", "manager");
      expect(again.userId).not.toBe(m.userId);
      // Removing twice: the manager is gone.
      const twice = await call(api, "DELETE", `/api/Managers/${m.userId}`, undefined, o.accessToken);
      expect((await expectProblem(twice, 404)).detail).toBe(MANAGER_MESSAGES.managerNotFound);
    });

    it("the last Owner can be neither demoted nor removed, by themselves or anyone: 409 and nothing changes", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const m = await invited(api, o, "ivy@example.com", "manager");
      const before = await snapshot(db());
      const demote = await call(api, "PUT", `/api/Managers/${o.userId}/role`, { role: "manager" }, o.accessToken);
      expect((await expectProblem(demote, 409)).detail).toBe(MANAGER_MESSAGES.lastOwner);
      const remove = await call(api, "DELETE", `/api/Managers/${o.userId}`, undefined, o.accessToken);
      expect((await expectProblem(remove, 409)).detail).toBe(MANAGER_MESSAGES.lastOwner);
      expect(await snapshot(db())).toEqual(before);
      // With a second Owner, the first may step down (and then remove nobody).
      await call(api, "PUT", `/api/Managers/${m.userId}/role`, { role: "owner" }, o.accessToken);
      const stepDown = await call(api, "PUT", `/api/Managers/${o.userId}/role`, { role: "manager" }, o.accessToken);
      expect(stepDown.status).toBe(200);
      expect((await call(api, "DELETE", `/api/Managers/${m.userId}`, undefined, o.accessToken)).status).toBe(403);
      // …and the remaining Owner is now the last one.
      const last = await call(api, "DELETE", `/api/Managers/${m.userId}`, undefined, m.accessToken);
      expect((await expectProblem(last, 409)).detail).toBe(MANAGER_MESSAGES.lastOwner);
      // An Owner who is not the last may remove themselves; their sessions end.
      await call(api, "PUT", `/api/Managers/${o.userId}/role`, { role: "owner" }, m.accessToken);
      expect((await call(api, "DELETE", `/api/Managers/${m.userId}`, undefined, m.accessToken)).status).toBe(204);
      expect((await call(api, "GET", "/api/Users/MyDetails", undefined, m.accessToken)).status).toBe(401);
    });

    it("two Owners demoting each other at once leave exactly one Owner", async () => {
      for (let round = 0; round < 3; round++) {
        await truncateAll(db());
        const { api } = accountsApi(db(), { config });
        const o = await owner(api);
        const p = await invited(api, o, `second.${round}@example.com`, "owner");
        const results = await Promise.all([
          call(api, "PUT", `/api/Managers/${p.userId}/role`, { role: "manager" }, o.accessToken),
          call(api, "PUT", `/api/Managers/${o.userId}/role`, { role: "manager" }, p.accessToken),
        ]);
        const statuses = results.map((r) => r.status).sort();
        expect(statuses[0]).toBe(200);
        expect([403, 409]).toContain(statuses[1]);
        const owners = await db()
          .select()
          .from(users)
          .where(and(eq(users.companyId, o.companyId), eq(users.managerRole, "owner"), eq(users.isActive, true)));
        expect(owners).toHaveLength(1);
      }
    });

    it("two Owners removing each other at once leave exactly one Owner", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const p = await invited(api, o, "second@example.com", "owner");
      const results = await Promise.all([
        call(api, "DELETE", `/api/Managers/${p.userId}`, undefined, o.accessToken),
        call(api, "DELETE", `/api/Managers/${o.userId}`, undefined, p.accessToken),
      ]);
      expect(results.filter((r) => r.status === 204)).toHaveLength(1);
      const owners = await db()
        .select()
        .from(users)
        .where(and(eq(users.companyId, o.companyId), eq(users.managerRole, "owner"), eq(users.isActive, true)));
      expect(owners).toHaveLength(1);
    });

    it("a Manager gets 403 'Only an Owner…' on every Owner-only call, and nothing changes", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const m = await invited(api, o, "ivy@example.com", "manager");
      const pending = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "pat@example.com", role: "manager" },
        o.accessToken,
      );
      const { id: inviteId } = (await pending.json()) as { id: number };
      const before = await snapshot(db());
      for (const [method, path, body] of [
        ["GET", "/api/Managers", undefined],
        ["POST", "/api/Managers/invites", { email: "zed@example.com", role: "owner" }],
        ["POST", "/api/Managers/invites", { nonsense: true }],
        ["DELETE", `/api/Managers/invites/${inviteId}`, undefined],
        ["PUT", `/api/Managers/${m.userId}/role`, { role: "owner" }],
        ["PUT", `/api/Managers/${o.userId}/role`, { role: "manager" }],
        ["DELETE", `/api/Managers/${o.userId}`, undefined],
        ["DELETE", `/api/Managers/${m.userId}`, undefined],
      ] as const) {
        const res = await call(api, method, path, body, m.accessToken);
        expect((await expectProblem(res, 403)).detail, `${method} ${path}`).toBe(DETAILS.ownerOnly);
      }
      expect(await snapshot(db())).toEqual(before);
    });

    it("another company's managers and invitations answer 404 and do not change", async () => {
      const { api } = accountsApi(db(), { config });
      const o = await owner(api);
      const m = await invited(api, o, "ivy@example.com", "manager");
      const pending = await call(
        api,
        "POST",
        "/api/Managers/invites",
        { email: "pat@example.com", role: "manager" },
        o.accessToken,
      );
      const { id: inviteId } = (await pending.json()) as { id: number };
      const stranger = await owner(api, "Stranger Pty Ltd");
      const before = await snapshot(db());
      for (const [method, path, body] of [
        ["PUT", `/api/Managers/${m.userId}/role`, { role: "owner" }],
        ["DELETE", `/api/Managers/${m.userId}`, undefined],
        ["DELETE", `/api/Managers/${o.userId}`, undefined],
        ["DELETE", `/api/Managers/invites/${inviteId}`, undefined],
        ["DELETE", "/api/Managers/0", undefined],
        ["DELETE", "/api/Managers/abc", undefined],
      ] as const) {
        await expectProblem(await call(api, method, path, body, stranger.accessToken), 404);
      }
      expect(await snapshot(db())).toEqual(before);
      const list = (await (await call(api, "GET", "/api/Managers", undefined, stranger.accessToken)).json()) as {
        managers: Array<{ email: string }>;
        invites: unknown[];
      };
      expect(list.managers.map((x) => x.email)).toEqual([stranger.email]);
      expect(list.invites).toEqual([]);
    });
  });
});
