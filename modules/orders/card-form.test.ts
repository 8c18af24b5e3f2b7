// The payment forms' schemas as conform's parseWithZod reads a post, in the route actions and in
// the browser alike (ADR 0017): every message of the card form (the processor's and the API's
// own words, app/features/payment/payment.test.ts proves they agree), the expiry read from the
// clock at parse time, the wording and send time of the Review page, and which fields each form
// checks.
import { parseWithZod } from "@conform-to/zod/v4";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CARD_MESSAGES, expiryHasPassed, parseExpiry } from "../../core/card.ts";
import { REWARD_DETAILS } from "../reward-drafts/schema.ts";
import { SCHEDULE_DETAILS } from "../scheduled-sends/schema.ts";
import {
  requestApprovalSchema,
  saveMessageSchema,
  simulatedAuthenticationSchema,
  simulatedPaySchema,
  stripePaySchema,
  topUpCardSchema,
  topUpPostSchema,
} from "./card-form.ts";

const NOW = new Date("2026-11-22T10:00:00Z");

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

type Schema = Parameters<typeof parseWithZod>[1]["schema"];

function post(entries: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.append(name, value);
  return data;
}

/** The field errors of a post ({} when it passed). */
function errorsOf(schema: Schema, entries: Record<string, string>) {
  const submission = parseWithZod(post(entries), { schema });
  return submission.status === "success" ? {} : (submission.error ?? {});
}

function parsed(schema: Schema, entries: Record<string, string>) {
  const submission = parseWithZod(post(entries), { schema });
  if (submission.status !== "success") throw new Error(`expected a value: ${JSON.stringify(submission.error)}`);
  return submission.value as Record<string, unknown>;
}

const card = {
  cardNumber: "4242 4242 4242 4242",
  expiry: "12/34",
  cvc: "123",
  nameOnCard: "Paula Payer",
};
const pay = { intent: "pay", amount: "11100", rewardName: "Quarterly Stars", ...card };

describe("the card's fields", () => {
  it("take Stripe's test cards with a future expiry, this month's included", () => {
    for (const cardNumber of [
      "4242 4242 4242 4242",
      "4000 0000 0000 0002",
      "4000002500003155",
      "4242-4242-4242-4242",
    ]) {
      expect(errorsOf(simulatedPaySchema, { ...pay, cardNumber })).toEqual({});
    }
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "11/26" })).toEqual({});
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "11 / 2026" })).toEqual({});
  });

  it("name each missing field", () => {
    expect(errorsOf(simulatedPaySchema, { intent: "pay", amount: "11100" })).toEqual({
      rewardName: [CARD_MESSAGES.rewardNameRequired],
      cardNumber: [CARD_MESSAGES.cardNumberRequired],
      expiry: [CARD_MESSAGES.expiryRequired],
      cvc: [CARD_MESSAGES.cvcRequired],
      nameOnCard: [CARD_MESSAGES.nameOnCardRequired],
    });
    // Spaces alone are nothing.
    expect(errorsOf(simulatedPaySchema, { ...pay, rewardName: "  ", cvc: " ", nameOnCard: "\t" })).toEqual({
      rewardName: [CARD_MESSAGES.rewardNameRequired],
      cvc: [CARD_MESSAGES.cvcRequired],
      nameOnCard: [CARD_MESSAGES.nameOnCardRequired],
    });
  });

  it("give one message per field that is wrong", () => {
    expect(
      errorsOf(simulatedPaySchema, {
        ...pay,
        rewardName: "x".repeat(101),
        cardNumber: "4242 4242 4242 4241",
        expiry: "10/26",
        cvc: "12",
        nameOnCard: "n".repeat(65),
      }),
    ).toEqual({
      rewardName: [CARD_MESSAGES.rewardNameTooLong],
      cardNumber: [CARD_MESSAGES.cardNumberInvalid],
      expiry: [CARD_MESSAGES.expiryPast],
      cvc: [CARD_MESSAGES.cvcInvalid],
      nameOnCard: [CARD_MESSAGES.nameOnCardTooLong],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, cardNumber: "4242" })).toEqual({
      cardNumber: [CARD_MESSAGES.cardNumberInvalid],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "13/30" })).toEqual({
      expiry: [CARD_MESSAGES.expiryInvalid],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "soon" })).toEqual({ expiry: [CARD_MESSAGES.expiryInvalid] });
    expect(errorsOf(simulatedPaySchema, { ...pay, cvc: "12345" })).toEqual({ cvc: [CARD_MESSAGES.cvcInvalid] });
    expect(errorsOf(simulatedPaySchema, { ...pay, cvc: "abc" })).toEqual({ cvc: [CARD_MESSAGES.cvcInvalid] });
    // At the limits: a 100-character reward name and a 64-character name on the card pass.
    expect(errorsOf(simulatedPaySchema, { ...pay, rewardName: "x".repeat(100), nameOnCard: "n".repeat(64) })).toEqual(
      {},
    );
  });

  it("read the month from the clock when a form is parsed, not when the module loaded", () => {
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "11/26" })).toEqual({});
    vi.setSystemTime(new Date("2026-12-01T10:00:00Z"));
    expect(errorsOf(simulatedPaySchema, { ...pay, expiry: "11/26" })).toEqual({ expiry: [CARD_MESSAGES.expiryPast] });
  });

  it("answer the values trimmed", () => {
    expect(
      parsed(simulatedPaySchema, {
        ...pay,
        rewardName: "  Stars ",
        cardNumber: " 4242 4242 4242 4242 ",
        expiry: " 12/34 ",
        cvc: " 123 ",
        nameOnCard: " Paula Payer ",
      }),
    ).toMatchObject({
      intent: "pay",
      amount: 11100,
      rewardName: "Stars",
      cardNumber: "4242 4242 4242 4242",
      expiry: "12/34",
      cvc: "123",
      nameOnCard: "Paula Payer",
      message: "",
      senderName: "",
      sendWhen: "now",
      sendAt: "",
    });
  });

  it("refuse a post whose hidden total is not a positive whole number of cents", () => {
    for (const amount of ["", "abc", "0", "-5", "10.5"]) {
      expect(errorsOf(simulatedPaySchema, { ...pay, amount })).toHaveProperty("amount");
    }
  });
});

