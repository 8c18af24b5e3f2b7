// The HTTP benchmark's framework floor, its page half (./bench-floor.tsx is the frame; both only in
// the benchmark's own build, app/routes.ts): the Dashboard's own sections
// (app/features/dashboard/portal.dashboard.tsx) fed with constants shaped and sized like what its
// loader returns for the benchmark's manager (scripts/bench/http-load.ts signs one up: an Owner
// with 43 team members, one order of 3 rewards released, no approval waiting, the onboarding video
// watched), instead of the API call and the database behind it.
import { type MetaDescriptor, type RouterContextProvider, useRouteLoaderData } from "react-router";
import type { ApprovalSummary } from "../../../modules/approvals/schema.ts";
import { EMPTY_REWARD_HISTORY, type RewardHistoryPage } from "../../../modules/identity/schema.ts";
import { monthsEndingWith, type SpendSummary } from "../../../modules/reward-history/spend.ts";
import { services } from "../../context.ts";
import { ApprovalRequests } from "../approvals/approval-requests.tsx";
import { CompanyBalance, type DashboardBalance } from "../dashboard/company-balance.tsx";
import { GettingStartedDialog } from "../dashboard/portal-onboarding-video.tsx";
import { QuickLinks } from "../dashboard/portal-quick-links.tsx";
import { RewardHistory } from "../dashboard/portal-reward-history.tsx";
import { SpendPicture } from "../dashboard/spend-picture.tsx";
import { BENCH_FLOOR_ROUTE_ID, type PortalHandle } from "../portal/portal-pages.ts";
import type { BenchFloorLayoutData } from "./bench-floor.tsx";

const TITLE = "Dashboard";
export const handle = { title: TITLE } satisfies PortalHandle;

/** The Dashboard's document title and robots line (portalMeta). */
export function meta(): MetaDescriptor[] {
  return [{ title: TITLE }, { name: "robots", content: "noindex" }];
}

// The one order the benchmark's manager paid (3 members: $50, $25 and $10), released this month.
const RELEASED_CENTS = 8_500;

/** GET /api/Dashboard's spend: 12 months, oldest first, the release in the last. */
const SPEND: SpendSummary = {
  months: monthsEndingWith("2026-11").map((month) => ({
    month,
    releasedCents: month === "2026-11" ? RELEASED_CENTS : 0,
  })),
  totals: { releasedCents: RELEASED_CENTS, serviceFeeCents: 850, gstCents: 85, recipientsReached: 3 },
};

/** GET /api/Dashboard's history: the one released order. */
const HISTORY: RewardHistoryPage = {
  ...EMPTY_REWARD_HISTORY,
  items: [
    {
      orderId: 1,
      rewardReleaseId: 1,
      state: "released",
      refunded: false,
      rewardDate: "2026-11-27T09:00:00.000Z",
      rewardName: "Bench thank-you",
      amount: 85,
      invoiceNumber: "INV-000001",
    },
  ],
  totalCount: 1,
};

/** GET /api/Approvals?status=pending for an Owner with none waiting. */
const PENDING_APPROVALS: ApprovalSummary[] = [];

// The Dashboard loader's fields, from constants (the video address from the configuration, as there).
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return {
    history: HISTORY,
    spend: SPEND as SpendSummary | null,
    // An Owner's view of a balance never topped up.
    balance: { balanceCents: 0, canTopUp: true } as DashboardBalance | null,
    pendingApprovals: PENDING_APPROVALS as ApprovalSummary[] | null,
    onboardingVideoUrl: services(context).config.onboardingVideoUrl,
  };
}

export default function BenchFloorDashboard({ loaderData }: { loaderData: ReturnType<typeof loader> }) {
  const frame = useRouteLoaderData<BenchFloorLayoutData>(BENCH_FLOOR_ROUTE_ID);
  const showVideo = frame ? !frame.hasWatchedOnboardingVideo : false;
  return (
    <div className="mx-auto max-w-7xl space-y-10 px-4 py-8 md:px-6 md:py-12">
      {showVideo ? <GettingStartedDialog videoUrl={loaderData.onboardingVideoUrl} action="/bench-floor" /> : null}
      <QuickLinks catalogueUrl={frame?.catalogueUrl ?? ""} />
      {loaderData.balance ? <CompanyBalance balance={loaderData.balance} /> : null}
      {loaderData.pendingApprovals ? <ApprovalRequests pending={loaderData.pendingApprovals} /> : null}
      {loaderData.spend ? <SpendPicture spend={loaderData.spend} /> : null}
      <RewardHistory page={loaderData.history} />
    </div>
  );
}
