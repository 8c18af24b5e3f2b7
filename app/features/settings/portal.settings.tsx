// The settings area of the portal (ADR 0022): a tab nav over its pages. Profile and Security are
// every manager's own settings, and Balance every manager's to read (an Owner's to top up, ADR 0043);
// Company, Approvals, Managers, Audit and API keys are an Owner's (ADR 0022 §1),
// so their tabs are shown only to Owners — each of those pages also answers a Manager with its own
// "Only an Owner…" message, and the API refuses them (403) whatever a page shows.
// The role is read through the API on every load (GET /api/Users/MyDetails), never from the
// session's copy, so a change of role shows at the next page.
import { href, NavLink, Outlet } from "react-router";
import type { ManagerRole } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { portalUser } from "../portal/portal.server.ts";
import type { PortalHandle } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings";

/** The header's title unless the page declares its own. */
export const handle = { title: "Settings" } satisfies PortalHandle;

export const SETTINGS_LAYOUT_ID = "features/settings/portal.settings";

interface SettingsTab {
  to: string;
  label: string;
  /** Shown to Owners only. */
  ownerOnly: boolean;
  /** Matches only its own address (the index tab would otherwise match every page). */
  end?: boolean;
}

const SETTINGS_TABS: readonly SettingsTab[] = [
  { to: "/portal/settings", label: "Profile", ownerOnly: false, end: true },
  { to: "/portal/settings/security", label: "Security", ownerOnly: false },
  { to: "/portal/settings/company", label: "Company", ownerOnly: true },
  { to: "/portal/settings/approvals", label: "Approvals", ownerOnly: true },
  { to: href("/portal/settings/managers"), label: "Managers", ownerOnly: true },
  { to: href("/portal/settings/audit"), label: "Audit", ownerOnly: true },
  { to: href("/portal/settings/api-keys"), label: "API keys", ownerOnly: true },
  { to: href("/portal/settings/webhooks"), label: "Webhooks", ownerOnly: true },
  { to: href("/portal/settings/single-sign-on"), label: "Single sign-on", ownerOnly: true },
  // Every manager sees the prepaid balance; only an Owner tops it up (ADR 0043).
  { to: href("/portal/settings/balance"), label: "Balance", ownerOnly: false },
];

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const me = await client.call((api) => api.Users.MyDetails.$get());
  if (!me.ok) {
    // The Owner-only tabs stay hidden; the pages themselves check again.
    services(context).logger.warn({ status: me.status, detail: me.detail }, "settings: my details fetch failed");
  }
  const managerRole: ManagerRole = me.ok ? me.data.managerRole : "manager";
  return { managerRole };
}

/** The settings pages' shared view of the signed-in manager's role (useRouteLoaderData(SETTINGS_LAYOUT_ID)). */
export type SettingsLayoutData = Awaited<ReturnType<typeof loader>>;

export default function SettingsLayout({ loaderData }: Route.ComponentProps) {
  const isOwner = loaderData.managerRole === "owner";
  const tabs = SETTINGS_TABS.filter((tab) => isOwner || !tab.ownerOnly);
  return (
    <div className="mx-auto max-w-7xl px-4 py-6 md:px-6 md:py-10">
      {/* Nine tabs do not fit a phone: they wrap there (a row that scrolls sideways would hide the
          current one, and bringing it into view would need JavaScript), and sit in one row from md. */}
      <nav aria-label="Settings">
        <ul className="flex flex-wrap gap-x-1 border-b border-slate-200">
          {tabs.map((tab) => (
            <li key={tab.to}>
              <NavLink
                to={tab.to}
                end={tab.end}
                prefetch="intent"
                className="-mb-px flex min-h-11 items-center border-b-2 border-transparent px-3 font-medium text-slate-600 hover:border-slate-300 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 aria-[current=page]:border-brand-700 aria-[current=page]:text-brand-800"
              >
                {tab.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="pt-6">
        <Outlet />
      </div>
    </div>
  );
}