describe("the expiry as people type it", () => {
  it("reads MM/YY, MM / YY, MMYY and MM/YYYY", () => {
    expect(parseExpiry("12/34")).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry(" 1 / 2030 ")).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry("1234")).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry("1 30")).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry("00/30")).toBeNull();
    expect(parseExpiry("13/30")).toBeNull();
    expect(parseExpiry("12//34")).toBeNull();
    expect(parseExpiry("soon")).toBeNull();
  });

  it("answers a long post of spaces at once", () => {
    const started = performance.now();
    expect(parseExpiry(`1${" ".repeat(100_000)}x`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("has passed once its month is over", () => {
    expect(expiryHasPassed({ month: 11, year: 2026 }, NOW)).toBe(false);
    expect(expiryHasPassed({ month: 10, year: 2026 }, NOW)).toBe(true);
    expect(expiryHasPassed({ month: 1, year: 2027 }, NOW)).toBe(false);
  });
});

describe("the reward's wording and send time", () => {
  it("use the API's words (modules/reward-drafts/schema.ts, modules/scheduled-sends/schema.ts)", () => {
    expect(CARD_MESSAGES.rewardNameRequired).toBe(REWARD_DETAILS.nameRequired);
    expect(CARD_MESSAGES.rewardNameTooLong).toBe(REWARD_DETAILS.nameTooLong);
    expect(
      errorsOf(simulatedPaySchema, {
        ...pay,
        message: "m".repeat(501),
        senderName: "s".repeat(65),
        sendWhen: "later",
      }),
    ).toEqual({
      message: [REWARD_DETAILS.messageTooLong],
      senderName: [REWARD_DETAILS.senderNameTooLong],
      sendAt: [SCHEDULE_DETAILS.required],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, sendWhen: "later", sendAt: "next week" })).toEqual({
      sendAt: [SCHEDULE_DETAILS.invalid],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, sendWhen: "later", sendAt: "2026-02-30T09:00" })).toEqual({
      sendAt: [SCHEDULE_DETAILS.invalid],
    });
  });

  it("count a line break as one character, after trimming", () => {
    const message = `${"m".repeat(249)}\r\n${"m".repeat(250)}`;
    expect(errorsOf(simulatedPaySchema, { ...pay, message: `  ${message}\r\n` })).toEqual({});
    expect(parsed(simulatedPaySchema, { ...pay, message }).message).toBe(message.replace("\r\n", "\n"));
    expect(errorsOf(simulatedPaySchema, { ...pay, message: `${message}m` })).toEqual({
      message: [REWARD_DETAILS.messageTooLong],
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, senderName: "Paula\nPayer" })).toEqual({
      senderName: [REWARD_DETAILS.senderNameControl],
    });
  });

  it("read the send time only when the rewards are scheduled", () => {
    expect(errorsOf(simulatedPaySchema, { ...pay, sendWhen: "now", sendAt: "next week" })).toEqual({});
    expect(parsed(simulatedPaySchema, { ...pay, sendWhen: "later", sendAt: "2026-12-01T09:00" })).toMatchObject({
      sendWhen: "later",
      sendAt: "2026-12-01T09:00",
    });
    expect(errorsOf(simulatedPaySchema, { ...pay, sendWhen: "tomorrow" })).toHaveProperty("sendWhen");
  });
});

