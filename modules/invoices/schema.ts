// The tax invoice of a paid order (docs/requirements.md §D5 money; the ATO's rules for a tax invoice of a
// GST-registered supplier: the words "Tax Invoice", the supplier's name and ABN, the date, the
// buyer's identity, what was sold, the GST and the total). Pure code: the API answers it, the
// web page, the PDF and the payer's email show it (invoiceView).

import { formatDate } from "../../core/dates.ts";
import { formatDollars } from "../../core/money.ts";
import { formatAbn } from "../companies/abn.ts";

/** `INV-000123`: the number a paid order is given (modules/orders/release.server.ts). */
export const INVOICE_NUMBER_PATTERN = /^INV-\d{6,}$/;

/**
 * An invoice number as the portal's addresses carry it: lower case, like every portal path (the
 * edge redirects other letter cases to it). `invoiceNumberFromPath` reads it back, or null.
 */
export const invoicePathSegment = (invoiceNumber: string) => invoiceNumber.toLowerCase();
export function invoiceNumberFromPath(segment: string | undefined): string | null {
  const invoiceNumber = (segment ?? "").toUpperCase();
  return INVOICE_NUMBER_PATTERN.test(invoiceNumber) && invoiceNumber.length <= 20 ? invoiceNumber : null;
}

/** The API's refusals (problem+json `detail`). */
export const INVOICE_DETAILS = {
  notFound: "Invoice not found.",
} as const;

/** GET /api/Invoices/{invoiceNumber}: amounts in cents, dates as ISO 8601. */
export interface TaxInvoice {
  invoiceNumber: string;
  /** When the order was paid (the supply; a scheduled order's rewards go out later). */
  invoiceDate: string;
  /**
   * The supplier and the buyer as they were when the order was paid or charged, frozen with the
   * order (ADR 0025, amendment): a company renamed later, or a new SUPPLIER_NAME, changes no
   * invoice already issued.
   */
  supplier: { name: string; abn: string; isPlaceholder: boolean };
  buyer: { companyName: string; abn: string | null };
  rewardName: string;
  recipientCount: number;
  /** Reward Dollars: not a taxable supply (no GST). */
  rewardsCents: number;
  /** The service fee, 10 % of the Reward Dollars; GST applies to it alone. */
  serviceFeeCents: number;
  gstCents: number;
  totalCents: number;
  amountPaidCents: number;
  /** How the order was paid: by card at checkout, or from the company's prepaid balance (ADR 0043). */
  paidFrom: "card" | "balance";
  /**
   * A cancelled order's decreasing adjustment (the whole total, refunded to where it came from):
   * when it was refunded (or cancelled, while the refund is still under way or after it failed
   * for good, ADR 0041's refund retries). Null: none.
   */
  adjustment: {
    date: string;
    amountCents: number;
    gstCents: number;
    refunded: boolean;
    /** Every attempt failed: support was emailed, and the refund is theirs to make. */
    refundFailed: boolean;
  } | null;
}

export interface InvoiceLine {
  label: string;
  amountCents: number;
  strong?: boolean;
}

/** Everything the invoice shows, as text, in order: the page, the PDF and the email render this one view. */
export interface InvoiceView {
  supplierName: string;
  supplierAbn: string;
  facts: Array<[string, string]>;
  lines: InvoiceLine[];
  /** The ATO's "Adjustment note" for a decreasing adjustment: a cancelled and refunded order. */
  adjustment: { heading: "Adjustment note"; facts: Array<[string, string]> } | null;
  /** The closing notes: GST, then how the order was paid (and refunded). */
  notes: string[];
}

/** A date on an invoice, as Australians read it, in Sydney's time zone: "1 March 2025". */
export const formatInvoiceDate = (iso: string) => formatDate(iso, "longDate");

