// Field schemas shared by the provider API, the route actions and the browser (docs/requirements.md §S5, §S9;
// ADR 0017). Written with zod/mini so the public pages' JavaScript only carries the checks used;
// mini schemas are zod-core schemas, so the API's validator and conform's parseWithZod take them.
import * as z from "zod/mini";
import { EMAIL_PATTERN, LIMITS } from "./limits.ts";

// zod would otherwise probe `new Function` when it builds an object schema: the pages' CSP has
// no 'unsafe-eval' (docs/requirements.md §D7), so in the browser that probe is reported as a violation.
z.config({ jitless: true });

/** The largest id a path or a form may name: 15 digits (what /api/v1's OpenAPI document says). */
export const MAX_ID = 999_999_999_999_999;

/**
 * The one reading of an id from text (a route's `:orderId`, a posted `userId`, `?member=`): 1 to
 * 15 ASCII digits naming a positive whole number, else null (no sign, exponent, spaces or
 * decimals: "1e3", " 7", "7.0" name nothing). Leading zeros are taken ("007" is 7), as the
 * routes always took them.
 */
export function parseId(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) return null;
  const id = Number(value);
  return id > 0 ? id : null;
}

/** docs/requirements.md §S5: "<Label> is required." */
export function requiredMessage(label: string): string {
  return `${label} is required.`;
}

/** A required, trimmed text field with SPEC's "<Label> is required." message. */
export function requiredText(label: string, max: number, maxMessage = `${label} must be at most ${max} characters.`) {
  return z
    .string({ error: requiredMessage(label) })
    .check(z.trim(), z.minLength(1, requiredMessage(label)), z.maxLength(max, maxMessage));
}

/**
 * Email: required, at most 256 characters, and a standard address (docs/requirements.md §S5); the format is only
 * checked once the length is right, so each value gets one message.
 */
export const emailField = requiredText("Email", LIMITS.email).check(
  z.refine<string>((email) => EMAIL_PATTERN.test(email), {
    error: "The email format is incorrect.",
    when: (payload) => payload.issues.length === 0,
  }),
);
/** The same field without the format rule (login, forgot request: docs/requirements.md §S5 gives none). */
export const emailRequiredField = requiredText("Email", LIMITS.email);

export const firstNameField = requiredText("First Name", LIMITS.name);
export const lastNameField = requiredText("Last Name", LIMITS.name);
export const companyNameField = requiredText("Company Name", LIMITS.companyName);
export const messageField = requiredText("Message", LIMITS.message, "Message must be less than 256 characters.");

/** The captcha fields every public API call carries (docs/requirements.md §S3). */
export const captchaFields = {
  captchaToken: z._default(z.optional(z.string().check(z.maxLength(4096))), ""),
  isCaptchaV3: z._default(z.optional(z.boolean()), true),
};

/**
 * The captcha fields as a form posts them (the hidden inputs of useCaptcha): the token, and
 * "true" / "false" for isCaptchaV3. An empty token with isCaptchaV3 true is what a form sends
 * while the captcha is off.
 */
export const captchaFormFields = {
  captchaToken: captchaFields.captchaToken,
  isCaptchaV3: z.pipe(
    z.optional(z.enum(["true", "false"])),
    z.transform((value) => value !== "false"),
  ),
};
