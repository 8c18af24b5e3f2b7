// The Add dialog of Reward My Team (SPEC §2: add and reward new people; left the bulk CSV pane,
// right the single form; §5 reward single add and bulk CSV; §8 toasts 'Successfully added' and
// '<first name> successfully added'). Reachable by URL (?dialog=add) so it works without
// JavaScript; both forms post to the page's action.
// - Single form (create-reward-user): First Name, Last Name, Email, Reward Amount (optional,
//   input minimum 1, empty → 0). A failure shows the server's detail in red above the form.
// - Bulk pane (bulk-upload-reward): with JavaScript the file is read in the browser (the type,
//   the four headings, 'Row N:' messages) and Save appears only without errors; Save shows its
//   progress. Without JavaScript the file is posted, checked on the server and kept there
//   (pending upload); the dialog then shows a preview with Save.
import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type ChangeEvent, useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { HoneypotInputs } from "remix-utils/honeypot/react";
import { formatDollars } from "../../../core/money.ts";
import { newRewardUserSchema } from "../../../core/rewards.ts";
import { formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { UrlDialog, type UrlDialogControl } from "../../ui/dialog.tsx";
import { CsrfInput, FieldError, FormAlert, HiddenFormInputs, SubmitButton, TextField } from "../../ui/form-fields.tsx";
import {
  ADD_DIALOG,
  type BulkReply,
  INTENTS,
  type PendingRewardUpload,
  REWARD_MY_TEAM_PATH,
  REWARD_TEMPLATE_PATH,
  type SingleAddReply,
  VIA_FETCHER,
} from "./reward-draft.ts";
import type { RewardCsvRow } from "./reward-draft-csv.ts";
import { useDraftPost } from "./reward-draft-hooks.ts";
import { secondaryButtonClass } from "./reward-draft-table.tsx";

export const ADD_DIALOG_TITLE = "Add and Reward Team Members";
const SINGLE_FORM_ID = "reward-single-form";
const DIALOG_ACTION = `${REWARD_MY_TEAM_PATH}?dialog=${ADD_DIALOG}`;

const paneHeading = "text-lg font-bold text-brand-800";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";
const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
const fileClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white text-sm text-slate-800 file:mr-3 file:min-h-11 file:border-0 file:bg-brand-50 file:px-4 file:font-semibold file:text-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

export interface AddDialogProps {
  control: UrlDialogControl;
  /** The action's answer to a post without JavaScript. */
  singleReply?: SingleAddReply;
  bulkReply?: BulkReply;
  /** A checked file waiting for its Save (no JavaScript). */
  upload: PendingRewardUpload | null;
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
  const [form, fields] = useForm({
    id: SINGLE_FORM_ID,
    lastResult: failure?.result,
    constraint: singleConstraint,
    defaultNoValidate: false,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: newRewardUserSchema }),
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

function BulkPane({
  reply,
  upload,
  onDone,
}: {
  reply?: BulkReply;
  upload: PendingRewardUpload | null;
  onDone: () => void;
}) {
  const hydrated = useHydrated();
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className={paneHeading}>
        Bulk Upload
      </h3>
      <p className="mt-1 mb-4 text-sm text-slate-700">
        Upload a CSV file with the columns First Name, Last Name, Email Address and Reward Amount.{" "}
        <a
          href={REWARD_TEMPLATE_PATH}
          download
          className="font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
        >
          Download the CSV template
        </a>
      </p>
      {hydrated ? (
        <BrowserBulk onDone={onDone} />
      ) : upload ? (
        <UploadPreview upload={upload} reply={reply} />
      ) : (
        <ServerBulk reply={reply} />
      )}
    </section>
  );
}

function Messages({ errors, title }: { errors: string[]; title?: string }) {
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm text-red-800">
      {title ? <p className="font-semibold">{title}</p> : null}
      <ul className="mt-1 max-h-48 list-none space-y-1 overflow-y-auto">
        {errors.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    </div>
  );
}

function Summary({ count, totalCents }: { count: number; totalCents: number }) {
  return (
    <p role="status" className="rounded-md border border-emerald-300 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
      {count.toLocaleString("en-AU")} {count === 1 ? "recipient" : "recipients"} ready to add,{" "}
      {formatDollars(totalCents)} in total.
    </p>
  );
}

/** With JavaScript: the file is read here; Save sends the checked rows. */
function BrowserBulk({ onDone }: { onDone: () => void }) {
  const inputId = useId();
  const fetcher = useFetcher<BulkReply>({ key: "reward-bulk-save" });
  const post = useDraftPost();
  const [state, setState] = useState<
    | { status: "idle" }
    | { status: "reading" }
    | { status: "errors"; errors: string[] }
    | { status: "ready"; rows: RewardCsvRow[]; file: File }
  >({ status: "idle" });
  const inputRef = useRef<HTMLInputElement>(null);

  async function onChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0];
    if (!file) {
      setState({ status: "idle" });
      return;
    }
    setState({ status: "reading" });
    const csv = await import("./reward-draft-csv.ts");
    if (!csv.isCsvFileName(file.name)) {
      setState({ status: "errors", errors: [csv.INVALID_FILE_TYPE_MESSAGE] });
      return;
    }
    if (file.size > csv.MAX_UPLOAD_BYTES) {
      setState({ status: "errors", errors: [csv.FILE_TOO_LARGE_MESSAGE] });
      return;
    }
    const result = csv.readRewardCsv(await file.text());
    setState(result.ok ? { status: "ready", rows: result.rows, file } : { status: "errors", errors: result.errors });
  }

  function save() {
    if (state.status !== "ready") return;
    // The file itself goes to the server, which reads it again with the same reader.
    void post(fetcher, { intent: INTENTS.bulkSave, file: state.file });
  }

  const doneRef = useRef(onDone);
  doneRef.current = onDone;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) {
      setState({ status: "idle" });
      if (inputRef.current) inputRef.current.value = "";
      doneRef.current();
    }
  }, [fetcher.state, fetcher.data]);

  const saving = fetcher.state !== "idle";
  const serverErrors = fetcher.state === "idle" && fetcher.data && !fetcher.data.ok ? fetcher.data.errors : [];

  return (
    <div className="space-y-4">
      <div>
        <label htmlFor={inputId} className={labelClass}>
          CSV file
        </label>
        <input
          ref={inputRef}
          id={inputId}
          type="file"
          accept=".csv,text/csv"
          onChange={(event) => void onChange(event)}
          disabled={saving}
          className={fileClass}
        />
      </div>
      {state.status === "reading" ? (
        <p role="status" className="text-sm text-slate-700">
          Reading the file…
        </p>
      ) : null}
      {state.status === "errors" ? <Messages errors={state.errors} title="Please correct the file:" /> : null}
      <Messages errors={serverErrors} title="The recipients were not added:" />
      {state.status === "ready" ? (
        <>
          <Summary count={state.rows.length} totalCents={state.rows.reduce((sum, row) => sum + row.value * 100, 0)} />
          {saving ? (
            <div role="status" className="space-y-1">
              <progress className="h-2 w-full accent-brand-700" aria-label="Saving the recipients" />
              <p className="text-sm text-slate-700">
                Saving {state.rows.length.toLocaleString("en-AU")}{" "}
                {state.rows.length === 1 ? "recipient" : "recipients"}…
              </p>
            </div>
          ) : null}
          <button
            type="button"
            onClick={save}
            disabled={saving}
            aria-busy={saving || undefined}
            className="inline-flex min-h-11 w-full items-center justify-center rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed disabled:bg-slate-400 disabled:text-slate-900 sm:w-auto"
          >
            {saving ? "Please wait" : "Save"}
          </button>
        </>
      ) : null}
    </div>
  );
}

