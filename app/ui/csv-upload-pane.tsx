// The bulk CSV upload of My Team and Reward My Team (docs/requirements.md §S4 bulk upload, §S5 team CSV upload and
// reward bulk CSV): one pane, configured by each feature with its reader, preview, post target,
// intents and texts. Only .csv files, at most MAX_UPLOAD_BYTES and MAX_IMPORT_ROWS rows. The
// server reads a posted file as it arrives into an import job (app/lib/uploads.server.ts, the
// API's /Imports), all or nothing.
// - With JavaScript the chosen file is read and checked in the browser by the feature's reader
//   (core/csv.ts underneath, loaded only then): its problems are listed, or a preview with Save;
//   Save posts the file itself with a job id the browser chose, and while the post runs the page
//   polls that job (the import-progress resource route) for a progress bar: rows checked of the
//   file's rows, then saving. The post answers once the rows are saved, with the toast as before.
// - Without JavaScript the file is posted (the check intent) and checked on the server with the
//   same reader: the same problems, or the page again with the staged import's id, whose
//   preview's Save queues it; the page then says it is working, looks again by itself
//   (importRefreshMeta) and shows the result when the import is done.
// A refused save lists the server's messages instead of the preview: the file is chosen again.
import { type ChangeEvent, type ReactNode, type Ref, useEffect, useId, useRef, useState } from "react";
import { Form, href, type MetaDescriptor, useFetcher, useLocation } from "react-router";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import type { ImportProgress, PendingCsvUpload } from "../lib/csv-upload.ts";
import { useHydrated } from "../lib/use-hydrated.ts";
import { outlineButtonClass } from "./buttons.ts";
import { HiddenFormInputs, SubmitButton } from "./form-fields.tsx";

/** What Save is about to send: the file's name, its row count and its first rows. */
export interface CsvPreview<Row> {
  fileName: string;
  count: number;
  sample: Row[];
}

export type CsvReadResult<Row> = { ok: true; rows: Row[] } | { ok: false; errors: string[] };

/** The action's answer to a post of the pane: the rows were saved, or why not. */
export type CsvUploadReply = { saved: true } | { errors: string[] };

/** Fields the pane posts before the file (the server reads them before the file arrives). */
export const IMPORT_ID_FIELD = "importId";
export const EXPECTED_ROWS_FIELD = "expectedRows";

/** Seconds between the working view's looks at its import (no JavaScript). */
const REFRESH_SECONDS = 2;
/** Milliseconds between the progress bar's polls (JavaScript). */
const POLL_MS = 400;

/** The route's `meta` addition: while an import is applied, the working view reloads itself. */
export function importRefreshMeta(upload: PendingCsvUpload<unknown> | null | undefined): MetaDescriptor[] {
  return upload && "working" in upload ? [{ httpEquiv: "refresh", content: String(REFRESH_SECONDS) }] : [];
}

/** The address of an import's progress (app/features/portal/portal.import-progress.ts). */
export function importProgressHref(id: string): string {
  return `${href("/portal/import-progress")}?${new URLSearchParams({ id })}`;
}

export interface CsvPreviewColumn<Row> {
  heading: string;
  cell: (row: Row) => ReactNode;
  /** The cell's tooltip, for a cell that may be cut short. */
  title?: (row: Row) => string;
  align?: "left" | "right";
  /** Width of the column (its header cell). */
  widthClassName?: string;
  cellClassName?: string;
}

export interface CsvUploadTexts {
  fileLabel: string;
  /** While the browser reads the file. */
  checking: string;
  /** Above the file's problems. */
  fileErrorsTitle: string;
  /** Above the server's messages when a save is refused. */
  saveErrorsTitle: string;
  /** The check button without JavaScript. */
  check: string;
  /** With a pending upload: the check button of a second form, for another file instead. */
  checkAnother?: string;
  /** With a pending upload: the button that drops it (needs intents.discard). */
  discard?: string;
  /** The pending upload is gone. */
  expired?: string;
  /** The progress bar's name while Save sends the file. */
  savingLabel: string;
  saving: (count: number) => string;
}

