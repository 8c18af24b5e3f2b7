// Login, the second step (ADR 0042): after the right password of a manager with two-factor
// sign-in on, the 6-digit code from the authenticator app (intent=code) or one recovery code
// (intent=recovery). The login's challenge is in an httpOnly cookie (two-factor-login.server.ts);
// without one the browser goes back to the login page. Success starts the session as the login
// page does. Not a kept page: it is one visitor's sign-in.

import { getFormProps } from "@conform-to/react";
import { data, Form, href, Link, redirect } from "react-router";
import { loginCodeFormSchema, TWO_FACTOR_MESSAGES } from "../../../modules/two-factor/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { optionalSignedIn } from "../../lib/auth.server.ts";
import { readPostedForm, replyBanner, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { type FormReply, hasFieldErrors } from "../../lib/forms.ts";
import { refusedAs, TWO_FACTOR_REFUSALS } from "../../lib/refusals.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, AuthField, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { CsrfInput, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import { TOTP_INPUT } from "../settings/two-factor-panels.tsx";
import type { Route } from "./+types/corporate.login-code";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { challengeTokenOf, clearChallengeCookie, signInAfterSecondFactor } from "./two-factor-login.server.ts";

const ACTION = href("/corporate/login-code");
const LOGIN = href("/corporate/login");

/** The sign-in can only start again from the password: the page says so and links back. */
const ENDED = ["challenge-expired", "challenge-ended", "challenge-too-many", "challenge-locked"] as const;

interface CodeReply extends FormReply {
  intent?: "code" | "recovery";
  ended?: boolean;
}

export const meta: Route.MetaFunction = () => [
  { title: "Login code | Reward Portal" },
  { name: "robots", content: "noindex" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  if (optionalSignedIn(context)) throw redirect(DASHBOARD_PATH);
  if (!(await challengeTokenOf(context, request))) throw redirect(LOGIN);
  return null;
}

export async function action({ context, request }: Route.ActionArgs) {
  const { submission } = (await readPostedForm(context, request)).parse(loginCodeFormSchema);
  const intent = submission.payload.intent === "recovery" ? "recovery" : "code";
  const hideFields = ["code", "recoveryCode"];
  if (submission.status !== "success") {
    return data<CodeReply>(
      { ...(await replyInvalid(submission, false, { hideFields })).data, intent },
      { status: 400 },
    );
  }
  const challengeToken = await challengeTokenOf(context, request);
  if (!challengeToken) return ended(context, submission, TWO_FACTOR_MESSAGES.challengeInvalid, intent);
  const value = submission.value;
  const result = await createApiClient(context).call((api) =>
    api.Identity["login-code"].$post({
      json:
        value.intent === "code"
          ? { challengeToken, code: value.code }
          : { challengeToken, recoveryCode: value.recoveryCode },
    }),
  );
  if (result.ok) return signInAfterSecondFactor(context, result.data);
  if (refusedAs(result, ...ENDED)) return ended(context, submission, result.detail, intent);
  const reply = replyFailure(submission, result, { shown: TWO_FACTOR_REFUSALS, hideFields });
  return data<CodeReply>({ ...reply.data, intent }, { status: reply.init?.status ?? 400 });
}

/** The challenge is gone (expired, used up, or never there): the cookie goes too. */
async function ended(
  context: Route.ActionArgs["context"],
  submission: Parameters<typeof replyInvalid>[0],
  message: string,
  intent: "code" | "recovery",
) {
  return data<CodeReply>(
    { ...replyBanner(submission, message, { hideFields: ["code", "recoveryCode"] }).data, intent, ended: true },
    { status: 400, headers: { "set-cookie": await clearChallengeCookie(context) } },
  );
}

export default function LoginCode({ actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Login" subtitle="One more step to keep your account safe">
      <CodeForms reply={actionData} />
    </AuthLayout>
  );
}

function CodeForms({ reply }: { reply?: CodeReply }) {
  const codeReply = reply?.intent === "code" ? reply : undefined;
  const recoveryReply = reply?.intent === "recovery" ? reply : undefined;
  const { onSubmit, busy } = useFormSubmit(ACTION);
  const [codeForm, codeFields] = useSchemaForm(loginCodeFormSchema, {
    id: "login-code-form",
    lastResult: codeReply?.result,
    constraint: { code: { required: true, maxLength: 7 } },
    defaultNoValidate: false,
    onSubmit,
  });
  const [recoveryForm, recoveryFields] = useSchemaForm(loginCodeFormSchema, {
    id: "login-recovery-form",
    lastResult: recoveryReply?.result,
    constraint: { recoveryCode: { required: true, maxLength: 64 } },
    defaultNoValidate: false,
    onSubmit,
  });

  if (reply?.ended) {
    return (
      <>
        <AuthHeading id="login-code-heading">Enter your authentication code</AuthHeading>
        <AuthAlert focusKey={reply} focus>
          <p>{reply.result.error?.[""]?.[0] ?? TWO_FACTOR_MESSAGES.challengeInvalid}</p>
        </AuthAlert>
        <p className="mt-4">
          <Link to={LOGIN} className={`${linkClass} ${inlineTargetClass}`}>
            Log in again
          </Link>
        </p>
      </>
    );
  }

  return (
    <>
      <AuthHeading id="login-code-heading">Enter your authentication code</AuthHeading>
      <Form
        method="post"
        action={ACTION}
        preventScrollReset
        {...getFormProps(codeForm)}
        aria-labelledby="login-code-heading"
        className="space-y-4"
      >
        <CsrfInput />
        <HoneypotInputs />
        <input type="hidden" name="intent" value="code" />
        <AuthAlert focusKey={codeReply} focus={!hasFieldErrors(codeReply?.result)}>
          {codeForm.errors?.length ? codeForm.errors.map((m) => <p key={m}>{m}</p>) : null}
        </AuthAlert>
        <AuthField
          field={codeFields.code}
          label="Authentication code"
          {...TOTP_INPUT}
          autoFocus={!recoveryReply}
          hint="The 6-digit code from your authenticator app."
        />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Verify &amp; Login
        </SubmitButton>
      </Form>

      <details className="mt-8 border-t border-slate-200 pt-6" open={recoveryReply !== undefined}>
        <summary className="flex min-h-11 cursor-pointer items-center font-semibold text-brand-700 underline underline-offset-2">
          Lost your phone? Use a recovery code
        </summary>
        <Form
          method="post"
          action={ACTION}
          preventScrollReset
          {...getFormProps(recoveryForm)}
          aria-label="Log in with a recovery code"
          className="mt-4 space-y-4"
        >
          <CsrfInput />
          <HoneypotInputs />
          <input type="hidden" name="intent" value="recovery" />
          <AuthAlert focusKey={recoveryReply} focus={!hasFieldErrors(recoveryReply?.result)}>
            {recoveryForm.errors?.length ? recoveryForm.errors.map((m) => <p key={m}>{m}</p>) : null}
          </AuthAlert>
          <AuthField
            field={recoveryFields.recoveryCode}
            label="Recovery code"
            autoComplete="off"
            autoFocus={recoveryReply !== undefined}
            hint="One of the codes you saved when you set up two-factor sign-in. Each works once."
          />
          <SubmitButton busy={busy} className="w-full sm:w-auto">
            Use recovery code
          </SubmitButton>
        </Form>
      </details>

      <p className="mt-6 text-sm">
        <Link to={LOGIN} className={`${linkClass} ${inlineTargetClass}`}>
          Back to login
        </Link>
      </p>
    </>
  );
}
