// Forgot password request (docs/requirements.md §S2, §S4 password reset, §S5 forgot request, §S8): an email field,
// then (post/redirect/get to ?sent=1) the confirmation. The API answers the same whether or not
// the address exists; a failure shows its detail in red.

import { getFormProps } from "@conform-to/react";
import { Form, href, Link, redirect, useSearchParams } from "react-router";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { forgotFormSchema } from "../../../modules/identity/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import {
  ACCOUNT_MESSAGES,
  type FormReply,
  firstInvalidField,
  formConstraint,
  hasFieldErrors,
} from "../../lib/forms.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, AuthField, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { CsrfInput, FormSuccess, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import type { Route } from "./+types/corporate.forgot-password-request";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

const ACTION = href("/corporate/forgot-password-request");

export const meta: Route.MetaFunction = () => [
  { title: "Forgot Password | Reward Portal" },
  { name: "description", content: ACCOUNT_MESSAGES.forgotIntro },
];

export async function action({ context, request }: Route.ActionArgs) {
  const { submission } = (await readPostedForm(context, request)).parse(forgotFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await createApiClient(context).call((api) =>
    api.Identity.ResetPasswordRequest.$post({ json: { email: submission.value.email } }),
  );
  if (result.ok) throw redirect(`${ACTION}?sent=1`);
  // docs/requirements.md §S8: the response's detail in red.
  return replyFailure(submission, result, { shown: "any" });
}

export default function ForgotPasswordRequest({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const sent = searchParams.get("sent") === "1";
  return (
    <AuthLayout title="Forgot Password" subtitle="Reset your password in two quick steps">
      {sent ? <Sent /> : <ForgotForm reply={actionData} />}
    </AuthLayout>
  );
}

const constraint = formConstraint(forgotFormSchema);

function ForgotForm({ reply }: { reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(ACTION);
  const [form, fields] = useSchemaForm(forgotFormSchema, {
    id: "forgot-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const messages = form.errors ?? [];
  return (
    <>
      <AuthHeading id="forgot-heading">Forgot your password?</AuthHeading>
      <Form
        method="post"
        action={ACTION}
        preventScrollReset
        {...getFormProps(form)}
        aria-labelledby="forgot-heading"
        className="space-y-4"
      >
        <CsrfInput />
        <HoneypotInputs />
        <p className="text-slate-700">{ACCOUNT_MESSAGES.forgotIntro}</p>
        <AuthAlert focusKey={reply} focus={!hasFieldErrors(reply?.result)}>
          {messages.length > 0 ? messages.map((message) => <p key={message}>{message}</p>) : null}
        </AuthAlert>
        {/* docs/requirements.md §S5: required, no format rule: a text input with the email keyboard. */}
        <AuthField
          field={fields.email}
          label="Email"
          inputMode="email"
          autoComplete="email"
          autoFocus={firstInvalidField(reply?.result.error, ["email"]) === "email"}
        />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Send Reset Password Link
        </SubmitButton>
        <p className="text-sm text-slate-700">
          Remembered it?{" "}
          <Link to={href("/corporate/login")} className={`${linkClass} ${inlineTargetClass}`}>
            Back to Login
          </Link>
        </p>
      </Form>
    </>
  );
}

function Sent() {
  return (
    <FormSuccess title="Check your email">
      <p className="text-slate-700">{ACCOUNT_MESSAGES.forgotSent}</p>
      <p className="text-sm text-slate-700">
        The link is valid for 1 hour. Nothing arrived?{" "}
        <Link to={href("/corporate/forgot-password-request")} className={`${linkClass} ${inlineTargetClass}`}>
          Send another link
        </Link>
      </p>
    </FormSuccess>
  );
}
