// The actions of My Team (docs/requirements.md §S4 team management, §S5 team member and bulk CSV rules, §S8 team
// messages), one named function per form `intent`. Each answers a redirect back to the list with a
// toast (post/redirect/get), or the form's errors.
import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider, redirect } from "react-router";
import * as z from "zod/mini";
import { LIMITS } from "../../../core/limits.ts";
import {
  birthdayCheck,
  type TeamMemberInput,
  teamMemberFields,
  teamMemberIdField,
  teamMemberSchema,
} from "../../../modules/team/schema.ts";
import { services } from "../../context.ts";
import type { ApiResult } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
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

/**
 * How long a post waits for the import worker before answering with the working view instead:
 * with JavaScript the page shows the progress meanwhile (50,000 rows take a few seconds); without
 * it a small file goes straight to its result.
 */
const JS_SAVE_WAIT_MS = 60_000;
const NO_JS_SAVE_WAIT_MS = 2_000;

export const UPLOAD_EXPIRED_MESSAGE = "This file is no longer waiting to be saved; please choose it again.";

const updateSchema = z.extend(teamMemberFields, { id: teamMemberIdField }).check(birthdayCheck);

/** The dialog always shows every detail: one left blank is cleared (the API keeps a detail it is not sent). */
function withClearedDetails<T extends MemberDetailsInput>(member: T) {
  return {
    ...member,
    birthDay: member.birthDay ?? null,
    birthMonth: member.birthMonth ?? null,
    startDate: member.startDate ?? null,
    state: member.state ?? null,
  };
}
type MemberDetailsInput = Pick<TeamMemberInput, "birthDay" | "birthMonth" | "startDate" | "state">;
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
  /** The posted CSV file as the API's import took it, or null without one. */
  file: ImportStarted | null;
  /** The page's address (search, page and dialog in its query). */
  url: URL;
  /** The list the post came from. */
  back: string;
}

function uploadFailure(errors: string[], fileName?: string, status = 400) {
  return data<UploadReply>({ upload: { errors, fileName } }, { status });
}

/** docs/requirements.md §S8: update failures only re-enable the button; the API's known refusals are also said. */
function updateFailure(submission: Submission<unknown>, failure: Extract<ApiResult<unknown>, { ok: false }>) {
  return replyFailure(submission, failure, { shown: inApiWords("email-in-company", "member-not-found") });
}

/** A finished import (done or failed), seen: dropped, and answered as SPEC's toast or the file's messages. */
export async function finishTeamImport(context: Context, user: PortalUser, job: ImportJob, back: string) {
  await user.api.call((api) => api.Imports[":id"].$delete({ param: { id: job.id } }));
  if (job.status !== "done" || !job.result) {
    return uploadFailure(job.errors ?? [GENERIC_FORM_ERROR], job.fileName, 400);
  }
  const { successfullyAdded = 0, duplicates = 0 } = job.result;
  return redirectWithToast(context, back, {
    type: "success",
    title: successfullyAddedMessage(successfullyAdded),
    description: duplicates > 0 ? duplicatesMessage(duplicates) : undefined,
  });
}

/** The import's own view (no JavaScript): its preview, the working view while it is applied, or its result. */
function importHref(url: URL, id: string) {
  const next = new URLSearchParams(new URL(dialogHref(url.search, "add"), url).search);
  next.set("upload", id);
  return `${MY_TEAM_PATH}?${next}`;
}

/** A queued import: its result when the worker finishes within `waitMs`, else the working view. */
async function settleQueued(post: TeamPost, id: string, waitMs: number) {
  const job = await awaitImport(post.user.api, id, waitMs);
  if (job) return finishTeamImport(post.context, post.user, job, post.back);
  throw redirect(importHref(post.url, id));
}

/** Add dialog, single form: a new team member. */
async function createUser({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: teamMemberSchema });
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await user.api.call((api) => api.Users["create-user"].$post({ json: submission.value }));
  // docs/requirements.md §S8: the server's detail in red above the form.
  if (!result.ok) return replyFailure(submission, result, { shown: "any" });
  return redirectWithToast(context, back, {
    type: "success",
    title: `${submission.value.firstName} successfully added`,
  });
}

