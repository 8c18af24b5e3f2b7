// Two-factor set-up as the security page and the forced set-up at login both show it (ADR 0042):
// the QR code and the secret as text, the form for the app's first code, and the recovery codes
// shown once afterwards. On the security page the set-up form also asks for the current password
// (a session alone enrols no second factor, docs/requirements.md §D7); the forced set-up at login does not,
// its challenge was opened with the password (ADR 0042).
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "react-router";
import { PASSWORD_MAX_LENGTH } from "../../../core/limits.ts";
import {
  TWO_FACTOR_MESSAGES,
  twoFactorConfirmFormSchema,
  twoFactorEnrolFormSchema,
} from "../../../modules/two-factor/schema.ts";
import { type FormReply, firstInvalidField, hasFieldErrors } from "../../lib/forms.ts";
import { AuthField } from "../../ui/auth-fields.tsx";
import { FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import type { TwoFactorSetupView } from "./two-factor.server.ts";

/** The authenticator code input: 6 digits, or "123 456" as apps show them. */
export const TOTP_INPUT = {
  inputMode: "numeric",
  autoComplete: "one-time-code",
  pattern: "[0-9]{3} ?[0-9]{3}",
  title: TWO_FACTOR_MESSAGES.code,
} as const;

export function TwoFactorSetupPanel({
  view,
  action,
  intent,
  reply,
  submitLabel,
  passwordLabel,
}: {
  view: TwoFactorSetupView;
  action: string;
  /** The intent of the page's action that confirms (the security page serves several forms). */
  intent?: string;
  reply?: FormReply;
  submitLabel: string;
  /** The label of a current-password field to show; none where a login challenge proves the password. */
  passwordLabel?: string;
}) {
  const { onSubmit, busy } = useFormSubmit(action);
  const schema = passwordLabel ? twoFactorEnrolFormSchema : twoFactorConfirmFormSchema;
  const [form, fields] = useForm<{ code: string; password?: string }>({
    id: "two-factor-confirm-form",
    lastResult: reply?.result,
    constraint: {
      code: { required: true, maxLength: 7 },
      ...(passwordLabel ? { password: { required: true, maxLength: PASSWORD_MAX_LENGTH } } : {}),
    },
    defaultNoValidate: false,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    onSubmit,
  });
  // The password comes first (typed at leisure), the code last (it changes every 30 seconds).
  const focusFirst = firstInvalidField(reply?.result.error, ["password", "code"]);
  return (
    <div className="space-y-6">
      <ol className="list-decimal space-y-6 pl-5 text-slate-800">
        <li>
          <p>
            Open an authenticator app on your phone (for example Google Authenticator, Microsoft Authenticator,
            1Password or Authy) and scan this QR code.
          </p>
          <img
            src={view.qrCode}
            alt="QR code to add your Reward Portal account to an authenticator app"
            width={200}
            height={200}
            className="mt-3 h-48 w-48 rounded-md border border-slate-300 bg-white p-1 sm:h-52 sm:w-52"
          />
        </li>
        <li>
          <p>Can&rsquo;t scan it? Enter this key in the app instead (time-based):</p>
          <p className="mt-2 break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-lg tracking-wide text-slate-900">
            <span data-testid="two-factor-secret">{view.secretText}</span>
          </p>
        </li>
        <li>
          <p>
            {passwordLabel
              ? "Enter your password and the 6-digit code the app shows to finish."
              : "Enter the 6-digit code the app shows to finish."}
          </p>
          <Form
            method="post"
            action={action}
            preventScrollReset
            {...getFormProps(form)}
            aria-label="Confirm your authenticator app"
            className="mt-3 space-y-4"
          >
            <HiddenFormInputs intent={intent} />
            <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
            {passwordLabel ? (
              <AuthField
                field={fields.password}
                label={passwordLabel}
                type="password"
                autoComplete="current-password"
                autoFocus={focusFirst === "password"}
                className="max-w-sm"
              />
            ) : null}
            <AuthField
              field={fields.code}
              label="Authentication code"
              {...TOTP_INPUT}
              autoFocus={focusFirst === "code"}
              className="max-w-xs"
            />
            <SubmitButton busy={busy} className="w-full sm:w-auto">
              {submitLabel}
            </SubmitButton>
          </Form>
        </li>
      </ol>
    </div>
  );
}

/** New recovery codes, shown this once (they are stored hashed): with a note to keep them. */
export function RecoveryCodesPanel({ codes }: { codes: string[] }) {
  return (
    <section
      aria-labelledby="recovery-codes-heading"
      className="rounded-lg border border-amber-600 bg-amber-50 p-4 sm:p-6"
      data-testid="recovery-codes"
    >
      <h3 id="recovery-codes-heading" className="text-lg font-semibold text-slate-900">
        Your recovery codes
      </h3>
      <p className="mt-2 text-slate-800">
        Keep these codes somewhere safe, such as a password manager or a printed copy. If you lose your phone, each code
        signs you in once in place of a code from your app. <strong>They are shown only now.</strong>
      </p>
      <ol className="mt-4 grid grid-cols-2 gap-2 font-mono text-base text-slate-900 sm:text-lg">
        {codes.map((code) => (
          <li key={code} className="whitespace-nowrap rounded bg-white px-2 py-1 text-center">
            {code}
          </li>
        ))}
      </ol>
    </section>
  );
}
