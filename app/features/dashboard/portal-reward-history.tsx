// The dashboard's 'Most Recent Reward History' (docs/requirements.md §S2 Dashboard, §S3 reward history item): a
// real table with the columns Date, Campaign / Reward Name and Released; the first two columns
// are hidden under 768 px, where each row repeats them in small print under the amount. An
// empty list shows 'No data to display'. Under each amount, links to the release's delivery page
// and to its order's tax invoice.
// Each row has its state: Released, Scheduled (paid, sent at its time; its link changes or
// cancels it) or Cancelled · Refunded.
// Every paid order is there, a page at a time (the pager's links work without JavaScript), and the
// whole history downloads as CSV.
import { href, Link } from "react-router";
import { dateFormat as dateFormatOf } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import type { RewardHistoryEntry, RewardHistoryPage } from "../../../modules/identity/schema.ts";
import { historyStateLabel, type RewardOrderState } from "../../../modules/scheduled-sends/schema.ts";
import { outlineButtonClass } from "../../ui/buttons.ts";
import { Pager } from "../../ui/pager.tsx";
import { ColumnHeads, EmptyTableRow } from "../../ui/table.tsx";
import { releasePath } from "../deliveries/delivery-paths.ts";
import { invoicePath } from "../invoices/invoice-paths.ts";
import { scheduledPath } from "../scheduled/scheduled-paths.ts";

const rowLinkClass =
  "inline-flex min-h-11 items-center text-sm font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 md:min-h-0";

/** The dashboard's address of history page N. */
export const HISTORY_PAGE_PARAM = "historyPage";
const historyPageHref = (pageNumber: number) =>
  pageNumber <= 1
    ? `${href("/portal/dashboard")}#reward-history`
    : `${href("/portal/dashboard")}?${HISTORY_PAGE_PARAM}=${pageNumber}#reward-history`;
const HISTORY_CSV_PATH = href("/portal/reward-history.csv");

const dateFormat = dateFormatOf("shortDate");

export function formatRewardDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

/** Released amounts carry a dollar prefix (docs/requirements.md §S3). */
export function formatReleased(amount: number): string {
  return formatDollars(Number.isFinite(amount) ? Math.round(amount * 100) : 0);
}

const th = "px-4 py-3 text-left text-sm font-semibold text-slate-800";
const td = "px-4 py-3 align-top text-slate-800";

const STATE_CLASSES: Record<RewardOrderState, string> = {
  released: "bg-emerald-100 text-emerald-900",
  scheduled: "bg-sky-100 text-sky-900",
  cancelled: "bg-slate-200 text-slate-800",
};

/** Released, Scheduled (with its time), or Cancelled · Refunded. */
function StateBadge({ entry }: { entry: RewardHistoryEntry }) {
  return (
    <span className={`inline-block rounded-full px-2 py-0.5 text-xs font-semibold ${STATE_CLASSES[entry.state]}`}>
      {historyStateLabel(entry)}
    </span>
  );
}

export function RewardHistory({ page }: { page: RewardHistoryPage }) {
  const { items } = page;
  return (
    <section id="reward-history" aria-labelledby="reward-history-heading" className="scroll-mt-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="reward-history-heading" className="text-2xl font-bold text-brand-800">
            Most Recent Reward History
          </h2>
          <p id="reward-history-description" className="mt-1 text-slate-700">
            Here are all of your most recent rewards
          </p>
        </div>
        {page.totalCount > 0 ? (
          <a href={HISTORY_CSV_PATH} download className={outlineButtonClass}>
            Download CSV<span className="sr-only"> of the whole reward history</span>
          </a>
        ) : null}
      </div>
      <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
        <table
          aria-labelledby="reward-history-heading"
          aria-describedby="reward-history-description"
          className="w-full border-collapse"
        >
          <thead className="bg-slate-100">
            <ColumnHeads
              columns={[
                ["Date", `${th} hidden md:table-cell`],
                ["Campaign / Reward Name", `${th} hidden md:table-cell`],
                ["Released", `${th} md:text-right`],
              ]}
            />
          </thead>
          <tbody className="divide-y divide-slate-200">
            {items.length === 0 ? (
              <EmptyTableRow columns={3} />
            ) : (
              items.map((item) => (
                <tr key={item.orderId}>
                  <td className={`${td} hidden whitespace-nowrap md:table-cell`}>
                    <time dateTime={item.rewardDate}>{formatRewardDate(item.rewardDate)}</time>
                  </td>
                  <td className={`${td} hidden break-words md:table-cell`}>{item.rewardName}</td>
                  <td className={`${td} md:text-right`}>
                    <span className="flex flex-wrap items-center gap-x-2 gap-y-1 md:justify-end">
                      <span className="font-semibold tabular-nums">{formatReleased(item.amount)}</span>
                      <StateBadge entry={item} />
                    </span>
                    <span className="mt-0.5 block break-words text-sm text-slate-600 md:hidden">
                      {item.rewardName} · {formatRewardDate(item.rewardDate)}
                    </span>
                    <span className="flex flex-wrap gap-x-4 md:justify-end">
                      {item.rewardReleaseId !== null ? (
                        <Link to={releasePath(item.rewardReleaseId)} className={rowLinkClass}>
                          Delivery<span className="sr-only"> of {item.rewardName}</span>
                        </Link>
                      ) : (
                        <Link to={scheduledPath(item.orderId)} className={rowLinkClass}>
                          {item.state === "scheduled" ? "Change or cancel" : "Details"}
                          <span className="sr-only"> of {item.rewardName}</span>
                        </Link>
                      )}
                      {item.invoiceNumber ? (
                        <Link to={invoicePath(item.invoiceNumber)} className={rowLinkClass}>
                          Tax invoice
                          <span className="sr-only">
                            {" "}
                            {item.invoiceNumber} for {item.rewardName}
                          </span>
                        </Link>
                      ) : null}
                    </span>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {page.totalPages > 1 ? (
        <div className="mt-4">
          <Pager
            label="Reward history pages"
            pageNumber={page.pageNumber}
            totalPages={page.totalPages}
            hrefFor={historyPageHref}
            hasPreviousPage={page.hasPreviousPage}
            hasNextPage={page.hasNextPage}
          />
        </div>
      ) : null}
    </section>
  );
}
