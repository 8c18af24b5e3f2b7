// Settings › Webhooks › an endpoint's deliveries (ADR 0045), an Owner's page at
// /portal/settings/webhooks/:endpointId: the newest deliveries with their event, state, attempts,
// the endpoint's last status and the start of its last answer, and a "Re-send" per delivery and
// "Send test ping" (plain forms, one action told apart by `intent`: modules/webhooks/schema.ts
// webhookDeliveriesFormSchema). A table on wide screens; on a phone each delivery is a stacked row.
import { Form, href, Link } from "react-router";
import { formatDate } from "../../../core/dates.ts";
import { parseId } from "../../../core/fields.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  WEBHOOK_DETAILS,
  type WebhookDeliveriesPage,
  type WebhookDeliveryView,
  webhookDeliveriesFormSchema,
  webhookEventLabel,
} from "../../../modules/webhooks/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { FormAlert, HiddenFormInputs } from "../../ui/form-fields.tsx";
import { ColumnHeads } from "../../ui/table.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.webhook-deliveries";
import { card, secondaryButton, sectionHeading } from "./settings-styles.ts";
import { deliveryStatusText } from "./webhook-view.ts";

const TITLE = "Webhook deliveries";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const SHOWN = inApiWords("owner-only", "webhook-not-found", "delivery-not-found");

type LoaderData =
  | { state: "ok"; page: WebhookDeliveriesPage }
  | { state: "owner-only" }
  | { state: "not-found" }
  | { state: "unavailable" };

