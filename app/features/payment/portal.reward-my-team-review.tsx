// Reward My Team Review (docs/requirements.md §S2; §S3 summary, reward name, payment intent; §S8 payment errors;
// §D5 money, §D6 payments, §D8 labels). Left: 'Go Back & Edit', the required Reward Name,
// the recipients as 'Full Name ($amount)' (the first 100 and how many more) and the cost summary,
// all computed by the API. Right: the payment form, 'Pay $<total> and Send Emails', and
// 'Sample of Email'.
//
// The simulated processor (the default) is a real HTML form: the action (review-actions.server.ts)
// saves the reward name,
// creates the payment for the total the page showed (the API refuses when the draft changed
// since, and the page shows why), confirms the card, and redirects to the confirmation page, to
// the authentication step (4000 0025 0000 3155) or answers the processor's message. With Stripe
// (STRIPE_SECRET_KEY set), the Payment Element confirms in the browser with JavaScript, and
// without JavaScript the button goes to a Stripe Checkout page; both return to the confirmation page.
//
// The company's prepaid balance (ADR 0043): below
// the card, "Pay $<total> from the company balance" when the balance covers the total, else what it
// holds, how much is short, and a link to Settings → Balance (where an Owner tops up). Its button
// belongs to the payment form (its form attribute) and comes after the card's button, so Enter in
// a field never pays from the balance; each button names its intent, and the action's switch
// takes the one pressed. The server charges the total it computes (modules/balance/balance-payments.server.ts).
//
// Approvals (ADR 0022 §6): a Manager's order at or above the company's threshold has "Request
// approval" where the pay button was; the request freezes the draft for an Owner. While it waits,
// or once declined, the page says so and offers no payment; once approved it shows who approved
// and pays that frozen snapshot (the reward name is part of it, so it is shown, not edited).
//
// A message from the sender (optional, plain text) and the sender's name (the manager's by
// default) go in every recipient's email: saved to the draft with the reward name before any
// payment or approval request, so the order freezes them. 'Preview the email' saves them alone and
// opens the sample page (no JavaScript needed); with JavaScript the sample tooltip saves them too.
// That button comes before the payment form's own on the page, so a hidden copy of the form's
// main button comes before it (DefaultSubmit): Enter in any field pays (or requests approval).
//
// 'Loading rewards...': on a client navigation the loader answers a promise (Suspense shows the
// text while it resolves); a document request awaits it, so the server render has the data.

import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { lazy, Suspense } from "react";
import { Await, Form, href, Link, type ShouldRevalidateFunctionArgs, useNavigation } from "react-router";
import { LIMITS, REWARD_MESSAGE_MAX } from "../../../core/limits.ts";
import { formatDollars } from "../../../core/money.ts";
import type { ApprovalSummary } from "../../../modules/approvals/schema.ts";
import {
  payOrderSchema,
  requestApprovalSchema,
  saveMessageSchema,
  simulatedPaySchema,
  stripePaySchema,
} from "../../../modules/orders/card-form.ts";
import { formatSendTime, sydneyWallTime } from "../../../modules/scheduled-sends/schema.ts";
import { services } from "../../context.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { ApprovalStateBox } from "../../ui/approval-view.tsx";
import { outlineButtonClass, textLinkClass } from "../../ui/buttons.ts";
import { CsrfInput, FormAlert, SubmitButton, TextAreaField, TextField, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.reward-my-team-review";
import { type ApprovalStep, loadReviewWithApproval, type ReviewBalance, type ReviewData } from "./payment.server.ts";
import {
  balanceShortText,
  CARD_LABELS,
  type CardFields,
  CONFIRMATION_PATH,
  DRAFT_PATH,
  PAY_INTENTS,
  PAYMENT_TEXT,
  payButtonText,
  payFromBalanceText,
  REQUEST_APPROVAL_TEXT,
  REVIEW_PATH,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
} from "./payment.ts";
import { EmailSampleTooltip } from "./payment-email-sample.tsx";
import { CardInputs } from "./payment-fields.tsx";
import { reviewAction } from "./review-actions.server.ts";
import { ReviewCostSummary, ReviewRecipients } from "./reward-review-summary.tsx";

const TITLE = "Reward My Team Review";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

// Only loaded in the browser when Stripe is the processor (the simulated form needs no script).
const StripePaymentForm = lazy(() => import("./payment-stripe-form.tsx"));

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api } = portalUser(context);
  const { config, logger } = services(context);
  const review = loadReviewWithApproval(api, (details, message) => logger.warn(details, message));
  // A fetch from the router in the browser (a client navigation) gets the promise and shows
  // 'Loading rewards...'; a document request (JavaScript off, a reload) renders with the data.
  const clientNavigation = request.headers.get("sec-fetch-dest") === "empty";
  return {
    review: clientNavigation ? review : await review,
    payments: paymentsOf(config),
  };
}

