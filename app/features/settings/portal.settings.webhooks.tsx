// Settings › Webhooks (ADR 0045), an Owner's page: register an endpoint (its URL and the events it
// receives), see its signing secret once in the action's answer, list the endpoints with their
// last delivery, send a test ping, delete one, and open an endpoint's deliveries
// (portal.settings.webhook-deliveries.tsx). Plain forms that work without JavaScript; one action
// told apart by `intent` (modules/webhooks/schema.ts webhooksFormSchema). The API is the judge
// (modules/webhooks/api.server.ts): a Manager gets 403, so this page shows them the Owner-only message.

import { getFormProps, getInputProps } from "@conform-to/react";
import { Form, href, Link } from "react-router";
import { formatDate } from "../../../core/dates.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  type CreatedWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEndpointView,
  webhookEventLabel,
  webhooksFormSchema,
} from "../../../modules/webhooks/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.webhooks";
import { card, controlClass, dangerButton, labelClass, secondaryButton, sectionHeading } from "./settings-styles.ts";
import { ShownOnce } from "./shown-once.tsx";
import { deliveryStatusText } from "./webhook-view.ts";

const TITLE = "Webhooks";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/settings/webhooks");

/** API answers shown word for word on this page's forms (the rest get the generic message). */
/** The endpoint's refusals: its URL and events (the request's schema and the address rule), the limit, and not found. */
const SHOWN = inApiWords(
  "owner-only",
  "invalid-request",
  "too-many-webhooks",
  "webhook-not-found",
  "delivery-not-found",
);

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const result = await client.call((api) => api.Webhooks.$get());
  if (result.ok) return { ownerOnly: false as const, endpoints: result.data as WebhookEndpointView[] };
  if (result.status !== 403) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "webhooks list fetch failed");
  }
  return { ownerOnly: result.status === 403, endpoints: [] as WebhookEndpointView[] };
}

