// The simulated card processor (docs/requirements.md §D6), the default when STRIPE_SECRET_KEY is unset. It
// plays Stripe's PaymentIntents with server-side state in `simulated_payments` and Stripe's test
// cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined ('Your card was
// declined.'), 4000 0025 0000 3155 asks for an authentication step (completed or failed on a
// page of the portal). Any future expiry MM/YY and any 3–4 digit CVC; the number must pass the
// Luhn check. Only the card's last 4 digits are stored, and the number is never logged.
import { randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { cardDigits, isCardNumber } from "../../core/card.ts";
import type { Db } from "../db/client.ts";
import { simulatedPayments } from "../db/schema.ts";
import type {
  CreatedPayment,
  CreatePaymentInput,
  PaymentStatus,
  Payments,
  RetrievedPayment,
  SimulatedCard,
  SimulatedConfirmResult,
} from "./port.ts";

export type { SimulatedCard, SimulatedConfirmResult } from "./port.ts";

export const SIMULATED_ID_PREFIX = "pi_sim_";

export const TEST_CARDS = {
  success: "4242424242424242",
  declined: "4000000000000002",
  authentication: "4000002500003155",
  insufficientFunds: "4000000000009995",
  expired: "4000000000000069",
  incorrectCvc: "4000000000000127",
} as const;

/** The messages of the card form: the processor's own words, as Stripe gives them. */
export const CARD_MESSAGES = {
  declined: "Your card was declined.",
  insufficientFunds: "Your card has insufficient funds.",
  expiredCard: "Your card has expired.",
  incorrectCvc: "Your card's security code is incorrect.",
  invalidNumber: "Your card number is invalid.",
  invalidExpiry: "Your card's expiry date is invalid; use MM/YY.",
  pastExpiry: "Your card's expiry date is in the past.",
  invalidCvc: "Your card's security code is invalid; use the 3 or 4 digits on the card.",
  nameRequired: "Name on card is required.",
  authenticationFailed:
    "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
  canceled: "This payment was cancelled; please review your reward and pay again.",
  notAwaitingAuthentication: "This payment is not waiting for authentication.",
} as const;

export type CardCheck = { ok: true; digits: string } | { ok: false; field: keyof SimulatedCard; message: string };

/** Checks the card form the way a processor would, before any state changes. */
export function checkCard(card: SimulatedCard, now: Date): CardCheck {
  const digits = cardDigits(card.cardNumber);
  if (!isCardNumber(digits)) {
    return { ok: false, field: "cardNumber", message: CARD_MESSAGES.invalidNumber };
  }
  const expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(card.expiry.trim());
  const month = expiry ? Number(expiry[1]) : 0;
  if (!expiry || month < 1 || month > 12) return { ok: false, field: "expiry", message: CARD_MESSAGES.invalidExpiry };
  const yearText = expiry[2] ?? "";
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  // A card is valid to the end of its expiry month (compared in UTC; a day either way is immaterial).
  const currentMonths = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + (month - 1) < currentMonths) return { ok: false, field: "expiry", message: CARD_MESSAGES.pastExpiry };
  if (!/^\d{3,4}$/.test(card.cvc.trim())) return { ok: false, field: "cvc", message: CARD_MESSAGES.invalidCvc };
  if (card.nameOnCard.trim() === "") return { ok: false, field: "nameOnCard", message: CARD_MESSAGES.nameRequired };
  return { ok: true, digits };
}

type Row = typeof simulatedPayments.$inferSelect;

const randomToken = (bytes: number) => randomBytes(bytes).toString("base64url").replace(/[-_]/g, "x");

function toRetrieved(row: Row): RetrievedPayment {
  return {
    paymentIntentId: row.id,
    status: row.status as PaymentStatus,
    amountCents: row.amountCents,
    currency: row.currency,
    metadata: row.metadata,
    ...(row.failureMessage ? { lastError: row.failureMessage } : {}),
  };
}