export interface CsvUploadPaneProps<Row, P extends CsvPreview<Row>> {
  /** The feature's reader (core/csv.ts with its columns), imported when a file is chosen. */
  read: (text: string) => Promise<CsvReadResult<Row>>;
  /** The preview of checked rows, as the server builds it for a pending upload. */
  preview: (fileName: string, rows: Row[]) => P;
  /** What the preview says above its table (role=status). */
  summary: (preview: P) => ReactNode;
  columns: CsvPreviewColumn<Row>[];
  /** Where every post of the pane goes. */
  action: string;
  intents: {
    /** With JavaScript: the checked file, saved at once. */
    saveFile: string;
    /** Without JavaScript: check the file and keep its rows as a pending upload. */
    check: string;
    /** Without JavaScript: save a pending upload. */
    saveUpload: string;
    /** Without JavaScript: drop a pending upload. */
    discard?: string;
  };
  /** The field carrying a pending upload's id. */
  uploadField: string;
  /** Fields of the post with JavaScript besides the form's own (e.g. asking for data, not a redirect). */
  fetcherFields?: Record<string, string>;
  /** Reads the action's answer (a fetcher's data, or the page's action data without JavaScript). */
  replyOf: (data: unknown) => CsvUploadReply | undefined;
  /** The action's answer to the last post without JavaScript. */
  serverReply?: unknown;
  /** A checked file waiting for its Save (no JavaScript). */
  upload: PendingCsvUpload<P> | null;
  /** After a save answered with data (the pane starts afresh first). */
  onSaved?: () => void;
  texts: CsvUploadTexts;
}

export function CsvUploadPane<Row, P extends CsvPreview<Row>>(props: CsvUploadPaneProps<Row, P>) {
  const hydrated = useHydrated();
  return hydrated && !props.upload ? <BrowserUpload {...props} /> : <ServerUpload {...props} />;
}

const fileInputClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white text-sm text-slate-800 file:mr-3 file:min-h-11 file:cursor-pointer file:border-0 file:bg-brand-50 file:px-4 file:font-semibold file:text-brand-800 hover:file:bg-brand-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed";

function FileField({
  id,
  errorsId,
  label,
  invalid,
  onChange,
  disabled,
  inputRef,
}: {
  id: string;
  errorsId: string;
  label: string;
  invalid: boolean;
  onChange?: (event: ChangeEvent<HTMLInputElement>) => void;
  disabled?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-semibold text-slate-800">
        {label}
      </label>
      <input
        ref={inputRef}
        id={id}
        type="file"
        name="file"
        accept=".csv,text/csv"
        required
        onChange={onChange}
        disabled={disabled}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorsId : undefined}
        className={fileInputClass}
      />
    </div>
  );
}