function paymentsOf(config: ReturnType<typeof services>["config"]) {
  const { kind, publishableKey } = config.payments;
  return kind === "stripe" && publishableKey
    ? { kind, publishableKey, returnUrl: `${config.appUrl}${CONFIRMATION_PATH}` }
    : { kind: "simulated" as const };
}

export async function action(args: Route.ActionArgs) {
  return reviewAction(args);
}

export function shouldRevalidate({
  formMethod,
  formData,
  actionStatus,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (formData?.get(SAVE_MESSAGE_FIELD) === SAVE_MESSAGE_THEN.stay) return false;
  if (formMethod?.toUpperCase() === "POST" && actionStatus !== undefined && actionStatus >= 400)
    return actionStatus === 409;
  return defaultShouldRevalidate;
}

export default function RewardMyTeamReview({ loaderData, actionData }: Route.ComponentProps) {
  const { review, payments } = loaderData;
  const reply = isFormReply(actionData) ? actionData : undefined;
  const render = (resolved: ReviewWithApproval | null) =>
    resolved ? <ReviewPage review={resolved} payments={payments} reply={reply} /> : <NoRewards />;
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 md:px-6 md:py-12">
      {/* Suspense only around a promise: React's server renderer moves a large finished boundary
          to the end of the stream and reveals it with a script, which a browser without
          JavaScript never runs. */}
      {review instanceof Promise ? (
        <Suspense fallback={<Loading />}>
          <Await resolve={review} errorElement={<NoRewards />}>
            {render}
          </Await>
        </Suspense>
      ) : (
        render(review)
      )}
    </div>
  );
}

type ReviewWithApproval = ReviewData & { approval: ApprovalStep; balance: ReviewBalance | null };

function isFormReply(value: unknown): value is FormReply {
  return typeof value === "object" && value !== null && "result" in value;
}

function Loading() {
  return (
    <p role="status" className="py-16 text-center text-lg text-slate-700">
      {PAYMENT_TEXT.loading}
    </p>
  );
}

function GoBack() {
  return (
    <Link
      to={DRAFT_PATH}
      className="inline-flex min-h-11 items-center gap-1 font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
    >
      <span aria-hidden="true">←</span> {PAYMENT_TEXT.goBack}
    </Link>
  );
}

function NoRewards() {
  return (
    <div className="space-y-4 py-12 text-center">
      <h2 className="text-2xl font-bold text-brand-800">{PAYMENT_TEXT.noRewards}</h2>
      <GoBack />
    </div>
  );
}

const FORM_ID = "payment-form";

