// The payment forms as they are posted (docs/requirements.md §S2 Reward My Team Review, §S3 reward
// name, §D6 the simulated card, §D8 its labels; ADR 0022 §6 the approval request; ADR 0043 the
// balance's top-ups): the card's four fields, the reward's wording and when it is sent, composed
// into the schema of each form. Written once with zod/mini (ADR 0017): the route actions read the
// posts with these, and the browser checks the same schemas through conform's parseWithZod before
// a round trip. The API stays the judge of the card (server/payments/simulated.ts) and of the
// schedule's window. Pure code only: the browser bundle imports this module.
import * as z from "zod/mini";
import {
  CARD_MESSAGES,
  cardDigits,
  expiryHasPassed,
  isCardNumber,
  NAME_ON_CARD_MAX,
  PAY_INTENTS,
  PAYMENT_ERROR,
  parseExpiry,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
} from "../../core/card.ts";
import { rewardMessageField, rewardNameField, senderNameField } from "../reward-drafts/schema.ts";
import { SCHEDULE_DETAILS, sydneyWallTimeToInstant } from "../scheduled-sends/schema.ts";

/** A rule checked once the value is there (one message per field, as the processor gives one). */
const onceValid = { when: (payload: z.core.ParsePayload) => payload.issues.length === 0 };

/** Trimmed and required, then `valid` or the `invalid` message. */
function cardText(required: string, invalid: string, valid: (text: string) => boolean) {
  return z
    .string({ error: required })
    .check(z.trim(), z.minLength(1, required), z.refine(valid, { error: invalid, ...onceValid }));
}

// ─── The card (docs/requirements.md §D6) ─────────────────────────────────────────────────────

/** 12 to 19 digits passing the Luhn check; the spaces or dashes between groups are allowed. */
export const cardNumberField = cardText(CARD_MESSAGES.cardNumberRequired, CARD_MESSAGES.cardNumberInvalid, (text) =>
  isCardNumber(cardDigits(text)),
);

/**
 * MM/YY (MM / YY, MMYY, MM/YYYY), not before the current month. The month is read from the clock
 * each time a form is parsed, never once when this module loads (a server runs for months).
 */
export const expiryField = cardText(
  CARD_MESSAGES.expiryRequired,
  CARD_MESSAGES.expiryInvalid,
  (text) => parseExpiry(text) !== null,
).check(
  z.refine(
    (text: string) => {
      const expiry = parseExpiry(text);
      return expiry === null || !expiryHasPassed(expiry, new Date());
    },
    { error: CARD_MESSAGES.expiryPast, ...onceValid },
  ),
);

/** The 3 or 4 digits on the card. */
export const cvcField = cardText(CARD_MESSAGES.cvcRequired, CARD_MESSAGES.cvcInvalid, (text) => /^\d{3,4}$/.test(text));

export const nameOnCardField = z
  .string({ error: CARD_MESSAGES.nameOnCardRequired })
  .check(
    z.trim(),
    z.minLength(1, CARD_MESSAGES.nameOnCardRequired),
    z.maxLength(NAME_ON_CARD_MAX, CARD_MESSAGES.nameOnCardTooLong),
  );

/** The simulated card's four fields, as every card form posts them (the values trimmed). */
export const cardFields = {
  cardNumber: cardNumberField,
  expiry: expiryField,
  cvc: cvcField,
  nameOnCard: nameOnCardField,
};

// ─── The reward's wording and when it is sent (modules/reward-drafts/schema.ts, modules/scheduled-sends/schema.ts) ────────────

/** The total in cents the page showed, posted in a hidden input (the API refuses any other). */
const amountField = z.coerce
  .number({ error: PAYMENT_ERROR })
  .check(z.int(), z.positive(), z.maximum(Number.MAX_SAFE_INTEGER));

/** The Review page's wording fields: the reward name, the message, its sender and when to send. */
const wordingFields = {
  rewardName: rewardNameField,
  message: rewardMessageField,
  senderName: senderNameField,
  /** "now" (once paid) or "later" (at sendAt). */
  sendWhen: z._default(z.optional(z.enum(["now", "later"])), "now"),
  /** Sydney wall-clock time as a datetime-local field posts it ("2026-12-01T09:00"); read for "later" only. */
  sendAt: z._default(z.optional(z.string()), ""),
};

/**
 * "Schedule for later" needs a real Sydney date and time. Whether it is 10 minutes to 90 days
 * ahead is the API's to say (its clock, modules/scheduled-sends/schema.ts scheduleProblem). Checked even when
 * another field failed, so the form shows every message at once.
 */
const scheduleCheck = z.superRefine(
  (value: unknown, ctx) => {
    if (typeof value !== "object" || value === null) return;
    const { sendWhen, sendAt } = value as { sendWhen?: unknown; sendAt?: unknown };
    if (sendWhen !== "later") return;
    const text = typeof sendAt === "string" ? sendAt.trim() : "";
    const message = !text
      ? SCHEDULE_DETAILS.required
      : sydneyWallTimeToInstant(text) === null
        ? SCHEDULE_DETAILS.invalid
        : null;
    if (message) ctx.addIssue({ code: "custom", path: ["sendAt"], message, input: sendAt });
  },
  { when: () => true },
);

// ─── The forms ───────────────────────────────────────────────────────────────────────────────

/** The simulated card form of the Review page and of an approved order's page (docs/requirements.md §D6, §D8). */
export const simulatedPaySchema = z
  .object({ intent: z.literal(PAY_INTENTS.pay), amount: amountField, ...wordingFields, ...cardFields })
  .check(scheduleCheck);

/** The Stripe form (its card fields live in Stripe's own frame or page). */
export const stripePaySchema = z
  .object({
    intent: z.enum([PAY_INTENTS.checkout, PAY_INTENTS.stripeIntent]),
    amount: amountField,
    ...wordingFields,
  })
  .check(scheduleCheck);

/**
 * "Pay from the company balance" (ADR 0043): the wording and the total the page showed;
 * the card fields of the same form are not read.
 */
export const payOrderSchema = z
  .object({ intent: z.literal(PAY_INTENTS.payOrder), amount: amountField, ...wordingFields })
  .check(scheduleCheck);

/** "Request approval" (ADR 0022 §6): the wording and the total the page showed. */
export const requestApprovalSchema = z
  .object({ intent: z.literal(PAY_INTENTS.requestApproval), amount: amountField, ...wordingFields })
  .check(scheduleCheck);

/**
 * 'Preview the email' and the sample tooltip's save: the message and sender alone (modules/reward-drafts/schema.ts
 * rules). Nothing else is saved, so nothing else is checked: not the card, not the send time.
 */
export const saveMessageSchema = z.object({
  [SAVE_MESSAGE_FIELD]: z.enum([SAVE_MESSAGE_THEN.preview, SAVE_MESSAGE_THEN.stay]),
  message: rewardMessageField,
  senderName: senderNameField,
});

/**
 * The simulated processor's authentication step (a card such as 4000 0025 0000 3155): Complete or
 * Fail, on the Review payment's page and on a top-up's.
 */
export const simulatedAuthenticationSchema = z.object({ outcome: z.enum(["complete", "fail"]) });

/** A balance top-up's card form (ADR 0043): the card alone, for the top-up's own amount. */
export const topUpCardSchema = z.object({ intent: z.literal("pay"), ...cardFields });

/** The top-up page's posts: the card form, or the simulated authentication step's Complete and Fail. */
export const topUpPostSchema = z.discriminatedUnion("intent", [
  topUpCardSchema,
  z.object({ intent: z.literal("authenticate"), ...simulatedAuthenticationSchema.shape }),
]);
