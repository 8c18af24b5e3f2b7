// The HTTP benchmark's framework floor (scripts/bench/http-load.ts, docs/BENCHMARKS.md "HTTP load"):
// the Dashboard as a signed-in manager sees it (root layout, portal header with its navigation,
// the page, portal footer), its data constants instead of the session, the API and the database.
// The benchmark reports each signed-in page's server CPU per request as a ratio to this page's,
// measured in the same run the same way, because absolute milliseconds move between days on a
// shared machine.
//
// Never in the shipped build: app/routes.ts adds this route only to the build that
// scripts/bench/build-floor.ts makes (REWARDS_BENCH_FLOOR=1, into build-bench/), and
// `npm run build` (scripts/build.ts) clears that variable. Nothing reads it at run time.
//
// Not a child of the portal layout: that layout's middleware requires a session
// (app/features/portal/portal.server.ts). The layout's markup is repeated here around the same
// components (app/features/portal/portal.tsx); the body is the Dashboard's own components
// (app/features/dashboard/portal.dashboard.tsx) fed with constants shaped and sized like what its
// loader returns for the benchmark's manager (scripts/bench/http-load.ts signs one up: 40 team
// members, no rewards sent yet, an Owner with no approval waiting, the onboarding video watched).
import type { MetaDescriptor, RouterContextProvider } from "react-router";
import { REWARD_HISTORY_PAGE_SIZE, type RewardHistoryPage } from "../../../core/account-forms.ts";
import type { ApprovalSummary } from "../../../core/approvals.ts";
import { monthsEndingWith, type SpendSummary } from "../../../core/spend.ts";
import { services } from "../../context.ts";
import { ApprovalRequests } from "../approvals/approval-requests.tsx";
import { QuickLinks } from "../dashboard/portal-quick-links.tsx";
import { RewardHistory } from "../dashboard/portal-reward-history.tsx";
import { SpendPicture } from "../dashboard/spend-picture.tsx";
import { catalogueUrlFor } from "../portal/portal.server.ts";
import { PortalFooter } from "../portal/portal-footer.tsx";
import { PortalHeader } from "../portal/portal-header.tsx";
import type { PortalHandle } from "../portal/portal-pages.ts";

const TITLE = "Dashboard";
export const handle = { title: TITLE } satisfies PortalHandle;

/** The same document title and robots line as the Dashboard's (portalMeta). */
export function meta(): MetaDescriptor[] {
  return [{ title: TITLE }, { name: "robots", content: "noindex" }];
}

/** What the portal layout's loader keeps of a signed-in user (app/features/portal/portal.tsx). */
const FLOOR_USER = { id: 1001, companyId: 501, firstName: "Bench", companyName: "Bench Pty Ltd" } as const;

/** The months of the spend picture: 12, oldest first, as GET /api/RewardHistory/spend answers. */
const SPEND: SpendSummary = {
  months: monthsEndingWith("2026-11").map((month) => ({ month, releasedCents: 0 })),
  totals: { releasedCents: 0, serviceFeeCents: 0, gstCents: 0, recipientsReached: 0 },
};

/** The first page of a reward history with no paid order yet. */
const HISTORY: RewardHistoryPage = {
  items: [],
  totalCount: 0,
  pageNumber: 1,
  pageSize: REWARD_HISTORY_PAGE_SIZE,
  totalPages: 1,
  hasPreviousPage: false,
  hasNextPage: false,
};

/** An Owner's approval requests: none waiting. */
const PENDING_APPROVALS: ApprovalSummary[] = [];

// The portal layout's loader and the Dashboard's in one: the same fields, from constants. The
// catalogue address is made as the layout makes it, from the configuration.
// The types `./+types/bench-floor` would give are generated only for routes in app/routes.ts as
// typegen reads it (without REWARDS_BENCH_FLOOR), so the arguments are spelt out.
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return {
    user: { firstName: FLOOR_USER.firstName, companyName: FLOOR_USER.companyName },
    catalogueUrl: catalogueUrlFor(services(context).config.catalogueUrl, FLOOR_USER),
    history: HISTORY,
    spend: SPEND,
    pendingApprovals: PENDING_APPROVALS,
  };
}

// As every signed-in page (app/features/portal/portal.tsx); the edge sets it on any page with a session cookie too.
export function headers() {
  return { "cache-control": "private, no-store" };
}

export default function BenchFloor({ loaderData }: { loaderData: ReturnType<typeof loader> }) {
  const { user, catalogueUrl, history, spend, pendingApprovals } = loaderData;
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-4 focus:py-2 focus:text-brand-800"
      >
        Skip to content
      </a>
      <PortalHeader title={TITLE} greetingName={user.firstName} catalogueUrl={catalogueUrl} />
      <main id="main" tabIndex={-1} className="flex-1 outline-none">
        <div className="mx-auto max-w-7xl space-y-10 px-4 py-8 md:px-6 md:py-12">
          <QuickLinks catalogueUrl={catalogueUrl} />
          <ApprovalRequests pending={pendingApprovals} />
          <SpendPicture spend={spend} />
          <RewardHistory page={history} />
        </div>
      </main>
      <PortalFooter />
    </div>
  );
}
