// The second step of a login with two-factor sign-in (ADR 0042): the challenge token the API
// answered after the right password travels in a short-lived httpOnly cookie (never in a URL or
// in the page), scoped to /corporate; the code page and the forced set-up page read it, and it is
// cleared once the session starts.
import { createCookie, type RouterContextProvider, redirect } from "react-router";
import type { AppSettings } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { getSession } from "../../lib/session.server.ts";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import { startSignedInSession } from "./sign-in.server.ts";

type Context = Readonly<RouterContextProvider>;

/** As long as the API keeps a set-up challenge (modules/two-factor/service.server.ts CHALLENGE_TTL_MS). */
const CHALLENGE_COOKIE_SECONDS = 20 * 60;

function challengeCookie(context: Context) {
  return createCookie("login_challenge", {
    httpOnly: true,
    secure: services(context).config.isHttps,
    // Every step of the sign-in is a page of ours: the cookie never goes with another site's request.
    sameSite: "strict",
    path: "/corporate",
    maxAge: CHALLENGE_COOKIE_SECONDS,
  });
}

/** The Set-Cookie of a new challenge (the login action's redirect carries it). */
export function setChallengeCookie(context: Context, challengeToken: string): Promise<string> {
  return challengeCookie(context).serialize(challengeToken);
}

/** The Set-Cookie that removes the challenge. */
export function clearChallengeCookie(context: Context): Promise<string> {
  return challengeCookie(context).serialize("", { maxAge: 0 });
}

/** The challenge token of this browser's sign-in in progress, or null. */
export async function challengeTokenOf(context: Context, request: Request): Promise<string | null> {
  const value: unknown = await challengeCookie(context).parse(request.headers.get("cookie"));
  return typeof value === "string" && value.length > 0 && value.length <= 200 ? value : null;
}

/**
 * The end of a login that needed a second factor: as the login page does after a right password
 * (a new session with the user's details, a new CSRF token), and the challenge cookie cleared.
 * `after` is where the browser goes (the dashboard, or the security page with new recovery codes).
 */
export async function signInAfterSecondFactor(
  context: Context,
  answer: { accessToken: string; appSettings: AppSettings },
  options: { after?: string; recoveryCodes?: string[] } = {},
): Promise<never> {
  const { headers } = await startSignedInSession(context, answer);
  if (options.recoveryCodes) getSession(context).flash("recoveryCodes", options.recoveryCodes);
  headers.append("set-cookie", await clearChallengeCookie(context));
  throw redirect(options.after ?? DASHBOARD_PATH, { headers });
}
