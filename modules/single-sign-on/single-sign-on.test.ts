// Single sign-on (ADR 0046) against a real OpenID Connect provider: oidc-provider on a loopback
// port (tests/support/oidc-provider.ts), its own login page driven with fetch and a cookie jar, the
// code exchanged and the ID token's signature checked by openid-client. Every refusal the issue
// lists (forged state, replayed callback, wrong audience, wrong nonce, expired token, unverified
// email, another company's manager or domain, SSO required vs break-glass) changes nothing.
import { and, count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import {
  accessTokens,
  auditLog,
  loginChallenges,
  passwordResets,
  singleSignOnConfigs,
  singleSignOnFlows,
  users,
} from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { signInAtProvider, startTestProvider, type TestProvider } from "../../tests/support/oidc-provider.ts";
import {
  accountsApi,
  call,
  emailsTo,
  latestResetToken,
  logIn,
  NEW_PASSWORD,
  PASSWORD,
  signUpVerified,
  testClock,
} from "../identity/accounts.testkit.ts";
import { hashPassword } from "../identity/password.server.ts";
import { SSO_DETAILS } from "./schema.ts";

const APP_URL = "http://localhost:3999";
const CALLBACK = `${APP_URL}/corporate/sso/callback`;
const OWNER = "olivia.owner@acme.test";
const COLLEAGUE = "new.colleague@acme.test";
const UNVERIFIED = "unverified@acme.test";
const OUTSIDER = "someone@elsewhere.test";
const OTHER_CO_MANAGER = "bob@acme.test";

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider({
    redirectUris: [CALLBACK],
    accounts: [
      { email: OWNER, emailVerified: true, givenName: "Olivia", familyName: "Owner" },
      { email: COLLEAGUE, emailVerified: true, givenName: "Nina", familyName: "Colleague" },
      { email: UNVERIFIED, emailVerified: false },
      { email: OUTSIDER, emailVerified: true },
      { email: OTHER_CO_MANAGER, emailVerified: true },
    ],
  });
});
afterAll(() => provider.close());

