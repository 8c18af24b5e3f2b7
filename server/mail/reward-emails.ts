// The emails of a released reward: each recipient's congratulation with their access
// code and password, and the payer's Australian tax invoice. HTML and plain text from the one
// template (renderEmail). The recipient's password appears only here, never in logs.

import { invoiceView, type TaxInvoice } from "../../core/invoices.ts";
import { formatDollars } from "../../core/money.ts";
import { formatSendTime } from "../../core/schedule.ts";
import type { EmailContent } from "./port.ts";
import { renderEmail } from "./templates.ts";

const dateFormat = new Intl.DateTimeFormat("en-AU", {
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "Australia/Sydney",
});

/** A date as Australians read it, in Sydney's time zone: "22 May 2028". */
export function formatAuDate(date: Date): string {
  return dateFormat.format(date);
}

export interface RecipientEmailInput {
  to: string;
  firstName: string;
  companyName: string;
  rewardName: string;
  /** The sender's message ('' or absent for none) and who it is from. */
  message?: string;
  senderName?: string;
  amountCents: number;
  accessCode: string;
  /** The new account's password; null when the recipient already has an account (sent before). */
  password: string | null;
  /** A resend by the manager: the password is new and the one sent before no longer works. */
  replacesEarlier?: boolean;
  expiresAt: Date;
  catalogueUrl: string;
  supportEmail: string;
}

export function recipientRewardEmail(input: RecipientEmailInput): EmailContent {
  const amount = formatDollars(input.amountCents);
  const expiry = formatAuDate(input.expiresAt);
  return {
    to: input.to,
    subject: `Congratulations! You have received ${amount} in Reward Dollars`,
    ...renderEmail({
      heading: `Congratulations, ${input.firstName}!`,
      ...(input.message
        ? { quote: { label: `A message from ${input.senderName || input.companyName}:`, text: input.message } }
        : {}),
      paragraphs: [
        `${input.companyName} has rewarded you with ${amount} in Reward Dollars for "${input.rewardName}".`,
        ...(input.replacesEarlier
          ? [
              "This email replaces your earlier reward email: your password has been changed. Use the new password below; the password sent before no longer works.",
            ]
          : []),
        "Each Reward Dollar is worth $1 AUD and can be redeemed for digital gift cards from over 100 Australian retailers. Reward Dollars cannot be transferred or exchanged for cash.",
        `How to redeem: open the reward catalogue (${input.catalogueUrl}), log in with the access code and password below, choose your gift cards and confirm your order.`,
        input.password === null
          ? "You already have a reward account: log in with your access code and the password sent in your first reward email. These Reward Dollars have been added to your balance."
          : // True to the letter: the account keeps only the password's hash, and the outbox
            // redacts this email's body once it is delivered (docs/requirements.md §D7).
            "Keep this email: we only keep a scrambled form of your password, so we cannot send it to you again.",
        // Each reward is its own lot with its own expiry (docs/requirements.md §S1, per reward's email: server/domain/lots.ts).
        `These Reward Dollars are valid until ${expiry}, 18 months from when this reward was first emailed; any of them still unused then are forfeited. We will remind you 30 days before.`,
        "Gift cards are delivered by email the next business day after your order is acknowledged (typically within 24 hours). If a gift card has not arrived within 3 business days, please contact support; report any problem with quantities within 24 hours of receiving your gift cards.",
        `Support replies within 24 business hours: ${input.supportEmail}.`,
      ],
      details: [
        ["Reward", input.rewardName],
        ...(input.senderName ? [["From", input.senderName] as [string, string]] : []),
        ["Reward Dollars", amount],
        ["Access code", input.accessCode],
        ["Password", input.password ?? "The password sent in your first reward email"],
        ["Valid until", expiry],
      ],
      action: { label: "Choose Your Rewards", url: input.catalogueUrl },
    }),
  };
}

export interface ExpiryReminderInput {
  to: string;
  firstName: string;
  companyName: string;
  /** The reward the lot came from (null for a lot without an order). */
  rewardName: string | null;
  /** What is left of the lot. */
  amountCents: number;
  expiresAt: Date;
  accessCode: string | null;
  catalogueUrl: string;
  supportEmail: string;
}

