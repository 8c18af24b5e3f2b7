// The portal header (docs/requirements.md §S2 Portal): the logo to the dashboard, My Team, Reward My Team, Help,
// View Rewards (the catalogue site, new tab) and Logout (a POST form to /corporate/logout), then the page title (the page's h1) with
// 'Welcome' and the first name. Under 768 px the links live in the slide-out "Menu": a <dialog>
// opened through :target without JavaScript, and as a modal dialog (focus kept inside, Escape,
// focus back on the Menu button) with it.
import { type ReactNode, useEffect } from "react";
import { href, Link, NavLink, useLocation } from "react-router";
import { HeaderDrawer, HeaderDrawerTrigger, useHeaderDrawer } from "../../ui/header-drawer.tsx";
import { ExternalIcon, LogoMark } from "../../ui/icons.tsx";
import { LogoutForm } from "../../ui/logout-form.tsx";
import { DASHBOARD_PATH } from "./portal-pages.ts";

export const PORTAL_LINKS = [
  { to: href("/portal/my-team"), label: "My Team" },
  { to: href("/portal/reward-my-team"), label: "Reward My Team" },
  { to: href("/portal/automations"), label: "Automations" },
  { to: href("/portal/help"), label: "Help" },
  { to: href("/portal/settings"), label: "Settings" },
] as const;

const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2";

export interface PortalHeaderProps {
  /** The page title: the page's only h1. */
  title: string;
  /** A line under the title (the onboarding screen's). */
  subtitle?: ReactNode;
  /** The first name for 'Welcome <first name>'; null hides the greeting (onboarding mode). */
  greetingName: string | null;
  /** The catalogue site with CompanyID and UniqueCode. */
  catalogueUrl: string;
}

export function PortalHeader({ title, subtitle, greetingName, catalogueUrl }: PortalHeaderProps) {
  const menu = useHeaderDrawer("portal-menu");
  const location = useLocation();

  // A navigation (a link in the menu, or Logout) closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the location change is the trigger
  useEffect(() => {
    if (menu.dialogRef.current?.open) menu.dialogRef.current.close();
  }, [location.key]);

  const barLink = `flex min-h-11 items-center rounded-md px-2 font-medium text-white/90 hover:bg-white/10 hover:text-white aria-[current=page]:bg-white/15 aria-[current=page]:text-white lg:px-3 ${focusRing} focus-visible:outline-white`;
  const menuLink = `flex min-h-12 items-center gap-3 rounded-md px-3 text-lg font-medium text-slate-800 hover:bg-brand-50 hover:text-brand-800 aria-[current=page]:bg-brand-50 aria-[current=page]:text-brand-800 ${focusRing} focus-visible:outline-brand-700`;

  return (
    <header className="bg-gradient-to-br from-brand-900 via-brand-800 to-brand-700 text-white print:hidden">
      <div className="border-b border-white/10 bg-brand-900/60">
        <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-2 px-4 md:px-6">
          <Link
            to={DASHBOARD_PATH}
            className={`-ml-1 flex min-h-11 shrink-0 items-center gap-2 rounded-md px-1 ${focusRing} focus-visible:outline-white`}
          >
            <LogoMark />
            <span className="text-lg font-bold tracking-tight md:max-lg:sr-only">Reward Portal</span>
          </Link>

          <nav aria-label="Portal" className="hidden md:block">
            <ul className="flex items-center gap-1 lg:gap-2">
              {PORTAL_LINKS.map((link) => (
                <li key={link.to}>
                  <NavLink to={link.to} className={barLink}>
                    {link.label}
                  </NavLink>
                </li>
              ))}
              <li className="ml-1">
                <ViewRewardsLink
                  href={catalogueUrl}
                  className={`flex min-h-11 items-center gap-1.5 rounded-full bg-accent-400 px-4 font-semibold text-brand-900 hover:bg-accent-500 ${focusRing} focus-visible:outline-white`}
                />
              </li>
              <li>
                <LogoutForm
                  buttonClassName={`flex min-h-11 items-center gap-1.5 rounded-full border-2 border-white/80 px-4 font-semibold text-white hover:bg-white hover:text-brand-900 ${focusRing} focus-visible:outline-white`}
                />
              </li>
            </ul>
          </nav>

          <HeaderDrawerTrigger drawer={menu} />
        </div>
      </div>

      <div className="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-6 sm:flex-row sm:items-end sm:justify-between md:px-6 md:py-10">
        <div className="min-w-0">
          <h1 className="break-words text-3xl font-bold md:text-4xl">{title}</h1>
          {subtitle ? <div className="mt-2 text-base text-brand-100 md:text-lg">{subtitle}</div> : null}
        </div>
        {greetingName !== null ? (
          <p className="shrink-0 text-base text-brand-100 md:text-lg">
            Welcome <span className="font-semibold text-white">{greetingName}</span>
          </p>
        ) : null}
      </div>

      <HeaderDrawer drawer={menu} title="Menu" closeLabel="Close menu">
        <nav aria-label="Portal menu" className="mt-2">
          <ul className="flex flex-col gap-1">
            <li>
              <NavLink to={DASHBOARD_PATH} className={menuLink}>
                Dashboard
              </NavLink>
            </li>
            {PORTAL_LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} className={menuLink}>
                  {link.label}
                </NavLink>
              </li>
            ))}
            <li>
              <ViewRewardsLink href={catalogueUrl} className={menuLink} />
            </li>
          </ul>
          <div className="mt-6 border-t border-slate-200 pt-6">
            <LogoutForm
              buttonClassName={`flex min-h-12 w-full items-center justify-center gap-2 rounded-full border-2 border-brand-700 px-5 font-semibold text-brand-800 hover:bg-brand-50 ${focusRing} focus-visible:outline-brand-700`}
            />
          </div>
        </nav>
      </HeaderDrawer>
    </header>
  );
}

/** View Rewards: the catalogue site in a new tab (docs/requirements.md §S2). */
function ViewRewardsLink({ href, className }: { href: string; className: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={className}>
      View Rewards
      <ExternalIcon />
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
