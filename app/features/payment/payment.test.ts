// The payment pages' pure parts: the card form's messages are the API's own words
// (server/payments/simulated.ts, modules/reward-drafts/schema.ts; modules/orders/card-form.test.ts proves every message of
// the schemas), the forms' constraints are the attributes the inputs had, the API gets digits and
// MM/YY, the Review data is cut to 100 recipients with cents from the API's dollars, and the
// confirmation check maps every answer of check-payment-intent.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  requestApprovalSchema,
  simulatedPaySchema,
  stripePaySchema,
  topUpCardSchema,
} from "../../../modules/orders/card-form.ts";
import { REWARD_DETAILS } from "../../../modules/reward-drafts/schema.ts";
import { CARD_MESSAGES as PROCESSOR_MESSAGES } from "../../../server/payments/simulated.ts";
import type { ApiClient, ApiResult } from "../../lib/api.server.ts";
import { formConstraint } from "../../lib/forms.ts";
import { checkPayment, loadReview, normalisedCard } from "./payment.server.ts";
import { CARD_MESSAGES, dollarsToCents, payButtonText, recipientLabel, successText } from "./payment.ts";

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

  it("give the inputs the attributes the browser checks before hydration", () => {
    // Every card form: the four card fields required, the name on the card at most 64 characters.
    const card = {
      cardNumber: { required: true },
      expiry: { required: true },
      cvc: { required: true },
      nameOnCard: { required: true, maxLength: 64 },
    };
    expect(formConstraint(simulatedPaySchema)).toMatchObject({
      rewardName: { required: true, maxLength: 100 },
      sendWhen: { required: false },
      sendAt: { required: false },
      ...card,
    });
    expect(formConstraint(topUpCardSchema)).toMatchObject(card);
    // Stripe and the approval request post no card: their fields are not there to require.
    for (const schema of [stripePaySchema, requestApprovalSchema]) {
      const constraint = formConstraint(schema);
      expect(constraint.rewardName).toEqual({ required: true, maxLength: 100 });
      expect(constraint).not.toHaveProperty("cardNumber");
    }
  });

  it("the API gets digits and MM/YY from the schema's value", () => {
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
    expect(normalisedCard({ ...good.value, cardNumber: "4242-4242-4242-4242", expiry: "1 / 2034" })).toMatchObject({
      cardNumber: "4242424242424242",
      expiry: "01/34",
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

/** A client whose every call answers `result` (the functions under test make one call each). */
function fakeApi(result: ApiResult<unknown>): ApiClient {
  return { call: async () => result } as unknown as ApiClient;
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
    const api = fakeApi({ ok: true, status: 200, data: summary(5000, 1) });
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
    const zero = fakeApi({ ok: true, status: 200, data: summary(3, 0) });
    const empty = fakeApi({ ok: true, status: 200, data: summary(0, 5) });
    const down = fakeApi({ ok: false, status: 503, detail: "down" });
    expect(await loadReview(zero, log)).toBeNull();
    expect(await loadReview(empty, log)).toBeNull();
    expect(await loadReview(down, log)).toBeNull();
    expect(logged).toEqual(["reward summary fetch failed"]);
  });
});

describe("checkPayment", () => {
  const answer = (data: object) => fakeApi({ ok: true, status: 200, data });

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
    const down = fakeApi({ ok: false, status: 500, detail: "boom" });
    expect(await checkPayment(down, "pi_1")).toEqual({
      state: "failed",
      message: "An error occurred while processing the payment. Please try again.",
    });
  });
});
