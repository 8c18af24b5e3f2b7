// Browser-safe helpers of the portal pages: the header title a page declares and its document title.
import type { MetaDescriptor } from "react-router";
import { href } from "react-router";

/** What a portal page declares for the header: `export const handle = { title: "…" } satisfies PortalHandle`. */
export interface PortalHandle {
  title: string;
}

/** The portal's home: the logo's link, and where sign-in and onboarding lead. */
export const DASHBOARD_PATH = href("/portal/dashboard");
export const PORTAL_LAYOUT_ID = "features/portal/portal";
/**
 * The benchmark's framework floor, the portal frame around the Dashboard without a session
 * (app/features/bench/bench-floor.tsx); a route only in the benchmark's own build (app/routes.ts).
 */
export const BENCH_FLOOR_ROUTE_ID = "features/bench/bench-floor";
export const ONBOARDING_TITLE = "Add Your Company Details";

/**
 * A portal page's `meta`: its title, or the onboarding title while the layout shows the
 * company-details screen in its place (a layout's own meta cannot see its child routes).
 */
export function portalMeta(title: string) {
  return ({
    matches,
  }: {
    matches: readonly ({ id: string; loaderData?: unknown } | undefined)[];
  }): MetaDescriptor[] => {
    const layout = matches.find((match) => match?.id === PORTAL_LAYOUT_ID)?.loaderData as
      | { onboarding?: boolean }
      | undefined;
    return [{ title: layout?.onboarding ? ONBOARDING_TITLE : title }, { name: "robots", content: "noindex" }];
  };
}
