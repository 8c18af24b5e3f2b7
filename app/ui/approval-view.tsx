// What the approval pages show of an approval order (ADR 0022 §6): its state in words (waiting,
// approved, declined with the reason, paid, replaced) and the dates as an Australian reads them.
// Shared by the approval page, Review & Pay and the dashboard's list.

import { formatDate } from "../../core/dates.ts";
import type { ApprovalSummary } from "../../modules/approvals/schema.ts";

export function formatWhen(iso: string | null): string {
  if (!iso) return "";
  return formatDate(iso, "mediumDateTime");
}

/** One line of what happened to the request. */
export function approvalStateText(a: ApprovalSummary): string {
  switch (a.state) {
    case "requested":
      return "Waiting for an Owner's approval";
    case "approved":
      return `Approved by ${a.decidedBy?.name ?? "an Owner"} on ${formatWhen(a.decidedAt)}`;
    case "declined":
      return `Declined by ${a.decidedBy?.name ?? "an Owner"} on ${formatWhen(a.decidedAt)}`;
    case "paid":
      return "Approved and paid";
    default:
      return "Replaced by a newer request";
  }
}

const tone: Record<ApprovalSummary["state"], string> = {
  requested: "border-amber-300 bg-amber-50 text-amber-950",
  approved: "border-emerald-300 bg-emerald-50 text-emerald-950",
  declined: "border-red-300 bg-red-50 text-red-950",
  paid: "border-emerald-300 bg-emerald-50 text-emerald-950",
  superseded: "border-slate-300 bg-slate-50 text-slate-900",
};

/** The state as a box: what happened, the decline reason, and a changed draft's consequence. */
export function ApprovalStateBox({ approval, className = "" }: { approval: ApprovalSummary; className?: string }) {
  const stale = approval.draftChanged && (approval.state === "requested" || approval.state === "approved");
  return (
    <div role="status" className={`rounded-md border p-4 ${tone[approval.state]} ${className}`}>
      <p className="font-semibold" data-testid="approval-state">
        {approvalStateText(approval)}
      </p>
      {approval.state === "declined" && approval.reason ? (
        <p className="mt-1 break-words">Reason: {approval.reason}</p>
      ) : null}
      {stale ? (
        <p className="mt-1">
          {approval.state === "approved"
            ? "The reward list has changed since it was approved, so this approval no longer applies; approval must be requested again."
            : "The reward list has changed since approval was requested, so it cannot be approved; approval must be requested again."}
        </p>
      ) : null}
    </div>
  );
}
