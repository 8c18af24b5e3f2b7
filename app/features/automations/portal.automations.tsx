// Automations (ADR 0035), an Owner's page: birthday and work-anniversary rewards that send
// themselves at 9:00 in each member's own time zone. Lists the automations (on, off, or paused by
// a short balance), creates one or edits one (`?edit=ID`, so it works without JavaScript), turns
// one on or off, sets the monthly automation budget, and previews who will be rewarded in the next
// 30 days: when (their local time and Sydney's) and the total. Plain forms posting to this action,
// told apart by `intent` (modules/automations/schema.ts automationsFormSchema, one switch). The API is the
// judge (modules/automations/api.server.ts): a Manager gets 403, so this page shows them the Owner-only
// message.

import { getFormProps, getSelectProps } from "@conform-to/react";
import { Form, href, Link, useLocation } from "react-router";
import { PORTAL_TIME_ZONE } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  AUTOMATION_OCCASIONS,
  type AutomationsAnswer,
  type AutomationView,
  automationAmountLabel,
  automationsFormSchema,
  OCCASION_LABELS,
  PREVIEW_DAYS,
} from "../../../modules/automations/schema.ts";
import { formatZonedTime } from "../../../modules/scheduled-sends/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import {
  CheckboxField,
  FieldError,
  FormAlert,
  HiddenFormInputs,
  SubmitButton,
  TextAreaField,
  TextField,
  useFormSubmit,
} from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import { card, controlClass, secondaryButton, sectionHeading } from "../settings/settings-styles.ts";
import type { Route } from "./+types/portal.automations";

const TITLE = "Automations";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/automations");
/** Who may change automations, the automation's fields (the request's schema), and not found. */
const SHOWN = inApiWords("owner-only", "invalid-request", "automation-not-found");

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const result = await client.call((api) => api.Automations.$get());
  const edit = Number(new URL(request.url).searchParams.get("edit") ?? "");
  if (result.ok) return { ownerOnly: false as const, answer: result.data as AutomationsAnswer, editId: edit || null };
  if (result.status !== 403) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "automations fetch failed");
  }
  return { ownerOnly: result.status === 403, answer: null, editId: null };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(automationsFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const value = submission.value;
  switch (value.intent) {
    case "create-automation": {
      const { intent: _, ...json } = value;
      const result = await client.call((api) => api.Automations["create-automation"].$post({ json }));
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: `Automation saved: ${value.rewardName}` });
    }
    case "update-automation": {
      const { intent: _, automationId, ...json } = value;
      const result = await client.call((api) =>
        api.Automations[":automationId"]["update-automation"].$put({
          param: { automationId: String(automationId) },
          json,
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: `Automation saved: ${value.rewardName}` });
    }
    case "set-automation-enabled": {
      const result = await client.call((api) =>
        api.Automations[":automationId"]["set-automation-enabled"].$put({
          param: { automationId: String(value.automationId) },
          json: { enabled: value.enabled },
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, {
        type: "success",
        title: value.enabled ? "Automation turned on" : "Automation turned off",
      });
    }
    case "update-automation-budget": {
      const budget = value.budget === null ? null : value.budget / 100;
      const result = await client.call((api) => api.Automations["update-automation-budget"].$put({ json: { budget } }));
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, {
        type: "success",
        title:
          value.budget === null ? "No automation budget" : `Automation budget saved: ${formatDollars(value.budget)}`,
      });
    }
    default:
      return unknownIntent();
  }
}

