// Settings › API keys (ADR 0028), an Owner's page: create a key (a name, and optionally the last day
// it works), see it once in the action's answer with a hint to copy it now, list the company's keys
// (prefix, who made it, last used, expiry, revoked) and revoke one. Plain forms that work without
// JavaScript; one action told apart by `intent` (modules/api-keys/schema.ts apiKeysFormSchema). The API is the
// judge (modules/api-keys/api.server.ts): a Manager gets 403, so this page shows them the Owner-only message.
// Each live key has its monthly budget (ADR 0034): set or cleared in place (intent `budget`, PUT
// /api/ApiKeys/{id}/budget), with what it used and has left this Sydney month (GET /api/Budgets).

import { getFormProps, getInputProps } from "@conform-to/react";
import { Form, href, Link } from "react-router";
import { formatDate } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  API_KEY_DETAILS,
  type ApiKeyView,
  apiKeysFormSchema,
  type CreatedApiKey,
} from "../../../modules/api-keys/schema.ts";
import type { ApiKeyBudgetUse, BudgetsOverview } from "../../../modules/budgets/schema.ts";
import { sydneyWallTimeToInstant } from "../../../modules/scheduled-sends/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import type { FormReply } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.api-keys";
import { budgetRequest, budgetSavedToast } from "./budget-form.server.ts";
import { BudgetForm } from "./budget-form.tsx";
import { card, controlClass, dangerButton, labelClass, sectionHeading } from "./settings-styles.ts";
import { ShownOnce } from "./shown-once.tsx";

const TITLE = "API keys";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/settings/api-keys");

/** API answers shown word for word on this page's forms (the rest get the generic message). */
/** The name's and expiry's refusals (the request's schema and the clock), and the key's. */
const SHOWN = inApiWords("owner-only", "invalid-request", "api-key-not-found");

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const [result, budgets] = await Promise.all([
    client.call((api) => api.ApiKeys.$get()),
    client.call((api) => api.Budgets.$get()),
  ]);
  const budgetOf = budgets.ok ? (budgets.data as BudgetsOverview).apiKeys : [];
  if (result.ok) return { ownerOnly: false as const, keys: result.data as ApiKeyView[], budgets: budgetOf };
  if (result.status !== 403) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "api keys list fetch failed");
  }
  return { ownerOnly: result.status === 403, keys: [] as ApiKeyView[], budgets: [] as ApiKeyBudgetUse[] };
}

/** The instant a key chosen to work through Sydney day `day` (YYYY-MM-DD) stops: the next day's midnight. */
function endOfSydneyDay(day: string): Date | null {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) return null;
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  return sydneyWallTimeToInstant(`${next}T00:00`);
}

