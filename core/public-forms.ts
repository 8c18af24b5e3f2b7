// Payload schemas of the public calls (SPEC §7): waitlist and anonymous contact.
import { z } from "zod";
import { captchaFields, companyNameField, emailField, firstNameField, lastNameField, messageField } from "./fields.ts";

export const waitListSchema = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  companyName: companyNameField,
  isOptedIn: z.boolean().optional().default(true),
  ...captchaFields,
});
export type WaitListRequest = z.input<typeof waitListSchema>;

export const helpAnonymousSchema = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  message: messageField,
  ...captchaFields,
});
export type HelpAnonymousRequest = z.input<typeof helpAnonymousSchema>;

export interface LatestReward {
  brand: string;
  imageURL: string;
  clickURL: string;
}

/** SPEC §8 wording the API answers with. */
export const DETAILS = {
  captchaFailed: "Captcha verification failed. Please complete additional verification steps.",
  waitlistDuplicate: "Email is already in the waitlist.",
  tooManyRequests: "Too many requests. Please wait a minute and try again.",
  notFound: "The requested resource was not found.",
  unauthorized: "Authentication is required.",
  internal: "An unexpected error occurred. Please try again, contact us if it persists.",
} as const;
