// The dashboard's 'Most Recent Reward History' (SPEC §2 Dashboard, §3 reward history item): a
// real table with the columns Date, Campaign / Reward Name and Released; the first two columns
// are hidden under 768 px, where each row repeats them in small print under the amount. An
// empty list shows 'No data to display'. Under each amount, a link to the order's tax invoice.
import { Link } from "react-router";
import type { RewardHistoryItem } from "../../../core/account-forms.ts";
import { invoicePath } from "../invoices/invoice-paths.ts";

const dateFormat = new Intl.DateTimeFormat("en-AU", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "Australia/Sydney",
});

const amountFormat = new Intl.NumberFormat("en-AU", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatRewardDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

/** Released amounts carry a dollar prefix (SPEC §3). */
export function formatReleased(amount: number): string {
  return `$${amountFormat.format(Number.isFinite(amount) ? amount : 0)}`;
}

const th = "px-4 py-3 text-left text-sm font-semibold text-slate-800";
const td = "px-4 py-3 align-top text-slate-800";

export function RewardHistory({ items }: { items: RewardHistoryItem[] }) {
  return (
    <section aria-labelledby="reward-history-heading">
      <h2 id="reward-history-heading" className="text-2xl font-bold text-brand-800">
        Most Recent Reward History
      </h2>
      <p id="reward-history-description" className="mt-1 text-slate-700">
        Here are all of your most recent rewards
      </p>
      <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
        <table
          aria-labelledby="reward-history-heading"
          aria-describedby="reward-history-description"
          className="w-full border-collapse"
        >
          <thead className="bg-slate-100">
            <tr>
              <th scope="col" className={`${th} hidden md:table-cell`}>
                Date
              </th>
              <th scope="col" className={`${th} hidden md:table-cell`}>
                Campaign / Reward Name
              </th>
              <th scope="col" className={`${th} md:text-right`}>
                Released
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-200">
            {items.length === 0 ? (
              <tr>
                <td colSpan={3} className="px-4 py-8 text-center text-slate-600">
                  No data to display
                </td>
              </tr>
            ) : (
              items.map((item) => (
                <tr key={item.rewardReleaseId}>
                  <td className={`${td} hidden whitespace-nowrap md:table-cell`}>
                    <time dateTime={item.rewardDate}>{formatRewardDate(item.rewardDate)}</time>
                  </td>
                  <td className={`${td} hidden break-words md:table-cell`}>{item.rewardName}</td>
                  <td className={`${td} md:text-right`}>
                    <span className="font-semibold tabular-nums">{formatReleased(item.amount)}</span>
                    <span className="mt-0.5 block break-words text-sm text-slate-600 md:hidden">
                      {item.rewardName} · {formatRewardDate(item.rewardDate)}
                    </span>
                    {item.invoiceNumber ? (
                      <Link
                        to={invoicePath(item.invoiceNumber)}
                        className="inline-flex min-h-11 items-center text-sm font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 md:min-h-0"
                      >
                        Tax invoice
                        <span className="sr-only">
                          {" "}
                          {item.invoiceNumber} for {item.rewardName}
                        </span>
                      </Link>
                    ) : null}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
