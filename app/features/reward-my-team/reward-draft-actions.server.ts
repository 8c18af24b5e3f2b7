// The actions of Reward My Team (SPEC §4 reward flow, §5 reward single add, bulk CSV and amount
// inputs, §8 reward add toasts), one named function per form `intent`. Fetcher posts (JavaScript
// on) carry via=fetcher and are answered with data; plain posts with a redirect back to the page
// (post/redirect/get), or with the page and its messages when something was refused.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider, redirect } from "react-router";
import { newRewardUserSchema } from "../../../core/rewards.ts";
import { services } from "../../context.ts";
import type { ApiResult } from "../../lib/api.server.ts";
import { replyFailure } from "../../lib/forms.server.ts";
import { redirectWithToast, type ToastInput } from "../../lib/toast.server.ts";
import { readUploadPost } from "../../lib/uploads.server.ts";
import { type PortalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { fetcherReply, pageOf, readPostedRewardFile } from "./reward-draft.server.ts";
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
  type SingleAddReply,
  singleAddedToast,
  VIA_FETCHER,
} from "./reward-draft.ts";
import { isRewardCsvRow, type RewardCsvRow } from "./reward-draft-csv.ts";
import type { AmountReply, AmountsReply } from "./reward-draft-table.tsx";

type Context = Readonly<RouterContextProvider>;

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
  viaFetcher: boolean;
  /** The page the post came from. */
  back: string;
}

function idOf(value: FormDataEntryValue | null): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** All the messages of an API refusal (a bulk upload lists one per row). */
function messagesOf(failure: Extract<ApiResult<unknown>, { ok: false }>): string[] {
  const listed = Object.values(failure.errors ?? {}).flat();
  return listed.length > 0 ? [...new Set(listed)] : [failure.detail];
}

/** Search result → the draft (amount 0). */
async function addFromSearch({ context, user, form, viaFetcher }: DraftPost) {
  const userId = idOf(form.get("userId"));
  const result = userId ? await user.api.addRewardRecipient(userId) : null;
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
  const userId = idOf(form.get("userId"));
  const value = String(form.get("value") ?? "");
  if (!userId) return data<AmountReply>({ ok: false, userId: 0, message: "Team member not found." }, 400);
  const result = await user.api.updateReward(userId, value);
  if (!result.ok) return data<AmountReply>({ ok: false, userId, message: result.detail }, result.status);
  return data<AmountReply>({ ok: true, userId, dollars: result.data.reward ?? 0 });
}

/** Without JavaScript: every amount of the page; only changed ones are sent. */
async function saveAmounts({ user, form, back }: DraftPost) {
  const ids = form.getAll("userId").map(idOf);
  const previous = form.getAll("previous").map(String);
  const values = form.getAll("value").map(String);
  const reply: AmountsReply = { values: {}, errors: {} };
  for (const [index, userId] of ids.entries()) {
    const value = values[index] ?? "";
    if (!userId || value.trim() === previous[index]) continue;
    const result = await user.api.updateReward(userId, value);
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

/** Apply to All: one amount for every recipient. */
async function applyAll({ user, form, viaFetcher, back }: DraftPost) {
  const value = String(form.get("value") ?? "");
  const result = await user.api.updateAllReward(value);
  const reply: ApplyAllReply = result.ok ? { ok: true } : { ok: false, value, message: result.detail };
  if (viaFetcher) return data(reply, result.ok ? 200 : result.status);
  if (!result.ok) return data<ActionReply>({ intent: INTENTS.applyAll, reply }, result.status);
  return redirect(back);
}

/** One recipient out of the draft. */
async function removeRecipient({ user, form, viaFetcher, back }: DraftPost) {
  const userId = idOf(form.get("userId"));
  const result = userId ? await user.api.deleteReward(userId) : null;
  if (viaFetcher) return data(result?.ok ? { ok: true } : { ok: false, message: result?.detail ?? "" });
  return redirect(back);
}

/** Remove All: the draft emptied. */
async function removeAllRecipients({ user, viaFetcher }: DraftPost) {
  await user.api.deleteAllReward();
  if (viaFetcher) return data<DoneReply>({ ok: true });
  return redirect(REWARD_MY_TEAM_PATH);
}

/** Add dialog, single form: a new team member with an amount. */
async function addSingle({ context, user, form, viaFetcher }: DraftPost) {
  const submission = parseWithZod(form, { schema: newRewardUserSchema });
  if (submission.status !== "success") {
    const reply: SingleAddReply = { ok: false, result: submission.reply({ hideFields: ["csrf"] }) };
    return viaFetcher ? data(reply, 400) : data<ActionReply>({ intent: INTENTS.addSingle, reply }, 400);
  }
  const { firstName, lastName, email } = submission.value;
  const result = await user.api.createRewardUser({ firstName, lastName, email, value: submission.value.value });
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

/** Without JavaScript: the file is checked here and its rows wait for Save. */
async function previewBulkFile({ context, user, form }: DraftPost) {
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

/** Add dialog, bulk CSV: the checked rows (or the file again) saved. */
async function saveBulkFile({ context, user, form, viaFetcher }: DraftPost) {
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
  const result = await user.api.bulkUploadReward(rows);
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

/** Without JavaScript: the waiting rows dropped. */
async function discardBulkFile({ context, user, form }: DraftPost) {
  const uploadId = String(form.get("upload") ?? "");
  if (uploadId) await services(context).pendingUploads.delete(uploadId, user.user.id);
  return redirect(`${REWARD_MY_TEAM_PATH}?dialog=${ADD_DIALOG}`);
}

const HANDLERS: Record<Intent, (post: DraftPost) => Promise<unknown>> = {
  [INTENTS.addFromSearch]: addFromSearch,
  [INTENTS.saveAmount]: saveAmount,
  [INTENTS.saveAmounts]: saveAmounts,
  [INTENTS.applyAll]: applyAll,
  [INTENTS.remove]: removeRecipient,
  [INTENTS.removeAll]: removeAllRecipients,
  [INTENTS.addSingle]: addSingle,
  [INTENTS.bulkPreview]: previewBulkFile,
  [INTENTS.bulkSave]: saveBulkFile,
  [INTENTS.bulkDiscard]: discardBulkFile,
};

function isIntent(value: string): value is Intent {
  return Object.hasOwn(HANDLERS, value);
}

/** The page's action: reads the post (any post may carry the bulk file) and runs its intent. */
export async function rewardDraftAction(context: Context, request: Request) {
  const user = requireOnboardedUser(context);
  // The body is read with the upload cap (DESIGN.md §7).
  const posted = await readUploadPost(context, request);
  if (!posted.ok) {
    const reply: BulkReply = { ok: false, errors: [posted.message] };
    return data<ActionReply>({ intent: INTENTS.bulkPreview, reply }, 413);
  }
  const form = posted.formData;
  const intent = String(form.get("intent") ?? "");
  if (!isIntent(intent)) throw data("Unknown request.", { status: 400 });
  return HANDLERS[intent]({
    context,
    user,
    form,
    viaFetcher: form.get(VIA_FETCHER.name) === VIA_FETCHER.value,
    back: pageHref(pageOf(form.get("page"))),
  });
}
