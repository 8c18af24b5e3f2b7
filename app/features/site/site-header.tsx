import { useEffect, useRef } from "react";
import { href, Link } from "react-router";
import { DRAWER_SCROLL_DELAY_MS } from "../../lib/smooth-scroll.ts";
import { HeaderDrawer, HeaderDrawerTrigger, useHeaderDrawer } from "../../ui/header-drawer.tsx";
import { LogoMark } from "../../ui/icons.tsx";
import { SectionLink } from "../../ui/section-link.tsx";

const SECTIONS = [
  { id: "howItWorks", label: "How it Works" },
  { id: "glanceCatalogue", label: "View Rewards" },
] as const;

const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2";

/**
 * The public header. Transparent over the page's dark hero or banner; on desktop it comes back as
 * a fixed bar with a shadow when scrolling up and hides when scrolling down. Under 768 px the
 * links live in the "Navigation" drawer: a <dialog> that opens through :target without
 * JavaScript and as a modal dialog (focus trap, Escape) with it.
 */
export function SiteHeader() {
  const headerRef = useRef<HTMLElement>(null);
  const drawer = useHeaderDrawer("navigation");
  const closeDrawer = () => drawer.dialogRef.current?.close();

  useEffect(() => {
    const header = headerRef.current;
    if (!header) return;
    // Written straight to a data attribute: no React render per scroll event.
    // The first reading waits for a frame: read in this effect, right after the hydration commit
    // changed the page, it forced a layout of the whole page inside that long task (total blocking time).
    let lastY = 0;
    let frame = window.requestAnimationFrame(() => {
      frame = 0;
      lastY = window.scrollY;
    });
    const update = () => {
      frame = 0;
      const y = window.scrollY;
      if (y <= 0) header.dataset.state = "top";
      else if (y < lastY) header.dataset.state = "up";
      else if (y > lastY) header.dataset.state = "down";
      lastY = y;
    };
    const onScroll = () => {
      frame ||= window.requestAnimationFrame(update);
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      window.removeEventListener("scroll", onScroll);
      window.cancelAnimationFrame(frame);
    };
  }, []);

  const drawerLink = `flex min-h-12 items-center rounded-md px-3 text-lg font-medium text-slate-800 hover:bg-brand-50 hover:text-brand-800 ${focusRing} focus-visible:outline-brand-700`;

  return (
    <header
      ref={headerRef}
      className="absolute inset-x-0 top-0 z-40 text-white transition-[translate,background-color,box-shadow] duration-300 md:data-[state=down]:fixed md:data-[state=down]:-translate-y-full md:data-[state=down]:bg-brand-900 md:data-[state=up]:fixed md:data-[state=up]:bg-brand-900 md:data-[state=up]:shadow-lg md:data-[state=up]:shadow-black/25"
    >
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 md:h-20 md:px-6">
        <Link
          to="/"
          className={`-ml-1 flex min-h-11 items-center gap-2 rounded-md px-1 ${focusRing} focus-visible:outline-white`}
        >
          <LogoMark />
          <span className="text-lg font-bold tracking-tight">Reward Portal</span>
        </Link>

        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-1 lg:gap-3">
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <SectionLink
                  id={s.id}
                  className={`flex min-h-11 items-center rounded-md px-3 font-medium text-white/90 hover:text-white hover:underline hover:underline-offset-4 ${focusRing} focus-visible:outline-white`}
                >
                  {s.label}
                </SectionLink>
              </li>
            ))}
            <li>
              <Link
                to={href("/help")}
                className={`flex min-h-11 items-center rounded-md px-3 font-medium text-white/90 hover:text-white hover:underline hover:underline-offset-4 ${focusRing} focus-visible:outline-white`}
              >
                Help
              </Link>
            </li>
            <li className="ml-2">
              <Link
                to={href("/corporate/sign-up")}
                className={`flex min-h-11 items-center rounded-full bg-accent-400 px-5 font-semibold text-brand-900 hover:bg-accent-500 ${focusRing} focus-visible:outline-white`}
              >
                Sign Up
              </Link>
            </li>
            <li>
              <Link
                to={href("/corporate/login")}
                className={`flex min-h-11 items-center rounded-full border-2 border-white/80 px-5 font-semibold text-white hover:bg-white hover:text-brand-900 ${focusRing} focus-visible:outline-white`}
              >
                Login
              </Link>
            </li>
          </ul>
        </nav>

        <HeaderDrawerTrigger drawer={drawer} />
      </div>

      <HeaderDrawer drawer={drawer} title="Navigation" closeLabel="Close navigation">
        <nav aria-label="Main" className="mt-2">
          <ul className="flex flex-col gap-1">
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <SectionLink
                  id={s.id}
                  className={drawerLink}
                  delay={DRAWER_SCROLL_DELAY_MS}
                  onBeforeScroll={closeDrawer}
                >
                  {s.label}
                </SectionLink>
              </li>
            ))}
            <li>
              <Link to={href("/help")} className={drawerLink} onClick={closeDrawer}>
                Help
              </Link>
            </li>
          </ul>
          <div className="mt-6 flex flex-col gap-3 border-t border-slate-200 pt-6">
            <Link
              to={href("/corporate/sign-up")}
              className={`flex min-h-12 items-center justify-center rounded-full bg-brand-700 px-5 font-semibold text-white hover:bg-brand-800 ${focusRing} focus-visible:outline-brand-700`}
              onClick={closeDrawer}
            >
              Sign Up
            </Link>
            <Link
              to={href("/corporate/login")}
              className={`flex min-h-12 items-center justify-center rounded-full border-2 border-brand-700 px-5 font-semibold text-brand-800 hover:bg-brand-50 ${focusRing} focus-visible:outline-brand-700`}
              onClick={closeDrawer}
            >
              Login
            </Link>
          </div>
        </nav>
      </HeaderDrawer>
    </header>
  );
}
