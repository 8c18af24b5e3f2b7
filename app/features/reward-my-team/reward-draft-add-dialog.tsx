// The Add dialog of Reward My Team (docs/requirements.md §S2: add and reward new people; left the bulk CSV pane,
// right the single form; §S5 reward single add and bulk CSV; §S8 toasts 'Successfully added' and
// '<first name> successfully added'). Reachable by URL (?dialog=add) so it works without
// JavaScript; both forms post to the page's action.
// - Single form (create-reward-user): First Name, Last Name, Email, Reward Amount (optional,
//   input minimum 1, empty → 0). A failure shows the server's detail in red above the form.
// - Bulk pane (bulk-upload-reward): the shared CsvUploadPane (app/ui/csv-upload-pane.tsx) with
//   the reward reader (the type, the four headings, 'Row N:' messages). With JavaScript the file
//   is checked in the browser and Save sends it (via=fetcher, a progress bar while the server
//   imports it, answered with data, then the dialog closes); without it the file is checked and
//   staged by the server's import and the dialog shows its preview with Save and 'Choose another
//   file', then a working view until the import is applied.

import { getFormProps, getInputProps } from "@conform-to/react";
import { useEffect, useId, useRef } from "react";
import { useFetcher } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { newRewardUserSchema } from "../../../modules/reward-drafts/schema.ts";
import type { PendingCsvUpload } from "../../lib/csv-upload.ts";
import { formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import {
  type CsvPreviewColumn,
  CsvUploadPane,
  type CsvUploadReply,
  type CsvUploadTexts,
} from "../../ui/csv-upload-pane.tsx";
import { UrlDialog, type UrlDialogControl } from "../../ui/dialog.tsx";
import { CsrfInput, FieldError, FormAlert, SubmitButton, TextField } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import {
  ADD_DIALOG,
  type BulkReply,
  INTENTS,
  type PendingRewardUpload,
  REWARD_MY_TEAM_PATH,
  REWARD_TEMPLATE_PATH,
  type SingleAddReply,
  UPLOAD_PREVIEW_ROWS,
  VIA_FETCHER,
} from "./reward-draft.ts";
import type { RewardCsvRow } from "./reward-draft-csv.ts";

export const ADD_DIALOG_TITLE = "Add and Reward Team Members";
const SINGLE_FORM_ID = "reward-single-form";
const DIALOG_ACTION = `${REWARD_MY_TEAM_PATH}?dialog=${ADD_DIALOG}`;

const paneHeading = "text-lg font-bold text-brand-800";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";
const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";

export interface AddDialogProps {
  control: UrlDialogControl;
  /** The action's answer to a post without JavaScript. */
  singleReply?: SingleAddReply;
  bulkReply?: BulkReply;
  /** A checked file waiting for its Save (no JavaScript). */
  upload: PendingCsvUpload<Omit<PendingRewardUpload, "id">> | null;
}

export function RewardDraftAddDialog({ control, singleReply, bulkReply, upload }: AddDialogProps) {
  return (
    <UrlDialog control={control} title={ADD_DIALOG_TITLE}>
      <div className="grid gap-8 md:grid-cols-2">
        <BulkPane reply={bulkReply} upload={upload} onDone={control.close} />
        <SingleForm reply={singleReply} onDone={control.close} />
      </div>
    </UrlDialog>
  );
}

// ─── Single form ───

const singleConstraint = formConstraint(newRewardUserSchema);

function SingleForm({ reply, onDone }: { reply?: SingleAddReply; onDone: () => void }) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<SingleAddReply>({ key: "reward-single-add" });
  const current = hydrated ? fetcher.data : reply;
  const failure = current && !current.ok ? current : undefined;
  const [form, fields] = useSchemaForm(newRewardUserSchema, {
    id: SINGLE_FORM_ID,
    lastResult: failure?.result,
    constraint: singleConstraint,
    defaultNoValidate: false,
  });

  // Added: the toast says so (flashed by the action); close the dialog and start afresh.
  const doneRef = useRef(onDone);
  doneRef.current = onDone;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) {
      form.reset();
      doneRef.current();
    }
  }, [fetcher.state, fetcher.data, form.reset]);

  const { key: valueKey, ...valueProps } = getInputProps(fields.value, { type: "number" });
  const headingId = useId();

  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className={paneHeading}>
        Add an Individual
      </h3>
      <p className="mt-1 mb-4 text-sm text-slate-700">
        Add someone to your team and to this reward in one step. Leave the amount empty to set it later.
      </p>
      <fetcher.Form
        method="post"
        action={DIALOG_ACTION}
        {...getFormProps(form)}
        aria-labelledby={headingId}
        className="space-y-4"
      >
        <CsrfInput />
        <HoneypotInputs />
        <input type="hidden" name="intent" value={INTENTS.addSingle} />
        {hydrated ? <input type="hidden" name={VIA_FETCHER.name} value={VIA_FETCHER.value} /> : null}
        <FormAlert messages={form.errors ?? []} focusKey={current} focus={!hasFieldErrors(failure?.result)} />
        <TextField field={fields.firstName} label="First Name" autoComplete="off" />
        <TextField field={fields.lastName} label="Last Name" autoComplete="off" />
        <TextField field={fields.email} label="Email" type="email" autoComplete="off" />
        <div>
          <label htmlFor={fields.value.id} className={labelClass}>
            Reward Amount
          </label>
          <input
            key={valueKey}
            {...valueProps}
            min={1}
            max={10000}
            step={1}
            inputMode="numeric"
            placeholder="Optional"
            className={controlClass}
          />
          <FieldError id={fields.value.errorId} errors={fields.value.errors} />
        </div>
        <SubmitButton busy={fetcher.state !== "idle"} className="w-full sm:w-auto">
          Add Recipient
        </SubmitButton>
      </fetcher.Form>
    </section>
  );
}

