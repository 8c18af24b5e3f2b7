// The simulated card processor (docs/requirements.md §D6): the card checks a processor makes, and the
// payment's states in its own table (idempotent creation, cancel, authentication).
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { luhnValid } from "../../core/card.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { simulatedPayments } from "../db/schema.ts";
import {
  CARD_MESSAGES,
  checkCard,
  completeSimulatedAuthentication,
  confirmSimulatedCard,
  simulatedProcessor,
  TEST_CARDS,
} from "./simulated.ts";

const now = new Date("2025-03-15T00:00:00Z");
const card = { cardNumber: "4242 4242 4242 4242", expiry: "03/25", cvc: "123", nameOnCard: "Jane Citizen" };

describe("checkCard", () => {
  it("knows the Luhn rule", () => {
    for (const n of Object.values(TEST_CARDS)) expect(luhnValid(n)).toBe(true);
    expect(luhnValid("4242424242424241")).toBe(false);
    expect(luhnValid("42a2")).toBe(false);
  });

  it("accepts spaces and dashes in the number, MM/YY and MM/YYYY, 3 or 4 digit CVCs", () => {
    expect(checkCard(card, now)).toEqual({ ok: true, digits: "4242424242424242" });
    expect(checkCard({ ...card, cardNumber: "4242-4242-4242-4242", expiry: "3/2031", cvc: "1234" }, now).ok).toBe(true);
  });

  it.each([
    [{ cardNumber: "4242 4242 4242 4241" }, "cardNumber", CARD_MESSAGES.invalidNumber],
    [{ cardNumber: "4242" }, "cardNumber", CARD_MESSAGES.invalidNumber],
    [{ expiry: "0/30" }, "expiry", CARD_MESSAGES.invalidExpiry],
    [{ expiry: "1230" }, "expiry", CARD_MESSAGES.invalidExpiry],
    [{ expiry: "02/25" }, "expiry", CARD_MESSAGES.pastExpiry],
    [{ expiry: "12/24" }, "expiry", CARD_MESSAGES.pastExpiry],
    [{ cvc: "12345" }, "cvc", CARD_MESSAGES.invalidCvc],
    [{ cvc: "abc" }, "cvc", CARD_MESSAGES.invalidCvc],
    [{ nameOnCard: "" }, "nameOnCard", CARD_MESSAGES.nameRequired],
  ])("refuses %j", (change, field, message) => {
    expect(checkCard({ ...card, ...change }, now)).toEqual({ ok: false, field, message });
  });
});

describeEachDatabase("simulatedProcessor", ({ database }) => {
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));
  const input = {
    orderId: 7,
    amountCents: 11100,
    currency: "aud" as const,
    idempotencyKey: "order-7-payment",
    metadata: { orderId: "7", companyId: "1" },
  };

  it("creates one payment per idempotency key, like Stripe", async () => {
    const payments = simulatedProcessor(db(), () => now);
    const a = await payments.createPayment(input);
    const b = await payments.createPayment(input);
    expect(b).toEqual(a);
    expect(await payments.retrieve(a.paymentIntentId)).toEqual({
      paymentIntentId: a.paymentIntentId,
      status: "requires_payment_method",
      amountCents: 11100,
      currency: "aud",
      metadata: { orderId: "7", companyId: "1" },
    });
    await expect(payments.createPayment({ ...input, amountCents: 1 })).rejects.toThrow(/different amount/);
    expect(await payments.retrieve("pi_sim_unknown")).toBeNull();
  });

  it("declines, authenticates and cancels; stores only the last 4 digits", async () => {
    const payments = simulatedProcessor(db(), () => now);
    const { paymentIntentId, clientSecret } = await payments.createPayment(input);
    const ids = { paymentIntentId, clientSecret };
    expect(await confirmSimulatedCard(db(), { ...ids, ...card, clientSecret: "wrong" }, now)).toBeNull();
    expect(await confirmSimulatedCard(db(), { ...ids, ...card, cardNumber: TEST_CARDS.declined }, now)).toEqual({
      status: "failed",
      paymentIntentId,
      message: "Your card was declined.",
    });
    expect((await payments.retrieve(paymentIntentId))?.lastError).toBe("Your card was declined.");
    expect(
      (await confirmSimulatedCard(db(), { ...ids, ...card, cardNumber: TEST_CARDS.authentication }, now))?.status,
    ).toBe("requires_action");
    expect(await completeSimulatedAuthentication(db(), { ...ids, outcome: "complete" }, now)).toEqual({
      status: "succeeded",
      paymentIntentId,
    });
    const [row] = await db().select().from(simulatedPayments).where(eq(simulatedPayments.id, paymentIntentId));
    expect(row).toMatchObject({ status: "succeeded", cardLast4: "3155", failureMessage: null });
    // Final states stay final.
    await payments.cancel(paymentIntentId);
    expect((await payments.retrieve(paymentIntentId))?.status).toBe("succeeded");

    const other = await payments.createPayment({ ...input, idempotencyKey: "order-8-payment" });
    await payments.cancel(other.paymentIntentId);
    expect(await confirmSimulatedCard(db(), { ...other, ...card }, now)).toEqual({
      status: "failed",
      paymentIntentId: other.paymentIntentId,
      message: CARD_MESSAGES.canceled,
    });
    expect(await completeSimulatedAuthentication(db(), { ...other, outcome: "complete" }, now)).toMatchObject({
      status: "failed",
      message: CARD_MESSAGES.notAwaitingAuthentication,
    });
  });
});
