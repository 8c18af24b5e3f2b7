// The portal's view of the signed-in user: the session holds the access token; every portal
// loader and action gets an API client that carries it, and any 401 ends the session and sends
// the browser to the login page (SPEC §8).
import { type RouterContextProvider, redirect } from "react-router";
import { type ApiResult, createApiClient } from "./api.server.ts";
import { destroySession, getSession, type SessionData, type WebSession } from "./session.server.ts";

type Context = Readonly<RouterContextProvider>;

export const LOGIN_PATH = "/corporate/login";

export interface SignedIn extends SessionData {
  session: WebSession;
  /** The typed API client with the bearer token; a 401 throws the logout redirect. */
  api: ReturnType<typeof createApiClient>;
}

async function logoutRedirect(context: Context, session: WebSession): Promise<never> {
  throw redirect(LOGIN_PATH, { headers: { "set-cookie": await destroySession(context, session) } });
}

/** The signed-in user, or a redirect to the login page. */
export async function requireSignedIn(context: Context, request: Request): Promise<SignedIn> {
  const session = await getSession(context, request);
  const accessToken = session.get("accessToken");
  const user = session.get("user");
  const appSettings = session.get("appSettings");
  if (!accessToken || !user || !appSettings) return logoutRedirect(context, session);
  const api = createApiClient(context, {
    token: accessToken,
    onUnauthorized: () => logoutRedirect(context, session),
  });
  return { session, accessToken, user, appSettings, api };
}

/** The signed-in user if there is one (public pages that change when signed in). */
export async function optionalSignedIn(context: Context, request: Request): Promise<SessionData | null> {
  const session = await getSession(context, request);
  const accessToken = session.get("accessToken");
  const user = session.get("user");
  const appSettings = session.get("appSettings");
  return accessToken && user && appSettings ? { accessToken, user, appSettings } : null;
}

export type { ApiResult };