export default function Automations({ loaderData, actionData }: Route.ComponentProps) {
  const location = useLocation();
  if (loaderData.ownerOnly || !loaderData.answer) {
    return (
      <div className={`${card} mx-4 my-8 max-w-3xl md:mx-auto`} role="status">
        <h2 className={sectionHeading}>
          {loaderData.ownerOnly ? "Only an Owner can manage automations" : "Automations are unavailable"}
        </h2>
        <p className="mt-2 text-slate-700">{loaderData.ownerOnly ? DETAILS.ownerOnly : GENERIC_FORM_ERROR}</p>
      </div>
    );
  }
  const { answer, editId } = loaderData;
  const reply = actionData as FormReply | undefined;
  const intentOf = (reply?.result?.initialValue as { intent?: string } | undefined)?.intent;
  const editing = answer.automations.find((a) => a.automationId === editId) ?? null;
  return (
    <div className="mx-auto max-w-5xl space-y-8 px-4 py-8 md:px-6 md:py-12">
      {reply && intentOf === "set-automation-enabled" ? (
        <FormAlert messages={reply.result?.error?.[""] ?? [GENERIC_FORM_ERROR]} focusKey={reply} focus />
      ) : null}
      <AutomationList automations={answer.automations} />
      <AutomationForm
        // A new form after each saved post (the redirect is a new location), the edited one's own.
        key={editing ? `edit-${editing.automationId}` : `new-${location.key}`}
        editing={editing}
        reply={intentOf === "create-automation" || intentOf === "update-automation" ? reply : undefined}
      />
      <Preview answer={answer} />
      <Skipped answer={answer} />
      <BudgetForm answer={answer} reply={intentOf === "update-automation-budget" ? reply : undefined} />
    </div>
  );
}

function stateLabel(a: AutomationView): string {
  if (!a.enabled) return "Off";
  return a.pausedAt ? "Paused: the balance was too low" : "On";
}

