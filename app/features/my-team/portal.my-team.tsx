// My Team (docs/requirements.md §S2 My Team, §S4 team list, §S5 add/update member, team CSV upload, team search,
// §S6 removal, §S8 messages, §S9 page size 8): the paged, searchable list of the company's team
// members and its dialogs (Add New with its bulk and individual panes, Update, Remove), each
// reachable by URL (?dialog=add | edit&member=<id> | remove&member=<id>) so the page works
// without JavaScript; with JavaScript the dialogs open in place and post through fetchers.
//
// One action, told apart by `intent` (app/features/my-team/team.ts): add, update, remove, and the CSV
// upload's three posts, each a function of app/features/my-team/team-actions.server.ts.
import { effectiveSearch, TEAM_PAGE_SIZE, type TeamPage } from "../../../modules/team/schema.ts";
import { services } from "../../context.ts";
import { asQuery } from "../../lib/api.server.ts";
import type { PendingCsvUpload } from "../../lib/csv-upload.ts";
import { pageNumberOf } from "../../lib/paging.ts";
import { pendingImportView } from "../../lib/uploads.server.ts";
import { importRefreshMeta } from "../../ui/csv-upload-pane.tsx";
import { useUrlDialog } from "../../ui/dialog.tsx";
import { type PortalUser, portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.my-team";
import { listHref, PREVIEW_ROWS, TEAM_TEMPLATE_PATH, type UploadPreview } from "./team.ts";
import { finishTeamImport, teamAction } from "./team-actions.server.ts";
import { TeamBulkPane } from "./team-bulk-upload.tsx";
import { TEAM_DIALOG_OPTIONS, TeamDialogs } from "./team-dialogs.tsx";
import { TeamSearch } from "./team-search.tsx";
import { TeamPager, TeamTable } from "./team-table.tsx";

const TITLE = "My Team";
export const handle = { title: TITLE } satisfies PortalHandle;
const pageMeta = portalMeta(TITLE);
/** While an import is applied without JavaScript the page looks again by itself (importRefreshMeta). */
export const meta: Route.MetaFunction = (args) => [...pageMeta(args), ...importRefreshMeta(args.loaderData?.upload)];

const MAX_SEARCH_LENGTH = 256;

const emptyPage = (pageNumber: number): TeamPage => ({
  items: [],
  totalPages: 0,
  hasPreviousPage: false,
  hasNextPage: false,
  pageNumber,
  totalCount: 0,
});

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const { logger } = services(context);
  const url = new URL(request.url);
  const search = (url.searchParams.get("search") ?? "").slice(0, MAX_SEARCH_LENGTH);
  const requested = pageNumberOf(url.searchParams.get("page"));
  const query = { pageSize: TEAM_PAGE_SIZE, search: effectiveSearch(search) };

  let result = await client.call((api) => api.Users.$get({ query: asQuery({ ...query, pageNumber: requested }) }));
  // A page past the end (the last member of the last page was removed, or an old link): the last page.
  if (result.ok && result.data.items.length === 0 && result.data.totalPages > 0 && requested > result.data.totalPages) {
    const pageNumber = result.data.totalPages;
    result = await client.call((api) => api.Users.$get({ query: asQuery({ ...query, pageNumber }) }));
  }
  let page = emptyPage(requested);
  if (result.ok) {
    page = { ...result.data, pageNumber: result.data.pageNumber ?? requested };
  } else {
    // docs/requirements.md §S8: fetch failures are logged; the list stays empty.
    logger.warn({ status: result.status, detail: result.detail }, "team list fetch failed");
  }

  // Without JavaScript a checked file waits here for its Save, then the page follows its import
  // until it is applied (?dialog=add&upload=<id>): the job is read through the API.
  let upload: PendingCsvUpload<UploadPreview> | null = null;
  const uploadId = url.searchParams.get("upload")?.slice(0, 64);
  if (url.searchParams.get("dialog") === "add" && uploadId) {
    upload = await readTeamImport(context, portalUser(context), uploadId, listHref(url.search));
  }
  return { search, page, upload };
}

/** The pane's view of an import: its preview, the working view, or (once applied) the list with the toast. */
async function readTeamImport(context: Route.LoaderArgs["context"], user: PortalUser, id: string, back: string) {
  const read = await user.api.call((api) =>
    api.Imports[":id"].$get({ param: { id }, query: asQuery({ sample: PREVIEW_ROWS }) }),
  );
  if (!read.ok) return { id, expired: true as const };
  const job = read.data;
  if (job.status === "done") throw await finishTeamImport(context, user, job, back);
  return pendingImportView(user.api, job, (staged) => ({
    fileName: staged.fileName,
    count: staged.totalRows ?? staged.processedRows,
    sample: (staged.sample ?? []).map(({ firstName, lastName, email }) => ({ firstName, lastName, email })),
  }));
}

export function action({ context, request }: Route.ActionArgs) {
  return teamAction(context, request);
}

export default function MyTeam({ loaderData, actionData }: Route.ComponentProps) {
  const { search, page, upload } = loaderData;
  const dialogs = {
    add: useUrlDialog("add", TEAM_DIALOG_OPTIONS),
    edit: useUrlDialog("edit", TEAM_DIALOG_OPTIONS),
    remove: useUrlDialog("remove", TEAM_DIALOG_OPTIONS),
  };

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
          <TeamSearch search={search} dialogOpen={dialogs.add.open || dialogs.edit.open || dialogs.remove.open} />
          <a
            {...dialogs.add.linkProps}
            id="team-add-new"
            className="inline-flex min-h-11 shrink-0 items-center justify-center gap-2 rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
          >
            <PlusIcon />
            Add New
          </a>
        </div>
        <TeamTable items={page.items} editOpener={(member) => dialogs.edit.openerFor(member.id)} />
        <TeamPager search={search} page={page} />
      </section>
      <TeamDialogs
        dialogs={dialogs}
        members={page.items}
        actionData={actionData}
        bulkPane={<TeamBulkPane upload={upload} actionData={dialogs.add.open ? actionData : undefined} />}
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
