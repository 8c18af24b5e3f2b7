// The actions of Reward My Team (docs/requirements.md §S4 reward flow, §S5 reward single add, bulk CSV and amount
// inputs, §S8 reward add toasts), one named function per form `intent`. Fetcher posts (JavaScript
// on) carry via=fetcher and are answered with data; plain posts with a redirect back to the page
// (post/redirect/get), or with the page and its messages when something was refused.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider, redirect } from "react-router";
import { parseId } from "../../../core/fields.ts";
import { newRewardUserSchema } from "../../../modules/reward-drafts/schema.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { pageNumberOf } from "../../lib/paging.ts";
import { redirectWithToast, type ToastInput } from "../../lib/toast.server.ts";
import {
  awaitImport,
  type ImportJob,
  type ImportStarted,
  importCsvFile,
  NO_FILE_MESSAGE,
  postedImportId,
  postedRowCount,
} from "../../lib/uploads.server.ts";
import { EXPECTED_ROWS_FIELD, IMPORT_ID_FIELD } from "../../ui/csv-upload-pane.tsx";
import { type PortalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { fetcherReply } from "./reward-draft.server.ts";
import {
  ADD_DIALOG,
  type ApplyAllReply,
  BULK_ADDED_TOAST,
  type BulkReply,
  type DoneReply,
  INTENTS,
  type Intent,
  pageHref,
  REWARD_MY_TEAM_PATH,
  REWARD_REVIEW_PATH,
  type SingleAddReply,
  singleAddedToast,
  THEN_REVIEW,
  VIA_FETCHER,
} from "./reward-draft.ts";
import type { AmountReply, AmountsReply } from "./reward-draft-table.tsx";

type Context = Readonly<RouterContextProvider>;

export const EXPIRED_MESSAGE = "The checked file has expired; please choose it again.";

/**
 * How long a Save waits for the import worker before answering with the working view instead:
 * with JavaScript the page shows the progress meanwhile (50,000 rows take a few seconds); without
 * it a small file goes straight to its result.
 */
const JS_SAVE_WAIT_MS = 60_000;
const NO_JS_SAVE_WAIT_MS = 2_000;

/** The Add dialog following an import (no JavaScript): its preview, the working view or its messages. */
function importHref(id: string) {
  return `${REWARD_MY_TEAM_PATH}?${new URLSearchParams({ dialog: ADD_DIALOG, upload: id })}`;
}

/** What the page shows after a plain post that was refused (JavaScript off). */
export type ActionReply =
  | { intent: typeof INTENTS.saveAmount; reply: AmountReply }
  | { intent: typeof INTENTS.saveAmounts; reply: AmountsReply }
  | { intent: typeof INTENTS.applyAll; reply: ApplyAllReply }
  | { intent: typeof INTENTS.addSingle; reply: SingleAddReply }
  | { intent: typeof INTENTS.bulkPreview | typeof INTENTS.bulkSave; reply: BulkReply }
  | { intent: "other"; reply: DoneReply | { ok: false; message: string } };

/** One post of the page, read. */
interface DraftPost {
  context: Context;
  user: PortalUser;
  form: FormData;
  /** The posted bulk file as the API's import took it, or null without one. */
  file: ImportStarted | null;
  viaFetcher: boolean;
  /** The page the post came from. */
  back: string;
}

/**
 * create-reward-user answers a flat body (no `rewards`, as addSingle sends) with the one recipient
 * it added, never the bulk summary (modules/reward-drafts/api.server.ts).
 */
function isOneRecipient<T extends object>(answer: T): answer is Extract<T, { isNewTeamMember: boolean }> {
  return "isNewTeamMember" in answer;
}

/** Search result → the draft (amount 0). */
async function addFromSearch({ context, user, form, viaFetcher }: DraftPost) {
  const userId = parseId(form.get("userId"));
  const result = userId
    ? await user.api.call((api) => api.RewardMyTeam["create-reward-search"].$post({ json: { userId } }))
    : null;
  if (viaFetcher) {
    return data(result?.ok ? { ok: true } : { ok: false, message: result?.detail ?? "Team member not found." });
  }
  const q = String(form.get("q") ?? "").trim();
  // Back to the same search, so the next person can be added; the new row is on page 1.
  const to = q ? `${REWARD_MY_TEAM_PATH}?${new URLSearchParams({ q })}` : REWARD_MY_TEAM_PATH;
  if (result && !result.ok) return redirectWithToast(context, to, { type: "destructive", title: result.detail });
  return redirect(to);
}

/** One amount, typed in the table (a fetcher). */
async function saveAmount({ user, form }: DraftPost) {
  const userId = parseId(form.get("userId"));
  const value = String(form.get("value") ?? "");
  if (!userId) return data<AmountReply>({ ok: false, userId: 0, message: "Team member not found." }, 400);
  const result = await user.api.call((api) => api.RewardMyTeam["update-reward"].$put({ json: { userId, value } }));
  if (!result.ok) return data<AmountReply>({ ok: false, userId, message: result.detail }, result.status);
  return data<AmountReply>({ ok: true, userId, dollars: result.data.reward ?? 0 });
}

/** Every amount of the page (Save amounts without JavaScript, Review & Pay always); only changed ones are sent. */
async function saveAmounts({ user, form, back }: DraftPost) {
  const ids = form.getAll("userId").map(parseId);
  const previous = form.getAll("previous").map(String);
  const values = form.getAll("value").map(String);
  const reply: AmountsReply = { values: {}, errors: {} };
  for (const [index, userId] of ids.entries()) {
    const value = values[index] ?? "";
    if (!userId || value.trim() === previous[index]) continue;
    const result = await user.api.call((api) => api.RewardMyTeam["update-reward"].$put({ json: { userId, value } }));
    if (!result.ok) {
      reply.values[userId] = value;
      reply.errors[userId] = result.detail;
    }
  }
  if (Object.keys(reply.errors).length > 0) {
    return data<ActionReply>({ intent: INTENTS.saveAmounts, reply }, 400);
  }
  return redirect(form.get(THEN_REVIEW.name) === THEN_REVIEW.value ? REWARD_REVIEW_PATH : back);
}

/** Apply to All: one amount for every recipient. */
async function applyAll({ user, form, viaFetcher, back }: DraftPost) {
  const value = String(form.get("value") ?? "");
  const result = await user.api.call((api) => api.RewardMyTeam["update-all-reward"].$put({ json: { value } }));
  const reply: ApplyAllReply = result.ok ? { ok: true } : { ok: false, value, message: result.detail };
  if (viaFetcher) return data(reply, result.ok ? 200 : result.status);
  if (!result.ok) return data<ActionReply>({ intent: INTENTS.applyAll, reply }, result.status);
  return redirect(back);
}

/** One recipient out of the draft. */
async function removeRecipient({ user, form, viaFetcher, back }: DraftPost) {
  const userId = parseId(form.get("userId"));
  const result = userId
    ? await user.api.call((api) => api.RewardMyTeam["delete-reward"].$delete({ json: { userId } }))
    : null;
  if (viaFetcher) return data(result?.ok ? { ok: true } : { ok: false, message: result?.detail ?? "" });
  return redirect(back);
}

/** Remove All: the draft emptied. */
async function removeAllRecipients({ user, viaFetcher }: DraftPost) {
  await user.api.call((api) => api.RewardMyTeam["delete-all-reward"].$delete());
  if (viaFetcher) return data<DoneReply>({ ok: true });
  return redirect(REWARD_MY_TEAM_PATH);
}

/** Add dialog, single form: a new team member with an amount. */
async function addSingle({ context, user, form, viaFetcher }: DraftPost) {
  const submission = parseWithZod(form, { schema: newRewardUserSchema });
  if (submission.status !== "success") {
    const reply: SingleAddReply = { ok: false, result: replyInvalid(submission).data.result };
    return viaFetcher ? data(reply, 400) : data<ActionReply>({ intent: INTENTS.addSingle, reply }, 400);
  }
  const { firstName, lastName, email } = submission.value;
  const json = { firstName, lastName, email, value: submission.value.value };
  const result = await user.api.call((api) => api.RewardMyTeam["create-reward-user"].$post({ json }));
  if (!result.ok) {
    // docs/requirements.md §S8: the server's detail in red above the form.
    const failed = replyFailure(submission, result, { shown: "any" });
    const reply: SingleAddReply = { ok: false, result: failed.data.result };
    return viaFetcher
      ? data(reply, failed.init?.status)
      : data<ActionReply>({ intent: INTENTS.addSingle, reply }, failed.init?.status);
  }
  const added = (isOneRecipient(result.data) && result.data.firstName) || firstName;
  const toast: ToastInput = { type: "success", title: singleAddedToast(added) };
  if (viaFetcher) return fetcherReply<SingleAddReply>(context, { ok: true }, toast);
  return redirectWithToast(context, REWARD_MY_TEAM_PATH, toast);
}

/** Without JavaScript: the file is read by the API's import and its rows wait, staged, for Save. */
async function previewBulkFile({ file }: DraftPost) {
  if (!file?.ok) {
    const reply: BulkReply = { ok: false, errors: file ? file.errors : [NO_FILE_MESSAGE] };
    return data<ActionReply>({ intent: INTENTS.bulkPreview, reply }, file?.status ?? 400);
  }
  return redirect(importHref(file.job.id));
}

/** A finished import (done or failed), seen: dropped, and answered as SPEC's toast or the messages. */
export async function finishRewardImport(context: Context, user: PortalUser, job: ImportJob, viaFetcher: boolean) {
  await user.api.call((api) => api.Imports[":id"].$delete({ param: { id: job.id } }));
  if (job.status !== "done") {
    const reply: BulkReply = { ok: false, errors: job.errors ?? [EXPIRED_MESSAGE] };
    return viaFetcher ? data(reply, 400) : data<ActionReply>({ intent: INTENTS.bulkSave, reply }, 400);
  }
  const toast: ToastInput = { type: "success", title: BULK_ADDED_TOAST };
  if (viaFetcher) return fetcherReply<BulkReply>(context, { ok: true }, toast);
  return redirectWithToast(context, REWARD_MY_TEAM_PATH, toast);
}

/**
 * Add dialog, bulk CSV Save. With JavaScript the file itself comes, read as it arrives by the
 * API's import (the same reader as in the browser) and queued at once; without it the staged
 * import of the checked file (its id) is queued. The post answers once the import is applied,
 * or (still working after a while) with the working view, which follows it.
 */
async function saveBulkFile({ context, user, form, file, viaFetcher }: DraftPost) {
  const refused = (errors: string[], status = 400) => {
    const reply: BulkReply = { ok: false, errors };
    return viaFetcher ? data(reply, status) : data<ActionReply>({ intent: INTENTS.bulkSave, reply }, status);
  };
  let id: string;
  if (file) {
    if (!file.ok) return refused(file.errors, file.status);
    id = file.job.id;
  } else {
    id = String(form.get("upload") ?? "");
    const queued = id ? await user.api.call((api) => api.Imports[":id"].start.$post({ param: { id } })) : null;
    if (!queued?.ok) return refused([EXPIRED_MESSAGE]);
  }
  const job = await awaitImport(user.api, id, file ? JS_SAVE_WAIT_MS : NO_JS_SAVE_WAIT_MS);
  if (job) return finishRewardImport(context, user, job, viaFetcher);
  return redirect(importHref(id));
}

/** Without JavaScript: the waiting rows dropped. */
async function discardBulkFile({ user, form }: DraftPost) {
  const uploadId = String(form.get("upload") ?? "");
  if (uploadId) await user.api.call((api) => api.Imports[":id"].$delete({ param: { id: uploadId } }));
  return redirect(`${REWARD_MY_TEAM_PATH}?dialog=${ADD_DIALOG}`);
}

/** The page's action: reads the post (the bulk file goes to the API as it arrives) and runs its intent. */
export async function rewardDraftAction(context: Context, request: Request) {
  const user = requireOnboardedUser(context);
  const posted = await readPostedForm(context, request, {
    onFile: (upload, fields) => {
      const intent = fields.get("intent");
      const save = intent === INTENTS.bulkSave;
      if (!save && intent !== INTENTS.bulkPreview) return Promise.resolve(null);
      return importCsvFile(user.api, upload, {
        kind: "reward",
        queue: save,
        id: save ? postedImportId(fields.get(IMPORT_ID_FIELD)) : undefined,
        expectedRows: postedRowCount(fields.get(EXPECTED_ROWS_FIELD)),
      });
    },
  });
  const form = posted.formData;
  const post: DraftPost = {
    context,
    user,
    form,
    file: posted.file,
    viaFetcher: form.get(VIA_FETCHER.name) === VIA_FETCHER.value,
    back: pageHref(pageNumberOf(form.get("page"))),
  };
  switch (posted.intent as Intent) {
    case INTENTS.addFromSearch:
      return addFromSearch(post);
    case INTENTS.saveAmount:
      return saveAmount(post);
    case INTENTS.saveAmounts:
      return saveAmounts(post);
    case INTENTS.applyAll:
      return applyAll(post);
    case INTENTS.remove:
      return removeRecipient(post);
    case INTENTS.removeAll:
      return removeAllRecipients(post);
    case INTENTS.addSingle:
      return addSingle(post);
    case INTENTS.bulkPreview:
      return previewBulkFile(post);
    case INTENTS.bulkSave:
      return saveBulkFile(post);
    case INTENTS.bulkDiscard:
      return discardBulkFile(post);
    default:
      return unknownIntent();
  }
}
