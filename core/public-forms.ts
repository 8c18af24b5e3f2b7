// Payload schemas of the public calls (docs/requirements.md §S7): waitlist and anonymous contact, and the two
// forms as they are posted (the route actions and the browser parse with the same schema).
import * as z from "zod/mini";
import {
  captchaFields,
  captchaFormFields,
  companyNameField,
  emailField,
  firstNameField,
  lastNameField,
  messageField,
} from "./fields.ts";

export const waitListSchema = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  companyName: companyNameField,
  isOptedIn: z._default(z.optional(z.boolean()), true),
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

export const TERMS_REQUIRED_MESSAGE =
  "Please agree to the Terms and Conditions and the Privacy Policy to join the waitlist.";

/**
 * The waitlist form as posted: the API's fields (isOptedIn keeps its default, true: the form has
 * no opt-in box, docs/requirements.md §D8), the required terms box (not sent to the API) and the captcha inputs.
 */
export const waitlistFormSchema = z.pipe(
  z.extend(waitListSchema, {
    terms: z.boolean({ error: TERMS_REQUIRED_MESSAGE }).check(z.refine((ticked) => ticked, TERMS_REQUIRED_MESSAGE)),
    ...captchaFormFields,
  }),
  z.transform(({ terms: _terms, ...request }) => request),
);

/** The public Contact Us form as posted. */
export const contactFormSchema = z.extend(helpAnonymousSchema, captchaFormFields);

export interface LatestReward {
  brand: string;
  imageURL: string;
  clickURL: string;
}

/** docs/requirements.md §S8 wording the API answers with. */
export const DETAILS = {
  captchaFailed: "Captcha verification failed. Please complete additional verification steps.",
  waitlistDuplicate: "Email is already in the waitlist.",
  tooManyRequests: "Too many requests. Please wait a minute and try again.",
  notFound: "The requested resource was not found.",
  unauthorized: "Authentication is required.",
  ownerOnly: "Only an Owner of your company can do this.",
  internal: "An unexpected error occurred. Please try again, contact us if it persists.",
  unavailable: "The service is briefly unavailable. Please try again in a few seconds.",
  // Accounts. The first three are docs/requirements.md §S8's; the web matches on them.
  emailAlreadyUsed: "Email is already used, please use another one.",
  invalidLoginCredentials: "Invalid login credentials",
  invalidVerificationCode: "Invalid verification code. Please try again or resend code again.",
  emailNotVerified: "Please verify your email before logging in.",
  verificationTooManyAttempts: "Too many incorrect attempts. Please resend code to get a new verification code.",
  verificationExpired: "This verification code has expired. Please resend code to get a new one.",
  verificationUsed: "This verification code has already been used. Please resend code to get a new one.",
  verificationSuperseded: "This verification code is no longer valid. Please use the latest code we emailed you.",
  verificationRequestInvalid: "This verification request is not valid. Please resend code to get a new one.",
  emailAlreadyVerified: "This email address is already verified. Please log in.",
  resetTokenInvalid: "This password reset link is not valid. Please request a new one.",
  resetTokenExpired: "This password reset link has expired. Please request a new one.",
  resetTokenUsed: "This password reset link has already been used. Please request a new one.",
  tooManyAttempts: "Too many attempts. Please wait a few minutes and try again.",
} as const;
