// The payer's emails: the Australian tax invoice of a paid reward (release.ts), the notice that a
// scheduled reward was cancelled and refunded (scheduled-sends.ts), and the refund of a second
// payment for an order already paid (extra-payments.ts, ADR 0041).

import { formatDollars } from "../../../core/money.ts";
import { invoiceView, type TaxInvoice } from "../../../modules/invoices/schema.ts";
import { formatSendTime } from "../../../modules/scheduled-sends/schema.ts";
import { email, type RenderedEmail } from "./render.ts";

export interface TaxInvoiceInput {
  to: string;
  firstName: string;
  /** The invoice as the API answers it (modules/invoices/service.server.ts): its parties frozen at payment. */
  invoice: TaxInvoice;
  /** The invoice's page in the portal (with its PDF). */
  invoiceUrl: string;
  /** A scheduled reward: when its emails go out. */
  sendAt?: Date | null;
}

/**
 * The payer's confirmation, an Australian tax invoice: the words 'Tax Invoice', the supplier's
 * name and ABN, invoice number and date, the buyer's company and ABN, the lines, the GST amount
 * (on the service fee only) and the total: the same view as the invoice's page and PDF
 * (modules/invoices/schema.ts invoiceView).
 */
export function taxInvoiceEmail(input: TaxInvoiceInput): RenderedEmail {
  const { invoice } = input;
  const view = invoiceView(invoice);
  const supplierNote = invoice.supplier.isPlaceholder
    ? ["Supplier details are placeholders: SUPPLIER_NAME and SUPPLIER_ABN are not configured on this server."]
    : [];
  return email(input.to, `Tax Invoice ${invoice.invoiceNumber}: ${invoice.rewardName}`, {
    heading: "Tax Invoice",
    paragraphs: [
      `Hi ${input.firstName},`,
      `Thank you for your payment of ${formatDollars(invoice.totalCents)}. ${input.sendAt ? "Emails will be sent" : "Emails are being sent"} to your ${invoice.recipientCount} reward ${invoice.recipientCount === 1 ? "recipient" : "recipients"}${input.sendAt ? ` on ${formatSendTime(input.sendAt)}` : ""}.`,
      ...supplierNote,
      ...view.notes,
    ],
    details: [
      ["Supplier", view.supplierName],
      ["Supplier ABN", view.supplierAbn],
      ...view.facts,
      ...view.lines.map((line): [string, string] => [line.label, formatDollars(line.amountCents)]),
      ...(view.adjustment ? [["Adjustment note", ""] as [string, string], ...view.adjustment.facts] : []),
    ],
    action: { label: "View and download the invoice", url: input.invoiceUrl },
  });
}

/** The payer's notice that a scheduled reward was cancelled and its payment refunded in full. */
export function scheduledRewardCancelledEmail(input: {
  to: string;
  firstName: string;
  rewardName: string;
  /** Null for an order that was to be sent at once (cancelled for a removed member). */
  sendAt: Date | null;
  totalCents: number;
  invoiceNumber: string | null;
  orderUrl: string;
  /** Where the refund went: the card (default), or the company's prepaid balance (ADR 0043). */
  refundedTo?: "card" | "balance";
  /** Cancelled at its release because these members were removed after it was paid (docs/rules.md). */
  removedMembers?: string[] | null;
}): RenderedEmail {
  const when = input.sendAt ? `, scheduled for ${formatSendTime(input.sendAt)},` : "";
  const why = input.removedMembers?.length
    ? ` because ${input.removedMembers.join(", ")} ${input.removedMembers.length === 1 ? "was" : "were"} removed from the team after it was paid`
    : "";
  return email(input.to, `Cancelled and refunded: ${input.rewardName}`, {
    heading: input.sendAt ? "Your scheduled reward was cancelled" : "Your reward was cancelled",
    paragraphs: [
      `Hi ${input.firstName},`,
      `The reward "${input.rewardName}"${when} was cancelled before it was sent${why}. No recipient was emailed.`,
      input.refundedTo === "balance"
        ? `We have returned ${formatDollars(input.totalCents)} in full to your company's balance; it is there to use now.`
        : `We have refunded ${formatDollars(input.totalCents)} in full to the card you paid with. Refunds usually reach the card within 5 to 10 business days.`,
    ],
    details: [
      ["Reward", input.rewardName],
      ["Refunded", formatDollars(input.totalCents)],
      ...(input.invoiceNumber ? ([["Invoice refunded", input.invoiceNumber]] as [string, string][]) : []),
    ],
    action: { label: "View the reward", url: input.orderUrl },
  });
}

/** The payer's notice that a second card payment for a reward already paid was refunded in full. */
export function extraPaymentRefundedEmail(input: {
  to: string;
  firstName: string;
  rewardName: string;
  orderId: number;
  amountCents: number;
  paymentIntentId: string;
  refundId: string;
}): RenderedEmail {
  return email(input.to, `We refunded a second payment of ${formatDollars(input.amountCents)}`, {
    heading: "A second payment, refunded",
    paragraphs: [
      `Hi ${input.firstName},`,
      `Your reward "${input.rewardName}" was paid twice: it had already been paid when a second card payment for it went through. The reward was sent once, and we have refunded the second payment in full to the card it came from. Refunds usually appear on the statement within 5 to 10 business days.`,
    ],
    details: [
      ["Order", String(input.orderId)],
      ["Refunded", formatDollars(input.amountCents)],
      ["Payment", input.paymentIntentId],
      ["Refund", input.refundId],
    ],
  });
}
