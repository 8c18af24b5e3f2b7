// The emails to the support team: a Contact Us / Help request (help.ts), and a refund the
// scheduler gave up on after 72 hours, of a cancelled scheduled reward (scheduled-sends.ts) or of
// a second payment (extra-payments.ts), for someone to make by hand.
import { formatDollars } from "../../../core/money.ts";
import { email, type RenderedEmail } from "./render.ts";

export function helpRequestEmail(input: {
  to: string;
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  message: string;
}): RenderedEmail {
  const name = `${input.firstName} ${input.lastName}`;
  return email(input.to, `Help request #${input.id} from ${name}`, {
    heading: `Help request #${input.id}`,
    paragraphs: [`${name} sent a message through the Contact Us form.`],
    details: [
      ["Name", name],
      ["Email", input.email],
      ["Message", input.message],
    ],
  });
}

/** A cancelled scheduled reward whose refund failed for good: the facts support needs to refund it by hand. */
export function orderRefundFailedEmail(input: {
  to: string;
  orderId: number;
  companyId: number;
  companyName: string | null;
  /** Where the refund was to go: "the card" or "the company balance". */
  refundTo: string;
  attempts: number;
  payerEmail: string;
  totalCents: number;
  processor: string;
  paymentIntentId: string | null;
  cancelledAt: Date | null;
  lastError: string;
}): RenderedEmail {
  return email(
    input.to,
    `Refund failed: order ${input.orderId} (${input.companyName ?? `company ${input.companyId}`})`,
    {
      heading: `Refund failed: order ${input.orderId}`,
      paragraphs: [
        `The refund of a cancelled scheduled reward to ${input.refundTo} did not go through after ${input.attempts} tries over 72 hours, and is no longer retried. Please refund it by hand and contact the company; its order page tells them to contact support.`,
      ],
      details: [
        ["Order", String(input.orderId)],
        ["Company", `${input.companyName ?? ""} (id ${input.companyId})`],
        ["Payer", input.payerEmail],
        ["Amount", formatDollars(input.totalCents)],
        ["Processor", input.processor],
        ["Payment", input.paymentIntentId ?? "prepaid balance"],
        ["Cancelled", input.cancelledAt?.toISOString() ?? ""],
        ["Last error", input.lastError],
      ],
    },
  );
}

/** A second payment whose refund failed for good: the facts support needs to refund it by hand. */
export function extraPaymentRefundFailedEmail(input: {
  to: string;
  orderId: number;
  companyId: number;
  companyName: string | null;
  attempts: number;
  amountCents: number;
  paymentIntentId: string;
  lastError: string;
}): RenderedEmail {
  return email(input.to, `Refund failed: a second payment for order ${input.orderId}`, {
    heading: `Refund failed: a second payment for order ${input.orderId}`,
    paragraphs: [
      `A second card payment for an order that was already paid could not be refunded after ${input.attempts} tries over 72 hours, and is no longer retried. Please refund it by hand and contact the company.`,
    ],
    details: [
      ["Order", String(input.orderId)],
      ["Company", `${input.companyName ?? ""} (id ${input.companyId})`],
      ["Amount", formatDollars(input.amountCents)],
      ["Payment", input.paymentIntentId],
      ["Last error", input.lastError],
    ],
  });
}
