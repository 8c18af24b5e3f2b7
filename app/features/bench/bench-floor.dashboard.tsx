// The HTTP benchmark's framework floor, its page half (./bench-floor.tsx is the frame; both only in
// the benchmark's own build, app/routes.ts): the Dashboard's own sections
// (app/features/dashboard/portal.dashboard.tsx) fed with constants shaped and sized like what its
// loader returns for the benchmark's manager (scripts/bench/http-load.ts signs one up: an Owner
// with 40 team members, no reward sent yet, no approval waiting, the onboarding video watched),
// instead of the three API calls and the database behind them.
import { type MetaDescriptor, type RouterContextProvider, useRouteLoaderData } from "react-router";
import { EMPTY_REWARD_HISTORY } from "../../../core/account-forms.ts";
import type { ApprovalSummary } from "../../../core/approvals.ts";
import { monthsEndingWith, type SpendSummary } from "../../../core/spend.ts";
import { services } from "../../context.ts";
import { ApprovalRequests } from "../approvals/approval-requests.tsx";
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

/** GET /api/RewardHistory/spend for a company with nothing released: 12 months, oldest first. */
const SPEND: SpendSummary = {
  months: monthsEndingWith("2026-11").map((month) => ({ month, releasedCents: 0 })),
  totals: { releasedCents: 0, serviceFeeCents: 0, gstCents: 0, recipientsReached: 0 },
};

/** GET /api/Approvals?status=pending for an Owner with none waiting. */
const PENDING_APPROVALS: ApprovalSummary[] = [];

// The Dashboard loader's fields, from constants (the video address from the configuration, as there).
export function loader({ context }: { context: Readonly<RouterContextProvider> }) {
  return {
    history: EMPTY_REWARD_HISTORY,
    spend: SPEND as SpendSummary | null,
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
      {loaderData.pendingApprovals ? <ApprovalRequests pending={loaderData.pendingApprovals} /> : null}
      {loaderData.spend ? <SpendPicture spend={loaderData.spend} /> : null}
      <RewardHistory page={loaderData.history} />
    </div>
  );
}
