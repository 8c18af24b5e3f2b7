// My Team (SPEC §2 My Team, §4 team list, §5 add/update member, team CSV upload, team search,
// §6 removal, §8 messages, §9 page size 8): the paged, searchable list of the company's team
// members and its dialogs (Add New with its bulk and individual panes, Update, Remove), each
// reachable by URL (?dialog=add | edit&member=<id> | remove&member=<id>) so the page works
// without JavaScript; with JavaScript the dialogs open in place and post through fetchers.
//
// One action, told apart by `intent` (app/lib/team.ts): add, update, remove, and the CSV
// upload's three posts. Every success redirects back to the list (search and page kept) with
// SPEC's toast; failures answer the form's errors.
import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { z } from "zod";
import { readTeamCsv, type TeamCsvRow } from "../../core/csv.ts";
import { effectiveSearch, TEAM_DETAILS, TEAM_PAGE_SIZE, type TeamPage, teamMemberSchema } from "../../core/team.ts";
import { TeamBulkPane } from "../components/team-bulk-upload.tsx";
import { TeamDialogs, useTeamDialogs } from "../components/team-dialogs.tsx";
import { TeamSearch } from "../components/team-search.tsx";
import { TeamPager, TeamTable } from "../components/team-table.tsx";
import { services } from "../context.ts";
import type { ApiResult } from "../lib/api.server.ts";
import { replyFailure, replyInvalid } from "../lib/forms.server.ts";
import { GENERIC_FORM_ERROR } from "../lib/forms.ts";
import { portalUser, requireOnboardedUser } from "../lib/portal.server.ts";
import { type PortalHandle, portalMeta } from "../lib/portal.ts";
import {
  dialogHref,
  duplicatesMessage,
  listHref,
  MY_TEAM_PATH,
  PREVIEW_ROWS,
  REMOVE_FAILED_MESSAGE,
  successfullyAddedMessage,
  TEAM_INTENT,
  TEAM_TEMPLATE_PATH,
  type UploadPreview,
  type UploadReply,
} from "../lib/team.ts";
import { redirectWithToast } from "../lib/toast.server.ts";
import { readCsvFile, readUploadPost } from "../lib/uploads.server.ts";
import type { Route } from "./+types/portal.my-team";

const TITLE = "My Team";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const MAX_SEARCH_LENGTH = 256;
const UPLOAD_EXPIRED_MESSAGE = "This file is no longer waiting to be saved; please choose it again.";

function pageNumberOf(raw: string | null): number {
  const page = Number(raw);
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

const emptyPage = (pageNumber: number): TeamPage => ({
  items: [],
  totalPages: 0,
  hasPreviousPage: false,
  hasNextPage: false,
  pageNumber,
  totalCount: 0,
});

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api, user } = portalUser(context);
  const { logger, pendingUploads } = services(context);
  const url = new URL(request.url);
  const search = (url.searchParams.get("search") ?? "").slice(0, MAX_SEARCH_LENGTH);
  const requested = pageNumberOf(url.searchParams.get("page"));
  const query = { pageSize: TEAM_PAGE_SIZE, search: effectiveSearch(search) };

  let result = await api.listTeam({ ...query, pageNumber: requested });
  // A page past the end (the last member of the last page was removed, or an old link): the last page.
  if (result.ok && result.data.items.length === 0 && result.data.totalPages > 0 && requested > result.data.totalPages) {
    result = await api.listTeam({ ...query, pageNumber: result.data.totalPages });
  }
  let page = emptyPage(requested);
  if (result.ok) {
    page = { ...result.data, pageNumber: result.data.pageNumber ?? requested };
  } else {
    // SPEC §8: fetch failures are logged; the list stays empty.
    logger.warn({ status: result.status, detail: result.detail }, "team list fetch failed");
  }

  // Without JavaScript, a checked file waits here for its Save (?dialog=add&upload=<id>).
  let upload: (UploadPreview & { id: string }) | { id: string; expired: true } | null = null;
  const uploadId = url.searchParams.get("upload")?.slice(0, 64);
  if (url.searchParams.get("dialog") === "add" && uploadId) {
    const pending = await pendingUploads.read(uploadId, user.id, "team");
    upload = pending
      ? {
          id: uploadId,
          fileName: pending.fileName,
          count: pending.rows.length,
          sample: (pending.rows as TeamCsvRow[]).slice(0, PREVIEW_ROWS),
        }
      : { id: uploadId, expired: true };
  }
  return { search, page, upload };
}

