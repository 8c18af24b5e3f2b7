// Settings › Balance › a top-up's card step (ADR 0043), at /portal/settings/balance/top-ups/{id}:
// the address the Balance page's "Top up" goes to with the simulated processor, and the one Stripe
// Checkout returns to. Its loader checks the payment (POST /api/Balance/TopUps/{id}/check, which
// credits the balance exactly once when it succeeded): paid → back to the Balance page with a
// toast and the new balance. Otherwise, with the simulated processor (docs/requirements.md §D6), it shows the
// card form (4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined with the processor's
// message, 4000 0025 0000 3155 asks for the authentication step, shown here with Complete and
// Fail); with Stripe, what became of the Checkout and the way back. Plain form posts; the address
// holds only the top-up's id (the API finds its payment for the signed-in Owner), no secret.

import { data, Form, href, Link, redirect } from "react-router";
import { parseId } from "../../../core/fields.ts";
import { formatDollars } from "../../../core/money.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import type { TopUpCheck } from "../../../modules/balance/schema.ts";
import { topUpCardSchema, topUpPostSchema } from "../../../modules/orders/card-form.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, formConstraint } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { outlineButtonClass, primaryButtonClass } from "../../ui/buttons.ts";
import { FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { normalisedCard } from "../payment/payment.server.ts";
import { CardInputs } from "../payment/payment-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.balance.top-up";
import { card, sectionHeading } from "./settings-styles.ts";

const TITLE = "Top up the balance";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const BALANCE_PATH = href("/portal/settings/balance");
const pagePath = (topUpId: number) => href("/portal/settings/balance/top-ups/:topUpId", { topUpId: String(topUpId) });

/** Never echoed back into a re-rendered form. */
const CARD_SECRET_FIELDS = ["cardNumber", "cvc"] as const;

const SHOWN = inApiWords("owner-only", "top-up-not-found", "top-up-other-processor", "processor-unavailable");

function topUpIdOf(params: { topUpId?: string }): number {
  const id = parseId(params.topUpId);
  if (id === null) throw data("This top-up could not be found.", { status: 404 });
  return id;
}

/** Back to the Balance page, with the toast and the new balance. */
function paidRedirect(context: Route.LoaderArgs["context"], check: Pick<TopUpCheck, "amount" | "balance">) {
  return redirectWithToast(context, BALANCE_PATH, {
    type: "success",
    title: `Your balance was topped up by ${formatDollars(check.amount)}.`,
    description: `Your balance is now ${formatDollars(check.balance)}.`,
  });
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const topUpId = topUpIdOf(params);
  const { api: client } = portalUser(context);
  const checked = await client.call((api) => api.Balance.TopUps[":id"].check.$post({ param: { id: String(topUpId) } }));
  if (!checked.ok) {
    if (checked.status === 404) throw data("This top-up could not be found.", { status: 404 });
    if (checked.status === 403) throw data(DETAILS.ownerOnly, { status: 403 });
    services(context).logger.warn({ status: checked.status, detail: checked.detail }, "top-up check failed");
    throw data(checked.detail, { status: checked.status >= 500 ? 503 : 500 });
  }
  const check = checked.data as TopUpCheck;
  if (check.status === "succeeded") throw paidRedirect(context, check);
  return { ...check, processor: services(context).config.payments.kind };
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  // The form first (its CSRF check refuses a cross-site post before anything else is looked at).
  const { submission } = (await readPostedForm(context, request)).parse(topUpPostSchema);
  const topUpId = topUpIdOf(params);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: CARD_SECRET_FIELDS });
  const value = submission.value;
  const failure = (status: number, detail: string, errors?: Record<string, string[]>) =>
    replyFailure(
      submission,
      { ok: false, status, detail, ...(errors ? { errors } : {}) },
      { shown: "any", hideFields: CARD_SECRET_FIELDS },
    );

  switch (value.intent) {
    case "authenticate": {
      const answered = await client.call((api) =>
        api.Balance.TopUps[":id"]["authenticate-simulated"].$post({
          param: { id: String(topUpId) },
          json: { outcome: value.outcome },
        }),
      );
      if (answered.ok && answered.data.status === "succeeded") throw paidRedirect(context, answered.data.check);
      // Failed or not recorded: the page reads the top-up's state again and says what it is.
      throw redirect(pagePath(topUpId));
    }
    case "pay": {
      const paid = await client.call((api) =>
        api.Balance.TopUps[":id"]["pay-simulated"].$post({
          param: { id: String(topUpId) },
          json: normalisedCard(value),
        }),
      );
      if (!paid.ok) {
        return replyFailure(submission, paid, { shown: SHOWN, hideFields: CARD_SECRET_FIELDS });
      }
      const answer = paid.data;
      if (answer.status === "succeeded") throw paidRedirect(context, answer.check);
      if (answer.status === "requires_action") throw redirect(pagePath(topUpId));
      const message = answer.message || "There was an error with your payment";
      // A declined card is 402, as on the Review page; a field the processor refused is next to it.
      if (answer.field && answer.field !== "cardNumber") return failure(400, message, { [answer.field]: [message] });
      return failure(402, message);
    }
    default:
      return unknownIntent();
  }
}

