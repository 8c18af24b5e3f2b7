// The dashboard's "Approval requests" (ADR 0022 §6), shown to Owners only: the Managers' orders
// waiting for a decision, oldest first, each linking to its approval page.
import { href, Link } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import type { ApprovalSummary } from "../../../modules/approvals/schema.ts";
import { formatWhen } from "../../ui/approval-view.tsx";

export function ApprovalRequests({ pending }: { pending: ApprovalSummary[] }) {
  return (
    <section aria-labelledby="approval-requests-heading">
      <h2 id="approval-requests-heading" className="text-2xl font-bold text-brand-800">
        Approval requests
      </h2>
      <p className="mt-1 text-slate-700">Rewards your managers asked you to approve before they are paid</p>
      {pending.length === 0 ? (
        <p className="mt-4 rounded-lg border border-slate-200 bg-white p-4 text-slate-700 shadow-sm">
          No approval requests are waiting.
        </p>
      ) : (
        <ul className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white shadow-sm">
          {pending.map((a) => (
            <li key={a.orderId} className="flex flex-wrap items-center justify-between gap-3 p-4">
              <div className="min-w-0">
                <p className="break-words font-semibold text-slate-900">{a.rewardName}</p>
                <p className="text-sm text-slate-700">
                  {a.requestedBy.name} · {a.recipientCount.toLocaleString("en-AU")}{" "}
                  {a.recipientCount === 1 ? "recipient" : "recipients"} · {formatWhen(a.requestedAt)}
                  {a.draftChanged ? " · changed since asked" : ""}
                </p>
              </div>
              <div className="flex items-center gap-4">
                <span className="font-semibold tabular-nums text-slate-900">{formatDollars(a.totalCents)}</span>
                <Link
                  to={href("/portal/approvals/:orderId", { orderId: String(a.orderId) })}
                  aria-label={`Review ${a.rewardName} from ${a.requestedBy.name}`}
                  className="inline-flex min-h-11 items-center rounded-md bg-brand-700 px-4 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
                >
                  Review
                </Link>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
