// The payment pages' pure parts: the card form's browser rules give the API's own words
// (server/payments/simulated.ts, core/rewards.ts) for the same input, the server schema agrees
// with them, the Review data is cut to 100 recipients with cents from the API's dollars, and the
// confirmation check maps every answer of check-payment-intent.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { REWARD_DETAILS } from "../../../core/rewards.ts";
import { CARD_MESSAGES as PROCESSOR_MESSAGES } from "../../../server/payments/simulated.ts";
import type { ApiClient, ApiResult } from "../../lib/api.server.ts";
import { checkPayment, loadReview, normalisedCard, simulatedPaySchema } from "./payment.server.ts";
import {
  CARD_MESSAGES,
  cardFieldErrors,
  dollarsToCents,
  parseExpiry,
  payButtonText,
  recipientLabel,
  successText,
} from "./payment.ts";

const NOW = new Date("2026-11-22T10:00:00Z");
const valid = {
  rewardName: "Quarterly Stars",
  cardNumber: "4242 4242 4242 4242",
  expiry: "12/34",
  cvc: "123",
  nameOnCard: "Paula Payer",
};

describe("card form rules", () => {
  it("use the processor's and the API's words", () => {
    expect(CARD_MESSAGES.cardNumberInvalid).toBe(PROCESSOR_MESSAGES.invalidNumber);
    expect(CARD_MESSAGES.expiryInvalid).toBe(PROCESSOR_MESSAGES.invalidExpiry);
    expect(CARD_MESSAGES.expiryPast).toBe(PROCESSOR_MESSAGES.pastExpiry);
    expect(CARD_MESSAGES.cvcInvalid).toBe(PROCESSOR_MESSAGES.invalidCvc);
    expect(CARD_MESSAGES.nameOnCardRequired).toBe(PROCESSOR_MESSAGES.nameRequired);
    expect(CARD_MESSAGES.rewardNameRequired).toBe(REWARD_DETAILS.nameRequired);
    expect(CARD_MESSAGES.rewardNameTooLong).toBe(REWARD_DETAILS.nameTooLong);
  });

  it("accept Stripe's test cards with a future expiry", () => {
    for (const cardNumber of ["4242 4242 4242 4242", "4000 0000 0000 0002", "4000002500003155"]) {
      expect(cardFieldErrors({ ...valid, cardNumber }, NOW)).toEqual({});
    }
    expect(cardFieldErrors({ ...valid, expiry: "11/26" }, NOW)).toEqual({});
  });

  it("name each failing field", () => {
    expect(cardFieldErrors({}, NOW)).toEqual({
      rewardName: [CARD_MESSAGES.rewardNameRequired],
      cardNumber: [CARD_MESSAGES.cardNumberRequired],
      expiry: [CARD_MESSAGES.expiryRequired],
      cvc: [CARD_MESSAGES.cvcRequired],
      nameOnCard: [CARD_MESSAGES.nameOnCardRequired],
    });
    expect(
      cardFieldErrors(
        { ...valid, rewardName: "x".repeat(101), cardNumber: "4242 4242 4242 4241", expiry: "10/26", cvc: "12" },
        NOW,
      ),
    ).toEqual({
      rewardName: [CARD_MESSAGES.rewardNameTooLong],
      cardNumber: [CARD_MESSAGES.cardNumberInvalid],
      expiry: [CARD_MESSAGES.expiryPast],
      cvc: [CARD_MESSAGES.cvcInvalid],
    });
    expect(cardFieldErrors({ ...valid, expiry: "13/30" }, NOW)).toEqual({ expiry: [CARD_MESSAGES.expiryInvalid] });
  });

  it("read the expiry as people type it", () => {
    expect(parseExpiry("12/34")).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry(" 1 / 2030 ")).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry("1234")).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry("00/30")).toBeNull();
    expect(parseExpiry("soon")).toBeNull();
  });

  it("the server schema gives the same messages, and the API gets digits and MM/YY", () => {
    const form = (entries: Record<string, string>) => {
      const data = new FormData();
      for (const [k, v] of Object.entries(entries)) data.set(k, v);
      return data;
    };
    const bad = parseWithZod(form({ intent: "pay", amount: "11100", cardNumber: "4242" }), {
      schema: simulatedPaySchema,
    });
    if (bad.status === "success") throw new Error("expected errors");
    expect(bad.error?.cardNumber).toEqual([CARD_MESSAGES.cardNumberInvalid]);
    expect(bad.error?.rewardName).toEqual([CARD_MESSAGES.rewardNameRequired]);

    const good = parseWithZod(form({ intent: "pay", amount: "11100", ...valid, expiry: "1234" }), {
      schema: simulatedPaySchema,
    });
    expect(good.status).toBe("success");
    if (good.status !== "success") return;
    expect(good.value.amount).toBe(11100);
    expect(normalisedCard(good.value)).toEqual({
      cardNumber: "4242424242424242",
      expiry: "12/34",
      cvc: "123",
      nameOnCard: "Paula Payer",
    });
  });
});

