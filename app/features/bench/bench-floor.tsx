// The HTTP benchmark's framework floor (scripts/bench/http-load.ts, docs/BENCHMARKS.md "HTTP load"),
// its layout half: the portal frame (skip link, portal header with its navigation, footer) as the
// portal layout renders it for a signed-in manager (app/features/portal/portal.tsx), around its
// one page (./bench-floor.dashboard.tsx). The benchmark reports each signed-in page's server CPU
// per request as a ratio to this page's, measured in the same run the same way, because absolute
// milliseconds move between days on a shared machine.
//
// Never in the shipped build: app/routes.ts adds these routes only to the build that
// scripts/bench/build-floor.ts makes (REWARDS_BENCH_FLOOR=1, into build-bench/), and
// `npm run build` (scripts/build.ts) clears that variable. Nothing reads it at run time.
//
// Not under the portal layout: its middleware requires a session (portalUserMiddleware,
// app/features/portal/portal.server.ts). This layout renders the same frame (PortalFrame) and
// header, and its loader returns the same fields from a constant user: a layout and a page, each
// with a loader, as /portal/dashboard matches.
import { type MetaDescriptor, Outlet, type RouterContextProvider } from "react-router";
import { services } from "../../context.ts";
import { catalogueUrlFor } from "../portal/portal.server.ts";
import { PortalFrame, usePortalPageTitle } from "../portal/portal-frame.tsx";
import { PortalHeader } from "../portal/portal-header.tsx";

/** What the portal layout's loader reads of a signed-in user, as constants. */
const FLOOR_USER = { id: 1001, companyId: 501, firstName: "Bench", companyName: "Bench Pty Ltd" } as const;

// The types `./+types/bench-floor` would give are generated only for the routes app/routes.ts
// lists when typegen reads it (without REWARDS_BENCH_FLOOR), so the arguments are spelt out.
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return {
    onboarding: false,
    hasWatchedOnboardingVideo: true,
    user: { firstName: FLOOR_USER.firstName, companyName: FLOOR_USER.companyName },
    // Made as the portal layout makes it, from the configuration.
    catalogueUrl: catalogueUrlFor(services(context).config.catalogueUrl, FLOOR_USER),
  };
}
export type BenchFloorLayoutData = ReturnType<typeof loader>;

// As every signed-in page (app/features/portal/portal.tsx); the edge sets it on any page with a session cookie too.
export function headers() {
  return { "cache-control": "private, no-store" };
}

export function meta(): MetaDescriptor[] {
  return [{ title: "Portal" }, { name: "robots", content: "noindex" }];
}

export default function BenchFloorLayout({ loaderData }: { loaderData: BenchFloorLayoutData }) {
  const { user, catalogueUrl } = loaderData;
  const title = usePortalPageTitle();
  return (
    <PortalFrame header={<PortalHeader title={title} greetingName={user.firstName} catalogueUrl={catalogueUrl} />}>
      <Outlet />
    </PortalFrame>
  );
}
