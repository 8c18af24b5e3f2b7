// Who may sign in (docs/rules.md; modules/identity/sign-in.server.ts, ADR 0046): every door that
// opens a session asks one function, so the company's single sign-on requirement holds at each of
// them, by the manager's company and not by the address they have now; a removed manager does not
// come back through the provider; and a back-channel logout ends its session in whichever company
// it belongs to. Through the real API, against the real OpenID provider of the other SSO tests.
import { and, count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  accessTokens,
  auditLog,
  loginChallenges,
  managerInvites,
  passwordResets,
  users,
} from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { signInAtProvider, startTestProvider, type TestProvider } from "../../tests/support/oidc-provider.ts";
import { SSO_DETAILS, SSO_SIGN_IN_DETAILS, ssoRemovedDetail } from "../single-sign-on/schema.ts";
import {
  accountsApi,
  authenticatorCode,
  call,
  lastEmailTo,
  latestCode,
  logIn,
  NEW_PASSWORD,
  PASSWORD,
  signUpVerified,
  testClock,
} from "./accounts.testkit.ts";
import { sha256Hex } from "./identity-crypto.server.ts";
import { hashPassword } from "./password.server.ts";

const APP_URL = "http://localhost:3998";
const CALLBACK = `${APP_URL}/corporate/sso/callback`;
const OWNER = "olivia.owner@acme.test";
const COLLEAGUE = "new.colleague@acme.test";
const PAT = "pat@acme.test";
const INVITEE = "x@acme.test";
const COMPANY = "Acme Pty Ltd";

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider({
    redirectUris: [CALLBACK],
    accounts: [
      { email: OWNER, emailVerified: true, givenName: "Olivia", familyName: "Owner" },
      { email: COLLEAGUE, emailVerified: true, givenName: "Nina", familyName: "Colleague" },
      { email: PAT, emailVerified: true, givenName: "Pat", familyName: "Colleague" },
      { email: INVITEE, emailVerified: true, givenName: "Xavier", familyName: "Invitee" },
    ],
  });
});
afterAll(() => provider.close());

