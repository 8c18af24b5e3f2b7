// docs/requirements.md §D5 money rules, as properties (fast-check) and SPEC's worked example.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CENTS_PER_REWARD_DOLLAR, centsToDollars, chargesFor, formatDollars, MAX_REWARD_DOLLARS } from "./money.ts";

/** Any draft: up to 5,000 recipients, each 0 to 10,000 whole Reward Dollars. */
const amounts = fc.array(fc.integer({ min: 0, max: MAX_REWARD_DOLLARS }), { maxLength: 5000 });

/** x × 10 %, rounded half up to the cent, computed independently of money.ts. */
const tenPercentHalfUp = (cents: number) => Math.floor((cents * 10 + 50) / 100);

describe("chargesFor (docs/requirements.md §D5)", () => {
  it("$100 of rewards → fee $10.00, GST $1.00, total $111.00", () => {
    const charges = chargesFor([100]);
    expect(charges).toEqual({ rewardsCents: 10_000, serviceFeeCents: 1_000, gstCents: 100, totalCents: 11_100 });
    expect(centsToDollars(charges.serviceFeeCents)).toBe(10);
    expect(centsToDollars(charges.gstCents)).toBe(1);
    expect(centsToDollars(charges.totalCents)).toBe(111);
    expect(formatDollars(charges.totalCents)).toBe("$111.00");
  });

  it("an empty draft and a draft of zeros cost nothing", () => {
    const zero = { rewardsCents: 0, serviceFeeCents: 0, gstCents: 0, totalCents: 0 };
    expect(chargesFor([])).toEqual(zero);
    expect(chargesFor([0, 0, 0])).toEqual(zero);
  });

  it("small and largest amounts", () => {
    expect(chargesFor([1])).toEqual({ rewardsCents: 100, serviceFeeCents: 10, gstCents: 1, totalCents: 111 });
    expect(chargesFor([5, 7])).toEqual({ rewardsCents: 1200, serviceFeeCents: 120, gstCents: 12, totalCents: 1332 });
    const most = chargesFor(Array.from({ length: 5000 }, () => MAX_REWARD_DOLLARS));
    expect(most.rewardsCents).toBe(5_000_000_000);
    expect(most.totalCents).toBe(5_550_000_000);
  });

  it("refuses anything but whole, non-negative dollars", () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(() => chargesFor([bad])).toThrow(RangeError);
    }
  });

  it("property: fee = 10 % of rewards and GST = 10 % of fee, each half up; total = rewards + fee + GST", () => {
    fc.assert(
      fc.property(amounts, (list) => {
        const c = chargesFor(list);
        const rewards = list.reduce((sum, d) => sum + d * CENTS_PER_REWARD_DOLLAR, 0);
        expect(c.rewardsCents).toBe(rewards);
        expect(c.serviceFeeCents).toBe(tenPercentHalfUp(rewards));
        expect(c.gstCents).toBe(tenPercentHalfUp(c.serviceFeeCents));
        // Half up, stated as bounds: 10·fee − 5 ≤ rewards < 10·fee + 5, and the same for GST.
        expect(10 * c.serviceFeeCents - 5).toBeLessThanOrEqual(rewards);
        expect(rewards).toBeLessThan(10 * c.serviceFeeCents + 5);
        expect(10 * c.gstCents - 5).toBeLessThanOrEqual(c.serviceFeeCents);
        expect(c.serviceFeeCents).toBeLessThan(10 * c.gstCents + 5);
        expect(c.totalCents).toBe(c.rewardsCents + c.serviceFeeCents + c.gstCents);
      }),
      { numRuns: 200 },
    );
  });

  it("property: every figure is a whole, safe, non-negative number of cents", () => {
    fc.assert(
      fc.property(amounts, (list) => {
        for (const cents of Object.values(chargesFor(list))) {
          expect(Number.isSafeInteger(cents)).toBe(true);
          expect(cents).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("property: the dollars shown (two decimals) add up to the total shown, to the cent", () => {
    fc.assert(
      fc.property(amounts, (list) => {
        const c = chargesFor(list);
        const shown = [c.rewardsCents, c.serviceFeeCents, c.gstCents].map(centsToDollars);
        for (const [dollars, cents] of [
          [shown[0], c.rewardsCents],
          [shown[1], c.serviceFeeCents],
          [shown[2], c.gstCents],
        ] as const) {
          expect(Math.round((dollars as number) * 100)).toBe(cents);
        }
        const sum = shown.reduce((a, b) => a + b, 0);
        expect(Math.round(sum * 100)).toBe(c.totalCents);
        expect(Math.round(centsToDollars(c.totalCents) * 100)).toBe(c.totalCents);
      }),
      { numRuns: 200 },
    );
  });

  it("property: the order of recipients does not change the charges; adding one never lowers them", () => {
    fc.assert(
      fc.property(amounts, fc.integer({ min: 0, max: MAX_REWARD_DOLLARS }), (list, extra) => {
        const c = chargesFor(list);
        expect(chargesFor([...list].reverse())).toEqual(c);
        expect(chargesFor([...list, extra]).totalCents).toBeGreaterThanOrEqual(c.totalCents);
      }),
      { numRuns: 100 },
    );
  });
});

describe("formatDollars", () => {
  it("writes Australian dollars with two decimals", () => {
    expect(formatDollars(0)).toBe("$0.00");
    expect(formatDollars(105)).toBe("$1.05");
    expect(formatDollars(123_456_789)).toBe("$1,234,567.89");
  });
});
