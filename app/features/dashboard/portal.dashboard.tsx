// The dashboard (docs/requirements.md §S2 Dashboard, §S4 onboarding video, §S8 fetch failures): the Getting Started
// dialog while the onboarding video has not been watched, Quick Links, and the reward history,
// newest first, a page at a time (?historyPage=N), with its CSV download; above it, the spend
// picture of the last 12 months, an Owner's approval requests waiting, and the company's prepaid
// balance for every manager, with the top-up for Owners only, and a Manager's monthly budget
// this month (ADR 0034). All from one call
// (GET /api/Dashboard): a failure is logged, the history stays empty and the other sections are
// left out.
import { redirect, useRouteLoaderData } from "react-router";
import { z } from "zod";
import { MAX_PAGE_NUMBER } from "../../../core/paging.ts";
import { EMPTY_REWARD_HISTORY } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { asQuery } from "../../lib/api.server.ts";
import { readPostedForm, unknownIntent } from "../../lib/forms.server.ts";
import { pageNumberOf } from "../../lib/paging.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { ApprovalRequests } from "../approvals/approval-requests.tsx";
import { portalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import type { loader as portalLoader } from "../portal/portal.tsx";
import { DASHBOARD_PATH, PORTAL_LAYOUT_ID, type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.dashboard";
import { CompanyBalance } from "./company-balance.tsx";
import { MyBudget } from "./my-budget.tsx";
import { GettingStartedDialog, VIDEO_WATCHED_INTENT } from "./portal-onboarding-video.tsx";
import { QuickLinks } from "./portal-quick-links.tsx";
import { HISTORY_PAGE_PARAM, RewardHistory } from "./portal-reward-history.tsx";
import { SpendPicture } from "./spend-picture.tsx";

const TITLE = "Dashboard";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const { config, logger } = services(context);
  const pageNumber = pageNumberOf(new URL(request.url).searchParams.get(HISTORY_PAGE_PARAM), MAX_PAGE_NUMBER);
  // One call for the whole page (GET /api/Dashboard): Owners also get the approval requests
  // waiting for them (ADR 0022 §6), a Manager null, and the section is then left out.
  const dashboard = await client.call((api) => api.Dashboard.$get({ query: asQuery({ pageNumber }) }));
  if (!dashboard.ok) logger.warn({ status: dashboard.status, detail: dashboard.detail }, "dashboard fetch failed");
  return {
    history: dashboard.ok ? dashboard.data.history : EMPTY_REWARD_HISTORY,
    spend: dashboard.ok ? dashboard.data.spend : null,
    balance: dashboard.ok ? dashboard.data.balance : null,
    pendingApprovals: dashboard.ok ? dashboard.data.pendingApprovals : null,
    budget: dashboard.ok ? dashboard.data.budget : null,
    onboardingVideoUrl: config.onboardingVideoUrl,
  };
}

const intentSchema = z.object({ intent: z.literal(VIDEO_WATCHED_INTENT) });

export async function action({ context, request }: Route.ActionArgs) {
  const user = requireOnboardedUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(intentSchema);
  if (submission.status !== "success") return unknownIntent();
  const result = await user.api.call((api) => api.Identity["onboarding-video-watched"].$post());
  if (!result.ok) {
    services(context).logger.error({ status: result.status, detail: result.detail }, "onboarding video flag not saved");
    return redirectWithToast(context, DASHBOARD_PATH, {
      type: "destructive",
      title: "An error occurred. Please try again, contact us if it persists.",
    });
  }
  user.session.set("appSettings", { ...user.appSettings, hasWatchedOnboardingVideo: true });
  return redirect(DASHBOARD_PATH);
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const portal = useRouteLoaderData<typeof portalLoader>(PORTAL_LAYOUT_ID);
  const showVideo = portal ? !portal.hasWatchedOnboardingVideo : false;
  return (
    <div className="mx-auto max-w-7xl space-y-10 px-4 py-8 md:px-6 md:py-12">
      {showVideo ? <GettingStartedDialog videoUrl={loaderData.onboardingVideoUrl} action={DASHBOARD_PATH} /> : null}
      <QuickLinks catalogueUrl={portal?.catalogueUrl ?? ""} />
      {loaderData.budget ? <MyBudget budget={loaderData.budget} /> : null}
      {loaderData.balance ? <CompanyBalance balance={loaderData.balance} /> : null}
      {loaderData.pendingApprovals ? <ApprovalRequests pending={loaderData.pendingApprovals} /> : null}
      {loaderData.spend ? <SpendPicture spend={loaderData.spend} /> : null}
      <RewardHistory page={loaderData.history} />
    </div>
  );
}
