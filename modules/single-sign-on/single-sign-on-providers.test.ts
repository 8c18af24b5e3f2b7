// Single sign-on (ADR 0046, amended) with providers set up as IT departments often leave them,
// against the real oidc-provider (tests/support/oidc-provider.ts) through the real API, on PGlite
// and PostgreSQL: the email claims at the UserInfo endpoint only (`conformIdTokenClaims`), a
// discovery document whose `claims_supported` leaves out email, a client registered for
// client_secret_post, a provider on another loopback address (127.0.0.2), and an ID token signed
// with a key the provider does not publish.
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accessTokens, singleSignOnConfigs, users } from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { signInAtProvider, startTestProvider, type TestProvider } from "../../tests/support/oidc-provider.ts";
import { accountsApi, call, signUpVerified, testClock } from "../identity/accounts.testkit.ts";
import { SSO_DETAILS } from "./schema.ts";

const APP_URL = "http://localhost:3998";
const CALLBACK = `${APP_URL}/corporate/sso/callback`;
const OWNER = "olivia.owner@acme.test";
const COLLEAGUE = "nina.colleague@acme.test";
const accounts = [
  { email: OWNER, emailVerified: true, givenName: "Olivia", familyName: "Owner" },
  { email: COLLEAGUE, emailVerified: true, givenName: "Nina", familyName: "Colleague" },
];

/** A provider as many are by default: claims at UserInfo only, `claims_supported` without email. */
let userInfoOnly: TestProvider;
/** The same, but its UserInfo answers for another subject (§5.3.2: must be refused). */
let otherSubject: TestProvider;
/** A client registered for client_secret_post, on 127.0.0.2, listing only that method. */
let postOnly: TestProvider;
/** The usual provider (claims in the ID token), for the signature check. */
let usual: TestProvider;
/** A client registered for client_secret_basic at a provider whose discovery lists only client_secret_post. */
let basicUnlisted: TestProvider;

beforeAll(async () => {
  const withoutEmailClaim = (m: Record<string, unknown>) => ({
    ...m,
    claims_supported: ((m.claims_supported as string[]) ?? []).filter((c) => c !== "email" && c !== "email_verified"),
  });
  const onlyPost = (m: Record<string, unknown>) => ({
    ...m,
    token_endpoint_auth_methods_supported: ["client_secret_post"],
  });
  [userInfoOnly, otherSubject, postOnly, usual, basicUnlisted] = await Promise.all([
    startTestProvider({ redirectUris: [CALLBACK], accounts, conformIdTokenClaims: true, discovery: withoutEmailClaim }),
    startTestProvider({
      redirectUris: [CALLBACK],
      accounts,
      conformIdTokenClaims: true,
      userInfo: (claims) => ({ ...claims, sub: OWNER }),
    }),
    startTestProvider({
      redirectUris: [CALLBACK],
      accounts,
      host: "127.0.0.2",
      tokenEndpointAuthMethod: "client_secret_post",
      discovery: onlyPost,
    }),
    startTestProvider({ redirectUris: [CALLBACK], accounts }),
    startTestProvider({ redirectUris: [CALLBACK], accounts, discovery: onlyPost }),
  ]);
});
afterAll(() => Promise.all([userInfoOnly, otherSubject, postOnly, usual, basicUnlisted].map((p) => p?.close())));

