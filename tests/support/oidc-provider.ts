// A real OpenID Connect provider for the tests (ADR 0046): `oidc-provider`, a certified
// implementation, on a loopback port, with one confidential client (PKCE required) whose redirect
// URI is the app's /corporate/sso/callback, and test accounts. Its own development login page
// (devInteractions: any password, the login field names the account) is what Chromium fills in
// the end-to-end tests; `signInAtProvider` drives the same page with fetch and a cookie jar.
//
// `tamperNextIdToken` rewrites the next ID token the token endpoint answers (a claim changed, then
// signed again with the provider's own key), so a test can hand the app a token whose signature
// is good and whose audience, expiry or nonce is wrong: the checks the app must make itself; or
// signed with another key than the provider publishes, which the app must refuse too.
//
// Options make it the provider an IT department sets up by default elsewhere: the email claims at
// the UserInfo endpoint only (`conformIdTokenClaims`), a discovery document that leaves things out
// (`discovery`), the client registered for client_secret_post, and another loopback address.
import { createSign, generateKeyPairSync, type JsonWebKey, type KeyObject } from "node:crypto";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

export interface TestAccount {
  email: string;
  emailVerified: boolean;
  givenName?: string;
  familyName?: string;
}

export interface TestProviderOptions {
  port?: number;
  /** The app's callback, e.g. http://localhost:3330/corporate/sso/callback. */
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  accounts: TestAccount[];
  /**
   * Any email address typed at the login page is an account too (verified unless its local part
   * starts with "unverified"): the end-to-end projects each sign in people of their own domains.
   */
  anyAddress?: boolean;
  /**
   * oidc-provider's `conformIdTokenClaims`: true keeps the scopes' claims (email, names) out of the
   * ID token when an access token is issued, so they come from UserInfo only (Core 1.0 §5.4).
   */
  conformIdTokenClaims?: boolean;
  /** Rewrites the discovery document as it is served (e.g. `claims_supported` without email). */
  discovery?: (metadata: Record<string, unknown>) => Record<string, unknown>;
  /** Rewrites the UserInfo endpoint's JSON answer (e.g. another `sub`). */
  userInfo?: (claims: Record<string, unknown>) => Record<string, unknown>;
  /**
   * How the test client must authenticate at the token endpoint. oidc-provider itself takes Basic
   * and post alike; with client_secret_post this harness refuses Basic (401 invalid_client), as
   * a provider that reads only the registered method (or mis-reads encoded Basic credentials) does.
   */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
  /** The loopback address to listen on and name in the issuer (127.0.0.1 unless told). */
  host?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The next ID token the token endpoint answers goes through `change` (claims in, claims out). */
  tamperNextIdToken(
    change: (claims: Record<string, unknown>) => Record<string, unknown>,
    options?: { signWithAnotherKey?: boolean },
  ): void;
  /**
   * A back-channel logout token as the provider would post it (signed with its key), with
   * `claims` over the usual ones (iss, aud, iat, jti, the logout event).
   */
  logoutToken(claims: Record<string, unknown>): string;
  /** How many times the token endpoint has answered (a refused code counts too). */
  tokenCalls(): number;
  /** How many times the UserInfo endpoint (/me) has answered. */
  userInfoCalls(): number;
  close(): Promise<void>;
}

export const TEST_CLIENT_ID = "rewards-portal";
export const TEST_CLIENT_SECRET = "test-client-secret-that-is-long-enough-0123456789";

