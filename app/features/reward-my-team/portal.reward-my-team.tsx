// Reward My Team (docs/requirements.md §S2 Reward My Team, §S3 recipient row, §S4 reward flow, §S5 reward single add,
// bulk CSV, amount inputs and reward search, §S7 RewardMyTeam calls, §S8 reward add toasts, §S9 page
// size 7 newest first): the program manager's reward draft.
//
// The loader reads one page of the draft from the API (get-reward-page: 7 rows, newest first,
// with the whole draft's totals), so a draft of MAX_DRAFT_RECIPIENTS (50,000) recipients never travels whole. Every post
// goes to this route's action with an `intent`, handled by its own function in
// app/features/reward-my-team/reward-draft-actions.server.ts.
import { useLocation } from "react-router";
import { asQuery } from "../../lib/api.server.ts";
import type { PendingCsvUpload } from "../../lib/csv-upload.ts";
import { pageNumberOf } from "../../lib/paging.ts";
import { pendingImportView } from "../../lib/uploads.server.ts";
import { importRefreshMeta } from "../../ui/csv-upload-pane.tsx";
import { useUrlDialog } from "../../ui/dialog.tsx";
import { type PortalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.reward-my-team";
import { loadDraftView, searchMembers } from "./reward-draft.server.ts";
import {
  ADD_DIALOG,
  canReview,
  INTENTS,
  type PendingRewardUpload,
  REMOVE_ALL_DIALOG,
  type RewardDraftView,
  THEN_REVIEW,
  totalsLine,
  UPLOAD_PREVIEW_ROWS,
} from "./reward-draft.ts";
import { type ActionReply, finishRewardImport, rewardDraftAction } from "./reward-draft-actions.server.ts";
import { RewardDraftAddDialog } from "./reward-draft-add-dialog.tsx";
import { RewardDraftApplyAll } from "./reward-draft-apply-all.tsx";
import { RewardDraftPager } from "./reward-draft-pager.tsx";
import { RewardDraftRemoveAllDialog } from "./reward-draft-remove-all.tsx";
import { RewardDraftSearch } from "./reward-draft-search.tsx";
import { AMOUNTS_FORM_ID, RewardDraftTable } from "./reward-draft-table.tsx";

const TITLE = "Reward My Team";
export const handle = { title: TITLE } satisfies PortalHandle;
const pageMeta = portalMeta(TITLE);
/** While an import is applied without JavaScript the page looks again by itself (importRefreshMeta). */
export const meta: Route.MetaFunction = (args) => [...pageMeta(args), ...importRefreshMeta(args.loaderData?.upload)];

const EMPTY_VIEW: RewardDraftView = {
  rows: [],
  pageNumber: 1,
  totalPages: 0,
  totalRecipients: 0,
  totalRewardsCents: 0,
};

export async function loader({ context, request }: Route.LoaderArgs) {
  const user = requireOnboardedUser(context);
  const url = new URL(request.url);
  const page = pageNumberOf(url.searchParams.get("page"));
  const q = url.searchParams.get("q");
  const uploadId = url.searchParams.get("upload");
  const [view, search, upload] = await Promise.all([
    loadDraftView(user.api, page),
    q !== null && q.trim() !== "" ? searchMembers(user.api, q) : null,
    uploadId ? readRewardImport(context, user, uploadId.slice(0, 64)) : null,
  ]);
  return { view: view ?? EMPTY_VIEW, loadFailed: view === null, search, upload };
}

/**
 * The Add dialog's import without JavaScript (read through the API): the checked file's preview,
 * the working view while it is applied, its messages, or (once applied) the page with the toast.
 */
async function readRewardImport(
  context: Route.LoaderArgs["context"],
  user: PortalUser,
  id: string,
): Promise<PendingCsvUpload<Omit<PendingRewardUpload, "id">> | null> {
  const read = await user.api.call((api) =>
    api.Imports[":id"].$get({ param: { id }, query: asQuery({ sample: UPLOAD_PREVIEW_ROWS }) }),
  );
  if (!read.ok) return null;
  const job = read.data;
  if (job.status === "done") {
    const done = await finishRewardImport(context, user, job, false);
    if (done instanceof Response) throw done;
    return null;
  }
  return pendingImportView(user.api, job, (staged) => ({
    fileName: staged.fileName,
    count: staged.totalRows ?? staged.processedRows,
    totalRewardsCents: Math.round((staged.totalAmount ?? 0) * 100),
    sample: (staged.sample ?? []).map(({ firstName, lastName, email, value }) => ({
      firstName,
      lastName,
      email,
      value: value ?? 0,
    })),
  }));
}

// ─── Action ───

export function action({ context, request }: Route.ActionArgs) {
  return rewardDraftAction(context, request);
}

// ─── Page ───

const primaryLinkClass =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const disabledLinkClass =
  "inline-flex min-h-11 cursor-not-allowed items-center justify-center rounded-md bg-slate-300 px-6 py-2 font-semibold text-slate-700";
const outlineLinkClass =
  "inline-flex min-h-11 items-center justify-center gap-2 rounded-md border border-brand-700 bg-white px-4 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const dangerLinkClass =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-red-700 bg-white px-4 py-2 font-semibold text-red-700 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700";

export default function RewardMyTeam({ loaderData, actionData }: Route.ComponentProps) {
  const { view, loadFailed, search, upload } = loaderData;
  const location = useLocation();
  const addDialog = useUrlDialog(ADD_DIALOG);
  const removeAllDialog = useUrlDialog(REMOVE_ALL_DIALOG);
  const reply = actionData as ActionReply | undefined;
  const pageParam = view.pageNumber;
  const reviewable = canReview(view);

  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8 md:py-12">
      <div>
        <h2 className="text-2xl font-bold text-brand-800 md:text-3xl">Select Recipients to Reward</h2>
        <p className="mt-2 text-slate-700">
          Search your team and add people to this reward, or add new people with their amounts. Then set each
          person&rsquo;s Reward Dollars and review the cost.
        </p>
      </div>

      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <RewardDraftSearch search={search} page={pageParam} />
        </div>
        <a {...addDialog.linkProps} className={outlineLinkClass} aria-haspopup="dialog">
          <svg
            viewBox="0 0 24 24"
            className="size-5"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            aria-hidden="true"
          >
            <path d="M12 5v14M5 12h14" strokeLinecap="round" />
          </svg>
          Add
        </a>
      </div>

      {loadFailed ? (
        <p
          role="alert"
          className="rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm font-medium text-red-800"
        >
          Sorry, we could not load your recipients. Please reload the page.
        </p>
      ) : null}

      <RewardDraftApplyAll pageParam={pageParam} reply={reply?.intent === INTENTS.applyAll ? reply.reply : undefined} />

      <RewardDraftTable
        view={view}
        pageParam={pageParam}
        amountsReply={reply?.intent === INTENTS.saveAmounts ? reply.reply : undefined}
      />

      <RewardDraftPager pageNumber={view.pageNumber} totalPages={view.totalPages} search={location.search} />

      <p aria-live="polite" className="rounded-lg bg-white px-4 py-3 font-semibold text-slate-900 shadow-sm">
        {totalsLine(view)}
      </p>

      <div className="flex flex-col gap-3 sm:flex-row sm:justify-between">
        {view.totalRecipients > 0 ? (
          <a {...removeAllDialog.linkProps} className={dangerLinkClass} aria-haspopup="dialog">
            Remove All
          </a>
        ) : (
          <button type="button" aria-disabled="true" className={disabledLinkClass}>
            Remove All
          </button>
        )}
        {reviewable ? (
          <button
            type="submit"
            form={AMOUNTS_FORM_ID}
            name={THEN_REVIEW.name}
            value={THEN_REVIEW.value}
            className={primaryLinkClass}
          >
            Review &amp; Pay
          </button>
        ) : (
          <button type="button" aria-disabled="true" className={disabledLinkClass} aria-describedby="review-hint">
            Review &amp; Pay
          </button>
        )}
      </div>
      {reviewable ? null : (
        <p id="review-hint" className="text-sm text-slate-600 sm:text-right">
          Add at least one recipient and a total above $0 to review and pay.
        </p>
      )}

      <RewardDraftAddDialog
        control={addDialog}
        upload={upload}
        singleReply={reply?.intent === INTENTS.addSingle ? reply.reply : undefined}
        bulkReply={
          reply?.intent === INTENTS.bulkPreview || reply?.intent === INTENTS.bulkSave ? reply.reply : undefined
        }
      />
      <RewardDraftRemoveAllDialog control={removeAllDialog} count={view.totalRecipients} />
    </div>
  );
}