describeEachDatabase("single sign-on with OpenID Connect", ({ database }) => {
  const config = testConfig({ APP_URL });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  function setUp() {
    // The real clock: the provider stamps its tokens with it.
    return accountsApi(db(), { config, clock: testClock(new Date()) });
  }
  type Api = ReturnType<typeof setUp>["api"];

  const settings = (overrides: Record<string, unknown> = {}) => ({
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    domains: ["acme.test"],
    newManagerRole: "manager",
    required: false,
    ...overrides,
  });

  async function ownerWithSso(api: Api, overrides: Record<string, unknown> = {}) {
    const owner = await signUpVerified(api, db(), { email: OWNER, firstName: "Olivia", lastName: "Owner" });
    const res = await call(api, "PUT", "/api/SingleSignOn", settings(overrides), owner.accessToken);
    expect(res.status, await res.clone().text()).toBe(200);
    return owner;
  }

  /** A manager of the Owner's company with a password (as if invited before SSO was set up). */
  async function colleagueOf(owner: { userId: number }, email: string) {
    const [o] = await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, owner.userId));
    const [row] = await db()
      .insert(users)
      .values({
        companyId: o?.companyId ?? 0,
        firstName: "Pat",
        lastName: "Colleague",
        email,
        passwordHash: await hashPassword(PASSWORD),
        role: "program_manager",
        managerRole: "manager",
        emailVerifiedAt: new Date(),
      })
      .returning({ id: users.id });
    return { userId: row?.id ?? 0, email };
  }

  async function start(api: Api, email: string) {
    const res = await call(api, "POST", "/api/Identity/sso/start", { email });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { authorizationUrl: string; state: string };
  }

  /** Start, the provider's login page as `login`, and the callback as the browser would post it. */
  async function signIn(api: Api, email: string, login = email) {
    const started = await start(api, email);
    const back = await signInAtProvider(started.authorizationUrl, login);
    expect(back.origin + back.pathname).toBe(CALLBACK);
    const res = await call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state: started.state });
    return { res, back, started };
  }

  const managerCount = async () =>
    (await db().select({ n: count() }).from(users).where(eq(users.role, "program_manager")))[0]?.n ?? 0;
  const tokenCount = async () => (await db().select({ n: count() }).from(accessTokens))[0]?.n ?? 0;

  async function expectRefused(res: Response, detail: string = SSO_DETAILS.failed) {
    expect(res.status, await res.clone().text()).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(detail);
  }

  describe("configuration by an Owner", () => {
    it("saves the provider with the secret sealed, audited; the answer never carries the secret", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, { domains: ["acme.test", "Acme.Example"] });
      const got = await call(api, "GET", "/api/SingleSignOn", undefined, owner.accessToken);
      const text = await got.text();
      expect(text).not.toContain(provider.clientSecret);
      const { config: view } = JSON.parse(text) as { config: Record<string, unknown> };
      expect(view).toMatchObject({
        issuerUrl: provider.issuer,
        clientId: provider.clientId,
        domains: ["acme.example", "acme.test"],
        newManagerRole: "manager",
        required: false,
        breakGlass: { userId: owner.userId, email: OWNER },
      });
      const [row] = await db().select().from(singleSignOnConfigs);
      expect(row?.clientSecretSealed).toBeTruthy();
      expect(row?.clientSecretSealed).not.toContain(provider.clientSecret);
      const audits = await db().select().from(auditLog).where(eq(auditLog.action, "sso.configured"));
      expect(audits).toHaveLength(1);
      expect(JSON.stringify(audits[0]?.data)).not.toContain(provider.clientSecret);
    });

    it("refuses a domain another company already uses, and changes nothing", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const other = await signUpVerified(api, db(), { email: "owner@other.test" });
      const res = await call(api, "PUT", "/api/SingleSignOn", settings({ domains: ["acme.test"] }), other.accessToken);
      expect(res.status).toBe(409);
      expect(((await res.json()) as { detail: string }).detail).toBe(SSO_DETAILS.domainTaken);
      expect(await db().select().from(singleSignOnConfigs)).toHaveLength(1);
    });

    it("refuses a first save without a client secret and a malformed domain (400, nothing saved)", async () => {
      const { api } = setUp();
      const owner = await signUpVerified(api, db(), { email: OWNER });
      const noSecret = await call(api, "PUT", "/api/SingleSignOn", settings({ clientSecret: "" }), owner.accessToken);
      expect(noSecret.status).toBe(400);
      const badDomain = await call(api, "PUT", "/api/SingleSignOn", settings({ domains: ["@@"] }), owner.accessToken);
      expect(badDomain.status).toBe(400);
      expect(await db().select().from(singleSignOnConfigs)).toHaveLength(0);
    });

    it("tests the connection: works; a wrong secret and an unreachable issuer each say so", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api);
      const test = () => call(api, "POST", "/api/SingleSignOn/test", undefined, owner.accessToken);
      expect(await (await test()).json()).toEqual({ ok: true, detail: SSO_DETAILS.testOk, notes: [] });

      await call(api, "PUT", "/api/SingleSignOn", settings({ clientSecret: "wrong-secret" }), owner.accessToken);
      expect(await (await test()).json()).toEqual({ ok: false, detail: SSO_DETAILS.testBadCredentials });

      // A port nothing listens on (the provider's own, once closed, is not reused while this runs).
      const closed = await startTestProvider({ redirectUris: [CALLBACK], accounts: [] });
      await closed.close();
      await call(api, "PUT", "/api/SingleSignOn", settings({ issuerUrl: closed.issuer }), owner.accessToken);
      expect(await (await test()).json()).toEqual({ ok: false, detail: SSO_DETAILS.testUnreachable });
    });
  });

  describe("signing in", () => {
    it("a new colleague with a verified address in the domain becomes a Manager, audited, the Owner emailed", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const { res } = await signIn(api, COLLEAGUE);
      expect(res.status, await res.clone().text()).toBe(200);
      const { accessToken } = (await res.json()) as { accessToken: string };
      const me = await call(api, "GET", "/api/Users/MyDetails", undefined, accessToken);
      expect(await me.json()).toMatchObject({ email: COLLEAGUE, firstName: "Nina", managerRole: "manager" });
      const [created] = await db().select().from(users).where(eq(users.email, COLLEAGUE));
      expect(created).toMatchObject({ role: "program_manager", managerRole: "manager", passwordHash: null });
      expect(created?.emailVerifiedAt).toBeTruthy();
      const audits = await db().select().from(auditLog).where(eq(auditLog.action, "manager.joined_via_sso"));
      expect(audits).toHaveLength(1);
      const mail = await emailsTo(db(), OWNER);
      expect(mail.some((m) => m.subject.includes(`${COLLEAGUE} joined`))).toBe(true);
      // The provider's session and subject are kept with the token (its logout ends it).
      const [token] = await db()
        .select()
        .from(accessTokens)
        .where(eq(accessTokens.userId, created?.id ?? 0));
      expect(token?.ssoSubject).toBe(COLLEAGUE);
      // The flow is gone once used.
      expect(await db().select().from(singleSignOnFlows)).toHaveLength(0);
    });

    it("takes the configured role for a first-time manager (Owner)", async () => {
      const { api } = setUp();
      await ownerWithSso(api, { newManagerRole: "owner" });
      expect((await signIn(api, COLLEAGUE)).res.status).toBe(200);
      const [created] = await db().select().from(users).where(eq(users.email, COLLEAGUE));
      expect(created?.managerRole).toBe("owner");
    });

    it("an existing manager with the address is matched, not created again", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api);
      const before = await managerCount();
      const { res } = await signIn(api, OWNER);
      expect(res.status).toBe(200);
      const { accessToken } = (await res.json()) as { accessToken: string };
      const me = (await (await call(api, "GET", "/api/Users/MyDetails", undefined, accessToken)).json()) as {
        id: number;
      };
      expect(me.id).toBe(owner.userId);
      expect(await managerCount()).toBe(before);
    });

    it("a manager of another company with an address in the domain is refused, never moved", async () => {
      const { api } = setUp();
      const bob = await signUpVerified(api, db(), { email: OTHER_CO_MANAGER, companyName: "Other Co" });
      await ownerWithSso(api);
      const tokens = await tokenCount();
      const { res } = await signIn(api, OTHER_CO_MANAGER);
      await expectRefused(res, SSO_DETAILS.otherCompany);
      const [before] = await db().select().from(users).where(eq(users.id, bob.userId));
      await expectRefused((await signIn(api, OTHER_CO_MANAGER)).res, SSO_DETAILS.otherCompany);
      const [row] = await db().select().from(users).where(eq(users.id, bob.userId));
      expect(row?.companyId).toBe(before?.companyId);
      expect(row?.managerRole).toBe("owner");
      expect(await tokenCount()).toBe(tokens);
    });

    it("an unverified email is refused and nothing is created", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const before = await managerCount();
      const { res } = await signIn(api, UNVERIFIED);
      await expectRefused(res, SSO_DETAILS.emailNotVerified);
      expect(await managerCount()).toBe(before);
    });

    it("an address outside the company's domains (the provider vouches for someone else) is refused", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const before = await managerCount();
      // Started for the domain, signed in at the provider as someone of another domain.
      const { res } = await signIn(api, COLLEAGUE, OUTSIDER);
      await expectRefused(res, SSO_DETAILS.domainNotCovered);
      expect(await managerCount()).toBe(before);
    });

    it("a domain with no single sign-on is answered so (404), and no flow is kept", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const res = await call(api, "POST", "/api/Identity/sso/start", { email: OUTSIDER });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toBe(SSO_DETAILS.notConfigured);
      expect(await db().select().from(singleSignOnFlows)).toHaveLength(0);
    });
  });

  describe("forged and replayed callbacks change nothing", () => {
    it("a state the browser was not sent off with (login CSRF) is refused; the real one still works once", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const started = await start(api, COLLEAGUE);
      const back = await signInAtProvider(started.authorizationUrl, COLLEAGUE);
      const before = await managerCount();
      const tokenCalls = provider.tokenCalls();
      // The attacker's own callback, posted with the victim's browser state.
      const forged = await call(api, "POST", "/api/Identity/sso/callback", {
        query: back.search,
        state: "someone-elses-state",
      });
      await expectRefused(forged);
      // A made-up state in both places.
      const made = new URLSearchParams(back.search);
      made.set("state", "made-up");
      await expectRefused(
        await call(api, "POST", "/api/Identity/sso/callback", { query: `?${made}`, state: "made-up" }),
      );
      expect(await managerCount()).toBe(before);
      // Refused before the code was ever sent to the provider: it is still good for its own browser.
      expect(provider.tokenCalls()).toBe(tokenCalls);
      const real = await call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state: started.state });
      expect(real.status, await real.clone().text()).toBe(200);
    });

    it("the same callback posted twice at once signs in once: one 200, one refusal, one manager", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const started = await start(api, COLLEAGUE);
      const back = await signInAtProvider(started.authorizationUrl, COLLEAGUE);
      const body = { query: back.search, state: started.state };
      const answers = await Promise.all([
        call(api, "POST", "/api/Identity/sso/callback", body),
        call(api, "POST", "/api/Identity/sso/callback", body),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(await db().select().from(users).where(eq(users.email, COLLEAGUE))).toHaveLength(1);
    });

    it("a replayed callback (same code, same state) is refused the second time; one token only", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const { res, back, started } = await signIn(api, COLLEAGUE);
      expect(res.status).toBe(200);
      const tokens = await tokenCount();
      const again = await call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state: started.state });
      await expectRefused(again);
      expect(await tokenCount()).toBe(tokens);
    });

    it("a code used already (replayed into a new flow) is refused by the provider", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const first = await signIn(api, COLLEAGUE);
      expect(first.res.status).toBe(200);
      const tokens = await tokenCount();
      const second = await start(api, COLLEAGUE);
      const replay = new URLSearchParams(first.back.search);
      replay.set("state", second.state);
      await expectRefused(
        await call(api, "POST", "/api/Identity/sso/callback", { query: `?${replay}`, state: second.state }),
      );
      expect(await tokenCount()).toBe(tokens);
    });

    for (const [what, change] of [
      ["an ID token for another audience", (c: Record<string, unknown>) => ({ ...c, aud: "another-client" })],
      ["an ID token with another nonce", (c: Record<string, unknown>) => ({ ...c, nonce: "not-the-flows-nonce" })],
      [
        "an expired ID token",
        (c: Record<string, unknown>) => ({
          ...c,
          iat: Math.floor(Date.now() / 1000) - 7200,
          exp: Math.floor(Date.now() / 1000) - 3600,
        }),
      ],
      ["an ID token from another issuer", (c: Record<string, unknown>) => ({ ...c, iss: "http://127.0.0.1:9" })],
    ] as const) {
      it(`${what} (signed with the provider's own key) is refused and nothing is created`, async () => {
        const { api } = setUp();
        await ownerWithSso(api);
        const before = await managerCount();
        const tokens = await tokenCount();
        provider.tamperNextIdToken(change);
        const { res } = await signIn(api, COLLEAGUE);
        await expectRefused(res);
        expect(await managerCount()).toBe(before);
        expect(await tokenCount()).toBe(tokens);
      });
    }

    it("an expired flow (the browser came back after its 10 minutes) is refused", async () => {
      const { api, clock } = setUp();
      await ownerWithSso(api);
      const started = await start(api, COLLEAGUE);
      const back = await signInAtProvider(started.authorizationUrl, COLLEAGUE);
      clock.advance(11 * 60 * 1000);
      await expectRefused(
        await call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state: started.state }),
      );
      expect(await db().select().from(users).where(eq(users.email, COLLEAGUE))).toHaveLength(0);
    });
  });

  describe("the provider's back-channel logout", () => {
    const postLogout = (api: Api, token: string) =>
      api.request("/api/Identity/sso/backchannel-logout", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ logout_token: token }),
      });

    it("a logout token signed by the provider for the session ends it; a forged or misaddressed one changes nothing", async () => {
      const { api } = setUp();
      await ownerWithSso(api);
      const { res } = await signIn(api, COLLEAGUE);
      const { accessToken } = (await res.json()) as { accessToken: string };
      const me = () => call(api, "GET", "/api/Users/MyDetails", undefined, accessToken);
      const [row] = await db().select().from(accessTokens).where(sql`${accessTokens.ssoSessionId} is not null`);
      const sid = row?.ssoSessionId as string;
      expect(sid).toBeTruthy();

      // Signed by someone else (a key of our own making): refused.
      const forged = provider.logoutToken({ sid, sub: COLLEAGUE }).split(".");
      forged[2] = Buffer.from("not the provider's signature").toString("base64url");
      expect((await postLogout(api, forged.join("."))).status).toBe(400);
      // For another client, or without the logout event: refused.
      expect((await postLogout(api, provider.logoutToken({ sid, aud: "another-client" }))).status).toBe(400);
      expect((await postLogout(api, provider.logoutToken({ sid, events: {} }))).status).toBe(400);
      expect((await me()).status).toBe(200);

      // The provider's own: the session ends.
      expect((await postLogout(api, provider.logoutToken({ sid, sub: COLLEAGUE }))).status).toBe(200);
      expect((await me()).status).toBe(401);
    });
  });

  it("removing a manager who came in through single sign-on ends their session, as for any manager", async () => {
    const { api } = setUp();
    const owner = await ownerWithSso(api);
    const { res } = await signIn(api, COLLEAGUE);
    const { accessToken } = (await res.json()) as { accessToken: string };
    const [created] = await db().select().from(users).where(eq(users.email, COLLEAGUE));
    const removed = await call(api, "DELETE", `/api/Managers/${created?.id}`, undefined, owner.accessToken);
    expect(removed.status, await removed.clone().text()).toBe(204);
    expect((await call(api, "GET", "/api/Users/MyDetails", undefined, accessToken)).status).toBe(401);
  });

  describe("require single sign-on, and the break-glass Owner", () => {
    it("password sign-in and reset are refused for the domain's managers, naming the button; the break-glass Owner still signs in", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api);
      // A colleague who had a password account before SSO was required, with a reset link open.
      const colleague = await colleagueOf(owner, "pat@acme.test");
      await call(api, "POST", "/api/Identity/ResetPasswordRequest", { email: "pat@acme.test" });
      const resetToken = await latestResetToken(db(), "pat@acme.test");

      await call(api, "PUT", "/api/SingleSignOn", settings({ required: true }), owner.accessToken);

      const refusedLogin = await logIn(api, "pat@acme.test");
      expect(refusedLogin.status).toBe(403);
      expect(((await refusedLogin.json()) as { detail: string }).detail).toBe(SSO_DETAILS.required);
      expect(SSO_DETAILS.required).toContain("Sign in with your company account");

      const refusedReset = await call(api, "POST", "/api/Identity/ResetPasswordRequest", { email: "pat@acme.test" });
      expect(refusedReset.status).toBe(403);
      // The link sent before the requirement no longer works.
      const oldLink = await call(api, "POST", "/api/Identity/ResetPassword", {
        passwordResetToken: resetToken,
        password: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      });
      expect(oldLink.status).toBe(400);
      expect(await db().select().from(passwordResets).where(eq(passwordResets.userId, colleague.userId))).toHaveLength(
        0,
      );

      // The break-glass Owner (who saved the settings) signs in with the password.
      const breakGlass = await logIn(api, OWNER, PASSWORD);
      expect(breakGlass.status, await breakGlass.clone().text()).toBe(200);
      // A manager of another company whose address is in the domain keeps their password.
      const bob = await signUpVerified(api, db(), { email: OTHER_CO_MANAGER, companyName: "Other Co" });
      expect((await logIn(api, bob.email)).status).toBe(200);
      // And the domain's managers sign in through the provider.
      expect((await signIn(api, COLLEAGUE)).res.status).toBe(200);
    });

    it("a second-factor step started before the requirement cannot be finished", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api);
      const colleague = await colleagueOf(owner, "sam@acme.test");
      await db()
        .insert(loginChallenges)
        .values({
          userId: colleague.userId,
          tokenHash: "x".repeat(64),
          purpose: "verify",
          expiresAt: new Date(Date.now() + 600_000),
        });
      await call(api, "PUT", "/api/SingleSignOn", settings({ required: true }), owner.accessToken);
      const open = await db()
        .select()
        .from(loginChallenges)
        .where(and(eq(loginChallenges.userId, colleague.userId), sql`${loginChallenges.consumedAt} is null`));
      expect(open).toHaveLength(0);
    });

    it("a break-glass Owner who is no longer an Owner is no longer break-glass", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, { required: true });
      expect((await logIn(api, OWNER)).status).toBe(200);
      await db().update(users).set({ managerRole: "manager" }).where(eq(users.id, owner.userId));
      const refused = await logIn(api, OWNER);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toBe(SSO_DETAILS.required);
    });

    it("another domain's managers keep their passwords", async () => {
      const { api } = setUp();
      await ownerWithSso(api, { required: true });
      const other = await signUpVerified(api, db(), { email: "someone@elsewhere.test" });
      expect((await logIn(api, other.email)).status).toBe(200);
      const wrong = await logIn(api, "nobody@acme.test", "Wrong#Password1");
      expect(((await wrong.json()) as { detail: string }).detail).toBe(SSO_DETAILS.required);
      expect(DETAILS.invalidLoginCredentials).not.toBe(SSO_DETAILS.required);
    });
  });
});
