// Single sign-on with the company's OpenID Connect provider (ADR 0046):
//   GET  /api/SingleSignOn                → { config: {...} | null }          (Owner)
//   PUT  /api/SingleSignOn  {...}         → { config }                        (Owner; audited)
//   POST /api/SingleSignOn/test           → { ok, detail, notes? }            (Owner; discovery,
//                                            client credentials, the email scope; notes beside ok)
//   POST /api/Identity/sso/start    { email }          → { authorizationUrl, state }  (public)
//   POST /api/Identity/sso/callback { query, state }   → { accessToken, appSettings } (public)
//   POST /api/Identity/sso/backchannel-logout  logout_token=… (form) → 200 (the provider's server)
// The two public calls spend the login budget of the client's address (rate-limits.ts "login"),
// counted on arrival like the password login: the callback is limited like login whatever URL
// reached it (the web's /corporate/sso/callback calls it through the typed client).
// The redirect URI is always APP_URL's /corporate/sso/callback: it is what the Owner registers at
// the provider, and openid-client sends it with the code.
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { resolveSessionSecret } from "../../server/secret.ts";
import { completeSingleSignOnSchema, SSO_DETAILS, saveSingleSignOnSchema, startSingleSignOnSchema } from "./schema.ts";
import {
  backChannelLogout,
  completeSingleSignOn,
  getSingleSignOn,
  type SingleSignOnKeys,
  saveSingleSignOn,
  singleSignOnKeys,
  startSingleSignOn,
  testSingleSignOn,
} from "./service.server.ts";

/** Where the provider sends the browser back: the address an Owner registers at the provider. */
export const SSO_CALLBACK_PATH = "/corporate/sso/callback";

export function singleSignOnRoutes(
  deps: ApiDeps,
  auth: MiddlewareHandler<ApiEnv>,
  limits: RateLimits,
  now: () => Date,
) {
  // The seal's keys come from the server secret, as the webhook secrets' do (webhooks.ts).
  let keys: Promise<SingleSignOnKeys> | undefined;
  const keysOf = (): Promise<SingleSignOnKeys> => {
    keys ??= resolveSessionSecret(deps.db, deps.config.SESSION_SECRET).then(
      ({ secret }) => singleSignOnKeys(secret),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    );
    return keys;
  };
  const redirectUri = new URL(SSO_CALLBACK_PATH, deps.config.APP_URL).href;
  const actorOf = (c: Context<ApiEnv>) => {
    const { companyId, userId } = requireOwner(c);
    return { companyId, userId, clientIp: c.get("clientIp") ?? null };
  };

  return (
    new Hono<ApiEnv>()
      .get("/SingleSignOn", auth, ownerOnly, async (c) =>
        c.json({ config: await getSingleSignOn(deps.db, actorOf(c).companyId) }),
      )
      .put("/SingleSignOn", auth, ownerOnly, jsonBody(saveSingleSignOnSchema), async (c) => {
        const actor = actorOf(c);
        const outcome = await saveSingleSignOn(
          deps.db,
          await keysOf(),
          actor,
          c.req.valid("json"),
          now(),
          deps.config.APP_URL,
        );
        if (!outcome.ok) throw new Refusal(outcome.refused);
        return c.json({ config: await getSingleSignOn(deps.db, actor.companyId) });
      })
      .post("/SingleSignOn/test", auth, ownerOnly, async (c) => {
        const { companyId } = actorOf(c);
        await limits.perAccount("ssoTest", `company:${companyId}`);
        return c.json(await testSingleSignOn(deps.db, await keysOf(), companyId, redirectUri));
      })
      .post("/Identity/sso/start", limits.perClient("login"), jsonBody(startSingleSignOnSchema), async (c) => {
        const started = await startSingleSignOn(deps.db, await keysOf(), c.req.valid("json").email, redirectUri, now());
        if (started.status === "not_configured") throw new Refusal("sso-not-configured");
        if (started.status === "unavailable") throw new Refusal("sso-provider-unavailable");
        return c.json({ authorizationUrl: started.authorizationUrl, state: started.state });
      })
      // The provider's back-channel logout (a form post from its server, not a browser): 200 when
      // the token is good, whether or not it named a session of ours; 400 otherwise.
      .post("/Identity/sso/backchannel-logout", limits.perClient("ssoLogout"), async (c) => {
        const type = c.req.header("content-type") ?? "";
        const body = type.startsWith("application/x-www-form-urlencoded") ? await c.req.parseBody() : {};
        const token = typeof body.logout_token === "string" ? body.logout_token : "";
        c.header("cache-control", "no-store");
        if (!token || token.length > 8000) throw new ProblemError(400, SSO_DETAILS.logoutRefused);
        const result = await backChannelLogout(deps.db, await keysOf(), token, now(), deps.config.APP_URL);
        if (result.status === "refused") {
          deps.logger.info({ reason: result.reason }, "single sign-on back-channel logout refused");
          throw new ProblemError(400, SSO_DETAILS.logoutRefused);
        }
        return c.body(null, 200);
      })
      .post("/Identity/sso/callback", limits.perClient("login"), jsonBody(completeSingleSignOnSchema), async (c) => {
        const body = c.req.valid("json");
        const result = await completeSingleSignOn(
          deps.db,
          await keysOf(),
          { query: body.query, browserState: body.state, redirectUri },
          now(),
          { clientIp: c.get("clientIp"), userAgent: c.req.header("user-agent") },
        );
        if (result.status === "refused") {
          deps.logger.info({ reason: result.reason }, "single sign-on refused");
          throw result.refusal;
        }
        if (result.created) deps.onEmailQueued?.();
        return c.json({
          accessToken: result.accessToken,
          appSettings: {
            hasProvidedCompanyDetails: result.hasProvidedCompanyDetails,
            hasWatchedOnboardingVideo: result.hasWatchedOnboardingVideo,
          },
        });
      })
  );
}