function ReviewPage({
  review,
  payments,
  reply,
}: {
  review: ReviewWithApproval;
  payments: ReturnType<typeof paymentsOf>;
  reply?: FormReply;
}) {
  const { onSubmit, busy } = useFormSubmit(REVIEW_PATH);
  // Which button of the payment form is busy: the balance's, or the card's (with JavaScript).
  const navigation = useNavigation();
  const balanceBusy = busy && navigation.formData?.get("intent") === PAY_INTENTS.payOrder;
  const stripe = payments.kind === "stripe";
  // The schema of the post the payment form makes (the review action parses it with the same):
  // an approval request in place of the payment, with either processor, else the processor's own.
  const paySchema =
    review.approval.kind === "request" ? requestApprovalSchema : stripe ? stripePaySchema : simulatedPaySchema;
  // The fields as typed; the value each schema makes of them is the action's (hence `unknown`).
  const [form, fields] = useForm<CardFields, unknown>({
    id: FORM_ID,
    lastResult: reply?.result,
    defaultValue: {
      rewardName: review.rewardName,
      message: review.message,
      senderName: review.senderName,
      sendWhen: review.sendAt ? "later" : "now",
      sendAt: review.sendAt ? sydneyWallTime(review.sendAt) : "",
    },
    // The message and sender are checked once tidied (a line break is one character), so their
    // schemas carry no length the browser could read: their inputs' maxlength is given here.
    constraint: formConstraint(paySchema, {
      message: { required: false, maxLength: REWARD_MESSAGE_MAX },
      senderName: { required: false, maxLength: LIMITS.name },
    }),
    defaultNoValidate: false,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    // 'Preview the email' saves the message and sender alone; the pay button posts the whole form.
    onValidate: ({ formData }) =>
      formData.has(SAVE_MESSAGE_FIELD)
        ? parseWithZod(formData, { schema: saveMessageSchema })
        : formData.get("intent") === PAY_INTENTS.payOrder
          ? parseWithZod(formData, { schema: payOrderSchema })
          : parseWithZod(formData, { schema: paySchema }),
    onSubmit,
  });
  const payLabel = payButtonText(review.totalCents);
  const step = review.approval;
  // The approved snapshot's name is part of what was approved; a waiting or declined one has no form.
  const frozenName = step.kind === "approved" || step.kind === "requested" || step.kind === "declined";
  const payable = step.kind === "none" || step.kind === "approved";
  // What Enter in a field does: the payment form's own button (see DefaultSubmit).
  const defaultIntent = step.kind === "request" ? undefined : stripe ? PAY_INTENTS.checkout : PAY_INTENTS.pay;

  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
      <div className="space-y-6">
        <GoBack />
        {frozenName ? (
          <div>
            <p className="mb-1 text-sm font-semibold text-slate-800">{CARD_LABELS.rewardName}</p>
            <p className="break-words text-lg font-semibold text-slate-900" data-testid="frozen-reward-name">
              {step.order.rewardName}
            </p>
            {/* Posted with the payment form (its id): the name the order was frozen with. */}
            <input type="hidden" name="rewardName" form={FORM_ID} value={step.order.rewardName} />
            <FrozenMessage message={review.message} senderName={review.senderName} sendAt={review.sendAt} />
          </div>
        ) : (
          <>
            <TextField
              field={fields.rewardName}
              label={CARD_LABELS.rewardName}
              placeholder="Reward Name"
              help={PAYMENT_TEXT.rewardNameHelp}
              spellCheck={false}
            />
            <div className="space-y-4 rounded-lg border border-slate-200 bg-white p-4">
              <TextAreaField
                field={fields.message}
                label={CARD_LABELS.message}
                help={PAYMENT_TEXT.messageHelp}
                rows={4}
              />
              <TextField
                field={fields.senderName}
                label={CARD_LABELS.senderName}
                help={PAYMENT_TEXT.senderNameHelp}
                spellCheck={false}
              />
              <SendWhenFields fields={fields} />
              <DefaultSubmit intent={defaultIntent} disabled={busy}>
                {step.kind === "request" ? REQUEST_APPROVAL_TEXT : payLabel}
              </DefaultSubmit>
              {/* Saves the two fields above alone and opens the sample: no payment, no validation of the card. */}
              <button
                type="submit"
                form={FORM_ID}
                name={SAVE_MESSAGE_FIELD}
                value={SAVE_MESSAGE_THEN.preview}
                formNoValidate
                className={outlineButtonClass}
              >
                {PAYMENT_TEXT.previewEmail}
              </button>
            </div>
          </>
        )}
        <ReviewRecipients recipients={review.recipients} total={review.recipientCount} />
        <ReviewCostSummary costs={review} />
      </div>

      <section
        aria-labelledby="payment-heading"
        className="h-fit rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
      >
        <h2 id="payment-heading" className="text-lg font-bold text-brand-800">
          {payable ? "Payment" : "Approval"}
        </h2>
        {step.kind === "approved" ? <ApprovalStateBox approval={step.order} className="mt-4" /> : null}
        {step.kind === "request" ? (
          <RequestApproval
            step={step}
            totalCents={review.totalCents}
            formProps={getFormProps(form)}
            errors={form.errors}
            reply={reply}
            busy={busy}
          />
        ) : step.kind === "requested" || step.kind === "declined" ? (
          <ApprovalWaitOrDeclined kind={step.kind} order={step.order} />
        ) : stripe ? (
          <StripePayment
            review={review}
            payments={payments}
            formProps={getFormProps(form)}
            errors={form.errors}
            payLabel={payLabel}
          />
        ) : (
          <Form
            method="post"
            action={REVIEW_PATH}
            {...getFormProps(form)}
            aria-label="Card payment"
            className="mt-4 space-y-4"
          >
            <CsrfInput />
            <HoneypotInputs />
            <input type="hidden" name="amount" value={review.totalCents} />
            <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
            <CardInputs fields={fields} />
            {/* The intent is the button's: the balance's button posts the same form with its own. */}
            <SubmitButton
              busy={busy && !balanceBusy}
              disabled={balanceBusy}
              name="intent"
              value={PAY_INTENTS.pay}
              className="w-full"
            >
              {payLabel}
            </SubmitButton>
            <p className="text-sm text-slate-600">
              Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0025 0000 3155 asks you to
              authenticate. Any future expiry and any CVC.
            </p>
          </Form>
        )}
        {payable && review.balance ? (
          <BalanceOption balance={review.balance} totalCents={review.totalCents} busy={balanceBusy} disabled={busy} />
        ) : null}
        <div className="mt-4 border-t border-slate-200 pt-3">
          <EmailSampleTooltip formId={frozenName ? undefined : FORM_ID} />
          <p className="text-sm text-slate-600">
            Each recipient receives an email like this with their access code and password.
          </p>
        </div>
      </section>
    </div>
  );
}

