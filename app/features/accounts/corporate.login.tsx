// Login (docs/requirements.md §S2 login page, §S4 captcha and login, §S5 login rules, §S8 login errors). Success
// starts a NEW session (new id) holding the access token, the settings and the user's details
// (a MyDetails failure is only logged), then the dashboard. A signed-in visitor goes straight there.
// The right password of a manager who never verified the email: the API has emailed a new code,
// and the browser goes to the verify page (step 2), as after sign-up.
// A manager with two-factor sign-in goes on to the code page (corporate.login-code.tsx), or sets
// an app up first when the company requires one (corporate.two-factor-setup.tsx).

import { getFormProps } from "@conform-to/react";
import { useState } from "react";
import { Form, href, Link, redirect } from "react-router";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { loginFormSchema } from "../../../modules/identity/schema.ts";
import { SSO_BUTTON_LABEL, ssoLoginFormSchema } from "../../../modules/single-sign-on/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { optionalSignedIn } from "../../lib/auth.server.ts";
import { type PostedForm, readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import {
  ACCOUNT_MESSAGES,
  type FormReply,
  firstInvalidField,
  formConstraint,
  hasFieldErrors,
} from "../../lib/forms.ts";
import { inApiWords, refusalWords, refusedAs } from "../../lib/refusals.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, AuthField, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { useCaptcha } from "../../ui/captcha.tsx";
import { CsrfInput, SubmitButton, type SubmitPreparer, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import type { Route } from "./+types/corporate.login";
import { verifyHref, verifyParamsOf } from "./account-forms.server.ts";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { startSignedInSession } from "./sign-in.server.ts";
import { setSsoStateCookie } from "./single-sign-on.server.ts";
import { setChallengeCookie } from "./two-factor-login.server.ts";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

const ACTION = href("/corporate/login");
const FORGOT = href("/corporate/forgot-password-request");
const FIELD_ORDER = ["userName", "password"] as const;

/**
 * Refusals said in the API's words (and the rate limits' answers); any other failure shows the
 * incorrect-credentials banner (docs/requirements.md §S8).
 */
const SHOWN_LOGIN = inApiWords("single-sign-on-required", "email-not-verified", "email-verified-meanwhile");
/** "Sign in with your company account": what single sign-on refuses, in the API's words. */
const SHOWN_SSO_START = inApiWords("sso-not-configured", "sso-provider-unavailable");

export const meta: Route.MetaFunction = () => [
  { title: "Login | Reward Portal" },
  { name: "description", content: "Login and start rewarding your hard-working staff members or customers." },
];

export async function loader({ context }: Route.LoaderArgs) {
  if (optionalSignedIn(context)) throw redirect(DASHBOARD_PATH);
  return null;
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readPostedForm(context, request);
  switch (form.intent) {
    // The Login button (and a post from before the button named its intent).
    case "login":
    case "":
      return logInWithPassword(context, form);
    case "sso":
      return signInWithCompanyAccount(context, form);
    default:
      return unknownIntent();
  }
}

/**
 * "Sign in with your company account" (ADR 0046): only the email is needed. Its domain's
 * identity provider gets the browser (a redirect, so it works without JavaScript), with the
 * sign-in's state in a cookie for the callback (corporate.sso.callback.tsx); a domain without
 * single sign-on is told so on this page.
 */
async function signInWithCompanyAccount(context: Route.ActionArgs["context"], form: PostedForm) {
  const { submission } = form.parse(ssoLoginFormSchema);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: ["password"] });
  const result = await createApiClient(context).call((api) =>
    api.Identity.sso.start.$post({ json: { email: submission.value.userName } }),
  );
  if (!result.ok) {
    return replyFailure(submission, result, { shown: SHOWN_SSO_START, hideFields: ["password"] });
  }
  throw redirect(result.data.authorizationUrl, {
    headers: { "set-cookie": await setSsoStateCookie(context, result.data.state) },
  });
}

async function logInWithPassword(context: Route.ActionArgs["context"], form: PostedForm) {
  const hideFields = ["password"];
  const { submission, usedChallenge } = form.parse(loginFormSchema);
  if (submission.status !== "success") return replyInvalid(submission, usedChallenge, { hideFields });
  const result = await createApiClient(context).call((api) => api.Identity.login.$post({ json: submission.value }));
  if (!result.ok) {
    // Unverified: the answer names the code just emailed; the verify page takes it from here.
    const verify = refusedAs(result, "email-not-verified") ? verifyParamsOf(result.extensions) : undefined;
    if (verify) throw redirect(verifyHref(verify.userId, verify.requestToken));
    if (refusedAs(result, "captcha-failed") || (result.errors && result.status === 400)) {
      return replyFailure(submission, result, { usedChallenge, hideFields });
    }
    // docs/requirements.md §S8: wrong credentials → the banner (the captcha resets with the new reply); any other
    // error → the banner and the visible challenge. An unverified email and the rate limits say so.
    const known = result.status === 429 || refusalWords(result, SHOWN_LOGIN) !== undefined;
    // Wrong credentials answer the one 400 without a kind, the same for any account (modules/identity/api.server.ts).
    const wrongCredentials = result.status === 400 && result.code === undefined;
    const challenge = usedChallenge || (!known && !wrongCredentials);
    return replyFailure(submission, result, {
      shown: SHOWN_LOGIN,
      otherwise: ACCOUNT_MESSAGES.incorrectLogin,
      usedChallenge: challenge,
      hideFields,
    });
  }

  // Two-factor sign-in (ADR 0042): no token yet; the challenge goes in an httpOnly cookie to the
  // code page, or to the set-up page when the company requires an app the manager has not set up.
  if ("twoFactor" in result.data) {
    const next =
      result.data.twoFactor === "verify" ? href("/corporate/login-code") : href("/corporate/two-factor-setup");
    throw redirect(next, { headers: { "set-cookie": await setChallengeCookie(context, result.data.challengeToken) } });
  }
  const { headers } = await startSignedInSession(context, result.data, submission.value.userName);
  throw redirect(DASHBOARD_PATH, { headers });
}