describe("each form checks its own fields", () => {
  const wording = { amount: "11100", rewardName: "", sendWhen: "later" };

  it("Stripe and the approval request: the wording and send time, no card", () => {
    for (const [schema, intent] of [
      [stripePaySchema, "checkout"],
      [stripePaySchema, "stripe-intent"],
      [requestApprovalSchema, "request-approval"],
    ] as const) {
      expect(errorsOf(schema, { intent, ...wording, senderName: "s".repeat(65) })).toEqual({
        rewardName: [CARD_MESSAGES.rewardNameRequired],
        senderName: [REWARD_DETAILS.senderNameTooLong],
        sendAt: [SCHEDULE_DETAILS.required],
      });
      expect(parsed(schema, { intent, amount: "11100", rewardName: " Stars " })).toMatchObject({
        intent,
        amount: 11100,
        rewardName: "Stars",
        sendWhen: "now",
      });
    }
    expect(errorsOf(stripePaySchema, { intent: "pay", amount: "11100", rewardName: "Stars" })).toHaveProperty("intent");
  });

  it("'Preview the email': the message and sender alone", () => {
    expect(errorsOf(saveMessageSchema, { saveMessage: "preview", ...wording, intent: "pay" })).toEqual({});
    expect(
      parsed(saveMessageSchema, { saveMessage: "stay", message: " Thanks!\r\nTeam ", senderName: " Ann " }),
    ).toEqual({ saveMessage: "stay", message: "Thanks!\nTeam", senderName: "Ann" });
    expect(errorsOf(saveMessageSchema, { saveMessage: "preview", message: "m".repeat(501) })).toEqual({
      message: [REWARD_DETAILS.messageTooLong],
    });
  });

  it("the balance top-up: the card alone, or the authentication step's outcome", () => {
    expect(errorsOf(topUpCardSchema, { intent: "pay" })).toEqual({
      cardNumber: [CARD_MESSAGES.cardNumberRequired],
      expiry: [CARD_MESSAGES.expiryRequired],
      cvc: [CARD_MESSAGES.cvcRequired],
      nameOnCard: [CARD_MESSAGES.nameOnCardRequired],
    });
    expect(errorsOf(topUpPostSchema, { intent: "pay", ...card, cvc: "1" })).toEqual({
      cvc: [CARD_MESSAGES.cvcInvalid],
    });
    expect(parsed(topUpPostSchema, { intent: "pay", ...card })).toEqual({ intent: "pay", ...card });
    expect(parsed(topUpPostSchema, { intent: "authenticate", outcome: "fail" })).toEqual({
      intent: "authenticate",
      outcome: "fail",
    });
    expect(errorsOf(topUpPostSchema, { intent: "authenticate", outcome: "maybe" })).toHaveProperty("outcome");
  });

  it("the Review payment's authentication step: Complete or Fail", () => {
    expect(parsed(simulatedAuthenticationSchema, { outcome: "complete" })).toEqual({ outcome: "complete" });
    expect(errorsOf(simulatedAuthenticationSchema, {})).toHaveProperty("outcome");
    expect(errorsOf(simulatedAuthenticationSchema, { outcome: "maybe" })).toHaveProperty("outcome");
  });
});
