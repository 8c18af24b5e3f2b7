// Australian Business Number rules (docs/requirements.md §S5 and the ABR check-digit algorithm): exactly 11
// digits; subtract 1 from the first digit, weight the digits 10, 1, 3, 5, …, 19, and the sum must
// be divisible by 89. Pure code: the web form uses it too.
import { ABN_LENGTH } from "../../core/limits.ts";

const WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19] as const;

export const ABN_MESSAGES = {
  required: "ABN is required.",
  digits: "ABN must have exactly 11 digits.",
  checkDigits: "ABN is not valid; please check the number.",
} as const;

/** Removes the spaces people type between the digit groups ("51 824 753 556"). */
export function normaliseAbn(input: string): string {
  return input.replace(/\s+/g, "");
}

/** True when `digits` is 11 digits that pass the check-digit test. */
export function hasValidAbnCheckDigits(digits: string): boolean {
  if (!/^\d{11}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < ABN_LENGTH; i++) {
    const digit = Number(digits[i]) - (i === 0 ? 1 : 0);
    sum += digit * WEIGHTS[i]!;
  }
  return sum % 89 === 0;
}

/** The first problem with an ABN as typed, or null when it is valid. */
export function abnProblem(input: string): string | null {
  const digits = normaliseAbn(input);
  if (digits === "") return ABN_MESSAGES.required;
  if (!/^\d{11}$/.test(digits)) return ABN_MESSAGES.digits;
  if (!hasValidAbnCheckDigits(digits)) return ABN_MESSAGES.checkDigits;
  return null;
}

/** "51824753556" → "51 824 753 556", as an ABN is printed (anything else as it is). */
export function formatAbn(abn: string): string {
  const d = abn.replace(/\D/g, "");
  return d.length === 11 ? `${d.slice(0, 2)} ${d.slice(2, 5)} ${d.slice(5, 8)} ${d.slice(8)}` : abn;
}
