// The tax invoice of a paid order (DESIGN.md §5 money; the ATO's rules for a tax invoice of a
// GST-registered supplier: the words "Tax Invoice", the supplier's name and ABN, the date, the
// buyer's identity, what was sold, the GST and the total). Pure code: the API answers it, the
// web page and the PDF show it.

/** `INV-000123`: the number a paid order is given (server/domain/release.ts). */
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
  /** When the order was paid and released (the supply). */
  invoiceDate: string;
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
}

/** The invoice's lines, for the page and the PDF alike: what was sold, then the sums. */
export function invoiceLines(invoice: TaxInvoice): Array<{ label: string; amountCents: number; strong?: boolean }> {
  const recipients = `${invoice.recipientCount} ${invoice.recipientCount === 1 ? "recipient" : "recipients"}`;
  return [
    { label: `Reward Dollars: ${invoice.rewardName} (${recipients}; no GST)`, amountCents: invoice.rewardsCents },
    { label: "Service fee (10% of the Reward Dollars)", amountCents: invoice.serviceFeeCents },
    { label: "GST (10% of the service fee)", amountCents: invoice.gstCents },
    { label: "Total (including GST)", amountCents: invoice.totalCents, strong: true },
    { label: "Amount paid", amountCents: invoice.amountPaidCents },
    { label: "Balance due", amountCents: invoice.totalCents - invoice.amountPaidCents },
  ];
}
