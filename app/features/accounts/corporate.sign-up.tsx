// Sign-up, step 1 (docs/requirements.md §S2 sign-up page, §S4 captcha and registration, §S5 sign-up and password
// rules, §S8 registration errors): Register emails the code and answers { userId, requestToken },
// so success goes straight to /corporate/verify with both in the address.

import { getFormProps } from "@conform-to/react";
import { Form, href, Link, redirect } from "react-router";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { isPasswordAcceptable } from "../../../modules/identity/password.ts";
import { signUpFormSchema } from "../../../modules/identity/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import {
  ACCOUNT_MESSAGES,
  type FormReply,
  firstInvalidField,
  formConstraint,
  hasFieldErrors,
} from "../../lib/forms.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, AuthField, inlineTargetClass, linkClass, NameFields } from "../../ui/auth-fields.tsx";
import { useCaptcha } from "../../ui/captcha.tsx";
import { UrlDialog } from "../../ui/dialog.tsx";
import { CsrfInput, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { NewPasswordFields, passwordFocus, usePasswordPair } from "../../ui/password-checklist.tsx";
import { PrivacyContent, TermsContent, usePolicyDialogs } from "../policies/policy-dialog-content.tsx";
import type { Route } from "./+types/corporate.sign-up";
import { PASSWORD_FIELDS, verifyHref } from "./account-forms.server.ts";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

const ACTION = href("/corporate/sign-up");
const FIELD_ORDER = ["firstName", "lastName", "email", "companyName", "password", "confirmPassword"] as const;

export const meta: Route.MetaFunction = () => [
  { title: "Sign Up | Reward Portal" },
  {
    name: "description",
    content:
      "Create a free Reward Portal account and start rewarding your staff and customers with digital gift cards.",
  },
];

export async function action({ context, request }: Route.ActionArgs) {
  const hideFields = PASSWORD_FIELDS;
  const { submission, usedChallenge } = (await readPostedForm(context, request)).parse(signUpFormSchema);
  if (submission.status !== "success") return replyInvalid(submission, usedChallenge, { hideFields });
  const result = await createApiClient(context).call((api) => api.Register.$post({ json: submission.value }));
  if (result.ok) throw redirect(verifyHref(result.data.userId, result.data.requestToken));
  // docs/requirements.md §S8: a used email gets its own words (and a link, added by the page).
  return replyFailure(submission, result, {
    shown: { "email-in-use": ACCOUNT_MESSAGES.alreadyRegistered },
    usedChallenge,
    hideFields,
  });
}

export default function SignUp({ actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Sign Up" subtitle="Register to get started" step={1}>
      <SignUpForm reply={actionData} />
    </AuthLayout>
  );
}

const constraint = formConstraint(signUpFormSchema);

function SignUpForm({ reply }: { reply?: FormReply }) {
  const hydrated = useHydrated();
  // Without JavaScript the links lead to the policy pages; ?dialog=terms also opens the dialog here.
  const { terms, privacy } = usePolicyDialogs("#sign-up-heading");
  const captcha = useCaptcha({ action: "signup", reply });
  const { onSubmit, busy, clientError } = useFormSubmit(ACTION, captcha);
  const [form, fields] = useSchemaForm(signUpFormSchema, {
    id: "sign-up-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const passwords = usePasswordPair(form.id);
  const ready = isPasswordAcceptable(passwords.password) && passwords.password === passwords.confirmation;

  const formErrors = form.errors ?? [];
  const alreadyRegistered = formErrors.includes(ACCOUNT_MESSAGES.alreadyRegistered);
  const messages = [
    ...formErrors.filter((m) => m !== ACCOUNT_MESSAGES.alreadyRegistered),
    ...(clientError ? [clientError] : []),
  ];
  const focusFirst = firstInvalidField(reply?.result.error, FIELD_ORDER);

  return (
    <>
      <AuthHeading id="sign-up-heading">Step 1: Sign Up</AuthHeading>
      <Form
        method="post"
        action={ACTION}
        preventScrollReset
        {...getFormProps(form)}
        aria-labelledby="sign-up-heading"
        className="space-y-4"
      >
        <CsrfInput />
        <HoneypotInputs />
        <AuthAlert focusKey={reply ?? clientError} focus={!hasFieldErrors(reply?.result)}>
          {alreadyRegistered || messages.length > 0 ? (
            <>
              {alreadyRegistered ? (
                <p>
                  {ACCOUNT_MESSAGES.alreadyRegistered}{" "}
                  <Link to={href("/corporate/forgot-password-request")} className={`${linkClass} ${inlineTargetClass}`}>
                    {ACCOUNT_MESSAGES.retrieveDetails}
                  </Link>
                </p>
              ) : null}
              {messages.map((message) => (
                <p key={message}>{message}</p>
              ))}
            </>
          ) : null}
        </AuthAlert>
        <NameFields fields={fields} focusFirst={focusFirst} />
        <AuthField
          field={fields.email}
          label="Email"
          type="email"
          autoComplete="email"
          autoFocus={focusFirst === "email"}
        />
        <AuthField
          field={fields.companyName}
          label="Company Name"
          autoComplete="organization"
          autoFocus={focusFirst === "companyName"}
        />
        <NewPasswordFields
          fields={{ password: fields.password, confirmation: fields.confirmPassword }}
          labels={{ password: "Password", confirmation: "Confirm Password" }}
          pair={passwords}
          checklistId="sign-up-checklist"
          showChecklist={hydrated && passwords.password !== ""}
          focus={passwordFocus(focusFirst)}
        />
        {/* Line height = the links' 44 px hit areas, so the two never overlap when the line wraps. */}
        <p className="text-sm leading-11 text-slate-700">
          By signing up you agree to our{" "}
          <a {...terms.linkProps} className={`${linkClass} ${inlineTargetClass}`}>
            Terms and Conditions
          </a>{" "}
          and{" "}
          <a {...privacy.linkProps} className={`${linkClass} ${inlineTargetClass}`}>
            Privacy Policy
          </a>
          .
        </p>
        {captcha.element}
        <p id="sign-up-next" className="text-sm text-slate-700">
          We&rsquo;ll email you a 6-digit code to enter on the next screen.
        </p>
        <SubmitButton busy={busy} disabled={(hydrated && !ready) || captcha.blocksSubmit} className="w-full sm:w-auto">
          Send 6-Digit Code
        </SubmitButton>
        <p className="text-sm text-slate-700">
          Already have an account?{" "}
          <Link to={href("/corporate/login")} className={`${linkClass} ${inlineTargetClass}`}>
            Login
          </Link>
        </p>
      </Form>
      <UrlDialog control={terms} title="Terms and Conditions">
        <TermsContent headingLevel={3} />
      </UrlDialog>
      <UrlDialog control={privacy} title="Privacy Policy">
        <PrivacyContent headingLevel={3} />
      </UrlDialog>
    </>
  );
}