/** The action's answer: a form's reply, or the endpoint just registered (its secret shown this once). */
type ActionData = FormReply | { created: CreatedWebhookEndpoint };

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(webhooksFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const value = submission.value;
  switch (value.intent) {
    case "register": {
      const result = await client.call((api) => api.Webhooks.$post({ json: { url: value.url, events: value.events } }));
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      // Not a redirect: the secret is in this answer only, never in a URL, a toast or the session.
      return { created: result.data as CreatedWebhookEndpoint };
    }
    case "delete": {
      const result = await client.call((api) =>
        api.Webhooks[":id"].$delete({ param: { id: String(value.endpointId) } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: "Webhook endpoint deleted" });
    }
    case "ping": {
      const result = await client.call((api) =>
        api.Webhooks[":id"].ping.$post({ param: { id: String(value.endpointId) } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      const deliveries = href("/portal/settings/webhooks/:endpointId", { endpointId: String(value.endpointId) });
      throw redirectWithToast(context, deliveries, {
        type: "success",
        title: "Test ping queued: it is sent within seconds",
      });
    }
    default:
      return unknownIntent();
  }
}

export default function WebhooksSettings({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.ownerOnly) {
    return (
      <div className={card} role="status">
        <h2 className={sectionHeading}>Only an Owner can manage webhooks</h2>
        <p className="mt-2 text-slate-700">{DETAILS.ownerOnly}</p>
      </div>
    );
  }
  const answer = actionData as ActionData | undefined;
  const created = answer && "created" in answer ? answer.created : undefined;
  const reply = answer && "result" in answer ? answer : undefined;
  const intentOf = (reply?.result?.initialValue as { intent?: string } | undefined)?.intent;
  const { endpoints } = loaderData;
  return (
    <div className="max-w-4xl space-y-8">
      {created ? <NewEndpoint created={created} /> : null}
      {reply && intentOf !== "register" ? (
        <FormAlert messages={reply.result?.error?.[""] ?? [GENERIC_FORM_ERROR]} focusKey={reply} focus />
      ) : null}

      <section aria-labelledby="register-heading" className={card}>
        <h2 id="register-heading" className={sectionHeading}>
          Register a webhook endpoint
        </h2>
        <p className="mt-1 text-slate-700">
          We POST a signed JSON message to your HTTPS address when the events you choose happen, and retry for 72 hours
          until it answers with a 2xx status. Check the <code>{WEBHOOK_SIGNATURE_HEADER}</code> header as the “Webhooks”
          section of the API guide (docs/API.md) shows, and ignore an event id you have already handled.
        </p>
        <RegisterForm reply={intentOf === "register" ? reply : undefined} />
      </section>

      <section aria-labelledby="endpoints-heading" className={card}>
        <h2 id="endpoints-heading" className={sectionHeading}>
          Your webhook endpoints
        </h2>
        {endpoints.length === 0 ? (
          <p className="mt-2 text-slate-700">Your company has no webhook endpoints yet.</p>
        ) : (
          <ul className="mt-4 divide-y divide-slate-200">
            {endpoints.map((endpoint) => (
              <EndpointRow key={endpoint.id} endpoint={endpoint} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function NewEndpoint({ created }: { created: CreatedWebhookEndpoint }) {
  return (
    <ShownOnce
      id="new-webhook-secret"
      testId="new-webhook-secret"
      title="Endpoint registered"
      label="Signing secret"
      value={created.secret}
    >
      <p className="mt-1 break-words text-slate-800">
        <code>{created.url}</code> receives: {created.events.map(webhookEventLabel).join("; ")}.
      </p>
      <p className="mt-2 text-slate-800">
        Copy its signing secret now and keep it somewhere safe: this is the only time it is shown. If it is lost, delete
        the endpoint and register it again.
      </p>
    </ShownOnce>
  );
}

function RegisterForm({ reply }: { reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const [form, fields] = useSchemaForm(webhooksFormSchema, {
    id: "register-webhook-form",
    lastResult: reply?.result,
    onSubmit,
  });
  const { key: urlKey, ...urlProps } = getInputProps(fields.url, { type: "url" });
  const posted = (reply?.result?.initialValue as { events?: string | string[] } | undefined)?.events;
  const ticked = new Set(posted === undefined ? [] : Array.isArray(posted) ? posted : [posted]);
  const eventsErrorId = `${form.id}-events-error`;
  return (
    <Form method="post" action={PAGE} preventScrollReset {...getFormProps(form)} className="mt-4 space-y-4">
      <HiddenFormInputs intent="register" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} />
      <div>
        <label htmlFor={fields.url.id} className={labelClass}>
          Endpoint URL
        </label>
        <input
          key={urlKey}
          {...urlProps}
          placeholder="https://example.com/hooks/rewards"
          maxLength={2000}
          autoComplete="off"
          spellCheck={false}
          className={controlClass}
        />
        <FieldError id={fields.url.errorId} errors={fields.url.errors} />
      </div>
      <fieldset aria-describedby={eventsErrorId}>
        <legend className={labelClass}>Events</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="flex min-h-11 items-start gap-3 rounded-md border border-slate-200 p-2">
              <input
                type="checkbox"
                name="events"
                value={type}
                defaultChecked={ticked.has(type)}
                className="mt-1 h-5 w-5 shrink-0"
              />
              <span>
                <span className="block text-slate-900">{WEBHOOK_EVENTS[type]}</span>
                <code className="text-sm text-slate-600">{type}</code>
              </span>
            </label>
          ))}
        </div>
        <FieldError id={eventsErrorId} errors={fields.events.errors} />
      </fieldset>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Register endpoint
      </SubmitButton>
    </Form>
  );
}

function EndpointRow({ endpoint }: { endpoint: WebhookEndpointView }) {
  const deliveriesUrl = href("/portal/settings/webhooks/:endpointId", { endpointId: String(endpoint.id) });
  const last = endpoint.lastDelivery;
  return (
    <li className="flex flex-col gap-3 py-4 lg:flex-row lg:items-start lg:justify-between">
      <div className="min-w-0">
        <p className="font-semibold text-slate-900 [overflow-wrap:anywhere]">{endpoint.url}</p>
        <p className="text-sm text-slate-700">{endpoint.events.map((e) => WEBHOOK_EVENTS[e] ?? e).join("; ")}</p>
        <p className="text-sm text-slate-600">
          Registered {formatDate(endpoint.createdAt, "dateTime")} by {endpoint.createdBy.name} · last delivery:{" "}
          {last
            ? `${deliveryStatusText(last.status, last.lastStatus, last.attempts)}, ${formatDate(last.at, "dateTime")}`
            : "none yet"}
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <Link to={deliveriesUrl} className={secondaryButton} aria-label={`Deliveries to ${endpoint.url}`}>
          Deliveries
        </Link>
        <Form method="post" action={PAGE} preventScrollReset>
          <HiddenFormInputs intent="ping" />
          <input type="hidden" name="endpointId" value={endpoint.id} />
          <button type="submit" className={secondaryButton} aria-label={`Send a test ping to ${endpoint.url}`}>
            Send test ping
          </button>
        </Form>
        <Form method="post" action={PAGE} preventScrollReset>
          <HiddenFormInputs intent="delete" />
          <input type="hidden" name="endpointId" value={endpoint.id} />
          <button type="submit" className={dangerButton} aria-label={`Delete the endpoint ${endpoint.url}`}>
            Delete
          </button>
        </Form>
      </div>
    </li>
  );
}
