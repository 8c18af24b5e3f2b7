// The bulk CSV upload of My Team and Reward My Team (SPEC §4 bulk upload, §5 team CSV upload and
// reward bulk CSV): one pane, configured by each feature with its reader, preview, post target,
// intents and texts. Only .csv files, at most MAX_UPLOAD_BYTES.
// - With JavaScript the chosen file is read and checked in the browser by the feature's reader
//   (core/csv.ts underneath, loaded only then): its problems are listed, or a preview with Save;
//   Save posts the file itself, which the server reads again with the same reader, with a
//   progress bar while it goes.
// - Without JavaScript the file is posted (the check intent) and checked on the server with the
//   same reader: the same problems, or the page again with the pending upload's id, whose
//   preview's Save sends the rows the server kept.
// A refused save lists the server's messages instead of the preview: the file is chosen again.
import { type ChangeEvent, type ReactNode, type Ref, useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { useHydrated } from "../lib/use-hydrated.ts";
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

/** A pending upload (no JavaScript): its preview, or gone. */
export type PendingCsvUpload<P> = (P & { id: string }) | { id: string; expired: true };

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
const secondaryButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-6 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

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
  const errors = reply && "errors" in reply ? reply.errors : [];
  const ready = upload && !("expired" in upload) ? upload : null;
  const showPreview = ready !== null && errors.length === 0;
  return (
    <div className="mt-4 space-y-4">
      <UploadErrors id={errorsId} title={ready ? texts.saveErrorsTitle : texts.fileErrorsTitle} errors={errors} />
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
                <button type="submit" className={secondaryButtonClass}>
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
          <button type="submit" className={secondaryButtonClass}>
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
    if (mine === choice.current) setChecked(next);
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
            <div role="status" className="space-y-1">
              <progress className="h-2 w-full accent-brand-700" aria-label={texts.savingLabel} />
              <p className="text-sm text-slate-700">{texts.saving(ready.count)}</p>
            </div>
          ) : null}
          <SubmitButton busy={saving}>Save</SubmitButton>
        </>
      ) : null}
    </fetcher.Form>
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