/**
 * The payment form's default button. Enter in a text field submits a form with its first submit
 * button in tree order (HTML's implicit submission, with or without JavaScript), and 'Preview the
 * email' (a button of the payment form through its form attribute) comes before the form's own
 * button on the page, so Enter in a card field would save the message and open the sample instead
 * of paying. This copy of the form's main button (same intent; none when requesting approval, whose
 * intent is a hidden input), placed before 'Preview the email', makes Enter do what the visible
 * button does. It is out of sight, out of the tab order and hidden from assistive technology, so
 * the page reads and tabs as before and each button's name stays unique
 * (tests/e2e/payment.spec.ts, "Enter in a card field pays").
 */
function DefaultSubmit({ intent, disabled, children }: { intent?: string; disabled: boolean; children: string }) {
  return (
    <button
      type="submit"
      form={FORM_ID}
      name={intent ? "intent" : undefined}
      value={intent}
      disabled={disabled}
      tabIndex={-1}
      aria-hidden="true"
      className="sr-only"
    >
      {children}
    </button>
  );
}

/**
 * When to send: at once when paid, or at a Sydney date and time (10 minutes to 90 days ahead;
 * the order is paid now and released then). Both controls are always there, so the choice works
 * without JavaScript; the time is only read when "Schedule" is chosen.
 */
