// Reward My Team (SPEC §2 Reward My Team, §3 recipient row, §4 reward flow, §5 reward single add,
// bulk CSV, amount inputs and reward search, §7 RewardMyTeam calls, §8 reward add toasts, §9 page
// size 7 newest first): the program manager's reward draft.
//
// The loader reads one page of the draft from the API (get-reward-page: 7 rows, newest first,
// with the whole draft's totals), so a draft of 5,000 recipients never travels whole. Every post
// goes to this route's action with an `intent`; posts from fetchers (JavaScript on) carry
// via=fetcher and are answered with data (the page stays; the loaders revalidate), plain posts
// (JavaScript off) are answered with a redirect back to the page (post/redirect/get), or with the
// page and its messages when something was refused.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect, useLocation } from "react-router";
import { newRewardUserSchema } from "../../core/rewards.ts";
import { useUrlDialog } from "../components/dialog.tsx";
import { RewardDraftAddDialog } from "../components/reward-draft-add-dialog.tsx";
import { RewardDraftApplyAll } from "../components/reward-draft-apply-all.tsx";
import { RewardDraftPager } from "../components/reward-draft-pager.tsx";
import { RewardDraftRemoveAllDialog } from "../components/reward-draft-remove-all.tsx";
import { RewardDraftSearch } from "../components/reward-draft-search.tsx";
import { type AmountReply, type AmountsReply, RewardDraftTable } from "../components/reward-draft-table.tsx";
import { services } from "../context.ts";
import type { ApiResult } from "../lib/api.server.ts";
import { replyFailure } from "../lib/forms.server.ts";
import { type PortalUser, requireOnboardedUser } from "../lib/portal.server.ts";
import { type PortalHandle, portalMeta } from "../lib/portal.ts";
import {
  fetcherReply,
  loadDraftView,
  pageOf,
  readPostedRewardFile,
  searchMembers,
} from "../lib/reward-draft.server.ts";
import {
  ADD_DIALOG,
  type ApplyAllReply,
  BULK_ADDED_TOAST,
  type BulkReply,
  canReview,
  type DoneReply,
  INTENTS,
  type PendingRewardUpload,
  pageHref,
  REMOVE_ALL_DIALOG,
  REWARD_MY_TEAM_PATH,
  REWARD_REVIEW_PATH,
  type RewardDraftView,
  type SingleAddReply,
  singleAddedToast,
  totalsLine,
  UPLOAD_PREVIEW_ROWS,
  VIA_FETCHER,
} from "../lib/reward-draft.ts";
import { isRewardCsvRow, type RewardCsvRow } from "../lib/reward-draft-csv.ts";
import { redirectWithToast, type ToastInput } from "../lib/toast.server.ts";
import { readUploadPost } from "../lib/uploads.server.ts";
import type { Route } from "./+types/portal.reward-my-team";

const TITLE = "Reward My Team";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

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
  const page = pageOf(url.searchParams.get("page"));
  const q = url.searchParams.get("q");
  const uploadId = url.searchParams.get("upload");
  const [view, search, upload] = await Promise.all([
    loadDraftView(user.api, page),
    q !== null && q.trim() !== "" ? searchMembers(user.api, q) : null,
    uploadId ? readPendingUpload(context, user, uploadId) : null,
  ]);
  return { view: view ?? EMPTY_VIEW, loadFailed: view === null, search, upload };
}

async function readPendingUpload(
  context: Route.LoaderArgs["context"],
  user: PortalUser,
  id: string,
): Promise<PendingRewardUpload | null> {
  const stored = await services(context).pendingUploads.read(id, user.user.id, "reward");
  if (!stored) return null;
  const rows = stored.rows.filter(isRewardCsvRow);
  return {
    id,
    fileName: stored.fileName,
    count: rows.length,
    totalRewardsCents: rows.reduce((sum, row) => sum + row.value * 100, 0),
    sample: rows.slice(0, UPLOAD_PREVIEW_ROWS),
  };
}

// ─── Action ───