describe("texts", () => {
  it("SPEC's button, success text and recipient label", () => {
    expect(payButtonText(11100)).toBe("Pay $111.00 and Send Emails");
    expect(payButtonText(123456789)).toBe("Pay $1,234,567.89 and Send Emails");
    expect(successText(11100)).toBe(
      "Your payment of $111.00 has been successfully processed. You will receive an email confirmation shortly. Emails are being sent to reward recipients.",
    );
    expect(recipientLabel("Jane Citizen", 60)).toBe("Jane Citizen ($60.00)");
    expect(recipientLabel("Null Reward", null)).toBe("Null Reward ($0.00)");
    expect(dollarsToCents(0.29)).toBe(29);
    expect(dollarsToCents("oops")).toBe(0);
  });
});

function fakeApi(calls: Partial<Record<keyof ApiClient, () => Promise<ApiResult<unknown>>>>): ApiClient {
  return calls as unknown as ApiClient;
}

describe("loadReview", () => {
  const summary = (count: number, amount: number) => ({
    rewards: Array.from({ length: count }, (_, i) => ({ userId: i + 1, fullName: `Person ${i + 1}`, reward: amount })),
    totalRewards: count * amount,
    serviceFee: count * amount * 0.1,
    gst: count * amount * 0.01,
    total: count * amount * 1.11,
    rewardName: "Stars",
    recipientCount: count,
    version: 3,
  });

  it("cuts a long draft to the first 100 recipients and converts dollars to cents", async () => {
    const api = fakeApi({ rewardSummary: async () => ({ ok: true, status: 200, data: summary(5000, 1) }) });
    const review = await loadReview(api, () => {});
    expect(review?.recipients).toHaveLength(100);
    expect(review?.recipientCount).toBe(5000);
    expect(review).toMatchObject({
      rewardName: "Stars",
      rewardsCents: 500_000,
      serviceFeeCents: 50_000,
      gstCents: 5_000,
      totalCents: 555_000,
    });
  });

  it("is null with nothing to pay for, or when the API fails (logged)", async () => {
    const logged: string[] = [];
    const log = (_: object, message: string) => logged.push(message);
    const zero = fakeApi({ rewardSummary: async () => ({ ok: true, status: 200, data: summary(3, 0) }) });
    const empty = fakeApi({ rewardSummary: async () => ({ ok: true, status: 200, data: summary(0, 5) }) });
    const down = fakeApi({ rewardSummary: async () => ({ ok: false, status: 503, detail: "down" }) });
    expect(await loadReview(zero, log)).toBeNull();
    expect(await loadReview(empty, log)).toBeNull();
    expect(await loadReview(down, log)).toBeNull();
    expect(logged).toEqual(["reward summary fetch failed"]);
  });
});

describe("checkPayment", () => {
  const answer = (data: object) => fakeApi({ checkPaymentIntent: async () => ({ ok: true, status: 200, data }) });

  it("maps every answer of check-payment-intent", async () => {
    expect(await checkPayment(answer({ status: "succeeded", amount: 111 }), "pi_1")).toEqual({
      state: "succeeded",
      amountCents: 11100,
      sendAt: null,
    });
    // A scheduled reward: paid, and the page says when its emails go out.
    const sendAt = "2026-12-01T22:00:00.000Z";
    expect(await checkPayment(answer({ status: "succeeded", amount: 111, sendAt }), "pi_1")).toEqual({
      state: "succeeded",
      amountCents: 11100,
      sendAt,
    });
    expect(await checkPayment(answer({ status: "processing", amount: 111 }), "pi_1")).toEqual({ state: "processing" });
    expect(await checkPayment(answer({ status: "requires_action", amount: 111 }), "pi_1")).toEqual({
      state: "processing",
    });
    expect(
      await checkPayment(answer({ status: "failed", amount: 111, message: "Your card was declined." }), "pi_1"),
    ).toEqual({ state: "failed", message: "Your card was declined." });
    const down = fakeApi({ checkPaymentIntent: async () => ({ ok: false, status: 500, detail: "boom" }) });
    expect(await checkPayment(down, "pi_1")).toEqual({
      state: "failed",
      message: "An error occurred while processing the payment. Please try again.",
    });
  });
});