function SendWhenFields({ fields }: { fields: ReturnType<typeof useForm<CardFields>>[1] }) {
  const sendWhen = fields.sendWhen;
  const chosen = (sendWhen.value ?? sendWhen.initialValue ?? "now") as string;
  return (
    <fieldset className="space-y-2">
      <legend className="mb-1 text-sm font-semibold text-slate-800">{CARD_LABELS.sendWhen}</legend>
      <div className="flex flex-wrap gap-x-6">
        {(
          [
            ["now", "Send as soon as it is paid"],
            ["later", "Schedule for later"],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="flex min-h-11 items-center gap-2 text-slate-900">
            <input
              type="radio"
              name={sendWhen.name}
              form={FORM_ID}
              value={value}
              defaultChecked={chosen === value}
              className="size-5 accent-brand-700"
            />
            {label}
          </label>
        ))}
      </div>
      <TextField
        field={fields.sendAt}
        type="datetime-local"
        label={CARD_LABELS.sendAt}
        help="Australia/Sydney time, from 10 minutes to 90 days ahead. You pay now; the emails go out then."
      />
    </fieldset>
  );
}

/** The message and sender of a reward waiting for, or given, an Owner's approval: part of what was approved. */
function FrozenMessage({
  message,
  senderName,
  sendAt,
}: {
  message: string;
  senderName: string;
  sendAt: string | null;
}) {
  return (
    <>
      {/* Posted with the payment form like the name: saving the same words and time changes nothing. */}
      <input type="hidden" name="message" form={FORM_ID} value={message} />
      <input type="hidden" name="senderName" form={FORM_ID} value={senderName} />
      <input type="hidden" name="sendWhen" form={FORM_ID} value={sendAt ? "later" : "now"} />
      <input type="hidden" name="sendAt" form={FORM_ID} value={sendAt ? sydneyWallTime(sendAt) : ""} />
      <p className="mb-1 mt-4 text-sm font-semibold text-slate-800">{CARD_LABELS.sendWhen}</p>
      <p className="text-slate-900">{sendAt ? formatSendTime(sendAt) : "As soon as it is paid"}</p>
      <p className="mb-1 mt-4 text-sm font-semibold text-slate-800">{CARD_LABELS.message}</p>
      <p className="whitespace-pre-wrap [overflow-wrap:anywhere] text-slate-900" data-testid="frozen-message">
        {message || "No message"}
      </p>
      <p className="mb-1 mt-4 text-sm font-semibold text-slate-800">{CARD_LABELS.senderName}</p>
      <p className="[overflow-wrap:anywhere] text-slate-900">{senderName}</p>
    </>
  );
}

function StripePayment({
  review,
  payments,
  formProps,
  errors,
  payLabel,
}: {
  review: ReviewData;
  payments: { kind: "stripe"; publishableKey: string; returnUrl: string };
  formProps: ReturnType<typeof getFormProps>;
  errors?: string[];
  payLabel: string;
}) {
  const hydrated = useHydrated();
  const fallback = (
    <Form method="post" action={REVIEW_PATH} {...formProps} aria-label="Card payment" className="mt-4 space-y-4">
      <CsrfInput />
      <HoneypotInputs />
      <input type="hidden" name="amount" value={review.totalCents} />
      <FormAlert messages={errors ?? []} />
      <p className="text-sm text-slate-700">You will enter your card details on Stripe's secure payment page.</p>
      <SubmitButton name="intent" value={PAY_INTENTS.checkout} className="w-full">
        {payLabel}
      </SubmitButton>
    </Form>
  );
  // The server render (and a browser without JavaScript) gets the Checkout form; once hydrated,
  // the Payment Element replaces it (no Suspense boundary in the server's stream, see above).
  if (!hydrated) return fallback;
  return (
    <Suspense fallback={fallback}>
      <StripePaymentForm
        formId={FORM_ID}
        publishableKey={payments.publishableKey}
        returnUrl={payments.returnUrl}
        totalCents={review.totalCents}
        payLabel={payLabel}
        serverErrors={errors}
      />
    </Suspense>
  );
}