// ─── Bulk pane ───

const BULK_TEXTS: CsvUploadTexts = {
  fileLabel: "CSV file",
  checking: "Reading the file…",
  fileErrorsTitle: "Please correct the file:",
  saveErrorsTitle: "The recipients were not added:",
  check: "Check file",
  discard: "Choose another file",
  savingLabel: "Saving the recipients",
  saving: (count) => `Saving ${count.toLocaleString("en-AU")} ${count === 1 ? "recipient" : "recipients"}…`,
};

const BULK_INTENTS = {
  saveFile: INTENTS.bulkSave,
  check: INTENTS.bulkPreview,
  saveUpload: INTENTS.bulkSave,
  discard: INTENTS.bulkDiscard,
};

const BULK_COLUMNS: CsvPreviewColumn<RewardCsvRow>[] = [
  {
    heading: "Name",
    widthClassName: "w-2/3",
    cellClassName: "break-words",
    cell: (row) => (
      <>
        {row.firstName} {row.lastName}
        <span className="block break-all text-slate-600">{row.email}</span>
      </>
    ),
  },
  {
    heading: "Amount ($)",
    align: "right",
    cellClassName: "tabular-nums",
    cell: (row) => row.value.toLocaleString("en-AU"),
  },
];

type BulkPreview = Omit<PendingRewardUpload, "id">;

async function readRewardFile(text: string) {
  const csv = await import("./reward-draft-csv.ts");
  return csv.readRewardCsv(text);
}

function bulkPreview(fileName: string, rows: RewardCsvRow[]): BulkPreview {
  return {
    fileName,
    count: rows.length,
    totalRewardsCents: rows.reduce((sum, row) => sum + row.value * 100, 0),
    sample: rows.slice(0, UPLOAD_PREVIEW_ROWS),
  };
}

function bulkSummary({ fileName, count, totalRewardsCents }: BulkPreview) {
  return (
    <>
      <p className="text-sm text-slate-700">
        File: <span className="font-semibold break-all">{fileName}</span>
      </p>
      <p
        role="status"
        className="rounded-md border border-emerald-300 bg-emerald-50 px-4 py-3 text-sm text-emerald-900"
      >
        {count.toLocaleString("en-AU")} {count === 1 ? "recipient" : "recipients"} ready to add,{" "}
        {formatDollars(totalRewardsCents)} in total.
      </p>
    </>
  );
}

function bulkReplyOf(data: unknown): CsvUploadReply | undefined {
  if (typeof data !== "object" || data === null || !("ok" in data)) return undefined;
  const reply = data as BulkReply;
  return reply.ok ? { saved: true } : { errors: reply.errors };
}

function BulkPane({
  reply,
  upload,
  onDone,
}: {
  reply?: BulkReply;
  upload: PendingCsvUpload<Omit<PendingRewardUpload, "id">> | null;
  onDone: () => void;
}) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className={paneHeading}>
        Bulk Upload
      </h3>
      <p className="mt-1 text-sm text-slate-700">
        Upload a CSV file with the columns First Name, Last Name, Email Address and Reward Amount.{" "}
        <a
          href={REWARD_TEMPLATE_PATH}
          download
          className="font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
        >
          Download the CSV template
        </a>
      </p>
      <CsvUploadPane
        read={readRewardFile}
        preview={bulkPreview}
        summary={bulkSummary}
        columns={BULK_COLUMNS}
        action={DIALOG_ACTION}
        intents={BULK_INTENTS}
        uploadField="upload"
        fetcherFields={{ [VIA_FETCHER.name]: VIA_FETCHER.value }}
        replyOf={bulkReplyOf}
        serverReply={reply}
        upload={upload}
        onSaved={onDone}
        texts={BULK_TEXTS}
      />
    </section>
  );
}
