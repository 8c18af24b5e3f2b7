// The reward draft contract (modules/reward-drafts/schema.ts): docs/requirements.md §S5 amount conversions, the CSV amount
// check, and the request schemas' messages.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bulkRewardSchema,
  csvRewardAmount,
  duplicateRowMessage,
  MAX_DRAFT_RECIPIENTS,
  newRewardUserSchema,
  parseRewardAmount,
  REWARD_DETAILS,
  REWARD_PAGE_SIZE,
  updateRewardNameSchema,
  updateRewardSchema,
} from "./schema.ts";

const ok = (dollars: number) => ({ ok: true, dollars });
const refused = (message: string) => ({ ok: false, message });

describe("parseRewardAmount (docs/requirements.md §S5 amount inputs, §D5)", () => {
  it("constants of §S9 and §D7", () => {
    expect(REWARD_PAGE_SIZE).toBe(7);
    expect(MAX_DRAFT_RECIPIENTS).toBe(50_000);
  });

  it.each([
    ["", 0],
    ["   ", 0],
    ["abc", 0],
    ["12abc", 0],
    ["--5", 0],
    ["-5", 0],
    ["-0.5", 0],
    ["-20000", 0],
    [null, 0],
    [undefined, 0],
    [true, 0],
    [{}, 0],
    [-3, 0],
    [Number.NaN, 0],
    [0, 0],
    ["0", 0],
    ["1", 1],
    [" 25 ", 25],
    ["007", 7],
    ["10.00", 10],
    ["+40", 40],
    ["$100", 100],
    ["1,000", 1000],
    ["$10,000", 10000],
    ["1e3", 1000],
    [10000, 10000],
    ["10000", 10000],
  ])("%j → %d", (input, dollars) => {
    expect(parseRewardAmount(input)).toEqual(ok(dollars));
  });

  it.each([["10.5"], [10.5], ["0.01"], [".5"], ["9999.99"]])("a fraction (%j) is refused", (input) => {
    expect(parseRewardAmount(input)).toEqual(refused(REWARD_DETAILS.amountFraction));
  });

  it.each([["10001"], [10001], ["1e9"], ["10,000.5"], [Number.POSITIVE_INFINITY], ["99999999999999999999999"]])(
    "over 10,000 (%j) is refused",
    (input) => {
      expect(parseRewardAmount(input)).toEqual(refused(REWARD_DETAILS.amountTooLarge));
    },
  );

  it("the messages are clear", () => {
    expect(REWARD_DETAILS.amountFraction).toBe("Amount must be a whole number of Reward Dollars (no cents).");
    expect(REWARD_DETAILS.amountTooLarge).toBe("Amount must be at most 10,000 Reward Dollars.");
  });

  it("property: any whole number 0..10,000, as number or text, is itself", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (n) => {
        expect(parseRewardAmount(n)).toEqual(ok(n));
        expect(parseRewardAmount(String(n))).toEqual(ok(n));
      }),
    );
  });

  it("property: any negative number is 0; any text never throws and answers 0..10,000 or a message", () => {
    fc.assert(
      fc.property(fc.integer({ max: -1 }), (n) => {
        expect(parseRewardAmount(n)).toEqual(ok(0));
        expect(parseRewardAmount(String(n))).toEqual(ok(0));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = parseRewardAmount(text);
        if (result.ok) {
          expect(Number.isInteger(result.dollars)).toBe(true);
          expect(result.dollars).toBeGreaterThanOrEqual(0);
          expect(result.dollars).toBeLessThanOrEqual(10_000);
        } else {
          expect([REWARD_DETAILS.amountFraction, REWARD_DETAILS.amountTooLarge]).toContain(result.message);
        }
      }),
    );
  });
});

describe("csvRewardAmount (bulk reward CSV)", () => {
  it.each([
    ["", 0],
    ["  ", 0],
    ["0", 0],
    ["100", 100],
    [" 250 ", 250],
    ["$1,000", 1000],
    ["10000", 10000],
    ["50.00", 50],
  ])("%j → %d", (cell, dollars) => {
    expect(csvRewardAmount(cell)).toBe(dollars);
  });

  it.each([["-5"], ["10.5"], ["abc"], ["10001"], ["1e3"], ["5 dollars"]])("%j is a Wrong Reward Amount", (cell) => {
    expect(csvRewardAmount(cell)).toBeNull();
  });
});

