// The portal layout and gate (docs/requirements.md §S2 Portal, §S4 portal gate, §S6):
// - no session → /corporate/login (requireSignedIn; any 401 from the API does the same);
// - company details not provided (refreshed from the API on every load) → the company-details
//   onboarding screen in place of whichever portal page was asked for, in onboarding mode (no
//   'Welcome <first name>'); /portal/onboarding-add-company-details renders it with its action's
//   errors, and once the details exist that address goes to the dashboard;
// - otherwise the header (page title from the child route's `handle.title`), the page, the footer.
// Later pages (my-team, reward-my-team, …) add `handle = { title } satisfies PortalHandle` and
// `meta = portalMeta(title)` (app/features/portal/portal-pages.ts) and render inside <main>.
import { Outlet, redirect, type UIMatch, useMatches } from "react-router";
import { services } from "../../context.ts";
import { CompanyDetailsStep } from "../../ui/company-details-form.tsx";
import type { Route } from "./+types/portal";
import { catalogueUrlFor, ONBOARDING_PATH, portalUser, portalUserMiddleware } from "./portal.server.ts";
import { PortalFooter } from "./portal-footer.tsx";
import { PortalHeader } from "./portal-header.tsx";
import { DASHBOARD_PATH, ONBOARDING_TITLE, type PortalHandle } from "./portal-pages.ts";

const ONBOARDING_ROUTE_ID = "features/onboarding/portal.onboarding-add-company-details";

// Every portal page and action: the signed-in user and fresh app settings, once per request.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

export function loader({ context, request }: Route.LoaderArgs) {
  const { user, appSettings } = portalUser(context);
  const onboarding = !appSettings.hasProvidedCompanyDetails;
  const path = new URL(request.url).pathname.replace(/\/+$/, "").toLowerCase();
  if (!onboarding && path === ONBOARDING_PATH) throw redirect(DASHBOARD_PATH);
  return {
    onboarding,
    hasWatchedOnboardingVideo: appSettings.hasWatchedOnboardingVideo,
    // Only what the pages show: never the token or the email.
    user: { firstName: user.firstName, companyName: user.companyName },
    catalogueUrl: catalogueUrlFor(services(context).config.catalogueUrl, user),
  };
}

// Signed-in pages are never stored by shared or browser caches (the pages below export no headers of their own).
export const headers: Route.HeadersFunction = () => ({ "cache-control": "private, no-store" });

function pageTitle(matches: readonly ({ handle?: unknown } | undefined)[]): string {
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as Partial<PortalHandle> | undefined;
    if (typeof handle?.title === "string") return handle.title;
  }
  return "Portal";
}

// The pages' own meta (portalMeta) sets the document title; this one covers the index redirect.
export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.onboarding ? ONBOARDING_TITLE : "Portal" },
  { name: "robots", content: "noindex" },
];

export default function PortalLayout({ loaderData }: Route.ComponentProps) {
  const { onboarding, user, catalogueUrl } = loaderData;
  const matches = useMatches() as UIMatch<unknown, unknown>[];
  const onOnboardingRoute = matches.some((match) => match.id === ONBOARDING_ROUTE_ID);

  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-4 focus:py-2 focus:text-brand-800"
      >
        Skip to content
      </a>
      {onboarding ? (
        <PortalHeader
          title={`Welcome, ${user.firstName}`}
          subtitle="You're now logged in to your dashboard. One more step and you're ready to start rewarding your team."
          greetingName={null}
          catalogueUrl={catalogueUrl}
        />
      ) : (
        <PortalHeader title={pageTitle(matches)} greetingName={user.firstName} catalogueUrl={catalogueUrl} />
      )}
      <main id="main" tabIndex={-1} className="flex-1 outline-none">
        {onboarding && !onOnboardingRoute ? <CompanyDetailsStep companyName={user.companyName} /> : <Outlet />}
      </main>
      <PortalFooter />
    </div>
  );
}
