// Smooth scrolling to the landing-page sections (docs/requirements.md §S2): centred with a 40 px offset on desktop,
// aligned to the top with no offset under 768 px. Client-only helpers; without JavaScript the
// plain /#anchor jump plus the sections' scroll-margin does the job.
import type { MouseEvent } from "react";

export const MOBILE_QUERY = "(max-width: 767px)";
/** Time the drawer gets to slide out before the page starts scrolling. */
export const DRAWER_SCROLL_DELAY_MS = 500;
const DESKTOP_OFFSET_PX = 40;

export function prefersReducedMotion(): boolean {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function scrollToSection(id: string): boolean {
  const section = document.getElementById(id);
  if (!section) return false;
  const rect = section.getBoundingClientRect();
  let top = rect.top + window.scrollY;
  if (!window.matchMedia(MOBILE_QUERY).matches) {
    // Centre it; a section taller than the screen starts 40 px below the top instead.
    top -= Math.max((window.innerHeight - rect.height) / 2, 0) + DESKTOP_OFFSET_PX;
  }
  window.scrollTo({ top: Math.max(0, Math.round(top)), behavior: prefersReducedMotion() ? "instant" : "smooth" });
  // Move keyboard focus along, as a native fragment jump would (sections carry tabindex=-1).
  if (section.hasAttribute("tabindex")) section.focus({ preventScroll: true });
  return true;
}

function isPlainClick(event: MouseEvent<HTMLAnchorElement>): boolean {
  return (
    !event.defaultPrevented &&
    event.button === 0 &&
    !event.metaKey &&
    !event.ctrlKey &&
    !event.shiftKey &&
    !event.altKey &&
    (!event.currentTarget.target || event.currentTarget.target === "_self")
  );
}

/**
 * Click handler for a link to /#id. On the home page it scrolls smoothly (after `delay` ms) and
 * puts the hash in the address without a router navigation; elsewhere the router navigates to
 * /#id and the home page scrolls once it has rendered.
 */
export function onSectionLinkClick(event: MouseEvent<HTMLAnchorElement>, id: string, delay = 0): void {
  if (!isPlainClick(event) || window.location.pathname !== "/") return;
  event.preventDefault();
  // Keep the router's history state so back/forward still work.
  window.history.replaceState(window.history.state, "", `#${id}`);
  if (delay > 0) window.setTimeout(() => scrollToSection(id), delay);
  else scrollToSection(id);
}