type ActionReply =
  | { intent: typeof INTENTS.saveAmount; reply: AmountReply }
  | { intent: typeof INTENTS.saveAmounts; reply: AmountsReply }
  | { intent: typeof INTENTS.applyAll; reply: ApplyAllReply }
  | { intent: typeof INTENTS.addSingle; reply: SingleAddReply }
  | { intent: typeof INTENTS.bulkPreview | typeof INTENTS.bulkSave; reply: BulkReply }
  | { intent: "other"; reply: DoneReply | { ok: false; message: string } };

function idOf(value: FormDataEntryValue | null): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** All the messages of an API refusal (a bulk upload lists one per row). */
function messagesOf(failure: Extract<ApiResult<unknown>, { ok: false }>): string[] {
  const listed = Object.values(failure.errors ?? {}).flat();
  return listed.length > 0 ? [...new Set(listed)] : [failure.detail];
}

export async function action({ context, request }: Route.ActionArgs) {
  const user = requireOnboardedUser(context);
  const { api } = user;
  // Any post may carry the bulk file: the body is read with the upload cap (DESIGN.md §7).
  const posted = await readUploadPost(context, request);
  if (!posted.ok) {
    const reply: BulkReply = { ok: false, errors: [posted.message] };
    return data<ActionReply>({ intent: INTENTS.bulkPreview, reply }, 413);
  }
  const form = posted.formData;
  const viaFetcher = form.get(VIA_FETCHER.name) === VIA_FETCHER.value;
  const intent = String(form.get("intent") ?? "");
  const page = pageOf(form.get("page"));
  const back = pageHref(page);

  switch (intent) {
    case INTENTS.addFromSearch: {
      const userId = idOf(form.get("userId"));
      const result = userId ? await api.addRewardRecipient(userId) : null;
      if (viaFetcher) {
        return data(result?.ok ? { ok: true } : { ok: false, message: result?.detail ?? "Team member not found." });
      }
      const q = String(form.get("q") ?? "").trim();
      // Back to the same search, so the next person can be added; the new row is on page 1.
      const to = q ? `${REWARD_MY_TEAM_PATH}?${new URLSearchParams({ q })}` : REWARD_MY_TEAM_PATH;
      if (result && !result.ok) return redirectWithToast(context, to, { type: "destructive", title: result.detail });
      return redirect(to);
    }

    case INTENTS.saveAmount: {
      const userId = idOf(form.get("userId"));
      const value = String(form.get("value") ?? "");
      if (!userId) return data<AmountReply>({ ok: false, userId: 0, message: "Team member not found." }, 400);
      const result = await api.updateReward(userId, value);
      if (!result.ok) return data<AmountReply>({ ok: false, userId, message: result.detail }, result.status);
      return data<AmountReply>({ ok: true, userId, dollars: result.data.reward ?? 0 });
    }

    case INTENTS.saveAmounts: {
      // Without JavaScript: every amount of the page; only changed ones are sent.
      const ids = form.getAll("userId").map(idOf);
      const previous = form.getAll("previous").map(String);
      const values = form.getAll("value").map(String);
      const reply: AmountsReply = { values: {}, errors: {} };
      for (const [index, userId] of ids.entries()) {
        const value = values[index] ?? "";
        if (!userId || value.trim() === previous[index]) continue;
        const result = await api.updateReward(userId, value);
        if (!result.ok) {
          reply.values[userId] = value;
          reply.errors[userId] = result.detail;
        }
      }
      if (Object.keys(reply.errors).length > 0) {
        return data<ActionReply>({ intent: INTENTS.saveAmounts, reply }, 400);
      }
      return redirect(back);
    }

    case INTENTS.applyAll: {
      const value = String(form.get("value") ?? "");
      const result = await api.updateAllReward(value);
      const reply: ApplyAllReply = result.ok ? { ok: true } : { ok: false, value, message: result.detail };
      if (viaFetcher) return data(reply, result.ok ? 200 : result.status);
      if (!result.ok) return data<ActionReply>({ intent: INTENTS.applyAll, reply }, result.status);
      return redirect(back);
    }

    case INTENTS.remove: {
      const userId = idOf(form.get("userId"));
      const result = userId ? await api.deleteReward(userId) : null;
      if (viaFetcher) return data(result?.ok ? { ok: true } : { ok: false, message: result?.detail ?? "" });
      return redirect(back);
    }

    case INTENTS.removeAll: {
      await api.deleteAllReward();
      if (viaFetcher) return data<DoneReply>({ ok: true });
      return redirect(REWARD_MY_TEAM_PATH);
    }

    case INTENTS.addSingle: {
      const submission = parseWithZod(form, { schema: newRewardUserSchema });
      if (submission.status !== "success") {
        const reply: SingleAddReply = { ok: false, result: submission.reply({ hideFields: ["csrf"] }) };
        return viaFetcher ? data(reply, 400) : data<ActionReply>({ intent: INTENTS.addSingle, reply }, 400);
      }
      const { firstName, lastName, email } = submission.value;
      const result = await api.createRewardUser({ firstName, lastName, email, value: submission.value.value });
      if (!result.ok) {
        // SPEC §8: the server's detail in red above the form.
        const failed = replyFailure(submission, result, { shownDetails: [result.detail] });
        const reply: SingleAddReply = { ok: false, result: failed.data.result };
        return viaFetcher
          ? data(reply, failed.init?.status)
          : data<ActionReply>({ intent: INTENTS.addSingle, reply }, failed.init?.status);
      }
      const toast: ToastInput = { type: "success", title: singleAddedToast(result.data.firstName || firstName) };
      if (viaFetcher) return fetcherReply<SingleAddReply>(context, { ok: true }, toast);
      return redirectWithToast(context, REWARD_MY_TEAM_PATH, toast);
    }

    case INTENTS.bulkPreview: {
      // Without JavaScript: the file is checked here and its rows wait for Save.
      const { fileName, result: checked } = await readPostedRewardFile(form);
      if (!checked.ok) {
        const reply: BulkReply = { ok: false, errors: checked.errors };
        return data<ActionReply>({ intent: INTENTS.bulkPreview, reply }, 400);
      }
      const id = await services(context).pendingUploads.save({
        userId: user.user.id,
        kind: "reward",
        fileName,
        rows: checked.rows,
      });
      return redirect(`${REWARD_MY_TEAM_PATH}?${new URLSearchParams({ dialog: ADD_DIALOG, upload: id })}`);
    }

    case INTENTS.bulkSave: {
      // Without JavaScript the checked rows wait on the server (upload id); with it the file
      // itself comes again and is read here with the same reader as in the browser.
      const uploadId = String(form.get("upload") ?? "");
      let rows: RewardCsvRow[];
      if (uploadId) {
        const stored = await services(context).pendingUploads.read(uploadId, user.user.id, "reward");
        rows = stored ? stored.rows.filter(isRewardCsvRow) : [];
        if (rows.length === 0) {
          const reply: BulkReply = { ok: false, errors: ["The checked file has expired; please choose it again."] };
          return data<ActionReply>({ intent: INTENTS.bulkSave, reply }, 400);
        }
      } else {
        const { result: checked } = await readPostedRewardFile(form);
        if (!checked.ok) {
          const reply: BulkReply = { ok: false, errors: checked.errors };
          return viaFetcher ? data(reply, 400) : data<ActionReply>({ intent: INTENTS.bulkSave, reply }, 400);
        }
        rows = checked.rows;
      }
      const result = await api.bulkUploadReward(rows);
      if (!result.ok) {
        const reply: BulkReply = { ok: false, errors: messagesOf(result) };
        return viaFetcher
          ? data(reply, result.status)
          : data<ActionReply>({ intent: INTENTS.bulkSave, reply }, result.status);
      }
      if (uploadId) await services(context).pendingUploads.delete(uploadId, user.user.id);
      const toast: ToastInput = { type: "success", title: BULK_ADDED_TOAST };
      if (viaFetcher) return fetcherReply<BulkReply>(context, { ok: true }, toast);
      return redirectWithToast(context, REWARD_MY_TEAM_PATH, toast);
    }

    case INTENTS.bulkDiscard: {
      const uploadId = String(form.get("upload") ?? "");
      if (uploadId) await services(context).pendingUploads.delete(uploadId, user.user.id);
      return redirect(`${REWARD_MY_TEAM_PATH}?dialog=${ADD_DIALOG}`);
    }

    default:
      throw data("Unknown request.", { status: 400 });
  }
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
          <Link to={REWARD_REVIEW_PATH} className={primaryLinkClass}>
            Review &amp; Pay
          </Link>
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