export default function TopUpPage({ loaderData, actionData }: Route.ComponentProps) {
  const check = loaderData;
  const amount = formatDollars(check.amount);
  const reply = actionData as FormReply | undefined;
  const simulated = check.processor === "simulated";
  return (
    <div className="max-w-lg space-y-6">
      <section aria-labelledby="top-up-heading" className={card}>
        <h2 id="top-up-heading" className={sectionHeading}>
          {check.status === "requires_action" && simulated ? "Authenticate payment" : `Top up ${amount}`}
        </h2>
        {check.status === "requires_action" && simulated ? (
          <Authentication amount={amount} path={pagePath(check.topUpId)} />
        ) : check.status === "processing" ? (
          <p className="mt-2 text-slate-800" role="status">
            Your payment of {amount} is being processed.{" "}
            <Link to={pagePath(check.topUpId)} className="font-semibold text-brand-700 underline">
              Check again
            </Link>
          </p>
        ) : simulated ? (
          <CardForm check={check} reply={reply} />
        ) : (
          <div className="mt-2 space-y-2 text-slate-800" role="status">
            <p>This top-up of {amount} has not been paid.</p>
            {check.message ? <p>{check.message}</p> : null}
          </div>
        )}
      </section>
      <p>
        <Link
          to={BALANCE_PATH}
          className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline underline-offset-2"
        >
          <span aria-hidden="true">←</span>&nbsp;Back to the balance
        </Link>
      </p>
    </div>
  );
}

function CardForm({ check, reply }: { check: TopUpCheck & { processor: string }; reply?: FormReply }) {
  const path = pagePath(check.topUpId);
  const { onSubmit, busy } = useFormSubmit(path);
  const [form, fields] = useSchemaForm(topUpCardSchema, {
    id: `top-up-card-${check.topUpId}`,
    lastResult: reply?.result,
    // The card form's schema, the one the action's (topUpPostSchema) takes for a payment.
    constraint: formConstraint(topUpCardSchema),
    onSubmit,
  });
  // The last decline as the API recorded it, until this form has its own answer.
  const messages = form.errors ?? (check.status === "failed" && check.message ? [check.message] : []);
  return (
    <Form
      method="post"
      action={path}
      id={form.id}
      onSubmit={form.onSubmit}
      noValidate
      className="mt-4 space-y-4"
      aria-label="Card payment"
    >
      <HiddenFormInputs intent="pay" />
      <p className="text-slate-700">
        Pay {formatDollars(check.amount)} by card; it is added to your balance at once. No fee is charged on a top-up.
      </p>
      <FormAlert messages={messages} focusKey={reply} focus />
      <CardInputs fields={fields} />
      <p className="text-sm text-slate-600">
        Test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0025 0000 3155 asks for an
        authentication step; any future expiry and any CVC.
      </p>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Pay {formatDollars(check.amount)}
      </SubmitButton>
    </Form>
  );
}

function Authentication({ amount, path }: { amount: string; path: string }) {
  const { busy } = useFormSubmit(path);
  return (
    <>
      <p className="mt-3 text-slate-800">
        Your card issuer asks you to confirm this payment of <strong className="tabular-nums">{amount}</strong> into
        your balance.
      </p>
      <p className="mt-2 text-sm text-slate-600">
        This is the test card processor&rsquo;s stand-in for your bank&rsquo;s security check.
      </p>
      <Form method="post" action={path} className="mt-6 flex flex-wrap gap-3" aria-label="Authenticate payment">
        <HiddenFormInputs intent="authenticate" />
        <button type="submit" name="outcome" value="complete" disabled={busy} className={primaryButtonClass}>
          Complete
        </button>
        <button type="submit" name="outcome" value="fail" disabled={busy} className={outlineButtonClass}>
          Fail
        </button>
      </Form>
    </>
  );
}
