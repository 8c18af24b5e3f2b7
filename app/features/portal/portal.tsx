// The portal layout and gate (docs/requirements.md §S2 Portal, §S4 portal gate, §S6):
// - no session → /corporate/login (requireSignedIn; any 401 from the API does the same);
// - company details not provided (refreshed from the API on every load) → the company-details
//   onboarding screen in place of whichever portal page was asked for, in onboarding mode (no
//   'Welcome <first name>'); /portal/onboarding-add-company-details renders it with its action's
//   errors, and once the details exist that address goes to the dashboard;
// - otherwise the header (page title from the child route's `handle.title`), the page, the footer.
// Later pages (my-team, reward-my-team, …) add `handle = { title } satisfies PortalHandle` and
// `meta = portalMeta(title)` (app/features/portal/portal-pages.ts) and render inside <main>.
import { Outlet, redirect, useMatches } from "react-router";
import { services } from "../../context.ts";
import { CompanyDetailsStep } from "../../ui/company-details-form.tsx";
import type { Route } from "./+types/portal";
import { catalogueUrlFor, ONBOARDING_PATH, portalUser, portalUserMiddleware } from "./portal.server.ts";
import { PortalFrame, usePortalPageTitle } from "./portal-frame.tsx";
import { PortalHeader } from "./portal-header.tsx";
import { DASHBOARD_PATH, ONBOARDING_TITLE } from "./portal-pages.ts";

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

// The pages' own meta (portalMeta) sets the document title; this one covers the index redirect.
export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.onboarding ? ONBOARDING_TITLE : "Portal" },
  { name: "robots", content: "noindex" },
];

export default function PortalLayout({ loaderData }: Route.ComponentProps) {
  const { onboarding, user, catalogueUrl } = loaderData;
  const title = usePortalPageTitle();
  const onOnboardingRoute = useMatches().some((match) => match.id === ONBOARDING_ROUTE_ID);
  const header = onboarding ? (
    <PortalHeader
      title={`Welcome, ${user.firstName}`}
      subtitle="You're now logged in to your dashboard. One more step and you're ready to start rewarding your team."
      greetingName={null}
      catalogueUrl={catalogueUrl}
    />
  ) : (
    <PortalHeader title={title} greetingName={user.firstName} catalogueUrl={catalogueUrl} />
  );
  return (
    <PortalFrame header={header}>
      {onboarding && !onOnboardingRoute ? <CompanyDetailsStep companyName={user.companyName} /> : <Outlet />}
    </PortalFrame>
  );
}