/**
 * Paying from the company balance, below the card: a button of the payment form (its form
 * attribute; after the card's button, so never the form's default) when the balance covers the
 * total, else what the balance holds, the shortfall and the way to Settings → Balance.
 */
function BalanceOption({
  balance,
  totalCents,
  busy,
  disabled,
}: {
  balance: ReviewBalance;
  totalCents: number;
  busy: boolean;
  disabled: boolean;
}) {
  const covers = balance.balanceCents >= totalCents;
  return (
    <div className="mt-6 space-y-3 border-t border-slate-200 pt-4" data-testid="balance-option">
      <h3 className="font-bold text-brand-800">{PAYMENT_TEXT.balanceHeading}</h3>
      {covers ? (
        <>
          <p className="text-slate-700">
            Your company balance is {formatDollars(balance.balanceCents)};{" "}
            {formatDollars(balance.balanceCents - totalCents)} stays in it after this order.
          </p>
          {/* formNoValidate: the card's fields are not needed (the action parses the balance's schema). */}
          <SubmitButton
            form={FORM_ID}
            name="intent"
            value={PAY_INTENTS.payOrder}
            formNoValidate
            busy={busy}
            disabled={disabled}
            className="w-full"
          >
            {payFromBalanceText(totalCents)}
          </SubmitButton>
        </>
      ) : (
        <>
          <p className="text-slate-700" data-testid="balance-short">
            {balanceShortText(balance.balanceCents, totalCents)}
          </p>
          <Link to={href("/portal/settings/balance")} className={textLinkClass}>
            {balance.canTopUp ? "Top up the company balance" : "See the company balance (an Owner can top it up)"}
          </Link>
        </>
      )}
    </div>
  );
}

function RequestApproval({
  step,
  totalCents,
  formProps,
  errors,
  reply,
  busy,
}: {
  step: Extract<ApprovalStep, { kind: "request" }>;
  totalCents: number;
  formProps: ReturnType<typeof getFormProps>;
  errors?: string[];
  reply?: FormReply;
  busy: boolean;
}) {
  return (
    <Form method="post" action={REVIEW_PATH} {...formProps} aria-label="Request approval" className="mt-4 space-y-4">
      <CsrfInput />
      <HoneypotInputs />
      <input type="hidden" name="intent" value={PAY_INTENTS.requestApproval} />
      <input type="hidden" name="amount" value={totalCents} />
      {step.earlier ? <ApprovalStateBox approval={step.earlier} /> : null}
      <FormAlert messages={errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <p className="text-slate-700">
        {"overBudgetCents" in step.reason
          ? `These rewards are over your monthly budget by ${formatDollars(step.reason.overBudgetCents)}, so an Owner must approve them before they are paid.`
          : `Rewards of ${formatDollars(step.reason.thresholdCents)} or more need an Owner's approval before they are paid.`}{" "}
        The Owners of your company are emailed; once one approves, you pay for this reward list exactly as it is now.
      </p>
      <SubmitButton busy={busy} className="w-full">
        {REQUEST_APPROVAL_TEXT}
      </SubmitButton>
    </Form>
  );
}

function ApprovalWaitOrDeclined(step: { kind: "requested" | "declined"; order: ApprovalSummary }) {
  const page = href("/portal/approvals/:orderId", { orderId: String(step.order.orderId) });
  return (
    <div className="mt-4 space-y-4">
      <ApprovalStateBox approval={step.order} />
      <p className="text-slate-700">
        {step.kind === "requested"
          ? "The Owners of your company have been emailed. You can pay here once one of them approves."
          : "A declined reward cannot be paid. Change the reward list to request approval again."}
      </p>
      <Link to={page} className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline">
        View the request
      </Link>
    </div>
  );
}
