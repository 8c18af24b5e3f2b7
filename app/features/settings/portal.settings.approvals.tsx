// Settings › Approvals (ADR 0022 §6): an Owner's approval threshold in whole dollars. A Manager's
// order whose total is at or above it waits for an Owner's approval before it can be paid; blank
// means no approval step. The API is the judge (PUT /api/Approvals/threshold): a negative or
// fractional amount is refused with its message next to the field and nothing changes.

import { getFormProps, getInputProps } from "@conform-to/react";
import { data, Form, href, useRouteLoaderData } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { approvalThresholdFormSchema } from "../../../modules/approvals/schema.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import type { FormReply } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.approvals";
import { SETTINGS_LAYOUT_ID, type SettingsLayoutData } from "./portal.settings.tsx";

const TITLE = "Approvals";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const ACTION = href("/portal/settings/approvals");
/** The threshold's refusals (the request's schema) and who may set it. */
const SHOWN = inApiWords("invalid-request", "owner-only");

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const threshold = await client.call((api) => api.Approvals.threshold.$get());
  if (threshold.ok) return { ownerOnly: false, thresholdDollars: threshold.data.thresholdDollars };
  // A Manager sees the page's own message; anything else is an error page.
  if (threshold.status === 403) return { ownerOnly: true, thresholdDollars: null };
  throw data(threshold.detail, { status: threshold.status });
}

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(approvalThresholdFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const cents = submission.value.thresholdDollars;
  const saved = await client.call((api) =>
    api.Approvals.threshold.$put({ json: { thresholdDollars: cents === null ? null : cents / 100 } }),
  );
  if (!saved.ok) return replyFailure(submission, saved, { shown: SHOWN });
  return redirectWithToast(context, ACTION, {
    type: "success",
    title:
      saved.data.thresholdCents === null
        ? "No approval step: managers pay for rewards directly"
        : `Approval threshold saved: ${formatDollars(saved.data.thresholdCents)}`,
  });
}

export default function ApprovalSettings({ loaderData, actionData }: Route.ComponentProps) {
  const layout = useRouteLoaderData<SettingsLayoutData>(SETTINGS_LAYOUT_ID);
  if (loaderData.ownerOnly || layout?.managerRole === "manager") {
    return <p className="text-slate-800">Only an Owner of your company can change the approval threshold.</p>;
  }
  return <ThresholdForm thresholdDollars={loaderData.thresholdDollars} reply={actionData} />;
}

function ThresholdForm({ thresholdDollars, reply }: { thresholdDollars: number | null; reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(ACTION);
  const [form, fields] = useSchemaForm(approvalThresholdFormSchema, {
    id: "approval-threshold",
    lastResult: reply?.result,
    defaultValue: { thresholdDollars: thresholdDollars === null ? "" : String(thresholdDollars) },
    onSubmit,
  });
  const field = fields.thresholdDollars;
  const { key, ...inputProps } = getInputProps(field, { type: "text" });
  const hintId = `${field.id}-hint`;
  return (
    <section
      aria-labelledby="approval-threshold-heading"
      className="max-w-3xl rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
    >
      <h2 id="approval-threshold-heading" className="text-xl font-semibold text-slate-900">
        Approval threshold
      </h2>
      <p className="mt-2 text-slate-700">
        A Manager's reward whose total cost is at or above this amount is paid only after an Owner approves it. Owners'
        own rewards never need approval.
      </p>
      <p className="mt-2 font-semibold text-slate-900" data-testid="approval-threshold-status">
        {thresholdDollars === null
          ? "No approval step is set."
          : `Now: rewards of ${formatDollars(thresholdDollars * 100)} or more need approval.`}
      </p>
      <Form method="post" action={ACTION} {...getFormProps(form)} className="mt-4 space-y-4">
        <HiddenFormInputs intent="save-threshold" />
        <FormAlert messages={form.errors ?? []} focusKey={reply} />
        <div className="max-w-xs">
          <label htmlFor={field.id} className="mb-1 block text-sm font-semibold text-slate-800">
            Threshold in whole dollars
          </label>
          <div className="flex items-center gap-2">
            <span aria-hidden="true" className="text-lg text-slate-700">
              $
            </span>
            <input
              key={key}
              {...inputProps}
              inputMode="numeric"
              autoComplete="off"
              aria-describedby={[inputProps["aria-describedby"], hintId].filter(Boolean).join(" ")}
              className="block min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700"
            />
          </div>
          <p id={hintId} className="mt-1 text-sm text-slate-600">
            For example 5000. Leave it blank for no approval step.
          </p>
          <FieldError id={field.errorId} errors={field.errors} />
        </div>
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Save threshold
        </SubmitButton>
      </Form>
    </section>
  );
}
