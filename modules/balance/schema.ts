// The prepaid balance (ADR 0043) as the API and the portal share it: the top-up calls' request
// schemas, answers and refusals word for word, and the statement's view. Pure code: the browser
// bundle may import the types (the schemas are for the server and the page's action).
import * as z from "zod/mini";
import { formatDollars } from "../../core/money.ts";
import { simulatedCardFields } from "../orders/schema.ts";

/**
 * A top-up is whole dollars from $10 to $100,000: far below the card limit (MAX_PAYMENT_CENTS,
 * $999,999.99), so one card payment always takes it. No fee and no GST on a top-up: the service
 * fee and GST are charged when an order is paid from the balance.
 */
export const TOP_UP_MIN_CENTS = 10_00;
export const TOP_UP_MAX_CENTS = 100_000_00;

export const TOP_UP_DETAILS = {
  amountRequired: "Amount (in cents) is required.",
  amountWholeDollars: "Top up a whole number of dollars (the amount is in cents: 5000 for $50).",
  amountRange: `Top up at least ${formatDollars(TOP_UP_MIN_CENTS)} and at most ${formatDollars(TOP_UP_MAX_CENTS)}.`,
  notFound: "The requested top-up was not found.",
  /** The payment does not name this top-up, or its amount, currency or company differ: nothing credited. */
  mismatch: "The payment does not match its top-up (amount, currency or company); nothing was credited.",
  /** A card payment of the simulated processor made for another processor (or the reverse). */
  otherProcessor: "This top-up was started with another card processor; please start a new one.",
  alreadyPaid: "This top-up is already paid.",
} as const;

/**
 * POST /api/Balance/TopUps: `amount` in cents, like create-payment-intent (docs/requirements.md §S9), and a whole
 * number of dollars. The portal's form takes dollars and sends cents.
 */
export const createTopUpSchema = z.object({
  amount: z.number({ error: TOP_UP_DETAILS.amountRequired }).check(
    z.int(TOP_UP_DETAILS.amountWholeDollars),
    z.refine((cents) => cents % 100 === 0, TOP_UP_DETAILS.amountWholeDollars),
    z.refine((cents) => cents >= TOP_UP_MIN_CENTS && cents <= TOP_UP_MAX_CENTS, TOP_UP_DETAILS.amountRange),
  ),
});
export type CreateTopUpRequest = z.input<typeof createTopUpSchema>;

export type TopUpStatus = "pending" | "paid" | "failed";

/** A top-up as GET /api/Balance/TopUps/{id} answers it. */
export interface TopUpView {
  id: number;
  /** Cents. */
  amount: number;
  status: TopUpStatus;
  processor: "simulated" | "stripe";
  /** The processor's message of the last declined attempt, while not paid. */
  failureReason: string | null;
  createdAt: string;
  paidAt: string | null;
}

/** POST /api/Balance/TopUps: the payment to confirm (as create-payment-intent answers for an order). */
export interface CreatedTopUp {
  topUpId: number;
  paymentIntentId: string;
  clientSecret: string;
  /** Cents. */
  amount: number;
  processor: "simulated" | "stripe";
}

/** POST /api/Balance/TopUps/checkout-session (Stripe without JavaScript). */
export interface TopUpCheckout {
  topUpId: number;
  url: string;
  amount: number;
}

/** requires_payment_method: nothing paid yet (the card form, or a Checkout page left), the top-up still payable. */
export type TopUpCheckStatus = "succeeded" | "processing" | "requires_action" | "requires_payment_method" | "failed";

/** POST /api/Balance/TopUps/{id}/check: the payment's state, crediting the balance once when it succeeded. */
export interface TopUpCheck {
  topUpId: number;
  /** Cents. */
  amount: number;
  status: TopUpCheckStatus;
  /** The processor's message when the card was declined. */
  message?: string;
  /** The company's balance after the check (cents). */
  balance: number;
}

/** One line of the statement (newest first). */
export interface BalanceEntryView {
  id: number;
  kind: "top_up" | "order" | "refund";
  /** Signed cents: a top-up and a refund add, an order takes. */
  amount: number;
  /** Cents, right after this movement. */
  balanceAfter: number;
  /** ISO 8601. */
  at: string;
  topUpId: number | null;
  /** The order a charge or refund belongs to. */
  order: { id: number; invoiceNumber: string | null; rewardName: string } | null;
}

/** GET /api/Balance (Owner or Manager). */
export interface BalanceView {
  /** Cents. */
  balance: number;
  entries: BalanceEntryView[];
  /** The caller may top up (an Owner). */
  canTopUp: boolean;
  processor: "simulated" | "stripe";
  minTopUp: number;
  maxTopUp: number;
}

/** The simulated card form of a top-up: the same fields and rules as an order's (docs/requirements.md §D6, §D8). */
export const payTopUpSimulatedSchema = z.object(simulatedCardFields);

export const authenticateTopUpSchema = z.object({
  outcome: z.enum(["complete", "fail"], { error: "outcome must be complete or fail." }),
});

/** What the statement says a movement was: "Top-up", "Order INV-000123 · Holiday thanks", "Refund …". */
export function entryLabel(entry: Pick<BalanceEntryView, "kind" | "order">): string {
  if (entry.kind === "top_up") return "Top-up";
  const order = entry.order;
  const what = order ? [order.invoiceNumber, order.rewardName].filter(Boolean).join(" · ") : "";
  const base = entry.kind === "order" ? "Order" : "Refund";
  return what ? `${base} ${what}` : base;
}

// ─── The portal's top-up form (Settings › Balance): dollars, as people type them ───

export const TOP_UP_FORM_DETAILS = {
  amountRequired: "Enter the amount to top up, in whole dollars.",
  amountFormat: "Enter a whole number of dollars, e.g. 500 (no cents).",
} as const;

/** "500", "$500", "1,000" and "$1,000.00" → cents; null for anything else (cents other than .00 included). */
export function topUpDollarsToCents(text: string): number | null {
  const m = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.00?)?$/.exec(text.trim());
  if (!m?.[1]) return null;
  const dollars = Number(m[1].replace(/,/g, ""));
  return Number.isSafeInteger(dollars * 100) ? dollars * 100 : null;
}

/** The form as posted (`intent` top-up, `amount` in dollars); the API stays the judge. */
export const topUpFormSchema = z.object({
  intent: z.literal("top-up"),
  amount: z.string({ error: TOP_UP_FORM_DETAILS.amountRequired }).check(
    z.trim(),
    z.minLength(1, TOP_UP_FORM_DETAILS.amountRequired),
    z.maxLength(20, TOP_UP_FORM_DETAILS.amountFormat),
    z.superRefine((text, ctx) => {
      if (text === "") return; // said once, by minLength(1)
      const cents = topUpDollarsToCents(text);
      if (cents === null) ctx.addIssue({ code: "custom", message: TOP_UP_FORM_DETAILS.amountFormat });
      else if (cents < TOP_UP_MIN_CENTS || cents > TOP_UP_MAX_CENTS) {
        ctx.addIssue({ code: "custom", message: TOP_UP_DETAILS.amountRange });
      }
    }),
  ),
});