/** The problems of a file or of a save: heading messages, 'Row N: …', limits. Always in the page, so it is announced. */
function UploadErrors({ id, title, errors }: { id: string; title: string; errors: string[] }) {
  return (
    <div
      id={id}
      role="alert"
      className="max-h-64 overflow-y-auto rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm text-red-800 empty:hidden"
    >
      {errors.length > 0 ? (
        <>
          <p className="font-semibold">{title}</p>
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

function Preview<Row, P extends CsvPreview<Row>>({
  preview,
  summary,
  columns,
}: {
  preview: P;
  summary: (preview: P) => ReactNode;
  columns: CsvPreviewColumn<Row>[];
}) {
  const { fileName, count, sample } = preview;
  const alignClass = (column: CsvPreviewColumn<Row>) => (column.align === "right" ? "text-right" : "text-left");
  return (
    <div className="space-y-2">
      {summary(preview)}
      <div className="overflow-x-auto rounded-md border border-slate-200">
        <table className="w-full table-fixed border-collapse text-sm">
          <caption className="sr-only">
            {count > sample.length ? `The first ${sample.length} rows of ${fileName}` : `The rows of ${fileName}`}
          </caption>
          <thead className="bg-slate-100">
            <tr>
              {columns.map((column) => (
                <th
                  key={column.heading}
                  scope="col"
                  className={`px-2 py-1 font-semibold ${alignClass(column)} ${column.widthClassName ?? ""}`}
                >
                  {column.heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200">
            {sample.map((row, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of a file have no identity
              <tr key={index}>
                {columns.map((column) => (
                  <td
                    key={column.heading}
                    className={`px-2 py-1 ${alignClass(column)} ${column.cellClassName ?? ""}`}
                    title={column.title?.(row)}
                  >
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {count > sample.length ? (
        <p className="text-sm text-slate-600">…and {(count - sample.length).toLocaleString("en-AU")} more.</p>
      ) : null}
    </div>
  );
}

/** Without JavaScript: check on the server, then the preview of the kept rows with Save. */
function ServerUpload<Row, P extends CsvPreview<Row>>({
  upload,
  serverReply,
  replyOf,
  action,
  intents,
  uploadField,
  summary,
  columns,
  texts,
}: CsvUploadPaneProps<Row, P>) {
  const inputId = useId();
  const errorsId = useId();
  const reply = replyOf(serverReply);
  const location = useLocation();
  const failed = upload && "errors" in upload ? upload.errors : [];
  const errors = reply && "errors" in reply ? reply.errors : failed;
  const ready = upload && !("expired" in upload) && !("working" in upload) && !("errors" in upload) ? upload : null;
  const showPreview = ready !== null && errors.length === 0;
  if (upload && "working" in upload) {
    const { working } = upload;
    return (
      <div className="mt-4 space-y-3">
        <ImportProgressBar progress={working} label={texts.savingLabel} saving={texts.saving} />
        <p className="text-sm text-slate-700">
          This page looks again every few seconds and shows the result when it is done.{" "}
          <a
            href={`${location.pathname}${location.search}`}
            className="font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
          >
            Check again
          </a>
        </p>
      </div>
    );
  }
  return (
    <div className="mt-4 space-y-4">
      <UploadErrors
        id={errorsId}
        title={ready || failed.length > 0 ? texts.saveErrorsTitle : texts.fileErrorsTitle}
        errors={errors}
      />
      {upload && "expired" in upload && texts.expired ? (
        <p className="text-sm text-slate-700">{texts.expired}</p>
      ) : null}
      {showPreview ? (
        <div className="space-y-3">
          <Preview preview={ready} summary={summary} columns={columns} />
          <div className="flex flex-wrap gap-3">
            <Form method="post" action={action}>
              <HiddenFormInputs intent={intents.saveUpload} />
              <input type="hidden" name={uploadField} value={ready.id} />
              <SubmitButton>Save</SubmitButton>
            </Form>
            {intents.discard && texts.discard ? (
              <Form method="post" action={action}>
                <HiddenFormInputs intent={intents.discard} />
                <input type="hidden" name={uploadField} value={ready.id} />
                <button type="submit" className={outlineButtonClass}>
                  {texts.discard}
                </button>
              </Form>
            ) : null}
          </div>
        </div>
      ) : null}
      {!showPreview || texts.checkAnother ? (
        <Form method="post" encType="multipart/form-data" action={action} className="space-y-3">
          <HiddenFormInputs intent={intents.check} />
          <FileField id={inputId} errorsId={errorsId} label={texts.fileLabel} invalid={errors.length > 0} />
          <button type="submit" className={outlineButtonClass}>
            {showPreview ? texts.checkAnother : texts.check}
          </button>
        </Form>
      ) : null}
    </div>
  );
}

export type Checked<P> =
  | { phase: "idle" }
  | { phase: "reading" }
  | { phase: "errors"; errors: string[] }
  | { phase: "ready"; preview: P };

/** With JavaScript: check in the browser; Save posts the file with a progress bar. */
function BrowserUpload<Row, P extends CsvPreview<Row>>({
  read,
  preview,
  summary,
  columns,
  action,
  intents,
  fetcherFields,
  replyOf,
  onSaved,
  texts,
}: CsvUploadPaneProps<Row, P>) {
  const inputId = useId();
  const errorsId = useId();
  const fetcher = useFetcher();
  const [checked, setChecked] = useState<Checked<P>>({ phase: "idle" });
  // The server's answer about an earlier file is not shown once another file is chosen.
  const [staleReply, setStaleReply] = useState<unknown>(null);
  const choice = useRef(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const saving = fetcher.state !== "idle";
  // The job id of the next Save, chosen here so the page can follow the job while the file goes.
  const [jobId, setJobId] = useState("");
  const progress = useImportProgress(saving ? jobId : null);
  const reply = fetcher.data !== staleReply ? replyOf(fetcher.data) : undefined;
  const replyErrors = reply && "errors" in reply ? reply.errors : [];

  async function onChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0];
    const mine = ++choice.current;
    setStaleReply(fetcher.data ?? null);
    if (!file) {
      setChecked({ phase: "idle" });
      return;
    }
    setChecked({ phase: "reading" });
    const next = await checkCsvFile(file, read, preview);
    if (mine !== choice.current) return;
    setJobId(newJobId());
    setChecked(next);
  }

  // Saved, and answered with data rather than a redirect: start afresh (a closed dialog stays mounted).
  const onSavedRef = useRef(onSaved);
  onSavedRef.current = onSaved;
  const saved = fetcher.state === "idle" && reply !== undefined && "saved" in reply;
  useEffect(() => {
    if (!saved) return;
    choice.current++;
    setStaleReply(fetcher.data);
    setChecked({ phase: "idle" });
    if (inputRef.current) inputRef.current.value = "";
    onSavedRef.current?.();
  }, [saved, fetcher.data]);

  const errors = checked.phase === "errors" ? checked.errors : replyErrors;
  const ready = checked.phase === "ready" && replyErrors.length === 0 ? checked.preview : null;

  return (
    <fetcher.Form method="post" encType="multipart/form-data" action={action} className="mt-4 space-y-4">
      <HiddenFormInputs intent={intents.saveFile} />
      {Object.entries(fetcherFields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {/* Before the file: the server reads them before the file's bytes. */}
      {ready ? (
        <>
          <input type="hidden" name={IMPORT_ID_FIELD} value={jobId} />
          <input type="hidden" name={EXPECTED_ROWS_FIELD} value={ready.count} />
        </>
      ) : null}
      <FileField
        id={inputId}
        errorsId={errorsId}
        label={texts.fileLabel}
        invalid={errors.length > 0}
        onChange={(event) => void onChange(event)}
        disabled={saving}
        inputRef={inputRef}
      />
      {checked.phase === "reading" ? (
        <p role="status" className="text-sm text-slate-700">
          {texts.checking}
        </p>
      ) : null}
      <UploadErrors
        id={errorsId}
        title={checked.phase === "errors" ? texts.fileErrorsTitle : texts.saveErrorsTitle}
        errors={errors}
      />
      {ready ? (
        <>
          <Preview preview={ready} summary={summary} columns={columns} />
          {saving ? (
            <ImportProgressBar
              progress={
                progress ?? { status: "receiving", fileName: ready.fileName, processedRows: 0, totalRows: null }
              }
              label={texts.savingLabel}
              saving={texts.saving}
              count={ready.count}
            />
          ) : null}
          <SubmitButton busy={saving}>Save</SubmitButton>
        </>
      ) : null}
    </fetcher.Form>
  );
}

/** A fresh job id (the API takes 16 to 64 letters, digits, - or _). */
function newJobId(): string {
  return crypto.randomUUID();
}

/** Polls the job `id` while it is given: where it stands, or null before the server has it. */
function useImportProgress(id: string | null): ImportProgress | null {
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  useEffect(() => {
    setProgress(null);
    if (!id) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const res = await fetch(importProgressHref(id), { headers: { accept: "application/json" } });
        // 404 until the server has started the job (the file is still on its way).
        if (res.ok && !stopped) setProgress((await res.json()) as ImportProgress);
      } catch {
        // A missed poll: the next one tries again.
      }
      if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
    };
    timer = setTimeout(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);
  return progress;
}

/**
 * The progress of an import: rows checked of the file's rows while it is read (a bar with
 * value and max), then an indeterminate bar while its rows are saved in one transaction.
 */
function ImportProgressBar({
  progress,
  label,
  saving,
  count,
}: {
  progress: ImportProgress;
  label: string;
  saving: (count: number) => string;
  /** The browser's own count of the file's rows. */
  count?: number;
}) {
  const total = progress.totalRows ?? count ?? null;
  const reading = progress.status === "receiving" && total !== null && total > 0;
  const processed = Math.min(progress.processedRows, total ?? 0);
  return (
    <div role="status" className="space-y-1">
      {reading ? (
        <progress className="h-2 w-full accent-brand-700" aria-label={label} value={processed} max={total} />
      ) : (
        <progress className="h-2 w-full accent-brand-700" aria-label={label} />
      )}
      <p className="text-sm text-slate-700">
        {reading
          ? `Checked ${processed.toLocaleString("en-AU")} of ${total.toLocaleString("en-AU")} rows…`
          : saving(total ?? progress.processedRows)}
      </p>
    </div>
  );
}

/** The browser's check of a chosen file: its type, its size, then the feature's reader. */
export async function checkCsvFile<Row, P>(
  file: File,
  read: (text: string) => Promise<CsvReadResult<Row>>,
  preview: (fileName: string, rows: Row[]) => P,
): Promise<Checked<P>> {
  const csv = await import("../../core/csv.ts");
  if (!csv.isCsvFileName(file.name)) return { phase: "errors", errors: [csv.INVALID_FILE_TYPE_MESSAGE] };
  if (file.size > MAX_UPLOAD_BYTES) return { phase: "errors", errors: [csv.FILE_TOO_LARGE_MESSAGE] };
  let text: string;
  try {
    text = await file.text();
  } catch {
    return { phase: "errors", errors: [csv.unreadableMessage()] };
  }
  const result = await read(text);
  if (!result.ok) return { phase: "errors", errors: result.errors };
  return { phase: "ready", preview: preview(file.name, result.rows) };
}
