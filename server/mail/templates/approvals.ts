// The approval emails (ADR 0022 §6): to every Owner when a Manager asks for approval (with the link
// to the approval page), and to the requester when an Owner decides (approved: the link to Review &
// Pay; declined: the reason).

import { formatDollars } from "../../../core/money.ts";
import { overBudgetText } from "../../../modules/approvals/schema.ts";
import { email, type RenderedEmail } from "./render.ts";

export interface ApprovalEmailOrder {
  rewardName: string;
  totalCents: number;
  recipientCount: number;
}

function orderDetails(order: ApprovalEmailOrder): Array<[string, string]> {
  return [
    ["Reward Name", order.rewardName],
    ["Recipients", order.recipientCount.toLocaleString("en-AU")],
    ["Total Cost", formatDollars(order.totalCents)],
  ];
}

export function approvalRequestedEmail(input: {
  to: string;
  firstName: string;
  requesterName: string;
  order: ApprovalEmailOrder;
  link: string;
  /** The order passes its monthly budget by this much (ADR 0034): said as on the approval page. */
  overBudgetCents?: number | null;
}): RenderedEmail {
  return email(input.to, `Approval requested: ${input.order.rewardName}`, {
    heading: "A reward is waiting for your approval",
    paragraphs: [
      `Hi ${input.firstName},`,
      `${input.requesterName} asks for your approval to pay for this reward. It is paid only once an Owner approves it, exactly as listed.`,
      ...(input.overBudgetCents ? [overBudgetText(input.overBudgetCents)] : []),
    ],
    details: orderDetails(input.order),
    action: { label: "Review the request", url: input.link },
  });
}

export function approvalApprovedEmail(input: {
  to: string;
  firstName: string;
  approverName: string;
  order: ApprovalEmailOrder;
  link: string;
}): RenderedEmail {
  return email(input.to, `Approved: ${input.order.rewardName}`, {
    heading: "Your reward was approved",
    paragraphs: [
      `Hi ${input.firstName},`,
      `${input.approverName} approved your reward. You can now pay for it on the Review & Pay page. If you change the reward list before paying, it needs a new approval.`,
    ],
    details: orderDetails(input.order),
    action: { label: "Review & Pay", url: input.link },
  });
}

export function approvalDeclinedEmail(input: {
  to: string;
  firstName: string;
  approverName: string;
  reason: string;
  order: ApprovalEmailOrder;
  link: string;
}): RenderedEmail {
  return email(input.to, `Declined: ${input.order.rewardName}`, {
    heading: "Your reward was declined",
    paragraphs: [
      `Hi ${input.firstName},`,
      `${input.approverName} declined your reward, so it cannot be paid. You can change the reward list and request approval again.`,
    ],
    details: [...orderDetails(input.order), ["Reason", input.reason]],
    action: { label: "Edit the reward", url: input.link },
  });
}