/** Reads the payment for an update inside `tx`, only when the client secret matches. */
async function lockPayment(tx: Db, paymentIntentId: string, clientSecret: string): Promise<Row | undefined> {
  const [row] = await tx
    .select()
    .from(simulatedPayments)
    .where(and(eq(simulatedPayments.id, paymentIntentId), eq(simulatedPayments.clientSecret, clientSecret)))
    .for("update");
  return row;
}

export function simulatedProcessor(db: Db, now: () => Date = () => new Date()): Payments {
  return {
    kind: "simulated",

    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      const id = `${SIMULATED_ID_PREFIX}${randomToken(18)}`;
      await db
        .insert(simulatedPayments)
        .values({
          id,
          clientSecret: `${id}_secret_${randomToken(18)}`,
          idempotencyKey: input.idempotencyKey,
          amountCents: input.amountCents,
          currency: input.currency,
          status: "requires_payment_method",
          metadata: input.metadata,
          createdAt: now(),
          updatedAt: now(),
        })
        .onConflictDoNothing({ target: simulatedPayments.idempotencyKey });
      // Like Stripe, the same idempotency key answers the payment it first made.
      const [row] = await db
        .select()
        .from(simulatedPayments)
        .where(eq(simulatedPayments.idempotencyKey, input.idempotencyKey));
      if (!row) throw new Error("simulated payment insert returned no row");
      if (row.amountCents !== input.amountCents) {
        throw new Error("idempotency key reused with a different amount");
      }
      return { paymentIntentId: row.id, clientSecret: row.clientSecret };
    },

    async retrieve(paymentIntentId: string): Promise<RetrievedPayment | null> {
      const [row] = await db.select().from(simulatedPayments).where(eq(simulatedPayments.id, paymentIntentId));
      return row ? toRetrieved(row) : null;
    },

    async cancel(paymentIntentId: string): Promise<void> {
      await db
        .update(simulatedPayments)
        .set({ status: "canceled", updatedAt: now() })
        .where(
          and(
            eq(simulatedPayments.id, paymentIntentId),
            sql`${simulatedPayments.status} in ('requires_payment_method', 'requires_action')`,
          ),
        );
    },

    // A full refund of a succeeded payment, recorded once: a repeat answers the same refund id.
    async refund(input): Promise<{ refundId: string }> {
      const refundId = `re_sim_${input.paymentIntentId.replace(/^pi_sim_/, "")}`;
      await db
        .update(simulatedPayments)
        .set({ refundId, refundedAt: now(), updatedAt: now() })
        .where(
          and(
            eq(simulatedPayments.id, input.paymentIntentId),
            eq(simulatedPayments.status, "succeeded"),
            isNull(simulatedPayments.refundId),
          ),
        );
      const [row] = await db
        .select({ refundId: simulatedPayments.refundId })
        .from(simulatedPayments)
        .where(eq(simulatedPayments.id, input.paymentIntentId));
      if (!row?.refundId) throw new Error(`simulated payment ${input.paymentIntentId} is not a succeeded payment`);
      return { refundId: row.refundId };
    },

    confirmCard: (input, at) => confirmSimulatedCard(db, input, at),
    completeAuthentication: (input, at) => completeSimulatedAuthentication(db, input, at),
  };
}

/**
 * The card form's submit: null when the id and client secret do not match a payment (the
 * caller answers 404). A declined or invalid card leaves the payment payable with another card.
 */
