// The pager of Reward My Team (SPEC §2 'X of Y page(s)' with Previous and Next; §9: 7 a page,
// newest first). Links to ?page=N, so it works the same with and without JavaScript.
import type { ReactNode } from "react";
import { Link } from "react-router";
import { pageHref } from "../lib/reward-draft.ts";

const pagerLinkClass =
  "inline-flex min-h-11 min-w-20 items-center justify-center rounded-md border border-slate-300 bg-white px-3 sm:min-w-24 sm:px-4 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const pagerDisabledClass =
  "inline-flex min-h-11 min-w-20 cursor-not-allowed items-center justify-center rounded-md border border-slate-200 bg-slate-100 px-3 sm:min-w-24 sm:px-4 py-2 font-semibold text-slate-600";

function PagerLink({ to, enabled, children }: { to: string; enabled: boolean; children: ReactNode }) {
  if (!enabled) {
    return (
      // Nowhere to go: plain text that looks like a disabled button, not focusable.
      <span className={pagerDisabledClass}>
        {children}
        <span className="sr-only"> (unavailable)</span>
      </span>
    );
  }
  return (
    <Link to={to} preventScrollReset className={pagerLinkClass}>
      {children}
    </Link>
  );
}

export function RewardDraftPager({
  pageNumber,
  totalPages,
  search,
}: {
  pageNumber: number;
  totalPages: number;
  /** The address's query (kept, e.g. the search text without JavaScript). */
  search: string;
}) {
  const pages = Math.max(totalPages, 1);
  const current = Math.min(Math.max(pageNumber, 1), pages);
  return (
    <nav aria-label="Recipient pages" className="flex items-center justify-between gap-3">
      <PagerLink to={pageHref(current - 1, search)} enabled={current > 1}>
        Previous
      </PagerLink>
      <p className="whitespace-nowrap text-slate-700">
        {current} of {pages} page(s)
      </p>
      <PagerLink to={pageHref(current + 1, search)} enabled={current < pages}>
        Next
      </PagerLink>
    </nav>
  );
}
