// Reset password (docs/requirements.md §S2 reset page, §S4 password reset, §S5 password rules, §S8 reset errors):
// reached from the emailed link /corporate/forgot-password?passwordResetToken=… (without it →
// /error). 'Choose a password' and 'Confirm password' with the live checklist; success lands on
// the login page with a success toast. The form posts to the page's own address and the action
// reads the token from it, so the page holds nothing of the link. It is rendered for its visitor
// alone and kept by no cache (private, no-store: server/http/app.ts).

import { getFormProps } from "@conform-to/react";
import { href, Link, redirect } from "react-router";
import { isPasswordAcceptable } from "../../../modules/identity/password.ts";
import { RESET_CONFIRM_LABEL, resetFormSchema } from "../../../modules/identity/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import {
  type FormReply,
  firstInvalidField,
  formConstraint,
  hasFieldErrors,
  RESET_PASSWORD_LABEL,
} from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { CsrfInput, OwnAddressForm, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { NewPasswordFields, passwordFocus, usePasswordPair } from "../../ui/password-checklist.tsx";
import type { Route } from "./+types/corporate.forgot-password";
import { PASSWORD_FIELDS, resetToken } from "./account-forms.server.ts";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";

const PATH = href("/corporate/forgot-password");
const FIELD_ORDER = ["password", "confirmPassword"] as const;

/** docs/requirements.md §S8: the server's detail, else the generic message. These are the refusals the reset call gives. */
const SHOWN_RESET = inApiWords(
  "reset-link-invalid",
  "reset-link-expired",
  "reset-link-used",
  // The company requires single sign-on for this address (ADR 0046).
  "single-sign-on-required",
);

export const meta: Route.MetaFunction = () => [
  { title: "Reset Password | Reward Portal" },
  { name: "description", content: "Choose a new password for your Reward Portal account." },
  { name: "robots", content: "noindex" },
];

export function loader({ request }: Route.LoaderArgs) {
  if (!resetToken(new URL(request.url))) throw redirect(href("/error"));
  return null;
}

export async function action({ context, request }: Route.ActionArgs) {
  const hideFields = PASSWORD_FIELDS;
  const { submission } = (await readPostedForm(context, request)).parse(resetFormSchema);
  const passwordResetToken = resetToken(new URL(request.url));
  if (!passwordResetToken) throw redirect(href("/error"));
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields });
  const result = await createApiClient(context).call((api) =>
    api.Identity.ResetPassword.$post({ json: { passwordResetToken, ...submission.value } }),
  );
  if (result.ok) {
    throw await redirectWithToast(context, href("/corporate/login"), {
      type: "success",
      title: "Password reset",
      description: "Your password has been changed. Please log in with your new password.",
    });
  }
  return replyFailure(submission, result, { shown: SHOWN_RESET, hideFields });
}

export default function ResetPassword({ actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Reset Password" subtitle="Choose a new password for your account">
      <ResetForm reply={actionData} />
    </AuthLayout>
  );
}

const constraint = formConstraint(resetFormSchema);

function ResetForm({ reply }: { reply?: FormReply }) {
  const hydrated = useHydrated();
  const { onSubmit, busy } = useFormSubmit(PATH);
  const [form, fields] = useSchemaForm(resetFormSchema, {
    id: "reset-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const passwords = usePasswordPair(form.id);
  const ready = isPasswordAcceptable(passwords.password) && passwords.password === passwords.confirmation;
  const messages = form.errors ?? [];
  const linkProblem = messages.some((m) => m.includes("request a new one"));
  const focusFirst = firstInvalidField(reply?.result.error, FIELD_ORDER);
  const showChecklist = hydrated && passwords.password !== "";

  return (
    <>
      <AuthHeading id="reset-heading">Choose a new password</AuthHeading>
      <OwnAddressForm {...getFormProps(form)} aria-labelledby="reset-heading" className="space-y-4">
        <CsrfInput />
        <HoneypotInputs />
        <AuthAlert focusKey={reply} focus={!hasFieldErrors(reply?.result)}>
          {messages.length > 0 ? (
            <>
              {messages.map((message) => (
                <p key={message}>{message}</p>
              ))}
              {linkProblem ? (
                <p className="mt-1">
                  <Link to={href("/corporate/forgot-password-request")} className={`${linkClass} ${inlineTargetClass}`}>
                    Request a new link
                  </Link>
                </p>
              ) : null}
            </>
          ) : null}
        </AuthAlert>
        <NewPasswordFields
          fields={{ password: fields.password, confirmation: fields.confirmPassword }}
          labels={{ password: RESET_PASSWORD_LABEL, confirmation: RESET_CONFIRM_LABEL }}
          pair={passwords}
          checklistId="reset-checklist"
          showChecklist={showChecklist}
          focus={passwordFocus(focusFirst)}
        />
        <SubmitButton busy={busy} disabled={hydrated && !ready} className="w-full sm:w-auto">
          Reset Password
        </SubmitButton>
      </OwnAddressForm>
    </>
  );
}