describeEachDatabase("single sign-on with other providers", ({ database }) => {
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  function setUp(appUrl = APP_URL) {
    return accountsApi(db(), { config: testConfig({ APP_URL: appUrl }), clock: testClock(new Date()) });
  }
  type Api = ReturnType<typeof setUp>["api"];

  const settings = (provider: TestProvider, overrides: Record<string, unknown> = {}) => ({
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    domains: ["acme.test"],
    newManagerRole: "manager",
    required: false,
    ...overrides,
  });

  async function ownerWithSso(api: Api, provider: TestProvider, overrides: Record<string, unknown> = {}) {
    const owner = await signUpVerified(api, db(), { email: OWNER, firstName: "Olivia", lastName: "Owner" });
    const res = await call(api, "PUT", "/api/SingleSignOn", settings(provider, overrides), owner.accessToken);
    expect(res.status, await res.clone().text()).toBe(200);
    return owner;
  }

  async function signIn(api: Api, email: string) {
    const started = await call(api, "POST", "/api/Identity/sso/start", { email });
    expect(started.status, await started.clone().text()).toBe(200);
    const { authorizationUrl, state } = (await started.json()) as { authorizationUrl: string; state: string };
    const back = await signInAtProvider(authorizationUrl, email);
    expect(back.origin + back.pathname).toBe(CALLBACK);
    return call(api, "POST", "/api/Identity/sso/callback", { query: back.search, state });
  }

  const testConnection = async (api: Api, accessToken: string) =>
    (await call(api, "POST", "/api/SingleSignOn/test", undefined, accessToken)).json();
  const managers = async () =>
    (await db().select({ n: count() }).from(users).where(eq(users.role, "program_manager")))[0]?.n ?? 0;
  const tokens = async () => (await db().select({ n: count() }).from(accessTokens))[0]?.n ?? 0;

  describe("the email claims at the UserInfo endpoint only (Core 1.0 §5.4)", () => {
    it("a new colleague signs in: the email, its verification and the names are read from UserInfo", async () => {
      const { api } = setUp();
      await ownerWithSso(api, userInfoOnly);
      const calls = userInfoOnly.userInfoCalls();
      const res = await signIn(api, COLLEAGUE);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(userInfoOnly.userInfoCalls()).toBe(calls + 1);
      const [created] = await db().select().from(users).where(eq(users.email, COLLEAGUE));
      expect(created).toMatchObject({ firstName: "Nina", lastName: "Colleague", managerRole: "manager" });
      const [token] = await db()
        .select()
        .from(accessTokens)
        .where(eq(accessTokens.userId, created?.id ?? 0));
      // The subject stays the ID token's.
      expect(token?.ssoSubject).toBe(COLLEAGUE);
    });

    it("a UserInfo answer for another subject is refused (§5.3.2) and nothing is created", async () => {
      const { api } = setUp();
      await ownerWithSso(api, otherSubject);
      const [before, beforeTokens] = [await managers(), await tokens()];
      const res = await signIn(api, COLLEAGUE);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toBe(SSO_DETAILS.failed);
      expect(await managers()).toBe(before);
      expect(await tokens()).toBe(beforeTokens);
    });

    it("the ID token is not read twice: a provider that puts the claims in it gets no UserInfo call", async () => {
      const { api } = setUp();
      await ownerWithSso(api, usual);
      const calls = usual.userInfoCalls();
      expect((await signIn(api, COLLEAGUE)).status).toBe(200);
      expect(usual.userInfoCalls()).toBe(calls);
    });
  });

  describe("Test the connection", () => {
    it("a discovery document without email in claims_supported (not exhaustive, Discovery 1.0 §3) works, with a note", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, userInfoOnly);
      expect(await testConnection(api, owner.accessToken)).toEqual({
        ok: true,
        detail: SSO_DETAILS.testOk,
        notes: [SSO_DETAILS.testNoteEmailClaimUnlisted],
      });
    });

    it("a provider listing everything gets no note", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, usual);
      expect(await testConnection(api, owner.accessToken)).toEqual({ ok: true, detail: SSO_DETAILS.testOk, notes: [] });
    });

    it("notes a chosen client authentication the discovery document does not list, when the provider accepts it", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, basicUnlisted);
      expect(await testConnection(api, owner.accessToken)).toEqual({
        ok: true,
        detail: SSO_DETAILS.testOk,
        notes: [SSO_DETAILS.testNoteAuthMethodUnlisted],
      });
    });
  });

  describe("client authentication chosen by the Owner", () => {
    it("defaults to client_secret_basic, for rows saved before the setting too", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, usual);
      const [row] = await db().select().from(singleSignOnConfigs);
      expect(row?.tokenEndpointAuthMethod).toBe("client_secret_basic");
      const got = (await (await call(api, "GET", "/api/SingleSignOn", undefined, owner.accessToken)).json()) as {
        config: { tokenEndpointAuthMethod: string };
      };
      expect(got.config.tokenEndpointAuthMethod).toBe("client_secret_basic");
    });

    it("an unknown method is refused with a clear message and changes nothing", async () => {
      const { api } = setUp();
      const owner = await ownerWithSso(api, usual);
      const res = await call(
        api,
        "PUT",
        "/api/SingleSignOn",
        settings(usual, { tokenEndpointAuthMethod: "private_key_jwt" }),
        owner.accessToken,
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(SSO_DETAILS.authMethodInvalid);
      const [row] = await db().select().from(singleSignOnConfigs);
      expect(row?.tokenEndpointAuthMethod).toBe("client_secret_basic");
    });

    it("client_secret_post at a provider that wants it (on 127.0.0.2): the test and a sign-in work", async () => {
      expect(postOnly.issuer).toMatch(/^http:\/\/127\.0\.0\.2:/);
      const { api } = setUp();
      const owner = await ownerWithSso(api, postOnly, { tokenEndpointAuthMethod: "client_secret_post" });
      expect(await testConnection(api, owner.accessToken)).toEqual({ ok: true, detail: SSO_DETAILS.testOk, notes: [] });
      const res = await signIn(api, COLLEAGUE);
      expect(res.status, await res.clone().text()).toBe(200);
      // With Basic, the same provider refuses the client: the setting is what goes to the provider.
      await call(
        api,
        "PUT",
        "/api/SingleSignOn",
        settings(postOnly, { tokenEndpointAuthMethod: "client_secret_basic", clientSecret: "" }),
        owner.accessToken,
      );
      expect(await testConnection(api, owner.accessToken)).toEqual({
        ok: false,
        detail: SSO_DETAILS.testBadCredentials,
      });
    });
  });

  it("an ID token signed with a key the provider does not publish is refused and nothing is created", async () => {
    const { api } = setUp();
    await ownerWithSso(api, usual);
    const [before, beforeTokens] = [await managers(), await tokens()];
    usual.tamperNextIdToken((claims) => claims, { signWithAnotherKey: true });
    const res = await signIn(api, COLLEAGUE);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(SSO_DETAILS.failed);
    expect(await managers()).toBe(before);
    expect(await tokens()).toBe(beforeTokens);
    // The provider's own signature still goes through.
    expect((await signIn(api, COLLEAGUE)).status).toBe(200);
  });

  it("a deployment refuses a plain-http loopback issuer at save: its browsers could not reach it", async () => {
    const { api } = setUp("https://rewards.example.com");
    const owner = await signUpVerified(api, db(), { email: OWNER });
    const res = await call(api, "PUT", "/api/SingleSignOn", settings(usual), owner.accessToken);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(SSO_DETAILS.issuerInvalid);
    expect(await db().select().from(singleSignOnConfigs)).toHaveLength(0);
  });
});
