// A released reward's delivery (modules/deliveries/schema.ts), linked from the dashboard's history: the
// recipients, their amounts and the state of each one's reward email (queued, sending, sent,
// retrying with the last error, failed). Without JavaScript a reload shows the latest; with it the
// page looks again every few seconds while an email is on its way. "Resend" issues the recipient
// a new password (the old one stops working) in a new email: a real form, redirecting with a toast.
// Where the member's address changed since the reward was sent, the row says so, and a Manager's
// Resend is disabled (only an Owner may resend to the new address; the API answers both facts).
import { useEffect } from "react";
import { data, Form, Link, useRevalidator } from "react-router";
import { z } from "zod";
import { dateFormat as dateFormatOf } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import {
  DELIVERY_STATE_LABELS,
  deliveryInFlight,
  type EmailDeliveryState,
  type ReleaseDelivery,
} from "../../../modules/deliveries/schema.ts";
import { readPostedForm, unknownIntent } from "../../lib/forms.server.ts";
import { idFromParam } from "../../lib/route-ids.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { outlineRowButtonClass, textLinkClass } from "../../ui/buttons.ts";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import { invoicePath } from "../invoices/invoice-paths.ts";
import { portalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { DASHBOARD_PATH, type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.rewards.release";
import { releasePath } from "./delivery-paths.ts";

const TITLE = "Reward Delivery";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

/** How often the page looks again while an email is on its way (JavaScript on). */
const REFRESH_MS = 3_000;

const dateFormat = dateFormatOf("mediumDateTime");

export async function loader({ context, params }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const releaseId = String(idFromParam(params.releaseId));
  const delivery = await client.call((api) => api.RewardReleases[":releaseId"].$get({ param: { releaseId } }));
  if (!delivery.ok) throw data(delivery.detail, { status: delivery.status });
  return { delivery: delivery.data };
}

const resendSchema = z.object({ intent: z.literal("resend"), userId: z.coerce.number().int().positive() });

export async function action({ context, request, params }: Route.ActionArgs) {
  const { api: client } = requireOnboardedUser(context);
  const releaseId = idFromParam(params.releaseId);
  const { submission } = (await readPostedForm(context, request)).parse(resendSchema);
  if (submission.status !== "success") return unknownIntent();
  const resent = await client.call((api) =>
    api.RewardReleases[":releaseId"].recipients[":userId"].resend.$post({
      param: { releaseId: String(releaseId), userId: String(submission.value.userId) },
    }),
  );
  return redirectWithToast(
    context,
    releasePath(releaseId),
    resent.ok
      ? {
          type: "success",
          title: "Reward email resent",
          description: "It has a new password; the password sent before no longer works.",
        }
      : { type: "destructive", title: resent.detail },
  );
}

const STATE_CLASSES: Record<EmailDeliveryState, string> = {
  queued: "bg-slate-100 text-slate-800",
  sending: "bg-sky-100 text-sky-900",
  sent: "bg-emerald-100 text-emerald-900",
  retrying: "bg-amber-100 text-amber-900",
  failed: "bg-red-100 text-red-900",
};

function StateBadge({ state }: { state: EmailDeliveryState }) {
  return (
    <span className={`inline-block rounded-full px-2.5 py-0.5 text-sm font-semibold ${STATE_CLASSES[state]}`}>
      {DELIVERY_STATE_LABELS[state]}
    </span>
  );
}

/**
 * "Resend" for one recipient. Where the member's address changed since the reward was sent (the
 * API's `emailChanged`), the page says so next to the button, which it describes
 * (aria-describedby): an Owner's resend goes to the new address; a Manager's button is disabled,
 * as the API would refuse it (ADR 0022 amendment: an Owner's call). The API stays the judge of a
 * post; its refusal still comes back as the toast.
 */
function ResendForm({
  recipient: r,
  canResendToNewAddress,
}: {
  recipient: ReleaseDelivery["recipients"][number];
  canResendToNewAddress: boolean;
}) {
  const noteId = `resend-note-${r.userId}`;
  const ownerOnly = r.emailChanged && !canResendToNewAddress;
  return (
    <Form method="post" className="mt-2 space-y-1">
      <HiddenFormInputs intent="resend" />
      <input type="hidden" name="userId" value={r.userId} />
      {r.emailChanged ? (
        <p id={noteId} className="max-w-xs text-sm text-slate-700 [overflow-wrap:anywhere]" data-testid="resend-note">
          The address changed from {r.email} to {r.currentEmail} since this reward was sent.{" "}
          {ownerOnly
            ? "Only an Owner of your company can resend it to the new address."
            : "A resend goes to the new address."}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={ownerOnly}
        aria-describedby={r.emailChanged ? noteId : undefined}
        className={`${outlineRowButtonClass} disabled:cursor-not-allowed disabled:border-slate-400 disabled:bg-slate-100 disabled:text-slate-700`}
      >
        {/* One inline box: a flex item's edge spaces would collapse. */}
        <span>
          Resend<span className="sr-only"> to {r.name}</span> with a new password
        </span>
      </button>
    </Form>
  );
}

export default function ReleaseDeliveryPage({ loaderData }: Route.ComponentProps) {
  const { delivery } = loaderData;
  const inFlight = deliveryInFlight(delivery);
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!inFlight) return;
    const timer = window.setTimeout(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [inFlight, revalidator]);

  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8 md:px-6 md:py-12">
      <Link to={DASHBOARD_PATH} className={textLinkClass}>
        <span aria-hidden="true">←</span> Back to the dashboard
      </Link>
      <div>
        <h2 className="break-words text-2xl font-bold text-brand-800">{delivery.rewardName}</h2>
        <p className="mt-1 text-slate-700">
          {formatDollars(delivery.amountCents)} released on {dateFormat.format(new Date(delivery.releasedAt))} to{" "}
          {delivery.recipients.length} {delivery.recipients.length === 1 ? "recipient" : "recipients"}.
          {delivery.invoiceNumber ? (
            <>
              {" "}
              <Link
                to={invoicePath(delivery.invoiceNumber)}
                className="font-semibold text-brand-700 underline underline-offset-2"
              >
                Tax invoice {delivery.invoiceNumber}
              </Link>
            </>
          ) : null}
        </p>
        <p className="mt-2 text-sm text-slate-600" role="status">
          {inFlight
            ? "Some emails are still on their way. This page updates by itself; without JavaScript, reload it."
            : "Every email has been dealt with."}{" "}
          <Link to={releasePath(delivery.releaseId)} className="font-semibold text-brand-700 underline">
            Reload
          </Link>
        </p>
      </div>

      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
        <table className="block w-full border-collapse md:table">
          <caption className="sr-only">Recipients of {delivery.rewardName} and their reward emails</caption>
          {/* Under 768 px each recipient is a block (name, amount, email state) instead of a row. */}
          <thead className="hidden bg-slate-100 md:table-header-group">
            <tr>
              <th scope="col" className="px-4 py-3 text-left text-sm font-semibold text-slate-800">
                Recipient
              </th>
              <th scope="col" className="px-4 py-3 text-right text-sm font-semibold text-slate-800">
                Amount
              </th>
              <th scope="col" className="px-4 py-3 text-left text-sm font-semibold text-slate-800">
                Email
              </th>
            </tr>
          </thead>
          <tbody className="block divide-y divide-slate-200 md:table-row-group">
            {delivery.recipients.map((r) => (
              <tr key={r.userId} className="block py-2 align-top md:table-row md:py-0">
                <td className="block px-4 py-1 md:table-cell md:py-3">
                  <p className="font-semibold text-slate-900 [overflow-wrap:anywhere]">{r.name}</p>
                  <p className="text-sm text-slate-600 [overflow-wrap:anywhere]">{r.email}</p>
                </td>
                <td className="block whitespace-nowrap px-4 py-1 tabular-nums text-slate-900 md:table-cell md:py-3 md:text-right">
                  {formatDollars(r.amountCents)}
                </td>
                <td className="block px-4 py-1 md:table-cell md:py-3">
                  {r.delivery ? (
                    <div className="space-y-1">
                      <StateBadge state={r.delivery.state} />
                      {r.delivery.state === "sent" && r.delivery.sentAt ? (
                        <p className="text-sm text-slate-600">{dateFormat.format(new Date(r.delivery.sentAt))}</p>
                      ) : null}
                      {r.delivery.lastError ? (
                        <p className="text-sm text-red-800 [overflow-wrap:anywhere]">{r.delivery.lastError}</p>
                      ) : null}
                      {r.delivery.to.toLowerCase() !== r.email.toLowerCase() ? (
                        <p className="text-sm text-slate-600 [overflow-wrap:anywhere]">Sent to {r.delivery.to}</p>
                      ) : null}
                      {r.delivery.resends > 0 ? (
                        <p className="text-sm text-slate-600">
                          Resent {r.delivery.resends} {r.delivery.resends === 1 ? "time" : "times"}
                        </p>
                      ) : null}
                    </div>
                  ) : (
                    <p className="text-sm text-slate-600">No email recorded</p>
                  )}
                  <ResendForm recipient={r} canResendToNewAddress={delivery.canResendToNewAddress} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