function AutomationList({ automations }: { automations: AutomationView[] }) {
  return (
    <section aria-labelledby="automations-heading" className={card}>
      <h2 id="automations-heading" className={sectionHeading}>
        Your automations
      </h2>
      <p className="mt-2 text-slate-700">
        Each reward goes out at 9:00 am in the team member's own state or territory, once a year, paid from the prepaid
        balance.
      </p>
      {automations.length === 0 ? (
        <p className="mt-4 text-slate-700">No automations yet: create one below.</p>
      ) : (
        <ul className="mt-4 divide-y divide-slate-200" data-testid="automation-list">
          {automations.map((a) => (
            <li
              key={a.automationId}
              className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between"
            >
              <div className="min-w-0">
                <p className="font-semibold text-slate-900">
                  {OCCASION_LABELS[a.occasion]}: {a.rewardName}
                </p>
                <p className="text-slate-700">
                  {automationAmountLabel(a)} · <span data-testid="automation-state">{stateLabel(a)}</span>
                </p>
                {a.message ? <p className="mt-1 break-words text-sm text-slate-600">“{a.message}”</p> : null}
              </div>
              <div className="flex flex-wrap gap-2">
                <Link
                  to={`${PAGE}?edit=${a.automationId}#automation-form-heading`}
                  className={secondaryButton}
                  aria-label={`Edit ${a.rewardName}`}
                >
                  Edit
                </Link>
                <Form method="post" action={PAGE}>
                  <HiddenFormInputs intent="set-automation-enabled" />
                  <input type="hidden" name="automationId" value={a.automationId} />
                  {a.enabled && !a.pausedAt ? null : <input type="hidden" name="enabled" value="on" />}
                  <button type="submit" className={secondaryButton}>
                    {a.enabled && !a.pausedAt ? `Turn off ${a.rewardName}` : `Turn on ${a.rewardName}`}
                  </button>
                </Form>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AutomationForm({ editing, reply }: { editing: AutomationView | null; reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const intent = editing ? "update-automation" : "create-automation";
  const [form, fields] = useSchemaForm(automationsFormSchema, {
    id: editing ? `automation-${editing.automationId}` : "automation-new",
    lastResult: reply?.result,
    defaultValue: editing
      ? {
          occasion: editing.occasion,
          amount: String(editing.amountCents / 100),
          perYear: editing.perYear ? "on" : undefined,
          rewardName: editing.rewardName,
          message: editing.message,
          enabled: editing.enabled ? "on" : undefined,
        }
      : { occasion: "birthday", enabled: "on", message: "Happy birthday, {firstName}!" },
    onSubmit,
  });
  const { key: occasionKey, ...occasionProps } = getSelectProps(fields.occasion);
  return (
    <section aria-labelledby="automation-form-heading" className={card}>
      <h2 id="automation-form-heading" className={sectionHeading}>
        {editing ? `Edit “${editing.rewardName}”` : "New automation"}
      </h2>
      <Form method="post" action={PAGE} {...getFormProps(form)} className="mt-4 grid gap-4 sm:grid-cols-2">
        <HiddenFormInputs intent={intent} />
        {editing ? <input type="hidden" name="automationId" value={editing.automationId} /> : null}
        <div className="sm:col-span-2">
          <FormAlert messages={form.errors ?? []} focusKey={reply} />
        </div>
        <div>
          <label htmlFor={fields.occasion.id} className="mb-1 block text-sm font-semibold text-slate-800">
            Occasion
          </label>
          <select key={occasionKey} {...occasionProps} className={controlClass}>
            {AUTOMATION_OCCASIONS.map((o) => (
              <option key={o} value={o}>
                {OCCASION_LABELS[o]}
              </option>
            ))}
          </select>
          <FieldError id={fields.occasion.errorId} errors={fields.occasion.errors} />
        </div>
        <TextField
          field={fields.amount}
          label="Amount in Reward Dollars"
          inputMode="numeric"
          help="Whole dollars, 1 to 10,000."
        />
        <CheckboxField field={fields.perYear} className="sm:col-span-2">
          Work anniversaries only: send the amount for each year of service (3 years: 3 × the amount)
        </CheckboxField>
        <TextField field={fields.rewardName} label="Reward Name" className="sm:col-span-2" />
        <TextAreaField
          field={fields.message}
          label="Message"
          rows={3}
          className="sm:col-span-2"
          help="{firstName} becomes the member's first name and {years} their years of service."
        />
        <CheckboxField field={fields.enabled} className="sm:col-span-2">
          On: send these rewards automatically
        </CheckboxField>
        <div className="flex flex-wrap gap-3 sm:col-span-2">
          <SubmitButton busy={busy}>{editing ? "Save automation" : "Create automation"}</SubmitButton>
          {editing ? (
            <Link to={PAGE} className={secondaryButton}>
              Cancel editing
            </Link>
          ) : null}
        </div>
      </Form>
    </section>
  );
}

/** Occasions an automation skipped and paid nothing for, each with its reason (ADR 0035 amendment). */
function Skipped({ answer }: { answer: AutomationsAnswer }) {
  if (answer.skipped.length === 0) return null;
  const names = new Map(answer.automations.map((a) => [a.automationId, a.rewardName]));
  return (
    <section aria-labelledby="skipped-heading" className={card}>
      <h2 id="skipped-heading" className={sectionHeading}>
        Skipped rewards
      </h2>
      <ul className="mt-2 divide-y divide-slate-200">
        {answer.skipped.map((e) => (
          <li
            key={`${e.automationId}-${e.userId}-${e.occasion}-${e.year}`}
            className="py-3"
            data-testid="skipped-entry"
          >
            <p className="font-medium text-slate-900">
              {e.firstName} {e.lastName} · {names.get(e.automationId) ?? ""} ·{" "}
              {e.occasion === "anniversary" ? "Work anniversary" : "Birthday"} {e.year}
            </p>
            <p className="text-sm text-slate-700">{e.reason}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Preview({ answer }: { answer: AutomationsAnswer }) {
  const { entries, rewardsCents, totalCents } = answer.preview;
  const short = totalCents > answer.balanceCents;
  return (
    <section aria-labelledby="preview-heading" className={card}>
      <h2 id="preview-heading" className={sectionHeading}>
        The next {PREVIEW_DAYS} days
      </h2>
      {entries.length === 0 ? (
        <p className="mt-2 text-slate-700" data-testid="preview-empty">
          No automated rewards are due in the next {PREVIEW_DAYS} days.
        </p>
      ) : (
        <>
          <p className="mt-2 text-slate-700" data-testid="preview-total">
            {entries.length} {entries.length === 1 ? "reward" : "rewards"}: {formatDollars(rewardsCents)} in Reward
            Dollars, {formatDollars(totalCents)} from the balance with the service fee and GST.
          </p>
          {short ? (
            <p className="mt-2 font-semibold text-red-800" role="status">
              The balance ({formatDollars(answer.balanceCents)}) does not cover them: top it up, or the automations
              pause on the day.
            </p>
          ) : null}
          {/* A phone gets one card per reward; wider screens the table. */}
          <ul className="mt-4 divide-y divide-slate-200 sm:hidden">
            {entries.map((e) => (
              <li key={`${e.automationId}-${e.userId}-${e.sendAt}`} className="py-3" data-testid="preview-entry">
                <p className="font-medium text-slate-900">
                  {e.firstName} {e.lastName} · {formatDollars(e.amountCents)}
                </p>
                <p className="text-sm text-slate-700">
                  {e.occasion === "anniversary" ? `${e.years}-year anniversary` : "Birthday"}
                </p>
                <p className="text-sm text-slate-700">Their time: {formatZonedTime(e.sendAt, e.timeZone)}</p>
                <p className="text-sm text-slate-700">Sydney time: {formatZonedTime(e.sendAt, PORTAL_TIME_ZONE)}</p>
              </li>
            ))}
          </ul>
          {/* Scrolls sideways when narrow: focusable, so a keyboard can scroll it too. */}
          <section
            className="mt-4 hidden overflow-x-auto focus-visible:outline-2 focus-visible:outline-brand-700 sm:block"
            aria-label="Preview table"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take the focus (WCAG 2.1.1)
            tabIndex={0}
          >
            <table className="w-full min-w-[36rem] text-left text-sm" data-testid="preview-table">
              <caption className="sr-only">Automated rewards in the next {PREVIEW_DAYS} days</caption>
              <thead className="border-b border-slate-300 text-slate-700">
                <tr>
                  <th scope="col" className="py-2 pr-3">
                    Team member
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    Occasion
                  </th>
                  <th scope="col" className="py-2 pr-3 text-right">
                    Amount
                  </th>
                  <th scope="col" className="py-2 pr-3">
                    Their time
                  </th>
                  <th scope="col" className="py-2">
                    Sydney time
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200">
                {entries.map((e) => (
                  <tr key={`${e.automationId}-${e.userId}-${e.sendAt}`} data-testid="preview-entry">
                    <td className="py-2 pr-3 font-medium text-slate-900">
                      {e.firstName} {e.lastName}
                    </td>
                    <td className="py-2 pr-3 text-slate-700">
                      {e.occasion === "anniversary" ? `${e.years}-year anniversary` : "Birthday"}
                    </td>
                    <td className="py-2 pr-3 text-right text-slate-900">{formatDollars(e.amountCents)}</td>
                    <td className="py-2 pr-3 text-slate-700">{formatZonedTime(e.sendAt, e.timeZone)}</td>
                    <td className="py-2 text-slate-700">{formatZonedTime(e.sendAt, PORTAL_TIME_ZONE)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </section>
  );
}

function BudgetForm({ answer, reply }: { answer: AutomationsAnswer; reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const [form, fields] = useSchemaForm(automationsFormSchema, {
    id: "automation-budget",
    lastResult: reply?.result,
    defaultValue: { budget: answer.budgetCents === null ? "" : String(answer.budgetCents / 100) },
    onSubmit,
  });
  return (
    <section aria-labelledby="budget-heading" className={card}>
      <h2 id="budget-heading" className={sectionHeading}>
        Automation budget
      </h2>
      <p className="mt-2 text-slate-700">
        A monthly limit for automated rewards, separate from any manager's. A run that would go past it waits for an
        Owner's approval.
      </p>
      <p className="mt-2 font-semibold text-slate-900" data-testid="budget-status">
        {answer.budgetCents === null
          ? "No automation budget is set."
          : `${formatDollars(answer.monthSpentCents)} of ${formatDollars(answer.budgetCents)} used this month.`}
      </p>
      <Form
        method="post"
        action={PAGE}
        {...getFormProps(form)}
        className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end"
      >
        <HiddenFormInputs intent="update-automation-budget" />
        <FormAlert messages={form.errors ?? []} focusKey={reply} />
        <TextField
          field={fields.budget}
          label="Budget a month in whole dollars"
          inputMode="numeric"
          help="Leave it blank for no budget."
          className="max-w-xs grow"
        />
        <SubmitButton busy={busy}>Save budget</SubmitButton>
      </Form>
    </section>
  );
}
