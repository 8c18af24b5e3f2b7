// The left column of the Review page (docs/requirements.md §S2 Reward My Team Review): the recipients as
// 'Full Name ($amount)' (the first 100; a long list says how many more) and the cost summary
// (Reward Dollars Total, Service Fee, GST on the fee only, Total Cost), all computed by the API.
import { formatDollars } from "../../../core/money.ts";
import { recipientLabel } from "./payment.ts";

export interface ReviewRecipient {
  userId: number;
  fullName: string;
  reward: number;
}

export interface ReviewCosts {
  rewardsCents: number;
  serviceFeeCents: number;
  gstCents: number;
  totalCents: number;
}

export function ReviewRecipients({ recipients, total }: { recipients: ReviewRecipient[]; total: number }) {
  const more = total - recipients.length;
  return (
    <div>
      <h2 id="review-recipients-heading" className="text-lg font-bold text-brand-800">
        Recipients ({total.toLocaleString("en-AU")})
      </h2>
      {/* A long list scrolls within its box; the box takes the focus so a keyboard can scroll it. */}
      <section
        aria-labelledby="review-recipients-heading"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
        className="mt-2 max-h-80 overflow-y-auto rounded-md border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        <ul className="divide-y divide-slate-100">
          {recipients.map((recipient) => (
            <li key={recipient.userId} className="break-words px-3 py-2 text-slate-800">
              {recipientLabel(recipient.fullName, recipient.reward)}
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

export function ReviewCostSummary({ costs }: { costs: ReviewCosts }) {
  const rows: [string, number][] = [
    ["Reward Dollars Total", costs.rewardsCents],
    ["Service Fee", costs.serviceFeeCents],
    ["GST", costs.gstCents],
  ];
  return (
    <section aria-labelledby="review-costs-heading">
      <h2 id="review-costs-heading" className="text-lg font-bold text-brand-800">
        Cost Summary
      </h2>
      <dl className="mt-2 divide-y divide-slate-100 rounded-md border border-slate-200 bg-white">
        {rows.map(([label, cents]) => (
          <div key={label} className="flex items-baseline justify-between gap-4 px-3 py-2">
            <dt className="text-slate-700">{label}</dt>
            <dd className="tabular-nums text-slate-900">{formatDollars(cents)}</dd>
          </div>
        ))}
        <div className="flex items-baseline justify-between gap-4 bg-slate-50 px-3 py-2 font-bold">
          <dt className="text-slate-900">Total Cost</dt>
          <dd className="tabular-nums text-slate-900">{formatDollars(costs.totalCents)}</dd>
        </div>
      </dl>
      <p className="mt-2 text-sm text-slate-600">
        Service Fee is 10% of the Reward Dollars; GST applies to the service fee only.
      </p>
    </section>
  );
}
