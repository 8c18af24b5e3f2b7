// The one pager of the portal's lists (docs/requirements.md §S2 My Team and Reward My Team: 'X of Y page(s)' with
// Previous and Next). Previous and Next are real links to the list's address with ?page=N, so
// paging works the same with and without JavaScript; where there is nowhere to go they are plain
// text that looks like a disabled button (not focusable, "(unavailable)" for screen readers).
// Enabled links wear the outline style of the pages' other secondary buttons (Search, Add).
import type { ReactNode } from "react";
import { Link } from "react-router";

const linkClass =
  "inline-flex min-h-11 min-w-20 items-center justify-center rounded-md border border-brand-700 bg-white px-3 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 sm:min-w-24 sm:px-4";
const disabledClass =
  "inline-flex min-h-11 min-w-20 cursor-not-allowed items-center justify-center rounded-md border border-slate-300 bg-slate-100 px-3 py-2 font-semibold text-slate-600 sm:min-w-24 sm:px-4";

function PagerLink({ to, children }: { to: string | undefined; children: ReactNode }) {
  if (to === undefined) {
    return (
      <span className={disabledClass}>
        {children}
        <span className="sr-only"> (unavailable)</span>
      </span>
    );
  }
  return (
    <Link to={to} preventScrollReset className={linkClass}>
      {children}
    </Link>
  );
}

export function Pager({
  label,
  pageNumber,
  totalPages,
  hrefFor,
  hasPreviousPage,
  hasNextPage,
}: {
  /** The navigation landmark's accessible name, e.g. "Team pages". */
  label: string;
  pageNumber: number;
  /** 0 for an empty list (shown as 1 of 1). */
  totalPages: number;
  /** The address of page N (N ≥ 1), keeping whatever else the list's address carries. */
  hrefFor: (pageNumber: number) => string;
  /** Whether Previous / Next lead somewhere; by default, whether the page has a neighbour. */
  hasPreviousPage?: boolean;
  hasNextPage?: boolean;
}) {
  const pages = Math.max(totalPages, 1);
  const current = Math.min(Math.max(pageNumber, 1), pages);
  const previous = (hasPreviousPage ?? current > 1) ? hrefFor(current - 1) : undefined;
  const next = (hasNextPage ?? current < pages) ? hrefFor(current + 1) : undefined;
  return (
    <nav aria-label={label} className="flex items-center justify-between gap-3">
      <PagerLink to={previous}>Previous</PagerLink>
      <p className="whitespace-nowrap text-slate-700" aria-live="polite">
        {current} of {pages} page(s)
      </p>
      <PagerLink to={next}>Next</PagerLink>
    </nav>
  );
}
