// Payment Confirmation (docs/requirements.md §S2; §S4 processing → success or failed; §S8 missing payment_intent and
// the check failure; §S9 the 2-second delay). Reached from the Review page, the authentication
// step, Stripe's return (?payment_intent=pi_…) or Stripe Checkout (?payment_intent=cs_…).
//
// The first render says 'Hold tight - Your payment is currently being processed'. Two seconds
// later the payment is checked (POST check-payment-intent, which also releases a paid order,
// exactly once): with JavaScript by a fetcher calling this route's loader with ?check=N; without
// it the page reloads itself to that address (a refresh <meta> inside <noscript> in the head:
// app/ui/noscript-refresh.tsx, asked for by this route's handle), and the loader checks. A
// payment still processing is checked again every 2 seconds, up to MAX_CHECKS times. Reloading
// after success checks again and shows success again; nothing is released twice.

import { useEffect, useRef } from "react";
import { href, Link, redirect, useFetcher } from "react-router";
import { formatSendTime } from "../../../modules/scheduled-sends/schema.ts";
import type { NoscriptRefreshHandle } from "../../ui/noscript-refresh.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.payment-confirmation";
import { type CheckOutcome, checkPayment } from "./payment.server.ts";
import {
  CHECK_DELAY_MS,
  CONFIRMATION_PATH,
  DASHBOARD_PATH,
  MAX_CHECKS,
  PAYMENT_TEXT,
  REVIEW_PATH,
  successText,
} from "./payment.ts";

const TITLE = "Payment Confirmation";
export const handle = {
  title: TITLE,
  // Without JavaScript, a payment still processing is checked again by reloading to the check's address.
  noscriptRefresh: (loaderData) => {
    const data = loaderData as ConfirmationData;
    if (data.outcome.state !== "processing") return null;
    return { seconds: CHECK_DELAY_MS / 1000, url: checkHref(data, data.attempt + 1) };
  },
} satisfies PortalHandle & NoscriptRefreshHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

interface ConfirmationData {
  /** The card payment checked ('' for a balance payment). */
  paymentIntent: string;
  /** The order paid from the company balance (null for a card payment). */
  orderId: number | null;
  /** How many checks this answer has made (0: none yet). */
  attempt: number;
  outcome: CheckOutcome;
}

export async function loader({ context, request }: Route.LoaderArgs): Promise<ConfirmationData> {
  const url = new URL(request.url);
  const { api } = portalUser(context);
  const attempt = Math.min(Math.max(Number.parseInt(url.searchParams.get("check") ?? "0", 10) || 0, 0), MAX_CHECKS);
  const order = url.searchParams.get("order");
  if (order !== null) {
    if (!/^[1-9][0-9]{0,14}$/.test(order)) throw redirect(href("/error"));
    let outcome = await balanceOrderOutcome(api, order);
    if (outcome.state === "processing" && attempt >= MAX_CHECKS) outcome = { state: "failed", message: "" };
    return { paymentIntent: "", orderId: Number(order), attempt, outcome };
  }
  const paymentIntent = url.searchParams.get("payment_intent")?.trim() ?? "";
  if (!paymentIntent || paymentIntent.length > 255) throw redirect(href("/error"));
  if (attempt === 0) return { paymentIntent, orderId: null, attempt, outcome: { state: "processing" } };
  let outcome = await checkPayment(api, paymentIntent);
  if (outcome.state === "processing" && attempt >= MAX_CHECKS) outcome = { state: "failed", message: "" };
  return { paymentIntent, orderId: null, attempt, outcome };
}

/**
 * An order paid from the balance, as the API reads it: paid (released, or scheduled for later);
 * processing while its release is still to happen (the scheduler's pass does it when the
 * Review action's release failed: scheduled-sends.ts); failed when it is not a paid order of the
 * company (the API answers 404 for both).
 */
async function balanceOrderOutcome(api: ReturnType<typeof portalUser>["api"], orderId: string): Promise<CheckOutcome> {
  const read = await api.call((a) => a.RewardOrders[":orderId"].$get({ param: { orderId } }));
  if (!read.ok) return read.status === 404 ? { state: "processing" } : { state: "failed", message: "" };
  const view = read.data;
  if (view.paidFrom !== "balance" || view.cancelledAt) return { state: "failed", message: "" };
  return {
    state: "succeeded",
    amountCents: view.totalCents,
    sendAt: view.releasedAt ? null : view.sendAt,
    paidFrom: "balance",
  };
}