describe("request schemas", () => {
  it("update-reward: value as number or text, converted; a fraction refused", () => {
    expect(updateRewardSchema.parse({ userId: 3, value: "40" })).toEqual({ userId: 3, value: 40 });
    expect(updateRewardSchema.parse({ userId: 3, value: "" })).toEqual({ userId: 3, value: 0 });
    expect(updateRewardSchema.parse({ userId: 3 })).toEqual({ userId: 3, value: 0 });
    const bad = updateRewardSchema.safeParse({ userId: 3, value: 2.5 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(REWARD_DETAILS.amountFraction);
    expect(updateRewardSchema.safeParse({ userId: "x", value: 1 }).error?.issues[0]?.message).toBe(
      REWARD_DETAILS.userIdRequired,
    );
    expect(updateRewardSchema.safeParse({ userId: 1, value: [1] }).error?.issues[0]?.message).toBe(
      REWARD_DETAILS.amountType,
    );
  });

  it("update-reward-name: trimmed, required, at most 100 characters", () => {
    expect(updateRewardNameSchema.parse({ name: "  Xmas 2026 " })).toEqual({ name: "Xmas 2026" });
    expect(updateRewardNameSchema.safeParse({ name: "  " }).error?.issues[0]?.message).toBe("Reward Name is required.");
    expect(updateRewardNameSchema.safeParse({}).error?.issues[0]?.message).toBe("Reward Name is required.");
    expect(updateRewardNameSchema.safeParse({ name: "x".repeat(101) }).error?.issues[0]?.message).toBe(
      "Reward Name must be at most 100 characters.",
    );
    expect(updateRewardNameSchema.parse({ name: "x".repeat(100) }).name).toHaveLength(100);
  });

  it("single add: the team member messages of docs/requirements.md §S5; value optional (0)", () => {
    const messages = (body: unknown) => newRewardUserSchema.safeParse(body).error?.issues.map((i) => i.message) ?? [];
    expect(messages({})).toEqual(["First Name is required.", "Last Name is required.", "Email is required."]);
    expect(messages({ firstName: "A", lastName: "B", email: "nope" })).toEqual(["The email format is incorrect."]);
    expect(newRewardUserSchema.parse({ firstName: " Ann ", lastName: "Lee", email: "ann@example.com" })).toEqual({
      firstName: "Ann",
      lastName: "Lee",
      email: "ann@example.com",
      value: 0,
    });
  });

  it("bulk: row messages prefixed 'Row N:', repeated emails refused, 1 to 50,000 rows", () => {
    const row = (email: string, value: unknown = 5) => ({ firstName: "A", lastName: "B", email, value });
    const result = bulkRewardSchema.safeParse({
      rewards: [row("a@example.com"), row("bad"), row("c@example.com", "1.5"), row("A@Example.com")],
    });
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      "Row 2: The email format is incorrect.",
      `Row 3: ${REWARD_DETAILS.amountFraction}`,
      duplicateRowMessage(4, 1),
    ]);
    expect(duplicateRowMessage(4, 1)).toBe("Row 4: Email Address repeats row 1; list each recipient once.");
    expect(bulkRewardSchema.safeParse({ rewards: [] }).error?.issues[0]?.message).toBe(REWARD_DETAILS.rewardsEmpty);
    expect(bulkRewardSchema.safeParse({}).error?.issues[0]?.message).toBe(REWARD_DETAILS.rewardsRequired);
    const many = Array.from({ length: 50_001 }, (_, i) => row(`p${i}@example.com`));
    expect(bulkRewardSchema.safeParse({ rewards: many }).error?.issues[0]?.message).toBe(
      "A file can hold at most 50,000 recipients.",
    );
    expect(bulkRewardSchema.parse({ rewards: many.slice(0, 50_000) }).rewards).toHaveLength(50_000);
  });
});
