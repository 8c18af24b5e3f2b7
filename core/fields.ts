// Field rules shared by the provider API and the web forms (SPEC §5, §9). Pure code only:
// this folder is imported by the browser bundle too.
import { z } from "zod";

export const LIMITS = {
  name: 64,
  email: 256,
  companyName: 100,
  message: 256,
} as const;

/** A required, trimmed text field with SPEC's "<Label> is required." message. */
export function requiredText(label: string, max: number, maxMessage?: string) {
  return z
    .string({ error: `${label} is required.` })
    .trim()
    .min(1, `${label} is required.`)
    .max(max, maxMessage ?? `${label} must be at most ${max} characters.`);
}

export const emailField = z
  .string({ error: "Email is required." })
  .trim()
  .min(1, "Email is required.")
  .max(LIMITS.email, `Email must be at most ${LIMITS.email} characters.`)
  .pipe(z.email("The email format is incorrect."));

export const firstNameField = requiredText("First Name", LIMITS.name);
export const lastNameField = requiredText("Last Name", LIMITS.name);
export const companyNameField = requiredText("Company Name", LIMITS.companyName);
export const messageField = requiredText("Message", LIMITS.message, "Message must be less than 256 characters.");

/** The captcha fields every public API call carries (SPEC §3). */
export const captchaFields = {
  captchaToken: z.string().max(4096).optional().default(""),
  isCaptchaV3: z.boolean().optional().default(true),
};