/**
 * A recipient's reminder 30 days before one of their rewards expires (server/domain/lots.ts):
 * what is left of it and the date, in Sydney's calendar. One email per reward (lot).
 */
export function rewardExpiryReminderEmail(input: ExpiryReminderInput): EmailContent {
  const amount = formatDollars(input.amountCents);
  const expiry = formatAuDate(input.expiresAt);
  const reward = input.rewardName ? `"${input.rewardName}" ` : "";
  return {
    to: input.to,
    subject: `Your Reward Dollars expire on ${expiry}`,
    ...renderEmail({
      heading: `Your Reward Dollars expire on ${expiry}`,
      paragraphs: [
        `Hi ${input.firstName},`,
        `You still have ${amount} in Reward Dollars from your reward ${reward}from ${input.companyName}. They expire on ${expiry}; any of them still unused then are forfeited and cannot be reinstated.`,
        `Choose your gift cards before then: open the reward catalogue (${input.catalogueUrl}) and log in with your access code and the password from your reward email.`,
        `Questions? Support replies within 24 business hours: ${input.supportEmail}.`,
      ],
      details: [
        ...(input.rewardName ? [["Reward", input.rewardName] as [string, string]] : []),
        ["Reward Dollars left", amount],
        ["Expires on", expiry],
        ...(input.accessCode ? [["Access code", input.accessCode] as [string, string]] : []),
      ],
      action: { label: "Choose Your Rewards", url: input.catalogueUrl },
    }),
  };
}

/** The recipient email with sample values: the Review page's 'Sample of Email'. */
export function sampleRecipientEmail(options: {
  companyName: string;
  /** The draft's own message and sender, when set: the sample shows what recipients will read. */
  rewardName?: string;
  message?: string;
  senderName?: string;
  catalogueUrl: string;
  supportEmail: string;
  now?: Date;
}): EmailContent {
  const now = options.now ?? new Date();
  return recipientRewardEmail({
    to: "alex.sample@example.com",
    firstName: "Alex",
    companyName: options.companyName,
    rewardName: options.rewardName || "Employee of the Month",
    message: options.message,
    senderName: options.senderName,
    amountCents: 10_000,
    accessCode: "K7QM-4XTP-9RWB",
    password: "Sample-Pa55word",
    expiresAt: addMonths(now, 18),
    catalogueUrl: options.catalogueUrl,
    supportEmail: options.supportEmail,
  });
}

export interface TaxInvoiceInput {
  to: string;
  firstName: string;
  /** The invoice as the API answers it (server/domain/invoices.ts): its parties frozen at payment. */
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
 * (core/invoices.ts invoiceView).
 */
export function taxInvoiceEmail(input: TaxInvoiceInput): EmailContent {
  const { invoice } = input;
  const view = invoiceView(invoice);
  const supplierNote = invoice.supplier.isPlaceholder
    ? ["Supplier details are placeholders: SUPPLIER_NAME and SUPPLIER_ABN are not configured on this server."]
    : [];
  return {
    to: input.to,
    subject: `Tax Invoice ${invoice.invoiceNumber}: ${invoice.rewardName}`,
    ...renderEmail({
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
    }),
  };
}

/** The payer's notice that a scheduled reward was cancelled and its payment refunded in full. */
export function scheduledRewardCancelledEmail(input: {
  to: string;
  firstName: string;
  rewardName: string;
  sendAt: Date;
  totalCents: number;
  invoiceNumber: string | null;
  orderUrl: string;
  /** Where the refund went: the card (default), or the company's prepaid balance (ADR 0029). */
  refundedTo?: "card" | "balance";
}): EmailContent {
  return {
    to: input.to,
    subject: `Cancelled and refunded: ${input.rewardName}`,
    ...renderEmail({
      heading: "Your scheduled reward was cancelled",
      paragraphs: [
        `Hi ${input.firstName},`,
        `The reward "${input.rewardName}", scheduled for ${formatSendTime(input.sendAt)}, was cancelled before it was sent. No recipient was emailed.`,
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
    }),
  };
}

/** `date` plus whole calendar months (the day clamps to the month's end: 31 Aug + 18 → 28/29 Feb). */
export function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
