// The portal gate (SPEC §2 Portal, §4 portal gate, §6): every portal loader and action starts
// with the signed-in user (no session → the login page, app/lib/auth.server.ts) and the account's
// current app settings, read from the API so they follow the account rather than one browser.
import { randomBytes } from "node:crypto";
import { type RouterContextProvider, redirect } from "react-router";
import type { AppSettings } from "../../core/account-forms.ts";
import { services } from "../context.ts";
import { requireSignedIn, type SignedIn } from "./auth.server.ts";
import { commitSession } from "./session.server.ts";
import type { ToastInput } from "./toast.server.ts";

type Context = Readonly<RouterContextProvider>;

export const DASHBOARD_PATH = "/portal/dashboard";
export const ONBOARDING_PATH = "/portal/onboarding-add-company-details";

export interface PortalUser extends SignedIn {
  /** Set-Cookie for the session when the refreshed settings changed it. */
  setCookie: string | null;
}

function sameSettings(a: AppSettings, b: AppSettings) {
  return (
    a.hasProvidedCompanyDetails === b.hasProvidedCompanyDetails &&
    a.hasWatchedOnboardingVideo === b.hasWatchedOnboardingVideo
  );
}

/**
 * The signed-in user with the app settings refreshed from `GET /api/Identity/app-settings`
 * (a 401 there ends the session like any other). When the API cannot be reached the session's
 * copy stands. The session is written only when the settings changed.
 */
export async function requirePortalUser(context: Context, request: Request): Promise<PortalUser> {
  const signedIn = await requireSignedIn(context, request);
  const fresh = await signedIn.api.appSettings();
  if (!fresh.ok) {
    services(context).logger.warn({ status: fresh.status }, "app settings refresh failed; using the session's copy");
    return { ...signedIn, setCookie: null };
  }
  const appSettings: AppSettings = {
    hasProvidedCompanyDetails: Boolean(fresh.data.hasProvidedCompanyDetails),
    hasWatchedOnboardingVideo: Boolean(fresh.data.hasWatchedOnboardingVideo),
  };
  if (sameSettings(appSettings, signedIn.appSettings)) return { ...signedIn, setCookie: null };
  signedIn.session.set("appSettings", appSettings);
  // Reading the flashed toast drops it from what is written back here; the root loader, which
  // read the same row in parallel, is the one that shows it.
  signedIn.session.get("toast");
  return { ...signedIn, appSettings, setCookie: await commitSession(context, signedIn.session) };
}

/**
 * For the actions of portal pages other than onboarding: the user must have provided the
 * company details first (SPEC §6); otherwise back to the portal, which shows the onboarding screen.
 */
export async function requireOnboardedUser(context: Context, request: Request): Promise<PortalUser> {
  const user = await requirePortalUser(context, request);
  if (!user.appSettings.hasProvidedCompanyDetails) {
    throw redirect(DASHBOARD_PATH, user.setCookie ? { headers: { "set-cookie": user.setCookie } } : undefined);
  }
  return user;
}

/** Writes the session (with an optional flashed toast) and redirects: one commit, so nothing is lost. */
export async function redirectWithSession(
  context: Context,
  user: SignedIn,
  to: string,
  toast?: ToastInput,
): Promise<Response> {
  if (toast) {
    user.session.flash("toast", { id: randomBytes(6).toString("hex"), type: toast.type ?? "default", ...toast });
  }
  return redirect(to, { headers: { "set-cookie": await commitSession(context, user.session) } });
}

/** The catalogue site for this user (SPEC §2 View Rewards): CompanyID and UniqueCode in the query. */
export function catalogueUrlFor(catalogueUrl: string, user: { id: number; companyId: number }): string {
  const url = new URL(catalogueUrl);
  url.searchParams.set("CompanyID", String(user.companyId));
  url.searchParams.set("UniqueCode", String(user.id));
  return url.toString();
}