describeEachDatabase("who may sign in", ({ database }) => {
  const config = testConfig({ APP_URL });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  let clock = testClock(new Date());
  const setUp = () => {
    clock = testClock(new Date());
    return accountsApi(db(), { config, clock }).api;
  };
  type Api = ReturnType<typeof setUp>;

  const settings = (overrides: Record<string, unknown> = {}) => ({
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    domains: ["acme.test"],
    newManagerRole: "manager",
    required: false,
    ...overrides,
  });

  /** An onboarded Owner (company details saved: invitations need them) with the provider set up. */
  async function ownerWithSso(api: Api, overrides: Record<string, unknown> = {}, email = OWNER, name = COMPANY) {
    const owner = await signUpVerified(api, db(), { email, firstName: "Olivia", lastName: "Owner", companyName: name });
    const details = { name, ABN: "51824753556", size: "11-50", industry: "Retail" };
    expect((await call(api, "PUT", "/api/Companies/", details, owner.accessToken)).status).toBe(200);
    const res = await call(api, "PUT", "/api/SingleSignOn", settings(overrides), owner.accessToken);
    expect(res.status, await res.clone().text()).toBe(200);
    const [row] = await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, owner.userId));
    return { ...owner, companyId: row?.companyId as number };
  }

  /** A manager of the company with a password (as if invited before single sign-on was required). */
  async function colleagueOf(owner: { companyId: number }, email: string, verified = true) {
    const [row] = await db()
      .insert(users)
      .values({
        companyId: owner.companyId,
        firstName: "Pat",
        lastName: "Colleague",
        email,
        passwordHash: await hashPassword(PASSWORD),
        role: "program_manager",
        managerRole: "manager",
        emailVerifiedAt: verified ? new Date() : null,
      })
      .returning({ id: users.id, publicId: users.publicId });
    return { userId: row?.id as number, publicId: row?.publicId as string, email };
  }

  async function ssoSignIn(api: Api, email: string) {
    const started = await call(api, "POST", "/api/Identity/sso/start", { email });
    expect(started.status, await started.clone().text()).toBe(200);
    const { authorizationUrl, state } = (await started.json()) as { authorizationUrl: string; state: string };
    const back = await signInAtProvider(authorizationUrl, email);
    return call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state });
  }

  const detailOf = async (res: Response) => ((await res.clone().json()) as { detail: string }).detail;
  const rowsOf = (email: string) => db().select().from(users).where(sql`lower(${users.email}) = lower(${email})`);

  async function inviteTokenFor(email: string): Promise<string> {
    const row = await lastEmailTo(db(), email);
    const match = /\/corporate\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(row.text);
    if (!match?.[1]) throw new Error(`no invitation link in the newest email to ${email}`);
    return decodeURIComponent(match[1]);
  }
  async function invite(api: Api, owner: { accessToken: string }, email: string, role: "owner" | "manager") {
    const res = await call(api, "POST", "/api/Managers/invites", { email, role }, owner.accessToken);
    expect(res.status, await res.clone().text()).toBe(201);
    return inviteTokenFor(email);
  }

  it("under required single sign-on an invitation takes no password: 403 naming the provider, nothing changes; the provider's sign-in accepts it, audited", async () => {
    const api = setUp();
    const owner = await ownerWithSso(api, { required: true });
    const token = await invite(api, owner, INVITEE, "owner");

    const preview = await call(api, "POST", "/api/ManagerInvites/preview", { token });
    expect(((await preview.json()) as { signInWithProvider: boolean }).signInWithProvider).toBe(true);

    const accepted = await call(api, "POST", "/api/ManagerInvites/accept", {
      token,
      firstName: "Xavier",
      lastName: "Invitee",
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(accepted.status, await accepted.clone().text()).toBe(403);
    const problem = (await accepted.json()) as { detail: string; signInWithProvider?: boolean };
    expect(problem.detail).toBe(SSO_SIGN_IN_DETAILS.inviteThroughProvider);
    expect(problem.signInWithProvider).toBe(true);
    expect(await rowsOf(INVITEE)).toHaveLength(0);
    const [pending] = await db().select().from(managerInvites).where(eq(managerInvites.email, INVITEE));
    expect(pending?.acceptedAt).toBeNull();

    // Through the provider: the invitation is accepted, with its role (not the just-in-time one).
    const viaProvider = await ssoSignIn(api, INVITEE);
    expect(viaProvider.status, await viaProvider.clone().text()).toBe(200);
    const [joined] = await rowsOf(INVITEE);
    expect(joined).toMatchObject({ managerRole: "owner", isActive: true, passwordHash: null });
    const [used] = await db().select().from(managerInvites).where(eq(managerInvites.email, INVITEE));
    expect(used?.acceptedUserId).toBe(joined?.id);
    const audit = await db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.subject, `user:${joined?.id}`));
    expect(audit.map((a) => a.action)).toEqual(["manager.invite_accepted"]);
    expect(audit[0]?.data).toMatchObject({ via: "sso", invite: used?.id });
    // And the link cannot be used with a password afterwards.
    expect((await logIn(api, INVITEE, NEW_PASSWORD)).status).toBe(403);
  });

  it("under required single sign-on a manager who moves their address out of the domain still has no password sign-in", async () => {
    const api = setUp();
    const owner = await ownerWithSso(api, { required: true });
    await colleagueOf(owner, PAT);
    const signedIn = await ssoSignIn(api, PAT);
    expect(signedIn.status, await signedIn.clone().text()).toBe(200);
    const { accessToken } = (await signedIn.json()) as { accessToken: string };

    const moved = "pat@elsewhere.test";
    const requested = await call(
      api,
      "POST",
      "/api/Users/MyEmail/Request",
      { newEmail: moved, currentPassword: PASSWORD },
      accessToken,
    );
    expect(requested.status, await requested.clone().text()).toBe(200);
    const { requestToken } = (await requested.json()) as { requestToken: string };
    const confirmed = await call(
      api,
      "POST",
      "/api/Users/MyEmail/Confirm",
      { requestToken, verificationCode: await latestCode(db(), moved) },
      accessToken,
    );
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);

    const tokensBefore = (await db().select({ n: count() }).from(accessTokens))[0]?.n;
    const login = await logIn(api, moved);
    expect(login.status, await login.clone().text()).toBe(403);
    expect(await detailOf(login)).toBe(SSO_DETAILS.required);
    // Nor by a reset link (none is sent).
    await call(api, "POST", "/api/Identity/ResetPasswordRequest", { email: moved });
    const [me] = await rowsOf(moved);
    expect(
      await db()
        .select()
        .from(passwordResets)
        .where(eq(passwordResets.userId, me?.id as number)),
    ).toHaveLength(0);
    expect((await db().select({ n: count() }).from(accessTokens))[0]?.n).toBe(tokensBefore);
  });

  it("a manager an Owner removed does not come back through the provider; an Owner's invitation restores them, audited", async () => {
    const api = setUp();
    const owner = await ownerWithSso(api);
    const first = await ssoSignIn(api, COLLEAGUE);
    expect(first.status, await first.clone().text()).toBe(200);
    const { accessToken } = (await first.json()) as { accessToken: string };
    const [created] = await rowsOf(COLLEAGUE);
    const removed = await call(api, "DELETE", `/api/Managers/${created?.id}`, undefined, owner.accessToken);
    expect(removed.status).toBe(204);
    expect((await call(api, "GET", "/api/Users/MyDetails", undefined, accessToken)).status).toBe(401);

    const again = await ssoSignIn(api, COLLEAGUE);
    expect(again.status, await again.clone().text()).toBe(400);
    expect(await detailOf(again)).toBe(ssoRemovedDetail(COMPANY));
    expect(await rowsOf(COLLEAGUE)).toHaveLength(1);
    const listed = await call(api, "GET", "/api/Managers", undefined, owner.accessToken);
    expect(JSON.stringify(await listed.json())).not.toContain(COLLEAGUE);

    // An Owner invites them again: the provider's sign-in accepts the invitation.
    await invite(api, owner, COLLEAGUE, "manager");
    const restored = await ssoSignIn(api, COLLEAGUE);
    expect(restored.status, await restored.clone().text()).toBe(200);
    const active = (await rowsOf(COLLEAGUE)).filter((u) => u.isActive);
    expect(active).toHaveLength(1);
    const [accepted] = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, `user:${active[0]?.id}`), eq(auditLog.action, "manager.invite_accepted")));
    expect(accepted?.data).toMatchObject({ via: "sso" });
  });

  it("a logout token ends its session in its own company, even when another company saved the same issuer and client first", async () => {
    const api = setUp();
    // Company B copies A's public issuer URL and client id, and is saved first (found first).
    await ownerWithSso(api, { domains: ["beta.test"] }, "boss@beta.test", "Beta Ltd");
    await ownerWithSso(api);
    const signedIn = await ssoSignIn(api, COLLEAGUE);
    expect(signedIn.status, await signedIn.clone().text()).toBe(200);
    const { accessToken } = (await signedIn.json()) as { accessToken: string };
    const [row] = await db().select().from(accessTokens).where(sql`${accessTokens.ssoSessionId} is not null`);
    const logout = await api.request("/api/Identity/sso/backchannel-logout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ logout_token: provider.logoutToken({ sid: row?.ssoSessionId, sub: COLLEAGUE }) }),
    });
    expect(logout.status).toBe(200);
    expect((await call(api, "GET", "/api/Users/MyDetails", undefined, accessToken)).status).toBe(401);
  });

  describe("every door asks the one function", () => {
    it("the requirement refuses a domain manager's password at login, verification, reset completion and invitation; the break-glass Owner signs in", async () => {
      const api = setUp();
      const owner = await ownerWithSso(api, { required: true });
      const tokens = async () => (await db().select({ n: count() }).from(accessTokens))[0]?.n;
      const before = await tokens();

      // Login.
      await colleagueOf(owner, PAT);
      const login = await logIn(api, PAT);
      expect(login.status).toBe(403);

      // Verification: an address not yet verified, its code right.
      const unverified = await colleagueOf(owner, "una@acme.test", false);
      const requested = await call(api, "POST", "/api/Identity/VerifyEmailRequest", { userId: unverified.publicId });
      expect(requested.status, await requested.clone().text()).toBe(200);
      const { requestToken } = (await requested.json()) as { requestToken: string };
      const verified = await call(api, "POST", "/api/Identity/VerifyEmail", {
        userId: unverified.publicId,
        requestToken,
        verificationCode: await latestCode(db(), "una@acme.test"),
      });
      expect(verified.status, await verified.clone().text()).toBe(403);
      expect(await detailOf(verified)).toBe(SSO_DETAILS.required);

      // Reset completion: a link that exists under the requirement (written as the request would).
      const [pat] = await rowsOf(PAT);
      const resetToken = "reset-token-made-under-the-requirement";
      await db()
        .insert(passwordResets)
        .values({ userId: pat?.id as number, tokenHash: sha256Hex(resetToken), expiresAt: new Date(Date.now() + 3e6) });
      const reset = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: resetToken,
        password: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      });
      expect(reset.status, await reset.clone().text()).toBe(403);
      expect((await logIn(api, PAT, NEW_PASSWORD)).status).toBe(403);
      const [unchanged] = await rowsOf(PAT);
      expect(unchanged?.passwordHash).toBe(pat?.passwordHash);

      // Invitation (the defect test above goes further).
      const token = await invite(api, owner, INVITEE, "manager");
      const accepted = await call(api, "POST", "/api/ManagerInvites/accept", {
        token,
        firstName: "X",
        lastName: "Y",
        password: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      });
      expect(accepted.status).toBe(403);
      expect(await tokens()).toBe(before);

      // The break-glass Owner keeps the password; the others sign in through the provider.
      expect((await logIn(api, OWNER)).status).toBe(200);
      expect((await ssoSignIn(api, PAT)).status).toBe(200);
    });

    it("the second-factor step does not finish a password sign-in under the requirement", async () => {
      const api = setUp();
      const owner = await ownerWithSso(api);
      await colleagueOf(owner, PAT);
      // Pat turns an app on while passwords still work.
      const login = await logIn(api, PAT);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const started = await call(api, "POST", "/api/TwoFactor/setup", {}, accessToken);
      const { secret } = (await started.json()) as { secret: string };
      const confirmed = await call(
        api,
        "POST",
        "/api/TwoFactor/confirm",
        { code: authenticatorCode(secret, clock.now()), password: PASSWORD },
        accessToken,
      );
      expect(confirmed.status, await confirmed.clone().text()).toBe(200);
      await call(api, "PUT", "/api/SingleSignOn", settings({ required: true }), owner.accessToken);

      // A challenge open under the requirement (however it came to be) and the right code: refused.
      const [pat] = await rowsOf(PAT);
      const challengeToken = "challenge-open-under-the-requirement";
      await db()
        .insert(loginChallenges)
        .values({
          userId: pat?.id as number,
          tokenHash: sha256Hex(challengeToken),
          purpose: "verify",
          expiresAt: new Date(clock.now().getTime() + 300_000),
        });
      const before = (await db().select({ n: count() }).from(accessTokens))[0]?.n;
      clock.advance(31_000);
      const code = await call(api, "POST", "/api/Identity/login-code", {
        challengeToken,
        code: authenticatorCode(secret, clock.now()),
      });
      expect(code.status, await code.clone().text()).toBe(403);
      expect(await detailOf(code)).toBe(SSO_DETAILS.required);
      expect((await db().select({ n: count() }).from(accessTokens))[0]?.n).toBe(before);
    });
  });
});
