// The Add New dialog's 'Bulk Upload Team Members' pane (docs/requirements.md §S2 My Team, §S4 bulk upload, §S5 team
// CSV upload, §S8 bulk toasts), hidden under 768 px. Only .csv files, at most MAX_UPLOAD_BYTES and MAX_IMPORT_ROWS rows.
// The upload itself is the shared CsvUploadPane (app/ui/csv-upload-pane.tsx) with the team's
// reader (core/csv.ts) and intents: save-file with JavaScript; check-upload, then save-upload of
// the file the server staged, then its working view (?dialog=add&upload=<id>), without it.
import type { CsvResult } from "../../../core/csv.ts";
import { MAX_IMPORT_ROWS, MAX_UPLOAD_BYTES } from "../../../core/limits.ts";
import type { PendingCsvUpload } from "../../lib/csv-upload.ts";
import { type CsvPreviewColumn, CsvUploadPane, type CsvUploadTexts } from "../../ui/csv-upload-pane.tsx";
import {
  isUploadReply,
  PREVIEW_ROWS,
  TEAM_INTENT,
  TEAM_TEMPLATE_PATH,
  type TeamActionData,
  type TeamPreviewRow,
  type UploadPreview,
} from "./team.ts";
import { useTeamFormAction } from "./team-dialogs.tsx";

const TEXTS: CsvUploadTexts = {
  fileLabel: "CSV File",
  checking: "Checking the file…",
  fileErrorsTitle: "Please correct the file and choose it again:",
  saveErrorsTitle: "Please correct the file and choose it again:",
  check: "Check File",
  checkAnother: "Check Another File",
  expired: "This file is no longer waiting to be saved; please choose it again.",
  savingLabel: "Saving team members",
  saving: (count) => `Saving ${count} team member(s)…`,
};

const INTENTS = {
  saveFile: TEAM_INTENT.saveFile,
  check: TEAM_INTENT.checkUpload,
  saveUpload: TEAM_INTENT.saveUpload,
};

/** A column of the preview: the cell cut short, the whole value as its tooltip. */
function column(heading: string, key: keyof TeamPreviewRow, widthClassName: string): CsvPreviewColumn<TeamPreviewRow> {
  return { heading, widthClassName, cellClassName: "truncate", cell: (row) => row[key], title: (row) => row[key] };
}

const COLUMNS = [
  column("First Name", "firstName", "w-1/4"),
  column("Last Name", "lastName", "w-1/4"),
  column("Email Address", "email", "w-1/2"),
];

/** The checked rows, as the preview lists them (the details are checked, not shown). */
async function readTeamFile(text: string): Promise<CsvResult<keyof TeamPreviewRow>> {
  const csv = await import("../../../core/csv.ts");
  return csv.readTeamCsv(text);
}

function teamPreview(fileName: string, rows: TeamPreviewRow[]): UploadPreview {
  return { fileName, count: rows.length, sample: rows.slice(0, PREVIEW_ROWS) };
}

function teamSummary({ fileName, count }: UploadPreview) {
  return (
    <p role="status" className="text-sm font-medium text-emerald-900">
      {fileName}: {count} team member(s) ready to add.
    </p>
  );
}

const replyOf = (data: unknown) => (isUploadReply(data) ? { errors: data.upload.errors } : undefined);

export function TeamBulkPane({
  upload,
  actionData,
}: {
  upload: PendingCsvUpload<UploadPreview> | null;
  actionData?: TeamActionData;
}) {
  const action = useTeamFormAction();
  return (
    <section aria-labelledby="team-bulk-heading" className="hidden md:block">
      <h3 id="team-bulk-heading" className="text-lg font-bold text-slate-900">
        Bulk Upload Team Members
      </h3>
      <p className="mt-2 text-sm text-slate-700">
        Upload a CSV file with the columns First Name, Last Name and Email Address, and if you wish Birthday (e.g.
        31/12), Start Date (e.g. 31/12/2020) and State (NSW, VIC, QLD, SA, WA, TAS, NT or ACT) (
        <a
          href={TEAM_TEMPLATE_PATH}
          download
          className="font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
        >
          download the template
        </a>
        ). At most {MAX_IMPORT_ROWS.toLocaleString("en-AU")} rows and {MAX_UPLOAD_BYTES / (1024 * 1024)} MB.
      </p>
      <CsvUploadPane
        read={readTeamFile}
        preview={teamPreview}
        summary={teamSummary}
        columns={COLUMNS}
        action={action}
        intents={INTENTS}
        uploadField="uploadId"
        replyOf={replyOf}
        serverReply={actionData}
        upload={upload}
        texts={TEXTS}
      />
    </section>
  );
}
