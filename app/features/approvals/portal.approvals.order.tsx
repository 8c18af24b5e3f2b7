// An approval request (ADR 0022 §6), the page the Owners' email links to. An Owner sees the frozen
// snapshot (recipients, totals), who asked and when, and decides: Approve, or Decline with a
// reason (required). Once approved, an Owner may pay it here with the card, at the snapshot's own
// total (POST /api/Approvals/:orderId/payment-intent, never a new snapshot); the requester sees
// the state and pays from Review & Pay. One action, switched on the form's intent; each form
// redirects on success and shows the API's refusal otherwise (e.g. the draft changed since).

import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, href, Link } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import {
  type ApprovalDetail,
  approvalDecisionFormSchema,
  DECLINE_REASON_MAX,
  overBudgetText,
} from "../../../modules/approvals/schema.ts";
import { simulatedPaySchema } from "../../../modules/orders/card-form.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyBanner, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { idFromParam } from "../../lib/route-ids.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { ApprovalStateBox, formatWhen } from "../../ui/approval-view.tsx";
import { FormAlert, HiddenFormInputs, SubmitButton, TextAreaField, useFormSubmit } from "../../ui/form-fields.tsx";
import { CARD_SECRET_FIELDS, followSimulatedCard, normalisedCard } from "../payment/payment.server.ts";
import { type CardFields, PAY_INTENTS, PAYMENT_TEXT, payButtonText, REVIEW_PATH } from "../payment/payment.ts";
import { CardInputs } from "../payment/payment-fields.tsx";
import { ReviewCostSummary } from "../payment/reward-review-summary.tsx";
import { portalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { DASHBOARD_PATH, type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.approvals.order";

const TITLE = "Approval Request";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

/** The approval's refusals (ADR 0022 §6), the decline reason's (the request's schema), and a payment gone stale. */
const SHOWN = inApiWords(
  "approval-awaiting",
  "approval-declined",
  "changed-since-approval",
  "approval-not-needed",
  "declined-again",
  "already-decided",
  "request-superseded",
  "draft-changed-since-request",
  "own-request",
  "already-paid",
  "paid-another-way",
  "invalid-request",
  "owner-only",
  "payment-stale",
);
/** Approving an API order the company's balance cannot cover: its words name both amounts (ADR 0044). */
const SHOWN_DECISION = { ...SHOWN, ...inApiWords("balance-short") };

type Intent = "approve" | "decline" | "pay";
interface ApprovalReply extends FormReply {
  intent: Intent;
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const orderId = idFromParam(params.orderId);
  const approval = await client.call((api) => api.Approvals[":orderId"].$get({ param: { orderId: String(orderId) } }));
  if (!approval.ok) throw data(approval.detail, { status: approval.status });
  const me = await client.call((api) => api.Users.MyDetails.$get());
  const isOwner = me.ok && me.data.managerRole === "owner";
  return { approval: approval.data, isOwner, simulated: services(context).config.payments.kind !== "stripe" };
}

const path = (orderId: number) => href("/portal/approvals/:orderId", { orderId: String(orderId) });

export async function action({ context, request, params }: Route.ActionArgs) {
  const { api: client } = requireOnboardedUser(context);
  const orderId = idFromParam(params.orderId);
  const form = await readPostedForm(context, request);
  const intent = form.intent;
  const reply = (result: ReturnType<typeof replyInvalid>, which: Intent) =>
    data<ApprovalReply>({ ...result.data, intent: which }, { status: result.init?.status ?? 400 });

  switch (intent) {
    case PAY_INTENTS.pay: {
      const { submission } = form.parse(simulatedPaySchema);
      if (submission.status !== "success")
        return reply(replyInvalid(submission, false, { hideFields: CARD_SECRET_FIELDS }), "pay");
      const created = await client.call((api) =>
        api.Approvals[":orderId"]["payment-intent"].$post({ param: { orderId: String(orderId) } }),
      );
      if (!created.ok)
        return reply(replyFailure(submission, created, { shown: SHOWN, hideFields: CARD_SECRET_FIELDS }), "pay");
      const { paymentIntentId, clientSecret } = created.data;
      const confirmed = await client.call((api) =>
        api.StripePayment["confirm-simulated-payment"].$post({
          json: { paymentIntent: paymentIntentId, clientSecret, ...normalisedCard(submission.value) },
        }),
      );
      if (!confirmed.ok) {
        return reply(replyFailure(submission, confirmed, { shown: SHOWN, hideFields: CARD_SECRET_FIELDS }), "pay");
      }
      const outcome = confirmed.data as typeof confirmed.data & { status: string; message?: string };
      followSimulatedCard(created.data, outcome.status);
      const message = outcome.message || PAYMENT_TEXT.paymentError;
      return reply(replyBanner(submission, message, { status: 402, hideFields: CARD_SECRET_FIELDS }), "pay");
    }
    case "approve":
    case "decline": {
      const { submission } = form.parse(approvalDecisionFormSchema);
      const which: Intent = intent === "decline" ? "decline" : "approve";
      if (submission.status !== "success") return reply(replyInvalid(submission), which);
      const value = submission.value;
      const param = { orderId: String(orderId) };
      const done =
        value.intent === "approve"
          ? await client.call((api) => api.Approvals[":orderId"].approve.$post({ param }))
          : await client.call((api) =>
              api.Approvals[":orderId"].decline.$post({ param, json: { reason: value.reason } }),
            );
      if (!done.ok) return reply(replyFailure(submission, done, { shown: SHOWN_DECISION }), which);
      // A system's order has no requester to email: approving pays it from the balance (ADR 0044).
      const decided = await client.call((api) => api.Approvals[":orderId"].$get({ param }));
      const viaApiKey = decided.ok && decided.data.viaApiKey;
      return redirectWithToast(context, path(orderId), {
        type: "success",
        title: value.intent === "approve" ? "Request approved" : "Request declined",
        description: !viaApiKey
          ? "The requester has been emailed."
          : value.intent === "approve"
            ? "It was paid from the company balance and sent."
            : "Nothing was charged to the company balance.",
      });
    }
    default:
      return unknownIntent();
  }
}

export default function ApprovalPage({ loaderData, actionData }: Route.ComponentProps) {
  const { approval, isOwner, simulated } = loaderData;
  const replyFor = (intent: Intent) => (actionData?.intent === intent ? actionData : undefined);
  const canDecide = isOwner && !approval.isRequester && approval.state === "requested";
  const ownerPays = isOwner && approval.payable && simulated;

  return (
    <div className="mx-auto max-w-6xl space-y-6 px-4 py-8 md:px-6 md:py-12">
      <Link
        to={DASHBOARD_PATH}
        className="inline-flex min-h-11 items-center gap-1 font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        <span aria-hidden="true">←</span> {PAYMENT_TEXT.backToDashboard}
      </Link>
      <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
        <div className="space-y-6">
          <div>
            <h2 className="break-words text-2xl font-bold text-brand-800">{approval.rewardName}</h2>
            <p className="mt-1 text-slate-700 [overflow-wrap:anywhere]">
              Requested by {approval.requestedBy.name} ({approval.requestedBy.email}) on{" "}
              {formatWhen(approval.requestedAt)}
            </p>
            {approval.overBudgetCents !== null ? (
              // Why it needs approval when it is a budget (ADR 0034), whatever the threshold.
              <p
                className="mt-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 font-semibold text-amber-900"
                data-testid="over-budget"
              >
                {overBudgetText(approval.overBudgetCents)}
              </p>
            ) : null}
          </div>
          <ApprovalStateBox approval={approval} />
          <SnapshotLines approval={approval} />
          <ReviewCostSummary costs={approval} />
        </div>

        <section
          aria-labelledby="decision-heading"
          className="h-fit space-y-6 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
        >
          <h2 id="decision-heading" className="text-lg font-bold text-brand-800">
            {canDecide ? "Your decision" : ownerPays ? "Card Payment" : "Status"}
          </h2>
          {canDecide ? (
            <>
              <ApproveForm orderId={approval.orderId} reply={replyFor("approve")} stale={approval.draftChanged} />
              <DeclineForm orderId={approval.orderId} reply={replyFor("decline")} />
            </>
          ) : ownerPays ? (
            <OwnerPayForm approval={approval} reply={replyFor("pay")} />
          ) : (
            <StatusNext approval={approval} isOwner={isOwner} simulated={simulated} />
          )}
        </section>
      </div>
    </div>
  );
}

function SnapshotLines({ approval }: { approval: ApprovalDetail }) {
  const more = approval.recipientCount - approval.lines.length;
  return (
    <div>
      <h2 id="approval-recipients-heading" className="text-lg font-bold text-brand-800">
        Recipients ({approval.recipientCount.toLocaleString("en-AU")})
      </h2>
      <section
        aria-labelledby="approval-recipients-heading"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
        className="mt-2 max-h-80 overflow-y-auto rounded-md border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        <ul className="divide-y divide-slate-100">
          {approval.lines.map((line) => (
            <li key={line.email} className="flex flex-wrap justify-between gap-x-4 px-3 py-2 text-slate-800">
              <span className="break-words">
                {line.name} <span className="text-sm text-slate-600">({line.email})</span>
              </span>
              <span className="tabular-nums">{formatDollars(line.amountCents)}</span>
            </li>
          ))}
        </ul>
      </section>
      {more > 0 ? (
        <p className="mt-2 text-sm text-slate-700">
          and {more.toLocaleString("en-AU")} more {more === 1 ? "recipient" : "recipients"}
        </p>
      ) : null}
    </div>
  );
}

function ApproveForm({ orderId, reply, stale }: { orderId: number; reply?: ApprovalReply; stale: boolean }) {
  const action = path(orderId);
  const { busy } = useFormSubmit(action);
  return (
    <Form method="post" action={action} aria-label="Approve" className="space-y-3">
      <HiddenFormInputs intent="approve" />
      <FormAlert messages={reply?.result.error?.[""] ?? []} focusKey={reply} />
      <p className="text-slate-700">
        Approving lets this exact reward list be paid, by the requester or by an Owner.
        {stale ? " The requester has changed the list since asking, so it cannot be approved." : ""}
      </p>
      <SubmitButton busy={busy} className="w-full">
        Approve
      </SubmitButton>
    </Form>
  );
}

function DeclineForm({ orderId, reply }: { orderId: number; reply?: ApprovalReply }) {
  const action = path(orderId);
  const { onSubmit, busy } = useFormSubmit(action);
  const [form, fields] = useSchemaForm(approvalDecisionFormSchema, {
    id: "decline-form",
    lastResult: reply?.result,
    constraint: { reason: { required: true, maxLength: DECLINE_REASON_MAX } },
    onSubmit,
  });
  return (
    <Form
      method="post"
      action={action}
      {...getFormProps(form)}
      aria-label="Decline"
      className="space-y-3 border-t border-slate-200 pt-4"
    >
      <HiddenFormInputs intent="decline" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <TextAreaField field={fields.reason} label="Reason for declining" rows={3} />
      <button
        type="submit"
        disabled={busy}
        className="inline-flex min-h-11 w-full items-center justify-center rounded-md border border-red-700 bg-white px-6 py-2 font-semibold text-red-800 shadow-sm hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed disabled:opacity-60"
      >
        Decline
      </button>
    </Form>
  );
}

function OwnerPayForm({ approval, reply }: { approval: ApprovalDetail; reply?: ApprovalReply }) {
  const action = path(approval.orderId);
  const { onSubmit, busy } = useFormSubmit(action);
  // The Review page's card form, with the approved order's name and total in hidden inputs.
  const [form, fields] = useForm<CardFields, unknown>({
    id: "approval-payment-form",
    lastResult: reply?.result,
    constraint: formConstraint(simulatedPaySchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: simulatedPaySchema }),
    onSubmit,
  });
  return (
    <Form method="post" action={action} {...getFormProps(form)} aria-label="Card payment" className="space-y-4">
      <HiddenFormInputs intent={PAY_INTENTS.pay} />
      <input type="hidden" name="amount" value={approval.totalCents} />
      <input type="hidden" name="rewardName" value={approval.rewardName} />
      <p className="text-slate-700">You are paying for the approved reward list exactly as shown.</p>
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <CardInputs fields={fields} />
      <SubmitButton busy={busy} className="w-full">
        {payButtonText(approval.totalCents)}
      </SubmitButton>
    </Form>
  );
}

function StatusNext({
  approval,
  isOwner,
  simulated,
}: {
  approval: ApprovalDetail;
  isOwner: boolean;
  simulated: boolean;
}) {
  if (
    approval.isRequester &&
    (approval.state === "approved" || approval.state === "declined" || approval.draftChanged)
  ) {
    return (
      <p className="text-slate-700">
        {approval.state === "declined"
          ? "This reward cannot be paid. Change the reward list to request approval again."
          : approval.payable
            ? "Pay for it from Review & Pay."
            : "Request approval again from Review & Pay."}{" "}
        <Link
          to={approval.state === "declined" ? href("/portal/reward-my-team") : REVIEW_PATH}
          className="font-semibold text-brand-700 underline"
        >
          {approval.state === "declined" ? "Edit the reward" : "Go to Review & Pay"}
        </Link>
      </p>
    );
  }
  if (approval.state === "requested") {
    return (
      <p className="text-slate-700">
        {approval.isRequester
          ? "The Owners of your company have been emailed. You can pay once one of them approves."
          : "An Owner decides this request."}
      </p>
    );
  }
  if (approval.payable && isOwner && !simulated) {
    return <p className="text-slate-700">The requester pays for it from Review &amp; Pay.</p>;
  }
  return <p className="text-slate-700">Nothing more to do here.</p>;
}