/** The action's answer: a form's reply, or the key just made (shown this once). */
type ActionData = FormReply | { created: CreatedApiKey };

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(apiKeysFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const value = submission.value;
  switch (value.intent) {
    case "create": {
      const expiresAt = value.expiresOn ? endOfSydneyDay(value.expiresOn) : null;
      if (value.expiresOn && !expiresAt) {
        const detail = API_KEY_DETAILS.expiresOnInvalid;
        return replyFailure(submission, { ok: false, status: 400, detail, errors: { expiresOn: [detail] } });
      }
      const result = await client.call((api) =>
        api.ApiKeys.$post({
          json: { name: value.name, ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) },
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      // Not a redirect: the key is in this answer only, never in a URL, a toast or the session.
      return { created: result.data as CreatedApiKey };
    }
    case "budget": {
      const result = await client.call((api) =>
        api.ApiKeys[":id"].budget.$put({
          param: { id: String(value.apiKeyId) },
          json: budgetRequest(value.budgetDollars),
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, budgetSavedToast(result.data.monthlyBudgetCents));
    }
    case "revoke": {
      const result = await client.call((api) => api.ApiKeys[":id"].$delete({ param: { id: String(value.apiKeyId) } }));
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: "API key revoked: it stops working at once" });
    }
    default:
      return unknownIntent();
  }
}

export default function ApiKeysSettings({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.ownerOnly) {
    return (
      <div className={card} role="status">
        <h2 className={sectionHeading}>Only an Owner can manage API keys</h2>
        <p className="mt-2 text-slate-700">{DETAILS.ownerOnly}</p>
      </div>
    );
  }
  const answer = actionData as ActionData | undefined;
  const created = answer && "created" in answer ? answer.created : undefined;
  const reply = answer && "result" in answer ? answer : undefined;
  const { keys } = loaderData;
  return (
    <div className="max-w-4xl space-y-8">
      {created ? <NewKey created={created} /> : null}

      <section aria-labelledby="create-key-heading" className={card}>
        <h2 id="create-key-heading" className={sectionHeading}>
          Create an API key
        </h2>
        <p className="mt-1 text-slate-700">
          A key lets your own systems (payroll, HR, CRM) read your company's reward orders at <code>/api/v1</code>, with
          a Manager's access. We show the key once; we keep only a fingerprint of it.{" "}
          <Link to={href("/portal/settings/api-keys/reference")} className="font-medium text-brand-700 underline">
            Read the API reference
          </Link>
          .
        </p>
        <CreateForm reply={reply} />
      </section>

      <section aria-labelledby="keys-heading" className={card}>
        <h2 id="keys-heading" className={sectionHeading}>
          Your API keys
        </h2>
        {keys.length === 0 ? (
          <p className="mt-2 text-slate-700">Your company has no API keys yet.</p>
        ) : (
          <ul className="mt-4 divide-y divide-slate-200">
            {keys.map((key) => (
              <KeyRow
                key={key.id}
                apiKey={key}
                budget={loaderData.budgets.find((b) => b.apiKeyId === key.id)}
                reply={reply}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function NewKey({ created }: { created: CreatedApiKey }) {
  return (
    <ShownOnce
      id="new-api-key"
      testId="new-api-key"
      title={<>Your new key “{created.name}”</>}
      label="API key"
      value={created.key}
      after={
        <p className="mt-1 text-sm text-slate-700">
          Select the field and copy it (Ctrl+C, or ⌘C on a Mac). Send it as{" "}
          <code>Authorization: Bearer {created.prefix}…</code>.
        </p>
      }
    >
      <p className="mt-1 text-slate-800">
        Copy it now and keep it somewhere safe: this is the only time it is shown. If it is lost, revoke it and create
        another.
      </p>
    </ShownOnce>
  );
}

function CreateForm({ reply }: { reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const isCreate = (reply?.result?.initialValue as { intent?: string } | undefined)?.intent === "create";
  const [form, fields] = useSchemaForm(apiKeysFormSchema, {
    id: "create-api-key-form",
    lastResult: isCreate ? reply?.result : undefined,
    onSubmit,
  });
  const { key: nameKey, ...nameProps } = getInputProps(fields.name, { type: "text" });
  const { key: expiresKey, ...expiresProps } = getInputProps(fields.expiresOn, { type: "date" });
  const expiresHint = `${fields.expiresOn.id}-hint`;
  return (
    <Form method="post" action={PAGE} preventScrollReset {...getFormProps(form)} className="mt-4 space-y-4">
      <HiddenFormInputs intent="create" />
      <FormAlert messages={isCreate ? (form.errors ?? []) : []} focusKey={reply} />
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={fields.name.id} className={labelClass}>
            Name
          </label>
          <input key={nameKey} {...nameProps} maxLength={64} autoComplete="off" className={controlClass} />
          <FieldError id={fields.name.errorId} errors={fields.name.errors} />
        </div>
        <div>
          <label htmlFor={fields.expiresOn.id} className={labelClass}>
            Expires on (optional)
          </label>
          <input
            key={expiresKey}
            {...expiresProps}
            aria-describedby={[expiresProps["aria-describedby"], expiresHint].filter(Boolean).join(" ")}
            className={controlClass}
          />
          <p id={expiresHint} className="mt-1 text-sm text-slate-600">
            The key works to the end of this day (Sydney time), at most two years ahead. Blank: until revoked.
          </p>
          <FieldError id={fields.expiresOn.errorId} errors={fields.expiresOn.errors} />
        </div>
      </div>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Create key
      </SubmitButton>
    </Form>
  );
}

function KeyRow({
  apiKey,
  budget,
  reply,
}: {
  apiKey: ApiKeyView;
  budget: ApiKeyBudgetUse | undefined;
  reply: FormReply | undefined;
}) {
  const expired = apiKey.expiresAt !== null && new Date(apiKey.expiresAt).getTime() <= Date.now();
  const status = apiKey.revokedAt
    ? `Revoked ${formatDate(apiKey.revokedAt, "dateTime")}`
    : expired
      ? `Expired ${formatDate(apiKey.expiresAt as string, "dateTime")}`
      : apiKey.expiresAt
        ? `Active · expires ${formatDate(apiKey.expiresAt, "dateTime")}`
        : "Active · no expiry";
  return (
    <li className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p className="break-words font-semibold text-slate-900">
          {apiKey.name} <code className="ml-1 font-mono text-sm font-normal text-slate-700">{apiKey.prefix}…</code>
        </p>
        <p className="text-sm text-slate-600">
          {status} · created {formatDate(apiKey.createdAt, "dateTime")} by {apiKey.createdBy.name} · last used{" "}
          {apiKey.lastUsedAt ? formatDate(apiKey.lastUsedAt, "dateTime") : "never"}
        </p>
        {apiKey.revokedAt ? null : (
          <p className="text-sm text-slate-700" data-testid={`key-budget-use-${apiKey.id}`}>
            {apiKey.monthlyBudgetCents === null
              ? `No monthly budget (unlimited) · ${formatDollars(budget?.usedCents ?? 0)} used this month`
              : `Monthly budget ${formatDollars(apiKey.monthlyBudgetCents)} · ${formatDollars(budget?.usedCents ?? 0)} used this month · ${formatDollars(budget?.leftCents ?? apiKey.monthlyBudgetCents)} left`}
          </p>
        )}
      </div>
      {apiKey.revokedAt ? null : (
        <BudgetForm
          page={PAGE}
          idName="apiKeyId"
          id={apiKey.id}
          whose={`the key ${apiKey.name}`}
          budgetCents={apiKey.monthlyBudgetCents}
          reply={reply}
        />
      )}
      {apiKey.revokedAt || expired ? null : (
        <Form method="post" action={PAGE} preventScrollReset>
          <HiddenFormInputs intent="revoke" />
          <input type="hidden" name="apiKeyId" value={apiKey.id} />
          <button
            type="submit"
            className={dangerButton}
            aria-label={`Revoke the key ${apiKey.name} (${apiKey.prefix}…)`}
          >
            Revoke
          </button>
        </Form>
      )}
    </li>
  );
}
