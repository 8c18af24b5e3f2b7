// The simulated processor's authentication step (docs/requirements.md §D6: 4000 0025 0000 3155), standing in
// for the bank's 3-D Secure page Stripe would show: 'Authenticate payment' with the amount and
// two buttons, Complete and Fail (plain form posts). Either way the browser returns to
// /portal/payment-confirmation?payment_intent=…, which checks the payment and shows the result.
// The address carries the payment id and its client secret, as Stripe's return address does.
import { data, Form, href, redirect } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { simulatedAuthenticationSchema } from "../../../modules/orders/card-form.ts";
import { services } from "../../context.ts";
import { readPostedForm, unknownIntent } from "../../lib/forms.server.ts";
import { primaryButtonClass } from "../../ui/buttons.ts";
import { CsrfInput, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { portalUser, requireOnboardedUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.payment-authentication";
import { AUTHENTICATION_PATH, CONFIRMATION_PATH, dollarsToCents, REVIEW_PATH } from "./payment.ts";

const TITLE = "Authenticate payment";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

function paymentOf(url: URL) {
  const paymentIntent = url.searchParams.get("payment_intent")?.trim() ?? "";
  const clientSecret = url.searchParams.get("payment_intent_client_secret")?.trim() ?? "";
  if (!paymentIntent || !clientSecret || paymentIntent.length > 255 || clientSecret.length > 255) {
    throw redirect(href("/error"));
  }
  return { paymentIntent, clientSecret };
}

function confirmationHref(paymentIntent: string) {
  return `${CONFIRMATION_PATH}?${new URLSearchParams({ payment_intent: paymentIntent })}`;
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const payment = paymentOf(new URL(request.url));
  const { api: client } = portalUser(context);
  const info = await client.call((api) => api.StripePayment["get-simulated-payment"].$post({ json: payment }));
  if (!info.ok) {
    services(context).logger.warn({ status: info.status }, "simulated payment not found for authentication");
    throw data("This payment could not be found.", { status: 404 });
  }
  // Already answered (a reload after Complete or Fail): the confirmation page tells the outcome.
  if (info.data.status !== "requires_action") throw redirect(confirmationHref(payment.paymentIntent));
  return { amountCents: dollarsToCents(info.data.amount), rewardName: info.data.rewardName };
}

export async function action({ context, request }: Route.ActionArgs) {
  const payment = paymentOf(new URL(request.url));
  const { api: client } = requireOnboardedUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(simulatedAuthenticationSchema);
  if (submission.status !== "success") return unknownIntent();
  const answered = await client.call((api) =>
    api.StripePayment["complete-simulated-authentication"].$post({
      json: { ...payment, outcome: submission.value.outcome },
    }),
  );
  // A failed authentication is answered with the processor's message; the confirmation page shows
  // 'Payment Failed' from the payment's own state either way.
  if (!answered.ok && answered.status !== 402) {
    services(context).logger.warn({ status: answered.status, detail: answered.detail }, "authentication not recorded");
  }
  throw redirect(confirmationHref(payment.paymentIntent));
}

export default function PaymentAuthentication({ loaderData }: Route.ComponentProps) {
  const { busy } = useFormSubmit(AUTHENTICATION_PATH);
  return (
    <div className="mx-auto max-w-lg px-4 py-12 md:py-16">
      <section
        aria-labelledby="authenticate-heading"
        className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm"
      >
        <h2 id="authenticate-heading" className="text-2xl font-bold text-brand-800">
          Authenticate payment
        </h2>
        <p className="mt-3 text-slate-800">
          Your card issuer asks you to confirm this payment of{" "}
          <strong className="tabular-nums">{formatDollars(loaderData.amountCents)}</strong>
          {loaderData.rewardName ? <> for &lsquo;{loaderData.rewardName}&rsquo;</> : null}.
        </p>
        <p className="mt-2 text-sm text-slate-600">
          This is the test card processor&rsquo;s stand-in for your bank&rsquo;s security check.
        </p>
        {/* Posts to this page's own address (with its query), which the action reads. */}
        <Form method="post" className="mt-6 flex flex-wrap gap-3" aria-label="Authenticate payment">
          <CsrfInput />
          <HoneypotInputs />
          <button type="submit" name="outcome" value="complete" disabled={busy} className={primaryButtonClass}>
            Complete
          </button>
          <button
            type="submit"
            name="outcome"
            value="fail"
            disabled={busy}
            className="inline-flex min-h-11 items-center justify-center rounded-md border border-red-700 bg-white px-6 py-2 font-semibold text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:opacity-60"
          >
            Fail
          </button>
        </Form>
        <p className="mt-6 text-sm">
          <a href={REVIEW_PATH} className="font-semibold text-brand-700 underline underline-offset-2">
            Cancel and go back to the review
          </a>
        </p>
      </section>
    </div>
  );
}
