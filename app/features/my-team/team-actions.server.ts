// The actions of My Team (SPEC §4 team management, §5 team member and bulk CSV rules, §8 team
// messages), one named function per form `intent`. Each answers a redirect back to the list with a
// toast (post/redirect/get), or the form's errors.
import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider, redirect } from "react-router";
import * as z from "zod/mini";
import { readTeamCsv, type TeamCsvRow } from "../../../core/csv.ts";
import { LIMITS } from "../../../core/limits.ts";
import { TEAM_DETAILS, teamMemberIdField, teamMemberSchema } from "../../../core/team.ts";
import { services } from "../../context.ts";
import type { ApiResult } from "../../lib/api.server.ts";
import { replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { readCsvFile, readUploadPost } from "../../lib/uploads.server.ts";
import { type PortalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import {
  dialogHref,
  duplicatesMessage,
  listHref,
  MY_TEAM_PATH,
  REMOVE_FAILED_MESSAGE,
  successfullyAddedMessage,
  TEAM_INTENT,
  type UploadReply,
} from "./team.ts";

type Context = Readonly<RouterContextProvider>;
type TeamIntent = (typeof TEAM_INTENT)[keyof typeof TEAM_INTENT];

const UPLOAD_EXPIRED_MESSAGE = "This file is no longer waiting to be saved; please choose it again.";

const updateSchema = z.extend(teamMemberSchema, { id: teamMemberIdField });
const removeSchema = z.object({
  id: teamMemberIdField,
  firstName: z._default(z.optional(z.string().check(z.trim(), z.maxLength(LIMITS.name))), ""),
});
const saveUploadSchema = z.object({ uploadId: z.string().check(z.minLength(1), z.maxLength(64)) });

/** One post of the page, read. */
interface TeamPost {
  context: Context;
  user: PortalUser;
  formData: FormData;
  /** The page's address (search, page and dialog in its query). */
  url: URL;
  /** The list the post came from. */
  back: string;
}

function uploadFailure(errors: string[], fileName?: string, status = 400) {
  return data<UploadReply>({ upload: { errors, fileName } }, { status });
}

/** SPEC §8: update failures only re-enable the button; the API's known refusals are also said. */
function updateFailure(submission: Submission<unknown>, failure: Extract<ApiResult<unknown>, { ok: false }>) {
  return replyFailure(submission, failure, { shownDetails: [TEAM_DETAILS.emailInCompany, TEAM_DETAILS.notFound] });
}

/** Sends the checked rows; a success goes back to the list with SPEC's counts (one toast, both texts). */
async function saveRows(post: TeamPost, rows: TeamCsvRow[], fileName: string, onSaved?: () => Promise<void>) {
  const users = rows.map(({ firstName, lastName, email }) => ({ firstName, lastName, email }));
  const result = await post.user.api.bulkCreateTeamMembers(users);
  if (!result.ok) {
    services(post.context).logger.error(
      { status: result.status, detail: result.detail, rows: users.length },
      "team bulk upload failed",
    );
    return uploadFailure([result.status < 500 ? result.detail : GENERIC_FORM_ERROR], fileName, result.status);
  }
  await onSaved?.();
  const { successfullyAdded, duplicates } = result.data;
  return redirectWithToast(post.context, post.back, {
    type: "success",
    title: successfullyAddedMessage(successfullyAdded),
    description: duplicates > 0 ? duplicatesMessage(duplicates) : undefined,
  });
}

/** Add dialog, single form: a new team member. */
async function addMember({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: teamMemberSchema });
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await user.api.createTeamMember(submission.value);
  // SPEC §8: the server's detail in red above the form.
  if (!result.ok) return replyFailure(submission, result, { shownDetails: [result.detail] });
  return redirectWithToast(context, back, {
    type: "success",
    title: `${submission.value.firstName} successfully added`,
  });
}

/** Edit dialog: a member's names and email. */
async function updateMember({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: updateSchema });
  if (submission.status !== "success") return replyInvalid(submission);
  const { id, ...member } = submission.value;
  const result = await user.api.updateTeamMember(id, member);
  if (!result.ok) return updateFailure(submission, result);
  return redirectWithToast(context, back, { type: "success", title: `${member.firstName} successfully updated` });
}

/** Remove dialog: the member leaves the team (their unspent balance is forfeited by the API). */
async function removeMember({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: removeSchema });
  if (submission.status !== "success") {
    return redirectWithToast(context, back, { type: "destructive", title: REMOVE_FAILED_MESSAGE });
  }
  const result = await user.api.removeTeamMember(submission.value.id);
  if (!result.ok) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "team member removal failed");
    return redirectWithToast(context, back, { type: "destructive", title: REMOVE_FAILED_MESSAGE });
  }
  const name = submission.value.firstName || "Team member";
  return redirectWithToast(context, back, { type: "success", title: `${name} successfully removed` });
}

/**
 * A posted CSV file, checked with the same reader as in the browser. With JavaScript (save-file)
 * it is saved at once; without it (check-upload) its rows wait for Save and the dialog shows them.
 */
async function checkOrSaveFile(post: TeamPost, save: boolean) {
  const { context, user, formData, url } = post;
  const file = await readCsvFile(formData);
  if (!file.ok) return uploadFailure([file.message]);
  const parsed = readTeamCsv(file.text);
  if (!parsed.ok) return uploadFailure(parsed.errors, file.fileName);
  if (save) return saveRows(post, parsed.rows, file.fileName);
  const id = await services(context).pendingUploads.save({
    userId: user.user.id,
    kind: "team",
    fileName: file.fileName,
    rows: parsed.rows,
  });
  const next = new URLSearchParams(new URL(dialogHref(url.search, "add"), url).search);
  next.set("upload", id);
  throw redirect(`${MY_TEAM_PATH}?${next}`);
}

/** Without JavaScript: Save of the rows that check-upload kept. */
async function saveUpload(post: TeamPost) {
  const submission = parseWithZod(post.formData, { schema: saveUploadSchema });
  if (submission.status !== "success") return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 400);
  const { uploadId } = submission.value;
  const { pendingUploads } = services(post.context);
  const pending = await pendingUploads.read(uploadId, post.user.user.id, "team");
  if (!pending) return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 410);
  return saveRows(post, pending.rows as TeamCsvRow[], pending.fileName, () =>
    pendingUploads.delete(uploadId, post.user.user.id),
  );
}

const HANDLERS: Record<TeamIntent, (post: TeamPost) => Promise<unknown>> = {
  [TEAM_INTENT.add]: addMember,
  [TEAM_INTENT.update]: updateMember,
  [TEAM_INTENT.remove]: removeMember,
  [TEAM_INTENT.checkUpload]: (post) => checkOrSaveFile(post, false),
  [TEAM_INTENT.saveFile]: (post) => checkOrSaveFile(post, true),
  [TEAM_INTENT.saveUpload]: saveUpload,
};

function isTeamIntent(value: unknown): value is TeamIntent {
  return typeof value === "string" && Object.hasOwn(HANDLERS, value);
}

/** The page's action: reads the post (any post may carry a CSV file) and runs its intent. */
export async function teamAction(context: Context, request: Request) {
  const user = requireOnboardedUser(context);
  const url = new URL(request.url);
  const post = await readUploadPost(context, request);
  if (!post.ok) return uploadFailure([post.message]);
  const intent = post.formData.get("intent");
  if (!isTeamIntent(intent)) throw data("Unknown action.", { status: 400 });
  return HANDLERS[intent]({ context, user, formData: post.formData, url, back: listHref(url.search) });
}