export async function confirmSimulatedCard(
  db: Db,
  input: { paymentIntentId: string; clientSecret: string } & SimulatedCard,
  now: Date = new Date(),
): Promise<SimulatedConfirmResult | null> {
  return db.transaction(async (tx) => {
    const row = await lockPayment(tx, input.paymentIntentId, input.clientSecret);
    if (!row) return null;
    const id = row.id;
    if (row.status === "succeeded") return { status: "succeeded", paymentIntentId: id };
    if (row.status === "requires_action") return { status: "requires_action", paymentIntentId: id };
    if (row.status === "canceled") return { status: "failed", paymentIntentId: id, message: CARD_MESSAGES.canceled };

    const check = checkCard(input, now);
    if (!check.ok) return { status: "failed", paymentIntentId: id, message: check.message, field: check.field };
    const last4 = check.digits.slice(-4);
    const outcome = cardOutcome(check.digits);
    await tx
      .update(simulatedPayments)
      .set({
        status: outcome.status,
        cardLast4: last4,
        failureMessage: outcome.status === "requires_payment_method" ? outcome.message : null,
        updatedAt: now,
      })
      .where(eq(simulatedPayments.id, id));
    if (outcome.status === "requires_payment_method") {
      return { status: "failed", paymentIntentId: id, message: outcome.message };
    }
    return { status: outcome.status, paymentIntentId: id };
  });
}

function cardOutcome(
  digits: string,
):
  | { status: "succeeded" | "requires_action" }
  | { status: "requires_payment_method"; message: string; field?: keyof SimulatedCard } {
  switch (digits) {
    case TEST_CARDS.declined:
      return { status: "requires_payment_method", message: CARD_MESSAGES.declined };
    case TEST_CARDS.insufficientFunds:
      return { status: "requires_payment_method", message: CARD_MESSAGES.insufficientFunds };
    case TEST_CARDS.expired:
      return { status: "requires_payment_method", message: CARD_MESSAGES.expiredCard };
    case TEST_CARDS.incorrectCvc:
      return { status: "requires_payment_method", message: CARD_MESSAGES.incorrectCvc };
    case TEST_CARDS.authentication:
      return { status: "requires_action" };
    default:
      // 4242 4242 4242 4242 and any other card that passes the checks.
      return { status: "succeeded" };
  }
}

/**
 * The authentication page's answer for a payment in requires_action: `complete` makes it
 * succeed, `fail` leaves it payable with another card and the processor's message. Null when
 * the id and client secret do not match.
 */
export async function completeSimulatedAuthentication(
  db: Db,
  input: { paymentIntentId: string; clientSecret: string; outcome: "complete" | "fail" },
  now: Date = new Date(),
): Promise<SimulatedConfirmResult | null> {
  return db.transaction(async (tx) => {
    const row = await lockPayment(tx, input.paymentIntentId, input.clientSecret);
    if (!row) return null;
    const id = row.id;
    if (row.status === "succeeded") return { status: "succeeded", paymentIntentId: id };
    if (row.status !== "requires_action") {
      return { status: "failed", paymentIntentId: id, message: CARD_MESSAGES.notAwaitingAuthentication };
    }
    if (input.outcome === "complete") {
      await tx
        .update(simulatedPayments)
        .set({ status: "succeeded", failureMessage: null, updatedAt: now })
        .where(eq(simulatedPayments.id, id));
      return { status: "succeeded", paymentIntentId: id };
    }
    await tx
      .update(simulatedPayments)
      .set({ status: "requires_payment_method", failureMessage: CARD_MESSAGES.authenticationFailed, updatedAt: now })
      .where(eq(simulatedPayments.id, id));
    return { status: "failed", paymentIntentId: id, message: CARD_MESSAGES.authenticationFailed };
  });
}

/** The payment's id and client secret match (for pages that show the authentication step). */
export async function simulatedPaymentStatus(
  db: Db,
  paymentIntentId: string,
  clientSecret: string,
): Promise<{ status: PaymentStatus; amountCents: number; metadata: Record<string, string> } | null> {
  const [row] = await db
    .select()
    .from(simulatedPayments)
    .where(and(eq(simulatedPayments.id, paymentIntentId), eq(simulatedPayments.clientSecret, clientSecret)));
  return row ? { status: row.status as PaymentStatus, amountCents: row.amountCents, metadata: row.metadata } : null;
}
