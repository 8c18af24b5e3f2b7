// A paid order that was scheduled (modules/scheduled-sends/schema.ts), linked from the dashboard's history: when it
// goes out, what it costs, and, while it waits, a form to choose another time and a cancel that
// refunds it in full. Cancelling asks first: the confirmation is a pane at ?cancel (a link, so it
// works without JavaScript). Once released, the page points to its delivery; once cancelled, it
// says whether the refund went through, or, once it was given up on after 72 hours of retries,
// that it failed and whom to contact (ADR 0041).

import { getFormProps } from "@conform-to/react";
import { data, Form, Link, useSearchParams } from "react-router";
import { z } from "zod";
import { formatDollars } from "../../../core/money.ts";
import {
  formatSendTime,
  historyStateLabel,
  SCHEDULE_DETAILS,
  SCHEDULE_MAX_AHEAD_MS,
  SCHEDULE_MIN_AHEAD_MS,
  sydneyWallTime,
  sydneyWallTimeToInstant,
} from "../../../modules/scheduled-sends/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyBanner, replyFields, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import type { FormReply } from "../../lib/forms.ts";
import { idFromParam } from "../../lib/route-ids.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { dangerButtonClass, outlineButtonClass, textLinkClass } from "../../ui/buttons.ts";
import { FormAlert, HiddenFormInputs, SubmitButton, TextField, useFormSubmit } from "../../ui/form-fields.tsx";
import { releasePath } from "../deliveries/delivery-paths.ts";
import { invoicePath } from "../invoices/invoice-paths.ts";
import { portalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { DASHBOARD_PATH, type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.scheduled.order";
import { scheduledPath } from "./scheduled-paths.ts";

const TITLE = "Scheduled Reward";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const SEND_AT_LABEL = "New send time (Sydney time)";

export async function loader({ context, params }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const orderId = String(idFromParam(params.orderId));
  const order = await client.call((api) => api.RewardOrders[":orderId"].$get({ param: { orderId } }));
  if (!order.ok) throw data(order.detail, { status: order.status });
  // The date-time field's bounds, as Sydney wall-clock times (the browser checks them too).
  const now = Date.now();
  return {
    order: order.data,
    supportEmail: services(context).config.supportEmail,
    bounds: {
      min: sydneyWallTime(new Date(now + SCHEDULE_MIN_AHEAD_MS + 60_000)),
      max: sydneyWallTime(new Date(now + SCHEDULE_MAX_AHEAD_MS)),
    },
  };
}

const rescheduleFormSchema = z.object({
  intent: z.literal("reschedule"),
  sendAt: z
    .string({ error: SCHEDULE_DETAILS.required })
    .trim()
    .min(1, SCHEDULE_DETAILS.required)
    .refine((text) => sydneyWallTimeToInstant(text) !== null, SCHEDULE_DETAILS.invalid),
});
const cancelFormSchema = z.object({ intent: z.literal("cancel") });

export async function action({ context, request, params }: Route.ActionArgs) {
  const { api: client } = requireOnboardedUser(context);
  const orderId = idFromParam(params.orderId);
  const form = await readPostedForm(context, request);
  switch (form.intent) {
    case "cancel": {
      const { submission } = form.parse(cancelFormSchema);
      if (submission.status !== "success") return unknownIntent();
      const cancelled = await client.call((api) =>
        api.RewardOrders[":orderId"].cancel.$post({ param: { orderId: String(orderId) } }),
      );
      return redirectWithToast(
        context,
        scheduledPath(orderId),
        cancelled.ok
          ? {
              type: "success",
              title: "Reward cancelled",
              description: cancelled.data.refundedAt
                ? `${formatDollars(cancelled.data.totalCents)} has been refunded to ${cancelled.data.paidFrom === "balance" ? "the company balance" : "the card"}. You have been emailed.`
                : "The refund is on its way; you will be emailed once it is made.",
            }
          : { type: "destructive", title: cancelled.detail },
      );
    }
    case "reschedule": {
      const { submission } = form.parse(rescheduleFormSchema);
      if (submission.status !== "success") {
        return replyInvalid(submission);
      }
      const instant = sydneyWallTimeToInstant(submission.value.sendAt) as Date;
      const moved = await client.call((api) =>
        api.RewardOrders[":orderId"].schedule.$put({
          param: { orderId: String(orderId) },
          json: { sendAt: instant.toISOString() },
        }),
      );
      if (!moved.ok) {
        const status = moved.status;
        return status === 400
          ? replyFields(submission, { sendAt: [moved.detail] }, { status })
          : replyBanner(submission, moved.detail, { status });
      }
      return redirectWithToast(context, scheduledPath(orderId), {
        type: "success",
        title: "Reward rescheduled",
        description: `It will be sent on ${formatSendTime(instant)}.`,
      });
    }
    default:
      return unknownIntent();
  }
}

const STATE_CLASSES = {
  released: "bg-emerald-100 text-emerald-900",
  scheduled: "bg-sky-100 text-sky-900",
  cancelled: "bg-slate-200 text-slate-800",
} as const;

export default function ScheduledRewardPage({ loaderData, actionData }: Route.ComponentProps) {
  const { order, bounds, supportEmail } = loaderData;
  const [searchParams] = useSearchParams();
  const confirmingCancel = order.state === "scheduled" && searchParams.has("cancel");
  const label = historyStateLabel({ state: order.state, refunded: order.refundedAt !== null });

  return (
    <div className="mx-auto max-w-3xl space-y-6 px-4 py-8 md:px-6 md:py-12">
      <Link to={DASHBOARD_PATH} className={textLinkClass}>
        <span aria-hidden="true">←</span> Back to the dashboard
      </Link>
      <div className="space-y-2">
        <h2 className="break-words text-2xl font-bold text-brand-800">{order.rewardName}</h2>
        <p>
          <span
            className={`inline-block rounded-full px-2.5 py-0.5 text-sm font-semibold ${STATE_CLASSES[order.state]}`}
          >
            {label}
          </span>
        </p>
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-slate-800">
          {order.sendAt ? (
            <>
              <dt className="font-semibold">{order.state === "scheduled" ? "Sends on" : "Was to send on"}</dt>
              <dd>{formatSendTime(order.sendAt)}</dd>
            </>
          ) : null}
          <dt className="font-semibold">Recipients</dt>
          <dd>{order.recipientCount.toLocaleString("en-AU")}</dd>
          <dt className="font-semibold">Reward Dollars</dt>
          <dd className="tabular-nums">{formatDollars(order.rewardsCents)}</dd>
          <dt className="font-semibold">Paid</dt>
          <dd className="tabular-nums">
            {formatDollars(order.totalCents)}
            {order.invoiceNumber ? (
              <>
                {" "}
                <Link to={invoicePath(order.invoiceNumber)} className="font-semibold text-brand-700 underline">
                  Tax invoice {order.invoiceNumber}
                </Link>
              </>
            ) : null}
          </dd>
          {order.state === "cancelled" ? (
            <>
              {order.cancelledForRemoved?.length ? (
                <>
                  <dt className="font-semibold">Why cancelled</dt>
                  <dd>
                    {order.cancelledForRemoved.join(", ")} {order.cancelledForRemoved.length === 1 ? "was" : "were"}{" "}
                    removed from the team after it was paid, so it was not sent and is refunded in full.
                  </dd>
                </>
              ) : null}
              <dt className="font-semibold">Refund</dt>
              <dd>
                {order.refundedAt ? (
                  `${formatDollars(order.totalCents)} refunded on ${formatSendTime(order.refundedAt)}`
                ) : order.refundFailedAt ? (
                  <>
                    The refund failed. Please contact support at{" "}
                    <a href={`mailto:${supportEmail}`} className="font-semibold text-brand-700 underline">
                      {supportEmail}
                    </a>{" "}
                    and quote order {order.orderId}.
                  </>
                ) : (
                  "On its way: the payer is emailed once it is made."
                )}
              </dd>
            </>
          ) : null}
        </dl>
        {order.rewardReleaseId !== null ? (
          <Link to={releasePath(order.rewardReleaseId)} className={textLinkClass}>
            See who received it
          </Link>
        ) : null}
      </div>

      {order.state === "scheduled" ? (
        confirmingCancel ? (
          <CancelConfirmation orderId={order.orderId} totalCents={order.totalCents} />
        ) : (
          <>
            <RescheduleForm
              orderId={order.orderId}
              sendAt={order.sendAt}
              bounds={bounds}
              reply={actionData && "result" in actionData ? actionData : undefined}
            />
            <section
              aria-labelledby="cancel-heading"
              className="rounded-lg border border-slate-200 bg-white p-4 sm:p-6"
            >
              <h3 id="cancel-heading" className="text-lg font-bold text-brand-800">
                Cancel this reward
              </h3>
              <p className="mt-1 text-slate-700">
                No one is emailed, and the payment of {formatDollars(order.totalCents)} is refunded in full.
              </p>
              <Link to="?cancel" className={`${outlineButtonClass} mt-3`}>
                Cancel and refund…
              </Link>
            </section>
          </>
        )
      ) : null}
    </div>
  );
}

function RescheduleForm({
  orderId,
  sendAt,
  bounds,
  reply,
}: {
  orderId: number;
  sendAt: string | null;
  bounds: { min: string; max: string };
  reply?: FormReply;
}) {
  const action = scheduledPath(orderId);
  const { onSubmit, busy } = useFormSubmit(action);
  const [form, fields] = useSchemaForm(rescheduleFormSchema, {
    id: "reschedule-form",
    lastResult: reply?.result,
    defaultValue: { sendAt: sendAt ? sydneyWallTime(sendAt) : "" },
    constraint: { sendAt: { required: true, min: bounds.min, max: bounds.max } },
    onSubmit,
  });
  return (
    <Form
      method="post"
      action={action}
      {...getFormProps(form)}
      aria-labelledby="reschedule-heading"
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4 sm:p-6"
    >
      <h3 id="reschedule-heading" className="text-lg font-bold text-brand-800">
        Choose another time
      </h3>
      <HiddenFormInputs intent="reschedule" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} />
      <TextField
        field={fields.sendAt}
        type="datetime-local"
        label={SEND_AT_LABEL}
        help="Australia/Sydney time, from 10 minutes to 90 days from now."
      />
      <SubmitButton busy={busy}>Reschedule</SubmitButton>
    </Form>
  );
}

function CancelConfirmation({ orderId, totalCents }: { orderId: number; totalCents: number }) {
  const action = scheduledPath(orderId);
  const { busy } = useFormSubmit(action);
  return (
    <section
      aria-labelledby="confirm-cancel-heading"
      className="space-y-3 rounded-lg border border-red-300 bg-red-50 p-4 sm:p-6"
    >
      <h3 id="confirm-cancel-heading" className="text-lg font-bold text-red-900">
        Cancel this reward and refund {formatDollars(totalCents)}?
      </h3>
      <p className="text-slate-800">No recipient is emailed. This cannot be undone.</p>
      <div className="flex flex-wrap gap-3">
        <Form method="post" action={action}>
          <HiddenFormInputs intent="cancel" />
          <button type="submit" disabled={busy} className={dangerButtonClass}>
            Yes, cancel and refund
          </button>
        </Form>
        <Link to={action} className={outlineButtonClass}>
          Keep it scheduled
        </Link>
      </div>
    </section>
  );
}