export async function loader({ context, params }: Route.LoaderArgs): Promise<LoaderData> {
  const { api: client } = portalUser(context);
  const id = parseId(params.endpointId);
  if (id === null) return { state: "not-found" };
  const result = await client.call((api) => api.Webhooks[":id"].deliveries.$get({ param: { id: String(id) } }));
  if (result.ok) return { state: "ok", page: result.data as WebhookDeliveriesPage };
  if (result.status === 403) return { state: "owner-only" };
  if (result.status === 404) return { state: "not-found" };
  services(context).logger.warn({ status: result.status, detail: result.detail }, "webhook deliveries fetch failed");
  return { state: "unavailable" };
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const id = parseId(params.endpointId);
  const { submission } = (await readPostedForm(context, request)).parse(webhookDeliveriesFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  if (id === null) {
    return replyFailure(submission, { ok: false, status: 404, detail: WEBHOOK_DETAILS.notFound });
  }
  const page = href("/portal/settings/webhooks/:endpointId", { endpointId: String(id) });
  const value = submission.value;
  switch (value.intent) {
    case "resend": {
      const result = await client.call((api) =>
        api.Webhooks[":id"].deliveries[":deliveryId"].resend.$post({
          param: { id: String(id), deliveryId: String(value.deliveryId) },
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, page, {
        type: "success",
        title: "Delivery queued again: it is sent within seconds",
      });
    }
    case "ping": {
      const result = await client.call((api) => api.Webhooks[":id"].ping.$post({ param: { id: String(id) } }));
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, page, { type: "success", title: "Test ping queued" });
    }
    default:
      return unknownIntent();
  }
}

export default function WebhookDeliveries({ loaderData, actionData, params }: Route.ComponentProps) {
  const back = (
    <Link to={href("/portal/settings/webhooks")} className="font-medium text-brand-700 underline">
      Back to webhooks
    </Link>
  );
  if (loaderData.state !== "ok") {
    const [heading, text] =
      loaderData.state === "owner-only"
        ? ["Only an Owner can manage webhooks", DETAILS.ownerOnly]
        : loaderData.state === "not-found"
          ? ["Endpoint not found", WEBHOOK_DETAILS.notFound]
          : ["Deliveries unavailable", GENERIC_FORM_ERROR];
    return (
      <div className={card} role="status">
        <h2 className={sectionHeading}>{heading}</h2>
        <p className="mt-2 text-slate-700">{text}</p>
        <p className="mt-4">{back}</p>
      </div>
    );
  }
  const reply = actionData as FormReply | undefined;
  const { endpoint, deliveries } = loaderData.page;
  const action = href("/portal/settings/webhooks/:endpointId", { endpointId: params.endpointId });
  return (
    <div className="max-w-6xl space-y-6">
      <p>{back}</p>
      {reply ? <FormAlert messages={reply.result?.error?.[""] ?? [GENERIC_FORM_ERROR]} focusKey={reply} focus /> : null}
      <section aria-labelledby="endpoint-heading" className={card}>
        <h2 id="endpoint-heading" className={sectionHeading}>
          Deliveries to <span className="[overflow-wrap:anywhere]">{endpoint.url}</span>
        </h2>
        <p className="mt-1 text-slate-700">
          {endpoint.deleted
            ? "This endpoint was deleted: nothing more is sent to it."
            : `Events: ${endpoint.events.map(webhookEventLabel).join("; ")}. A failed delivery is retried for 72 hours; “Re-send” sends it again now, with the same event id.`}
        </p>
        {endpoint.deleted ? null : (
          <Form method="post" action={action} preventScrollReset className="mt-4">
            <HiddenFormInputs intent="ping" />
            <button type="submit" className={secondaryButton}>
              Send test ping
            </button>
          </Form>
        )}
      </section>

      <section aria-labelledby="deliveries-heading" className={card}>
        <h2 id="deliveries-heading" className={sectionHeading}>
          Newest deliveries
        </h2>
        {deliveries.length === 0 ? (
          <p className="mt-2 text-slate-700">Nothing has been sent to this endpoint yet.</p>
        ) : (
          <table className="mt-4 w-full border-collapse text-left">
            <caption className="sr-only">Deliveries to this endpoint, newest first</caption>
            <thead className="hidden bg-slate-100 md:table-header-group">
              <ColumnHeads
                columns={[
                  ["Event", th],
                  ["Status", th],
                  ["Attempts", th],
                  ["Last answer", th],
                  [
                    <span key="actions" className="sr-only">
                      Actions
                    </span>,
                    th,
                  ],
                ]}
              />
            </thead>
            <tbody className="divide-y divide-slate-200">
              {deliveries.map((d) => (
                <DeliveryRow key={d.id} delivery={d} action={action} canResend={!endpoint.deleted} />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

const th = "px-3 py-2 text-sm font-semibold text-slate-800";
/** A cell: a block of a stacked row on a phone, a table cell from md up. */
const td = "block px-1 py-1 align-top md:table-cell md:px-3 md:py-3";

function DeliveryRow({
  delivery: d,
  action,
  canResend,
}: {
  delivery: WebhookDeliveryView;
  action: string;
  canResend: boolean;
}) {
  const when = d.lastAttemptAt ?? d.createdAt;
  return (
    <tr className="block py-3 md:table-row md:py-0">
      <td className={`${td} [overflow-wrap:anywhere]`}>
        <span className="block font-medium text-slate-900">{webhookEventLabel(d.eventType)}</span>
        <code className="block text-xs text-slate-600">{d.eventId}</code>
        <time dateTime={when} className="block text-sm text-slate-600">
          {formatDate(when, "dateTime")}
        </time>
      </td>
      <td className={td}>
        <span className={d.status === "failed" ? "font-semibold text-red-800" : "text-slate-900"}>
          {deliveryStatusText(d.status, d.lastStatus, d.attempts)}
        </span>
        {d.nextAttemptAt && d.attempts > 0 ? (
          <span className="block text-sm text-slate-600">Next try {formatDate(d.nextAttemptAt, "dateTime")}</span>
        ) : null}
      </td>
      <td className={`${td} text-sm text-slate-700`}>
        <span className="md:hidden">Attempts: </span>
        {d.attempts}
      </td>
      <td className={`${td} max-w-md text-sm text-slate-700 [overflow-wrap:anywhere]`}>
        {d.lastResponse ? (
          <code className="line-clamp-3 whitespace-pre-wrap">{truncate(d.lastResponse, 200)}</code>
        ) : (
          <span className="text-slate-500">—</span>
        )}
      </td>
      <td className={td}>
        {canResend ? (
          <Form method="post" action={action} preventScrollReset>
            <HiddenFormInputs intent="resend" />
            <input type="hidden" name="deliveryId" value={d.id} />
            <button type="submit" className={secondaryButton} aria-label={`Re-send event ${d.eventId}`}>
              Re-send
            </button>
          </Form>
        ) : null}
      </td>
    </tr>
  );
}

function truncate(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}
