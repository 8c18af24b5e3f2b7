import { describe, expect, it } from "vitest";
import { ABN_MESSAGES, abnProblem, hasValidAbnCheckDigits, normaliseAbn } from "./abn.ts";

const VALID = ["51824753556", "53004085616", "33051775556", "83914571673"];

describe("ABN check digits", () => {
  it.each(VALID)("accepts the valid ABN %s", (abn) => {
    expect(hasValidAbnCheckDigits(abn)).toBe(true);
    expect(abnProblem(abn)).toBeNull();
  });

  it.each(VALID)("refuses %s with any other last digit", (abn) => {
    const last = Number(abn.at(-1));
    for (let d = 0; d <= 9; d++) {
      if (d === last) continue;
      const changed = abn.slice(0, -1) + d;
      expect(hasValidAbnCheckDigits(changed), changed).toBe(false);
      expect(abnProblem(changed)).toBe(ABN_MESSAGES.checkDigits);
    }
  });

  it("refuses swapped digits", () => {
    expect(hasValidAbnCheckDigits("15824753556")).toBe(false);
    expect(hasValidAbnCheckDigits("51824753565")).toBe(false);
  });

  it("accepts the spaced form people type, and normalises it", () => {
    expect(abnProblem("51 824 753 556")).toBeNull();
    expect(normaliseAbn(" 53 004 085 616 ")).toBe("53004085616");
  });

  it.each([
    ["", ABN_MESSAGES.required],
    ["   ", ABN_MESSAGES.required],
    ["5182475355", ABN_MESSAGES.digits],
    ["518247535561", ABN_MESSAGES.digits],
    ["5182475355a", ABN_MESSAGES.digits],
    ["51-824-753-556", ABN_MESSAGES.digits],
    ["00000000000", ABN_MESSAGES.checkDigits],
  ])("%j → %s", (input, message) => {
    expect(abnProblem(input)).toBe(message);
  });

  it("uses SPEC's wording", () => {
    expect(ABN_MESSAGES.required).toBe("ABN is required.");
    expect(ABN_MESSAGES.digits).toBe("ABN must have exactly 11 digits.");
  });
});