export default function Login({ actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Login" subtitle="Login and start rewarding your hard-working staff members or customers">
      <LoginForm reply={actionData} />
    </AuthLayout>
  );
}

const constraint = formConstraint(loginFormSchema);

function LoginForm({ reply }: { reply?: FormReply }) {
  const captcha = useCaptcha({ action: "login", reply });
  // docs/requirements.md §S4: when the invisible check is not ready, the form is not sent and the banner shows.
  const preparer: SubmitPreparer = {
    needsPreparation: captcha.needsPreparation,
    async prepare(formData) {
      const outcome = await captcha.prepare(formData);
      return outcome.ok ? outcome : { ok: false, error: ACCOUNT_MESSAGES.incorrectLogin };
    },
  };
  const { onSubmit, busy, clientError } = useFormSubmit(ACTION, preparer);
  const [form, fields] = useSchemaForm(
    (formData) => (formData.get("intent") === "sso" ? ssoLoginFormSchema : loginFormSchema),
    {
      id: "login-form",
      lastResult: reply?.result,
      constraint,
      defaultNoValidate: false,
      // The company-account button needs only the email (the schema of the intent pressed).
      onSubmit,
    },
  );
  // docs/requirements.md §S4: editing email or password clears the banner (until the next answer).
  const [clearedFor, setClearedFor] = useState<unknown>(null);
  const bannerKey = reply ?? clientError;
  const cleared = bannerKey !== undefined && clearedFor === bannerKey;
  const messages = cleared ? [] : [...(form.errors ?? []), ...(clientError ? [clientError] : [])];
  const focusFirst = firstInvalidField(reply?.result.error, FIELD_ORDER);

  return (
    <>
      <AuthHeading id="login-heading">Enter your Login Details</AuthHeading>
      <Form
        method="post"
        action={ACTION}
        preventScrollReset
        {...getFormProps(form)}
        onInput={() => {
          if (bannerKey !== undefined) setClearedFor(bannerKey);
        }}
        aria-labelledby="login-heading"
        className="space-y-4"
      >
        <CsrfInput />
        <HoneypotInputs />
        <AuthAlert focusKey={bannerKey} focus={!hasFieldErrors(reply?.result)}>
          {messages.length > 0
            ? messages.map((message) =>
                message === ACCOUNT_MESSAGES.incorrectLogin ? (
                  <p key={message}>
                    Incorrect email or password. Please try again or{" "}
                    <Link to={FORGOT} className={`${linkClass} ${inlineTargetClass}`}>
                      reset your password
                    </Link>
                    .
                  </p>
                ) : (
                  <p key={message}>{message}</p>
                ),
              )
            : null}
        </AuthAlert>
        <AuthField
          field={fields.userName}
          label="Email"
          type="email"
          autoComplete="username"
          autoFocus={focusFirst === "userName"}
        />
        <AuthField
          field={fields.password}
          label="Password"
          type="password"
          autoComplete="current-password"
          autoFocus={focusFirst === "password"}
        />
        <p className="text-sm">
          <Link to={FORGOT} className={`${linkClass} ${inlineTargetClass}`}>
            Oops! I forgot my password
          </Link>
        </p>
        {captcha.element}
        <SubmitButton
          busy={busy}
          disabled={captcha.blocksSubmit}
          name="intent"
          value="login"
          className="w-full sm:w-auto"
        >
          Login
        </SubmitButton>
        {/* After the Login button, so Enter in a field still logs in with the password. Only the
            email is needed: the post answers a redirect to the company's identity provider. */}
        <div className="border-t border-slate-200 pt-4">
          <p className="mb-2 text-sm text-slate-700">Does your company use single sign-on? Enter your email, then:</p>
          <SubmitButton name="intent" value="sso" formNoValidate className="w-full sm:w-auto">
            {SSO_BUTTON_LABEL}
          </SubmitButton>
        </div>
        <p className="text-sm text-slate-700">
          New here?{" "}
          <Link to={href("/corporate/sign-up")} className={`${linkClass} ${inlineTargetClass}`}>
            Create a free account
          </Link>
        </p>
      </Form>
    </>
  );
}