/** The invoice's lines, for the page and the PDF alike: what was sold, then the sums. */
export function invoiceLines(invoice: TaxInvoice): InvoiceLine[] {
  const recipients = `${invoice.recipientCount} ${invoice.recipientCount === 1 ? "recipient" : "recipients"}`;
  const lines: InvoiceLine[] = [
    { label: `Reward Dollars: ${invoice.rewardName} (${recipients}; no GST)`, amountCents: invoice.rewardsCents },
    { label: "Service fee (10% of the Reward Dollars)", amountCents: invoice.serviceFeeCents },
    { label: "GST (10% of the service fee)", amountCents: invoice.gstCents },
    { label: "Total (including GST)", amountCents: invoice.totalCents, strong: true },
    { label: "Amount paid", amountCents: invoice.amountPaidCents },
  ];
  const adjustment = invoice.adjustment;
  if (!adjustment) {
    lines.push({ label: "Balance due", amountCents: invoice.totalCents - invoice.amountPaidCents });
    return lines;
  }
  // A cancelled order is not paid in full: the refund is a decreasing adjustment (adjustment note below).
  lines.push(
    {
      label: adjustment.refunded
        ? `Refunded on ${formatInvoiceDate(adjustment.date)} (adjustment note)`
        : adjustment.refundFailed
          ? "To be refunded by our support team (adjustment note)"
          : "To be refunded (adjustment note)",
      amountCents: -adjustment.amountCents,
    },
    { label: "Net amount paid", amountCents: invoice.amountPaidCents - adjustment.amountCents, strong: true },
  );
  return lines;
}

/**
 * The one view of an invoice (ADR 0025): its page, its PDF and the payer's email show exactly
 * this, so none can say what the others do not.
 */
export function invoiceView(invoice: TaxInvoice): InvoiceView {
  const placeholder = invoice.supplier.isPlaceholder ? " (placeholder)" : "";
  const where = invoice.paidFrom === "balance" ? "the prepaid balance" : "the card";
  const adjustment = invoice.adjustment;
  const adjustedOn = adjustment ? formatInvoiceDate(adjustment.date) : "";
  const paid = invoice.paidFrom === "balance" ? "Paid from the prepaid balance" : "Paid by card";
  const payment = !adjustment
    ? invoice.paidFrom === "balance"
      ? "Paid from the prepaid balance."
      : "Paid by card at checkout."
    : adjustment.refunded
      ? `${paid}; refunded in full to ${where} on ${adjustedOn}.`
      : adjustment.refundFailed
        ? `${paid}; cancelled on ${adjustedOn}. The refund to ${where} failed; our support team has been told. Please contact support.`
        : `${paid}; cancelled on ${adjustedOn}, the refund to ${where} is under way.`;
  return {
    supplierName: invoice.supplier.name + placeholder,
    supplierAbn: formatAbn(invoice.supplier.abn) + placeholder,
    facts: [
      ["Invoice number", invoice.invoiceNumber],
      ["Invoice date", formatInvoiceDate(invoice.invoiceDate)],
      ["Bill to", invoice.buyer.companyName],
      ["Buyer ABN", invoice.buyer.abn ? formatAbn(invoice.buyer.abn) : "Not provided"],
    ],
    lines: invoiceLines(invoice),
    adjustment: adjustment
      ? {
          heading: "Adjustment note",
          facts: [
            ["Adjustment date", adjustedOn],
            ["Invoice adjusted", invoice.invoiceNumber],
            [
              "Reason",
              adjustment.refunded
                ? `The order was cancelled before its release and refunded in full to ${where}.`
                : adjustment.refundFailed
                  ? `The order was cancelled before its release; its refund in full to ${where} failed and will be made by our support team.`
                  : `The order was cancelled before its release; its refund in full to ${where} is under way.`,
            ],
            ["Decreasing adjustment (including GST)", formatDollars(adjustment.amountCents)],
            ["GST adjustment", formatDollars(adjustment.gstCents)],
          ],
        }
      : null,
    notes: ["Reward Dollars carry no GST; GST applies to the service fee only.", payment],
  };
}