function checkHref(data: Pick<ConfirmationData, "paymentIntent" | "orderId">, attempt: number): string {
  const query: Record<string, string> =
    data.orderId !== null ? { order: String(data.orderId) } : { payment_intent: data.paymentIntent };
  return `${CONFIRMATION_PATH}?${new URLSearchParams({ ...query, check: String(attempt) })}`;
}

export default function PaymentConfirmation({ loaderData }: Route.ComponentProps) {
  const fetcher = useFetcher<ConfirmationData>();
  const latest =
    fetcher.data?.paymentIntent === loaderData.paymentIntent && fetcher.data?.orderId === loaderData.orderId
      ? fetcher.data
      : loaderData;
  const { outcome, attempt, paymentIntent, orderId } = latest;
  const scheduled = useRef(-1);

  // With JavaScript: wait 2 seconds, then check through this route's loader (no page load).
  useEffect(() => {
    if (outcome.state !== "processing" || scheduled.current === attempt) return;
    scheduled.current = attempt;
    const timer = window.setTimeout(
      () => void fetcher.load(checkHref({ paymentIntent, orderId }, attempt + 1)),
      CHECK_DELAY_MS,
    );
    return () => window.clearTimeout(timer);
  }, [outcome.state, attempt, paymentIntent, orderId, fetcher]);

  return (
    <div className="mx-auto max-w-2xl px-4 py-12 md:py-16">
      <div role="status" className="rounded-lg border border-slate-200 bg-white p-6 text-center shadow-sm empty:hidden">
        {outcome.state === "processing" ? <Processing /> : null}
        {outcome.state === "succeeded" ? (
          <Succeeded amountCents={outcome.amountCents} sendAt={outcome.sendAt} paidFrom={outcome.paidFrom} />
        ) : null}
      </div>
      <div role="alert" className="rounded-lg border border-red-700 bg-red-50 p-6 text-center empty:hidden">
        {outcome.state === "failed" ? <Failed message={outcome.message} /> : null}
      </div>
    </div>
  );
}

function Spinner() {
  return (
    <svg className="mx-auto size-10 animate-spin text-brand-700" viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" className="opacity-25" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

function Processing() {
  return (
    <>
      <Spinner />
      <p className="mt-4 text-lg font-semibold text-slate-800">{PAYMENT_TEXT.processing}</p>
    </>
  );
}

const linkButton =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

function Succeeded({
  amountCents,
  sendAt,
  paidFrom,
}: {
  amountCents: number;
  sendAt: string | null;
  paidFrom?: "card" | "balance";
}) {
  return (
    <>
      <h2 className="text-2xl font-bold text-green-800 md:text-3xl">{PAYMENT_TEXT.successTitle}</h2>
      <p className="mt-3 text-slate-800">{successText(amountCents)}</p>
      {paidFrom === "balance" ? (
        <p className="mt-3 text-slate-800" data-testid="paid-from-balance">
          {PAYMENT_TEXT.paidFromBalance}
        </p>
      ) : null}
      {sendAt ? (
        <p className="mt-3 font-semibold text-slate-900" data-testid="scheduled-send">
          The reward emails will be sent on {formatSendTime(sendAt)}. You can change the time or cancel from the
          dashboard until then.
        </p>
      ) : null}
      <Link to={DASHBOARD_PATH} className={`${linkButton} mt-6`}>
        {PAYMENT_TEXT.backToDashboard}
      </Link>
    </>
  );
}

function Failed({ message }: { message: string }) {
  return (
    <>
      <p className="text-lg font-semibold text-red-800">{PAYMENT_TEXT.failed}</p>
      {message ? <p className="mt-2 text-red-800">{message}</p> : null}
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Link to={REVIEW_PATH} className={linkButton}>
          Back to Review
        </Link>
        <Link
          to={DASHBOARD_PATH}
          className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
        >
          {PAYMENT_TEXT.backToDashboard}
        </Link>
      </div>
    </>
  );
}
