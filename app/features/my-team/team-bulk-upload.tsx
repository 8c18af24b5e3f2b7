// The Add New dialog's 'Bulk Upload Team Members' pane (SPEC §2 My Team, §4 bulk upload, §5 team
// CSV upload, §8 bulk toasts), hidden under 768 px. Only .csv files, at most 1 MB and 5,000 rows.
// - With JavaScript the chosen file is read and checked in the browser by core/csv.ts (loaded
//   only then): its problems are listed, or a preview with Save; Save posts the file
//   (intent save-file), which the server checks again and sends to the API, with a progress bar.
// - Without JavaScript the file is posted (intent check-upload) and checked on the server with
//   the same reader: the same problems, or a redirect to ?dialog=add&upload=<id>, where the
//   preview's Save (intent save-upload) sends the rows the server kept.
import { type ChangeEvent, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import type { TeamCsvRow } from "../../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../../core/limits.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { HiddenFormInputs, SubmitButton } from "../../ui/form-fields.tsx";
import {
  isUploadReply,
  PREVIEW_ROWS,
  TEAM_INTENT,
  TEAM_TEMPLATE_PATH,
  type TeamActionData,
  type UploadPreview,
} from "./team.ts";
import { useTeamFormAction } from "./team-dialogs.tsx";

type PendingUpload = (UploadPreview & { id: string }) | { id: string; expired: true } | null;

const FILE_INPUT_ID = "team-csv-file";
const ERRORS_ID = "team-csv-errors";

export function TeamBulkPane({ upload, actionData }: { upload: PendingUpload; actionData?: TeamActionData }) {
  const hydrated = useHydrated();
  const serverErrors = isUploadReply(actionData) ? actionData.upload.errors : [];
  return (
    <section aria-labelledby="team-bulk-heading" className="hidden md:block">
      <h3 id="team-bulk-heading" className="text-lg font-bold text-slate-900">
        Bulk Upload Team Members
      </h3>
      <p className="mt-2 text-sm text-slate-700">
        Upload a CSV file with the columns First Name, Last Name and Email Address (
        <a
          href={TEAM_TEMPLATE_PATH}
          download
          className="font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
        >
          download the template
        </a>
        ). At most 5,000 rows and 1 MB.
      </p>
      {hydrated && !upload ? <BrowserUpload /> : <ServerUpload upload={upload} errors={serverErrors} />}
    </section>
  );
}

const fileInputClass =
  "block w-full rounded-md border border-slate-400 bg-white text-sm text-slate-800 file:mr-3 file:min-h-11 file:cursor-pointer file:border-0 file:bg-brand-50 file:px-4 file:font-semibold file:text-brand-800 hover:file:bg-brand-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

function FileField({
  onChange,
  invalid,
}: {
  onChange?: (event: ChangeEvent<HTMLInputElement>) => void;
  invalid: boolean;
}) {
  return (
    <div>
      <label htmlFor={FILE_INPUT_ID} className="mb-1 block text-sm font-semibold text-slate-800">
        CSV File
      </label>
      <input
        id={FILE_INPUT_ID}
        type="file"
        name="file"
        accept=".csv,text/csv"
        required
        onChange={onChange}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? ERRORS_ID : undefined}
        className={fileInputClass}
      />
    </div>
  );
}

