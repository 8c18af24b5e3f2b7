// The account forms as they are posted (server side of account-forms.ts): the API's schemas of
// core/account-forms.ts, plus what only the forms have (the confirmation field, the captcha
// inputs as strings, the verify page's two intents). Passwords are never echoed back.
import { z } from "zod";
import {
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  userIdField,
  verificationCodeField,
} from "../../core/account-forms.ts";
import { LIMITS } from "../../core/fields.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES } from "../../core/password.ts";
import { confirmRequiredMessage, RESET_CONFIRM_LABEL, SIGN_UP_CONFIRM_LABEL } from "./account-forms.ts";
import { captchaFormFields } from "./forms.server.ts";

/** The password inputs: never sent back into the re-rendered page. */
export const PASSWORD_FIELDS = ["password", "confirmPassword"] as const;

function confirmField(label: string) {
  const required = confirmRequiredMessage(label);
  return z.string({ error: required }).min(1, required).max(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong);
}

/** Adds "Passwords do not match." to the confirmation when both are present and differ. */
function matchConfirmation(value: { password?: unknown; confirmPassword?: unknown }, ctx: z.RefinementCtx) {
  if (typeof value.confirmPassword !== "string" || value.confirmPassword === "") return;
  if (value.password !== value.confirmPassword) {
    ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: PASSWORD_MESSAGES.mismatch });
  }
}

/** Sign-up: the Register payload, the confirmation, the captcha inputs. */
export const signUpFormSchema = registerSchema
  .extend({ confirmPassword: confirmField(SIGN_UP_CONFIRM_LABEL), ...captchaFormFields })
  .superRefine(matchConfirmation)
  .transform(({ confirmPassword: _confirm, ...request }) => request);

/** Login: the API's payload (userName is the field labelled Email) with the captcha inputs. */
export const loginFormSchema = loginSchema.extend(captchaFormFields);

const requestTokenField = z.string().trim().min(1).max(200);

/** The verify page posts either the code (intent=verify) or a resend (intent=resend). */
export const verifyFormSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("verify"),
    userId: userIdField,
    requestToken: requestTokenField,
    verificationCode: verificationCodeField,
  }),
  z.object({ intent: z.literal("resend"), userId: userIdField, requestToken: requestTokenField.optional() }),
]);

/** Forgot request: required only, no format rule (SPEC §5). */
export const forgotFormSchema = z.object({
  email: z
    .string({ error: "Email is required." })
    .trim()
    .min(1, "Email is required.")
    .max(LIMITS.email, `Email must be at most ${LIMITS.email} characters.`),
});

/** Reset: the token (hidden input), the new password and its confirmation. */
export const resetFormSchema = resetPasswordSchema
  .extend({ confirmPassword: confirmField(RESET_CONFIRM_LABEL) })
  .superRefine(matchConfirmation)
  .transform(({ confirmPassword: _confirm, ...request }) => request);

/** The verify page's address: both parameters present and well formed, or undefined. */
export function verifyParams(url: URL): { userId: string; requestToken: string } | undefined {
  const parsed = z.object({ userId: userIdField, requestToken: requestTokenField }).safeParse({
    userId: url.searchParams.get("userId") ?? undefined,
    requestToken: url.searchParams.get("requestToken") ?? undefined,
  });
  return parsed.success ? parsed.data : undefined;
}

/** The address of the verify page for this request. */
export function verifyHref(userId: string, requestToken: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ userId, requestToken, ...extra });
  return `/corporate/verify?${params}`;
}