const updateSchema = teamMemberSchema.extend({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
const removeSchema = z.object({
  id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  firstName: z.string().trim().max(64).optional().default(""),
});
const saveUploadSchema = z.object({ uploadId: z.string().min(1).max(64) });

function uploadFailure(errors: string[], fileName?: string, status = 400) {
  return data<UploadReply>({ upload: { errors, fileName } }, { status });
}

export async function action({ context, request }: Route.ActionArgs) {
  const user = requireOnboardedUser(context);
  const { logger, pendingUploads } = services(context);
  const url = new URL(request.url);
  const back = listHref(url.search);

  const post = await readUploadPost(context, request);
  if (!post.ok) return uploadFailure([post.message]);
  const { formData } = post;
  const intent = formData.get("intent");

  /** Sends the checked rows; a success goes back to the list with SPEC's counts (one toast, both texts). */
  async function saveRows(rows: TeamCsvRow[], fileName: string, onSaved?: () => Promise<void>) {
    const users = rows.map(({ firstName, lastName, email }) => ({ firstName, lastName, email }));
    const result = await user.api.bulkCreateTeamMembers(users);
    if (!result.ok) {
      logger.error({ status: result.status, detail: result.detail, rows: users.length }, "team bulk upload failed");
      return uploadFailure([result.status < 500 ? result.detail : GENERIC_FORM_ERROR], fileName, result.status);
    }
    await onSaved?.();
    const { successfullyAdded, duplicates } = result.data;
    return redirectWithToast(context, back, {
      type: "success",
      title: successfullyAddedMessage(successfullyAdded),
      description: duplicates > 0 ? duplicatesMessage(duplicates) : undefined,
    });
  }

  switch (intent) {
    case TEAM_INTENT.add: {
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
    case TEAM_INTENT.update: {
      const submission = parseWithZod(formData, { schema: updateSchema });
      if (submission.status !== "success") return replyInvalid(submission);
      const { id, ...member } = submission.value;
      const result = await user.api.updateTeamMember(id, member);
      if (!result.ok) return updateFailure(submission, result);
      return redirectWithToast(context, back, {
        type: "success",
        title: `${member.firstName} successfully updated`,
      });
    }
    case TEAM_INTENT.remove: {
      const submission = parseWithZod(formData, { schema: removeSchema });
      if (submission.status !== "success") {
        return redirectWithToast(context, back, { type: "destructive", title: REMOVE_FAILED_MESSAGE });
      }
      const result = await user.api.removeTeamMember(submission.value.id);
      if (!result.ok) {
        logger.warn({ status: result.status, detail: result.detail }, "team member removal failed");
        return redirectWithToast(context, back, { type: "destructive", title: REMOVE_FAILED_MESSAGE });
      }
      const name = submission.value.firstName || "Team member";
      return redirectWithToast(context, back, { type: "success", title: `${name} successfully removed` });
    }
    case TEAM_INTENT.checkUpload:
    case TEAM_INTENT.saveFile: {
      const file = await readCsvFile(formData);
      if (!file.ok) return uploadFailure([file.message]);
      const parsed = readTeamCsv(file.text);
      if (!parsed.ok) return uploadFailure(parsed.errors, file.fileName);
      if (intent === TEAM_INTENT.saveFile) return saveRows(parsed.rows, file.fileName);
      const id = await pendingUploads.save({
        userId: user.user.id,
        kind: "team",
        fileName: file.fileName,
        rows: parsed.rows,
      });
      const next = new URLSearchParams(new URL(dialogHref(url.search, "add"), url).search);
      next.set("upload", id);
      throw redirect(`${MY_TEAM_PATH}?${next}`);
    }
    case TEAM_INTENT.saveUpload: {
      const submission = parseWithZod(formData, { schema: saveUploadSchema });
      if (submission.status !== "success") return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 400);
      const { uploadId } = submission.value;
      const pending = await pendingUploads.read(uploadId, user.user.id, "team");
      if (!pending) return uploadFailure([UPLOAD_EXPIRED_MESSAGE], undefined, 410);
      return saveRows(pending.rows as TeamCsvRow[], pending.fileName, () =>
        pendingUploads.delete(uploadId, user.user.id),
      );
    }
    default:
      throw data("Unknown action.", { status: 400 });
  }
}

/** SPEC §8: update failures only re-enable the button; the API's known refusals are also said. */
function updateFailure(submission: Submission<unknown>, failure: Extract<ApiResult<unknown>, { ok: false }>) {
  return replyFailure(submission, failure, { shownDetails: [TEAM_DETAILS.emailInCompany, TEAM_DETAILS.notFound] });
}

export default function MyTeam({ loaderData, actionData }: Route.ComponentProps) {
  const { search, page, upload } = loaderData;
  const dialogs = useTeamDialogs();

  return (
    <div className="mx-auto max-w-5xl px-4 py-8 md:px-6 md:py-12">
      <section aria-labelledby="team-heading" className="space-y-5">
        <div className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-2">
          <h2 id="team-heading" className="text-2xl font-bold text-brand-800 md:text-3xl">
            Add to or Edit Your Team
          </h2>
          <a
            href={TEAM_TEMPLATE_PATH}
            download
            className="inline-flex min-h-11 items-center gap-2 font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
          >
            <DownloadIcon />
            Download the CSV template
          </a>
        </div>
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
          <TeamSearch search={search} />
          <a
            {...dialogs.opener("add")}
            id="team-add-new"
            className="inline-flex min-h-11 shrink-0 items-center justify-center gap-2 rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
          >
            <PlusIcon />
            Add New
          </a>
        </div>
        <TeamTable items={page.items} editOpener={(member) => dialogs.opener("edit", member.id)} />
        <TeamPager search={search} page={page} />
      </section>
      <TeamDialogs
        dialogs={dialogs}
        members={page.items}
        actionData={actionData}
        bulkPane={<TeamBulkPane upload={upload} actionData={dialogs.active?.name === "add" ? actionData : undefined} />}
      />
    </div>
  );
}

function DownloadIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2">
      <path strokeLinecap="round" strokeLinejoin="round" d="M12 4v11m0 0-4-4m4 4 4-4M5 19h14" />
    </svg>
  );
}

function PlusIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2">
      <path strokeLinecap="round" d="M12 5v14M5 12h14" />
    </svg>
  );
}
