// The portal gate (docs/requirements.md §S2 Portal, §S4 portal gate, §S6): the portal's middleware resolves the
// signed-in user (no session → the login page, app/lib/auth.server.ts) and the account's current
// app settings, read from the API so they follow the account rather than one browser, once per
// request; the portal's loaders and actions read them from the context.
import { createContext, href, type MiddlewareFunction, type RouterContextProvider, redirect } from "react-router";
import type { AppSettings } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { requireSignedIn, type SignedIn } from "../../lib/auth.server.ts";
import { DASHBOARD_PATH } from "./portal-pages.ts";

type Context = Readonly<RouterContextProvider>;

export const ONBOARDING_PATH = href("/portal/onboarding-add-company-details");

export type PortalUser = SignedIn;

const portalUserContext = createContext<PortalUser>();

function sameSettings(a: AppSettings, b: AppSettings) {
  return (
    a.hasProvidedCompanyDetails === b.hasProvidedCompanyDetails &&
    a.hasWatchedOnboardingVideo === b.hasWatchedOnboardingVideo
  );
}

/**
 * The signed-in user with the app settings refreshed from `GET /api/Identity/app-settings` until
 * both are true (a 401 there ends the session like any other). When the API cannot be reached the session's
 * copy stands; a change is kept in the session (written back by the session middleware).
 */
async function resolvePortalUser(context: Context): Promise<PortalUser> {
  const signedIn = await requireSignedIn(context);
  // Both flags only ever turn true (docs/requirements.md §S4), so once the session holds both there is nothing to
  // refresh: an onboarded manager's pages skip the call (the page's own call still checks the token).
  if (signedIn.appSettings.hasProvidedCompanyDetails && signedIn.appSettings.hasWatchedOnboardingVideo) return signedIn;
  const fresh = await signedIn.api.call((api) => api.Identity["app-settings"].$get());
  if (!fresh.ok) {
    services(context).logger.warn({ status: fresh.status }, "app settings refresh failed; using the session's copy");
    return signedIn;
  }
  const appSettings: AppSettings = {
    hasProvidedCompanyDetails: Boolean(fresh.data.hasProvidedCompanyDetails),
    hasWatchedOnboardingVideo: Boolean(fresh.data.hasWatchedOnboardingVideo),
  };
  if (sameSettings(appSettings, signedIn.appSettings)) return signedIn;
  signedIn.session.set("appSettings", appSettings);
  return { ...signedIn, appSettings };
}

/** The middleware of the portal's routes: the user, once per request, for every loader and action. */
export const portalUserMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  context.set(portalUserContext, await resolvePortalUser(context));
  return next();
};

/** The portal's user (portalUserMiddleware resolved them for this request). */
export function portalUser(context: Context): PortalUser {
  return context.get(portalUserContext);
}

/**
 * For the actions of portal pages other than onboarding: the user must have provided the
 * company details first (docs/requirements.md §S6); otherwise back to the portal, which shows the onboarding screen.
 */
export function requireOnboardedUser(context: Context): PortalUser {
  const user = portalUser(context);
  if (!user.appSettings.hasProvidedCompanyDetails) throw redirect(DASHBOARD_PATH);
  return user;
}

/** The catalogue site for this user (docs/requirements.md §S2 View Rewards): CompanyID and UniqueCode in the query. */
export function catalogueUrlFor(catalogueUrl: string, user: { id: number; companyId: number }): string {
  const url = new URL(catalogueUrl);
  url.searchParams.set("CompanyID", String(user.companyId));
  url.searchParams.set("UniqueCode", String(user.id));
  return url.toString();
}