/** The problems of a file: heading messages, 'Row N: …', limits. */
function UploadErrors({ errors }: { errors: string[] }) {
  return (
    <div
      id={ERRORS_ID}
      role="alert"
      className="max-h-64 overflow-y-auto rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm text-red-800 empty:hidden"
    >
      {errors.length > 0 ? (
        <>
          <p className="font-semibold">Please correct the file and choose it again:</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5">
            {errors.map((message, index) => (
              // Messages may repeat (two rows, same problem): the position keeps them apart.
              // biome-ignore lint/suspicious/noArrayIndexKey: a static list
              <li key={index}>{message}</li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

function Preview({ preview }: { preview: UploadPreview }) {
  const { fileName, count, sample } = preview;
  return (
    <div className="space-y-2">
      <p role="status" className="text-sm font-medium text-emerald-900">
        {fileName}: {count} team member(s) ready to add.
      </p>
      <div className="overflow-x-auto rounded-md border border-slate-200">
        <table className="w-full table-fixed border-collapse text-sm">
          <caption className="sr-only">
            {count > sample.length ? `The first ${sample.length} rows of ${fileName}` : `The rows of ${fileName}`}
          </caption>
          <thead className="bg-slate-100">
            <tr>
              <th scope="col" className="w-1/4 px-2 py-1 text-left font-semibold">
                First Name
              </th>
              <th scope="col" className="w-1/4 px-2 py-1 text-left font-semibold">
                Last Name
              </th>
              <th scope="col" className="w-1/2 px-2 py-1 text-left font-semibold">
                Email Address
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200">
            {sample.map((row, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of a file have no identity
              <tr key={index}>
                <td className="truncate px-2 py-1" title={row.firstName}>
                  {row.firstName}
                </td>
                <td className="truncate px-2 py-1" title={row.lastName}>
                  {row.lastName}
                </td>
                <td className="truncate px-2 py-1" title={row.email}>
                  {row.email}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {count > sample.length ? <p className="text-sm text-slate-600">…and {count - sample.length} more.</p> : null}
    </div>
  );
}

/** Without JavaScript: check on the server, then the preview of the kept rows with Save. */
function ServerUpload({ upload, errors }: { upload: PendingUpload; errors: string[] }) {
  const action = useTeamFormAction();
  const ready = upload && !("expired" in upload) ? upload : null;
  return (
    <div className="mt-4 space-y-4">
      <UploadErrors errors={errors} />
      {upload && "expired" in upload ? (
        <p className="text-sm text-slate-700">This file is no longer waiting to be saved; please choose it again.</p>
      ) : null}
      {ready && errors.length === 0 ? (
        <Form method="post" action={action} className="space-y-3">
          <HiddenFormInputs intent={TEAM_INTENT.saveUpload} />
          <input type="hidden" name="uploadId" value={ready.id} />
          <Preview preview={ready} />
          <SubmitButton>Save</SubmitButton>
        </Form>
      ) : null}
      <Form method="post" encType="multipart/form-data" action={action} className="space-y-3">
        <HiddenFormInputs intent={TEAM_INTENT.checkUpload} />
        <FileField invalid={errors.length > 0} />
        <button
          type="submit"
          className="inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-6 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          {ready ? "Check Another File" : "Check File"}
        </button>
      </Form>
    </div>
  );
}

type Checked =
  | { phase: "idle" }
  | { phase: "reading" }
  | { phase: "errors"; errors: string[] }
  | { phase: "ready"; preview: UploadPreview };

/** With JavaScript: check in the browser; Save posts the file with a progress bar. */
function BrowserUpload() {
  const action = useTeamFormAction();
  const fetcher = useFetcher<TeamActionData>();
  const [checked, setChecked] = useState<Checked>({ phase: "idle" });
  // The server's answer about an earlier file is not shown once another file is chosen.
  const [staleReply, setStaleReply] = useState<unknown>(null);
  const choice = useRef(0);
  const saving = fetcher.state !== "idle";
  const reply = fetcher.data !== staleReply && isUploadReply(fetcher.data) ? fetcher.data.upload.errors : [];

  async function onChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0];
    const mine = ++choice.current;
    setStaleReply(fetcher.data ?? null);
    if (!file) {
      setChecked({ phase: "idle" });
      return;
    }
    setChecked({ phase: "reading" });
    const next = await checkFile(file);
    if (mine === choice.current) setChecked(next);
  }

  const errors = checked.phase === "errors" ? checked.errors : reply;
  const ready = checked.phase === "ready" && reply.length === 0 ? checked.preview : null;

  return (
    <fetcher.Form method="post" encType="multipart/form-data" action={action} className="mt-4 space-y-4">
      <HiddenFormInputs intent={TEAM_INTENT.saveFile} />
      <FileField onChange={onChange} invalid={errors.length > 0} />
      {checked.phase === "reading" ? (
        <p role="status" className="text-sm text-slate-700">
          Checking the file…
        </p>
      ) : null}
      <UploadErrors errors={errors} />
      {ready ? (
        <>
          <Preview preview={ready} />
          {saving ? (
            <div role="status" className="space-y-1">
              <progress className="h-2 w-full accent-brand-700" aria-label="Saving team members" />
              <p className="text-sm text-slate-700">Saving {ready.count} team member(s)…</p>
            </div>
          ) : null}
          <SubmitButton busy={saving}>Save</SubmitButton>
        </>
      ) : null}
    </fetcher.Form>
  );
}

async function checkFile(file: File): Promise<Checked> {
  const csv = await import("../../../core/csv.ts");
  if (!csv.isCsvFileName(file.name)) return { phase: "errors", errors: [csv.INVALID_FILE_TYPE_MESSAGE] };
  if (file.size > MAX_UPLOAD_BYTES) return { phase: "errors", errors: [csv.FILE_TOO_LARGE_MESSAGE] };
  let text: string;
  try {
    text = await file.text();
  } catch {
    return { phase: "errors", errors: [csv.unreadableMessage()] };
  }
  const result = csv.readTeamCsv(text);
  if (!result.ok) return { phase: "errors", errors: result.errors };
  const sample: TeamCsvRow[] = result.rows.slice(0, PREVIEW_ROWS);
  return { phase: "ready", preview: { fileName: file.name, count: result.rows.length, sample } };
}
