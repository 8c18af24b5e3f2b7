// The signed-in user as the session holds them: the access token, the user's details and app
// settings. Every API client made for them carries the token, and any 401 ends the session and
// sends the browser to the login page (docs/requirements.md §S8).
import { href, type RouterContextProvider, redirect } from "react-router";
import { type ApiResult, createApiClient } from "./api.server.ts";
import { endSession, getSession, type SessionData, type WebSession } from "./session.server.ts";

type Context = Readonly<RouterContextProvider>;

export const LOGIN_PATH = href("/corporate/login");

export interface SignedIn extends SessionData {
  session: WebSession;
  /** The typed API client with the bearer token; a 401 throws the logout redirect. */
  api: ReturnType<typeof createApiClient>;
}

/** Ends the session and sends the browser to the login page. */
export async function logoutRedirect(context: Context): Promise<never> {
  throw redirect(LOGIN_PATH, { headers: { "set-cookie": await endSession(context) } });
}

/** The signed-in user if there is one (public pages that change when signed in). */
export function optionalSignedIn(context: Context): SessionData | null {
  const session = getSession(context);
  const accessToken = session.get("accessToken");
  const user = session.get("user");
  const appSettings = session.get("appSettings");
  return accessToken && user && appSettings ? { accessToken, user, appSettings } : null;
}

/** The signed-in user, or a redirect to the login page. */
export async function requireSignedIn(context: Context): Promise<SignedIn> {
  const signedIn = optionalSignedIn(context);
  if (!signedIn) return logoutRedirect(context);
  const api = createApiClient(context, {
    token: signedIn.accessToken,
    onUnauthorized: () => logoutRedirect(context),
  });
  return { ...signedIn, session: getSession(context), api };
}

export type { ApiResult };