/** Without JavaScript: the file goes to the server, which checks it and keeps its rows. */
function ServerBulk({ reply }: { reply?: BulkReply }) {
  const inputId = useId();
  const errors = reply && !reply.ok ? reply.errors : [];
  return (
    <Form method="post" action={DIALOG_ACTION} encType="multipart/form-data" className="space-y-4">
      <HiddenFormInputs intent={INTENTS.bulkPreview} />
      <Messages errors={errors} title="Please correct the file:" />
      <div>
        <label htmlFor={inputId} className={labelClass}>
          CSV file
        </label>
        <input id={inputId} type="file" name="file" accept=".csv,text/csv" required className={fileClass} />
      </div>
      <button type="submit" className={secondaryButtonClass}>
        Check file
      </button>
    </Form>
  );
}

/** Without JavaScript: the checked file's preview, with Save (the rows wait on the server). */
function UploadPreview({ upload, reply }: { upload: PendingRewardUpload; reply?: BulkReply }) {
  const errors = reply && !reply.ok ? reply.errors : [];
  return (
    <div className="space-y-4">
      <Messages errors={errors} title="The recipients were not added:" />
      <p className="text-sm text-slate-700">
        File: <span className="font-semibold break-all">{upload.fileName}</span>
      </p>
      <Summary count={upload.count} totalCents={upload.totalRewardsCents} />
      <div className="overflow-x-auto rounded-md border border-slate-200">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">First rows of the file</caption>
          <thead className="bg-slate-100">
            <tr>
              <th scope="col" className="px-3 py-2 font-semibold">
                Name
              </th>
              <th scope="col" className="px-3 py-2 text-right font-semibold">
                Amount ($)
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200">
            {upload.sample.map((row) => (
              <tr key={row.email}>
                <td className="px-3 py-2 break-words">
                  {row.firstName} {row.lastName}
                  <span className="block break-all text-slate-600">{row.email}</span>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{row.value.toLocaleString("en-AU")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {upload.count > upload.sample.length ? (
        <p className="text-sm text-slate-600">
          …and {(upload.count - upload.sample.length).toLocaleString("en-AU")} more.
        </p>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Form method="post" action={DIALOG_ACTION}>
          <HiddenFormInputs intent={INTENTS.bulkSave} />
          <input type="hidden" name="upload" value={upload.id} />
          <SubmitButton>Save</SubmitButton>
        </Form>
        <Form method="post" action={DIALOG_ACTION}>
          <HiddenFormInputs intent={INTENTS.bulkDiscard} />
          <input type="hidden" name="upload" value={upload.id} />
          <button type="submit" className={secondaryButtonClass}>
            Choose another file
          </button>
        </Form>
      </div>
    </div>
  );
}