/** Edit dialog: a member's names and email. */
async function updateUser({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: updateSchema });
  if (submission.status !== "success") return replyInvalid(submission);
  const { id, ...member } = submission.value;
  const result = await user.api.call((api) =>
    api.Users[":id"].$put({ param: { id: String(id) }, json: { id, ...withClearedDetails(member) } }),
  );
  if (!result.ok) return updateFailure(submission, result);
  return redirectWithToast(context, back, { type: "success", title: `${member.firstName} successfully updated` });
}

/** Remove dialog: the member leaves the team (their unspent balance is forfeited by the API). */
async function deleteUser({ context, user, formData, back }: TeamPost) {
  const submission = parseWithZod(formData, { schema: removeSchema });
  if (submission.status !== "success") {
    return redirectWithToast(context, back, { type: "destructive", title: REMOVE_FAILED_MESSAGE });
  }
  const result = await user.api.call((api) => api.Users[":id"].$delete({ param: { id: String(submission.value.id) } }));
  if (!result.ok) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "team member removal failed");
    // 409: on a paid order not yet sent; the API's words say which order and what to do.
    const title = result.status === 409 && result.detail ? result.detail : REMOVE_FAILED_MESSAGE;
    return redirectWithToast(context, back, { type: "destructive", title });
  }
  const name = submission.value.firstName || "Team member";
  return redirectWithToast(context, back, { type: "success", title: `${name} successfully removed` });
}

/**
 * A posted CSV file, read as it arrives by the API's import (the same reader as in the browser).
 * With JavaScript (save-file) it is queued at once and the post answers once it is applied
 * (the browser shows the job's progress meanwhile); without it (check-upload) its rows wait,
 * staged, for Save and the dialog shows them.
 */
async function checkOrSaveFile(post: TeamPost, save: boolean) {
  const { file } = post;
  if (!file) return uploadFailure([NO_FILE_MESSAGE]);
  if (!file.ok) return uploadFailure(file.errors, undefined, file.status);
  if (save) return settleQueued(post, file.job.id, JS_SAVE_WAIT_MS);
  throw redirect(importHref(post.url, file.job.id));
}

/** Without JavaScript: Save of the file that check-upload staged. */
async function saveUpload(post: TeamPost) {
  const submission = parseWithZod(post.formData, { schema: saveUploadSchema });
  if (submission.status !== "success") return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 400);
  const { uploadId } = submission.value;
  const queued = await post.user.api.call((api) => api.Imports[":id"].start.$post({ param: { id: uploadId } }));
  if (!queued.ok) return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 410);
  return settleQueued(post, uploadId, NO_JS_SAVE_WAIT_MS);
}

/** The page's action: reads the post (a CSV file goes to the API as it arrives) and runs its intent. */
export async function teamAction(context: Context, request: Request) {
  const user = requireOnboardedUser(context);
  const url = new URL(request.url);
  const form = await readPostedForm(context, request, {
    onFile: (posted, fields) => {
      const intent = fields.get("intent");
      const save = intent === TEAM_INTENT.saveFile;
      if (!save && intent !== TEAM_INTENT.checkUpload) return Promise.resolve(null);
      return importCsvFile(user.api, posted, {
        kind: "team",
        queue: save,
        id: save ? postedImportId(fields.get(IMPORT_ID_FIELD)) : undefined,
        expectedRows: postedRowCount(fields.get(EXPECTED_ROWS_FIELD)),
      });
    },
  });
  const post: TeamPost = {
    context,
    user,
    formData: form.formData,
    file: form.file,
    url,
    back: listHref(url.search),
  };
  switch (form.intent as TeamIntent) {
    case TEAM_INTENT.createUser:
      return createUser(post);
    case TEAM_INTENT.updateUser:
      return updateUser(post);
    case TEAM_INTENT.deleteUser:
      return deleteUser(post);
    case TEAM_INTENT.checkUpload:
      return checkOrSaveFile(post, false);
    case TEAM_INTENT.saveFile:
      return checkOrSaveFile(post, true);
    case TEAM_INTENT.saveUpload:
      return saveUpload(post);
    default:
      return unknownIntent();
  }
}
