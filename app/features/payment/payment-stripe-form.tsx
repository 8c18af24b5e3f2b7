// The Stripe payment form with JavaScript (docs/requirements.md §D6): Stripe's Payment Element collects the
// card in Stripe's own frame. On submit: the reward name is checked, the Element validates its
// fields (elements.submit), the Review action saves the name and creates the payment for the
// total the page showed (intent 'stripe-intent', answering the client secret), then
// stripe.confirmPayment sends the browser through any authentication to
// /portal/payment-confirmation?payment_intent=…. Errors show the provider's message, else
// 'There was an error with your payment' (docs/requirements.md §S8). Loaded lazily, only when Stripe is configured.
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { loadStripe, type Stripe } from "@stripe/stripe-js";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { useFetcher, useSubmit } from "react-router";
import { CsrfInput, FormAlert, SubmitButton } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { CARD_MESSAGES, PAY_INTENTS, PAYMENT_TEXT, REVIEW_PATH, SAVE_MESSAGE_FIELD } from "./payment.ts";

const stripePromises = new Map<string, Promise<Stripe | null>>();
function stripeFor(publishableKey: string) {
  let promise = stripePromises.get(publishableKey);
  if (!promise) {
    promise = loadStripe(publishableKey);
    stripePromises.set(publishableKey, promise);
  }
  return promise;
}

interface Props {
  formId: string;
  publishableKey: string;
  returnUrl: string;
  totalCents: number;
  payLabel: string;
  serverErrors?: string[];
}

export default function StripePaymentForm(props: Props) {
  return (
    <Elements
      stripe={stripeFor(props.publishableKey)}
      options={{ mode: "payment", amount: props.totalCents, currency: "aud", appearance: { theme: "stripe" } }}
    >
      <StripeForm {...props} />
    </Elements>
  );
}

function StripeForm({ formId, returnUrl, totalCents, payLabel, serverErrors }: Props) {
  const stripe = useStripe();
  const elements = useElements();
  const fetcher = useFetcher<{ clientSecret?: string; result?: { error?: Record<string, string[]> } }>();
  const submit = useSubmit();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const confirmedFor = useRef<string>(undefined);

  // Once the action answered the client secret, confirm the payment with the Element's details.
  useEffect(() => {
    const clientSecret = fetcher.data?.clientSecret;
    if (fetcher.state !== "idle") return;
    if (!clientSecret) {
      if (fetcher.data?.result) {
        const messages = Object.values(fetcher.data.result.error ?? {}).flat();
        setError(messages[0] ?? PAYMENT_TEXT.paymentError);
        setBusy(false);
      }
      return;
    }
    if (!stripe || !elements || confirmedFor.current === clientSecret) return;
    confirmedFor.current = clientSecret;
    void stripe.confirmPayment({ elements, clientSecret, confirmParams: { return_url: returnUrl } }).then((outcome) => {
      // Only reached when the browser was not sent on (an immediate error).
      setError(outcome.error?.message ?? PAYMENT_TEXT.paymentError);
      setBusy(false);
    });
  }, [fetcher.state, fetcher.data, stripe, elements, returnUrl]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    // 'Preview the email' (outside this form, joined by its form attribute) saves the message only.
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    if (submitter?.getAttribute("name") === SAVE_MESSAGE_FIELD) {
      void fetcher.submit(new FormData(form, submitter), { method: "post", action: REVIEW_PATH });
      return;
    }
    // 'Pay from the company balance' (joined the same way) is a navigation: the action redirects
    // to the confirmation, or answers the refusal the page shows.
    if (submitter?.getAttribute("value") === PAY_INTENTS.payOrder) {
      void submit(new FormData(form, submitter), { method: "post", action: REVIEW_PATH });
      return;
    }
    if (busy || !stripe || !elements) return;
    setError(undefined);
    const rewardName = String(new FormData(form).get("rewardName") ?? "").trim();
    if (!rewardName) {
      setError(CARD_MESSAGES.rewardNameRequired);
      return;
    }
    setBusy(true);
    const submitted = await elements.submit();
    if (submitted.error) {
      setError(submitted.error.message ?? PAYMENT_TEXT.paymentError);
      setBusy(false);
      return;
    }
    // The CSRF token, the honeypot and the Reward Name (associated through its form attribute).
    const body = new FormData(form);
    body.set("intent", PAY_INTENTS.stripeIntent);
    body.set("amount", String(totalCents));
    void fetcher.submit(body, { method: "post", action: REVIEW_PATH });
  }

  const messages = error ? [error] : (serverErrors ?? []);
  return (
    <form id={formId} onSubmit={onSubmit} aria-label="Card payment" className="mt-4 space-y-4" noValidate>
      <CsrfInput />
      <HoneypotInputs />
      <FormAlert messages={messages} focusKey={error} focus />
      <PaymentElement />
      <SubmitButton busy={busy} disabled={!stripe || !elements} className="w-full">
        {payLabel}
      </SubmitButton>
    </form>
  );
}
