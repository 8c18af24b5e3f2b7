// Settings › Balance (ADR 0043; docs/requirements.md §D5 "paid from a prepaid company balance, topped up by
// card in the portal"): the company's prepaid balance, what systems' /api/v1 orders are paid
// from, and its statement (date, what, amount, balance after), newest first. An Owner tops it up
// by card: the amount in whole dollars posts to this page's action, which makes the top-up through
// the API and goes to the card step: the simulated processor's card form on the top-up's own page
// (/portal/settings/balance/top-ups/{id}), or Stripe's hosted Checkout page, which returns there.
// That page checks the payment and comes back here with a toast. Plain forms, no JavaScript
// needed. A Manager sees the balance and statement read-only; the API refuses their top-ups (403).

import { getFormProps, getInputProps } from "@conform-to/react";
import { data, Form, href, redirect } from "react-router";
import { formatDate } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import {
  type BalanceEntryView,
  type BalanceView,
  entryLabel,
  TOP_UP_FORM_DETAILS,
  topUpDollarsToCents,
  topUpFormSchema,
} from "../../../modules/balance/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import type { FormReply } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { ColumnHeads } from "../../ui/table.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.balance";
import { card, controlClass, labelClass, sectionHeading } from "./settings-styles.ts";

const TITLE = "Balance";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const BALANCE_PATH = href("/portal/settings/balance");

/** API answers shown word for word on the form (the rest get the generic message). */
/** The amount's refusals (the request's schema and the top-up rule) and the card processor's. */
const SHOWN = inApiWords(
  "owner-only",
  "invalid-request",
  "top-up-out-of-range",
  "top-up-not-whole-dollars",
  "processor-unavailable",
);

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const result = await client.call((api) => api.Balance.$get());
  if (!result.ok) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "balance fetch failed");
    throw data("The balance could not be loaded. Please try again.", { status: result.status >= 500 ? 503 : 500 });
  }
  return result.data as BalanceView;
}

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(topUpFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const cents = topUpDollarsToCents(submission.value.amount);
  if (cents === null) {
    const detail = TOP_UP_FORM_DETAILS.amountFormat;
    return replyFailure(submission, { ok: false, status: 400, detail, errors: { amount: [detail] } });
  }
  const { config } = services(context);
  if (config.payments.kind === "stripe") {
    // Stripe without JavaScript (and with it: one server-first flow): its hosted Checkout page.
    const session = await client.call((api) =>
      api.Balance.TopUps["checkout-session"].$post({ json: { amount: cents } }),
    );
    if (!session.ok) return replyFailure(submission, session, { shown: SHOWN });
    throw redirect(session.data.url);
  }
  const created = await client.call((api) => api.Balance.TopUps.$post({ json: { amount: cents } }));
  if (!created.ok) return replyFailure(submission, created, { shown: SHOWN });
  throw redirect(href("/portal/settings/balance/top-ups/:topUpId", { topUpId: String(created.data.topUpId) }));
}

/** Signed, as a statement shows it: "+$50.00", "−$111.00". */
const signed = (cents: number) => `${cents < 0 ? "−" : "+"}${formatDollars(Math.abs(cents))}`;

