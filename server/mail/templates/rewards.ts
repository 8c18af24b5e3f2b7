// A recipient's emails: the congratulation with their access code and password when a reward is
// released (release.ts, delivery.ts), its sample on the Review page, and the reminder 30 days
// before a reward expires (lots.ts). The recipient's password appears only here, never in logs.

import { formatDate } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import { addMonths } from "./dates.ts";
import { email, type RenderedEmail } from "./render.ts";

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

export function recipientRewardEmail(input: RecipientEmailInput): RenderedEmail {
  const amount = formatDollars(input.amountCents);
  const expiry = formatDate(input.expiresAt, "longDate");
  return email(input.to, `Congratulations! You have received ${amount} in Reward Dollars`, {
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
      // Each reward is its own lot with its own expiry (docs/requirements.md §S1, per reward's email: modules/lots/service.server.ts).
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
  });
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
 * A recipient's reminder 30 days before one of their rewards expires (modules/lots/service.server.ts):
 * what is left of it and the date, in Sydney's calendar. One email per reward (lot).
 */
export function rewardExpiryReminderEmail(input: ExpiryReminderInput): RenderedEmail {
  const amount = formatDollars(input.amountCents);
  const expiry = formatDate(input.expiresAt, "longDate");
  const reward = input.rewardName ? `"${input.rewardName}" ` : "";
  return email(input.to, `Your Reward Dollars expire on ${expiry}`, {
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
  });
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
}): RenderedEmail {
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