export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...(privateKey.export({ format: "jwk" }) as JsonWebKey), kid: "test-key", alg: "RS256", use: "sig" };
  const accounts = new Map(options.accounts.map((a) => [a.email.toLowerCase(), a]));
  const clientId = options.clientId ?? TEST_CLIENT_ID;
  const clientSecret = options.clientSecret ?? TEST_CLIENT_SECRET;

  // The port must be known before the issuer is: listen first, then build the provider on it.
  const { createServer } = await import("node:http");
  let handler: ((req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void) | null =
    null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    // An address this machine's loopback lacks (127.0.0.2 on macOS) rejects rather than throws later.
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: options.tokenEndpointAuthMethod ?? "client_secret_basic",
        // The app's back-channel logout; `sid` then goes in every ID token.
        backchannel_logout_uri: new URL("/api/Identity/sso/backchannel-logout", options.redirectUris[0]).href,
        backchannel_logout_session_required: true,
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ["oidc-test-cookie-key"] },
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["given_name", "family_name", "name"] },
    scopes: ["openid", "email", "profile"],
    // By default the email goes in the ID token itself; `conformIdTokenClaims` sends it to UserInfo.
    conformIdTokenClaims: options.conformIdTokenClaims ?? false,
    features: { devInteractions: { enabled: true }, backchannelLogout: { enabled: true } },
    // Consent is taken as given for the test client, so the login page is the only interaction.
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    async findAccount(_ctx, id) {
      const account =
        accounts.get(id.toLowerCase()) ??
        (options.anyAddress && /^[^@\s]+@[^@\s]+$/.test(id)
          ? { email: id, emailVerified: !id.toLowerCase().startsWith("unverified") }
          : undefined);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: account.email,
            email_verified: account.emailVerified,
            given_name: account.givenName,
            family_name: account.familyName,
          };
        },
      };
    },
    ttl: { Session: 3600, Interaction: 600, Grant: 3600, AuthorizationCode: 60, IdToken: 3600, AccessToken: 3600 },
  };
  const provider = new Provider(issuer, configuration);

  let tamper: { change: (claims: Record<string, unknown>) => Record<string, unknown>; key: KeyObject } | null = null;
  let tokenCalls = 0;
  let userInfoCalls = 0;
  provider.use(async (ctx, next) => {
    // Koa's context, which the provider's types leave out.
    const koa = ctx as unknown as { status: number; headers: Record<string, string | undefined> };
    if (
      ctx.path === "/token" &&
      options.tokenEndpointAuthMethod === "client_secret_post" &&
      /^basic /i.test(koa.headers.authorization ?? "")
    ) {
      tokenCalls++;
      koa.status = 401;
      ctx.body = { error: "invalid_client", error_description: "client authentication failed" };
      return;
    }
    await next();
    if (ctx.path === "/.well-known/openid-configuration" && options.discovery && ctx.body) {
      ctx.body = options.discovery({ ...(ctx.body as Record<string, unknown>) });
    }
    if (ctx.path === "/me") {
      userInfoCalls++;
      if (options.userInfo && ctx.body) ctx.body = options.userInfo({ ...(ctx.body as Record<string, unknown>) });
    }
    if (ctx.path !== "/token") return;
    tokenCalls++;
    const body = ctx.body as { id_token?: string } | undefined;
    if (!tamper || !body?.id_token) return;
    const { change, key } = tamper;
    tamper = null;
    const [header, payload] = body.id_token.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
    body.id_token = signJwt(header ?? "", change(claims), key);
  });

  handler = provider.callback();
  return {
    issuer,
    clientId,
    clientSecret,
    tamperNextIdToken(change, tamperOptions) {
      // Another key: a fresh RSA key under the provider's own `kid`, so only the signature tells.
      const key = tamperOptions?.signWithAnotherKey
        ? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey
        : privateKey;
      tamper = { change, key };
    },
    logoutToken(claims) {
      const header = Buffer.from(JSON.stringify({ alg: "RS256", kid: "test-key", typ: "logout+jwt" })).toString(
        "base64url",
      );
      const now = Math.floor(Date.now() / 1000);
      return signJwt(
        header,
        {
          iss: issuer,
          aud: clientId,
          iat: now,
          jti: `logout-${now}-${Math.random().toString(36).slice(2)}`,
          events: { "http://schemas.openid.net/event/backchannel-logout": {} },
          ...claims,
        },
        privateKey,
      );
    },
    tokenCalls: () => tokenCalls,
    userInfoCalls: () => userInfoCalls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function signJwt(encodedHeader: string, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  const signature = createSign("RSA-SHA256").update(input).sign(key).toString("base64url");
  return `${input}.${signature}`;
}

/**
 * Follows `authorizationUrl` through the provider's own login page with fetch and a cookie jar,
 * signing in as `login` (the account's email), and answers the callback URL the provider
 * redirected to (with ?code=…&state=…&iss=…), without calling it.
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (pair && eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== origin) return url;
    const res = await fetch(url, { redirect: "manual", headers: { cookie: cookieHeader() } });
    remember(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location") ?? "", url);
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !html.includes('name="login"')) {
      throw new Error(`unexpected provider page ${res.status} at ${url}: ${html.slice(0, 300)}`);
    }
    const posted = await fetch(new URL(action, url), {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "login", login, password: "any" }),
    });
    remember(posted);
    url = new URL(posted.headers.get("location") ?? "", url);
  }
  throw new Error("too many redirects at the provider");
}