export default function BalanceSettings({ loaderData, actionData }: Route.ComponentProps) {
  const view = loaderData;
  return (
    <div className="max-w-4xl space-y-8">
      <section aria-labelledby="balance-heading" className={card}>
        <h2 id="balance-heading" className={sectionHeading}>
          Prepaid balance
        </h2>
        <p className="mt-2 text-4xl font-bold tabular-nums text-slate-900" data-testid="balance-amount">
          {formatDollars(view.balance)}
        </p>
        <p className="mt-2 text-slate-700">
          Rewards your own systems order through the API are paid from this balance: the rewards plus the service fee
          and GST. A top-up by card has no fee.
        </p>
      </section>

      {view.canTopUp ? (
        <section aria-labelledby="top-up-heading" className={card}>
          <h2 id="top-up-heading" className={sectionHeading}>
            Top up
          </h2>
          <TopUpForm view={view} reply={actionData as FormReply | undefined} />
        </section>
      ) : (
        <p className="text-slate-700" role="note">
          Only an Owner of your company can top up the balance.
        </p>
      )}

      <section aria-labelledby="statement-heading" className={card}>
        <h2 id="statement-heading" className={sectionHeading}>
          Statement
        </h2>
        {view.entries.length === 0 ? (
          <p className="mt-2 text-slate-700">
            No movements yet. Top-ups and the orders paid from the balance will be listed here.
          </p>
        ) : (
          <Statement entries={view.entries} />
        )}
      </section>
    </div>
  );
}

function TopUpForm({ view, reply }: { view: BalanceView; reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(BALANCE_PATH);
  const [form, fields] = useSchemaForm(topUpFormSchema, {
    id: "top-up-form",
    lastResult: reply?.result,
    onSubmit,
  });
  const { key, ...amountProps } = getInputProps(fields.amount, { type: "text" });
  const hint = `${fields.amount.id}-hint`;
  return (
    <Form method="post" action={BALANCE_PATH} {...getFormProps(form)} className="mt-4 space-y-4">
      <HiddenFormInputs intent="top-up" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus />
      <div className="max-w-xs">
        <label htmlFor={fields.amount.id} className={labelClass}>
          Amount (AUD)
        </label>
        <div className="relative">
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-3 flex items-center">
            $
          </span>
          <input
            key={key}
            {...amountProps}
            inputMode="numeric"
            autoComplete="off"
            maxLength={20}
            aria-describedby={[amountProps["aria-describedby"], hint].filter(Boolean).join(" ")}
            className={`${controlClass} pl-7 tabular-nums`}
          />
        </div>
        <p id={hint} className="mt-1 text-sm text-slate-600">
          Whole dollars, from {formatDollars(view.minTopUp)} to {formatDollars(view.maxTopUp)}. You pay by card on the
          next page{view.processor === "stripe" ? " (Stripe)" : ""}.
        </p>
        <FieldError id={fields.amount.errorId} errors={fields.amount.errors} />
      </div>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Top up
      </SubmitButton>
    </Form>
  );
}

const th = "px-3 py-3 text-left text-sm font-semibold text-slate-800";
const td = "px-3 py-3 align-top text-slate-800";

function Statement({ entries }: { entries: BalanceEntryView[] }) {
  return (
    <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full border-collapse">
        <caption className="sr-only">Balance statement, newest first</caption>
        <thead className="bg-slate-100">
          <ColumnHeads
            columns={[
              ["Date", `${th} hidden md:table-cell`],
              ["What", th],
              ["Amount", `${th} text-right`],
              ["Balance after", `${th} hidden text-right md:table-cell`],
            ]}
          />
        </thead>
        <tbody className="divide-y divide-slate-200">
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className={`${td} hidden whitespace-nowrap text-sm md:table-cell`}>
                <time dateTime={entry.at}>{formatDate(entry.at, "dateTime")}</time>
              </td>
              <td className={`${td} [overflow-wrap:anywhere]`}>
                <time dateTime={entry.at} className="mb-1 block text-sm text-slate-600 md:hidden">
                  {formatDate(entry.at, "dateTime")}
                </time>
                {entryLabel(entry)}
              </td>
              <td
                className={`${td} whitespace-nowrap text-right tabular-nums ${entry.amount < 0 ? "" : "text-green-800"}`}
              >
                {signed(entry.amount)}
                <span className="mt-1 block text-sm text-slate-600 md:hidden">
                  Balance {formatDollars(entry.balanceAfter)}
                </span>
              </td>
              <td className={`${td} hidden whitespace-nowrap text-right tabular-nums md:table-cell`}>
                {formatDollars(entry.balanceAfter)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
