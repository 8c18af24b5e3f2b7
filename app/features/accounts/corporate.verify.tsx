// Verify, step 2 (docs/requirements.md §S2 verify page, §S4 verify, §S5 verification code, §S8 verify errors).
// The address carries userId and requestToken (either missing → /error). Two forms post to that
// address: the code (intent=verify) and the resend (intent=resend), so both work without
// JavaScript. The page holds nothing of the address (the action reads it). It is rendered for its
// visitor alone and kept by no cache (private, no-store: server/http/app.ts).
// Success: VerifyEmail answers the access token; the user's details and settings are fetched
// with it, a new session starts, and the browser lands on the dashboard.

import { getFormProps } from "@conform-to/react";
import { data, href, redirect, useNavigation, useSearchParams } from "react-router";
import { VERIFICATION_CODE_LENGTH } from "../../../core/limits.ts";
import { VERIFICATION_CODE_MESSAGE, verifyFormSchema } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { type ApiResult, createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyBanner, replyFields, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { ACCOUNT_MESSAGES, type FormReply, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords, refusalWords, refusedAs } from "../../lib/refusals.ts";
import { startNewSession } from "../../lib/session.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, AuthField, inlineTargetClass } from "../../ui/auth-fields.tsx";
import { CsrfInput, HiddenHoneypot, OwnAddressForm, SubmitButton } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import type { Route } from "./+types/corporate.verify";
import { verifyHref, verifyParams } from "./account-forms.server.ts";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { setChallengeCookie } from "./two-factor-login.server.ts";

/** What the verify action answers when it does not redirect. */
interface VerifyReply extends FormReply {
  /** "invalidCode": docs/requirements.md §S8's wrong-code text with the clickable resend. */
  problem?: "invalidCode";
}

/**
 * docs/requirements.md §S8 has two resend failures: 'Failed to resend code. Please try again later.' when the API
 * refused the resend (a 4xx: too many codes, a request it does not take), and 'An error occurred
 * while resending the verification code.' when it could not do it (a 5xx, or out of reach).
 */
function resendFailure(submission: Parameters<typeof replyInvalid>[0], status: number) {
  const message = status >= 500 ? ACCOUNT_MESSAGES.resendError : ACCOUNT_MESSAGES.resendFailed;
  return replyBanner(submission, message, { status });
}

export const meta: Route.MetaFunction = () => [
  { title: "Verify | Reward Portal" },
  { name: "description", content: "Enter the 6-digit code we emailed you to verify your email address and log in." },
  { name: "robots", content: "noindex" },
];

export function loader({ request }: Route.LoaderArgs) {
  if (!verifyParams(new URL(request.url))) throw redirect(href("/error"));
  return null;
}

/** The API's refusals that are safe and useful to show word for word (docs/requirements.md §S8: "the server's detail"). */
const SHOWN_VERIFY = inApiWords(
  "verification-too-many-attempts",
  "verification-expired",
  "verification-used",
  "verification-superseded",
  "verification-request-invalid",
  "internal-error",
  "service-unavailable",
);

export async function action({ context, request }: Route.ActionArgs) {
  const { submission } = (await readPostedForm(context, request)).parse(verifyFormSchema);
  const link = verifyParams(new URL(request.url));
  if (!link) throw redirect(href("/error"));
  if (submission.status !== "success") {
    // A resend post can only fail here when its intent was tampered with.
    if (submission.payload.intent === "resend") return resendFailure(submission, 400);
    return replyInvalid(submission);
  }
  const value = submission.value;
  const client = createApiClient(context);

  switch (value.intent) {
    case "resend": {
      const resent = await client.call((api) =>
        api.Identity.ResendVerifyEmailRequest.$post({ json: { userId: link.userId } }),
      );
      if (resent.ok) throw redirect(verifyHref(link.userId, resent.data.requestToken, { resent: "1" }));
      return resendFailure(submission, resent.status >= 400 ? resent.status : 500);
    }
    case "verify": {
      const verified = await client.call((api) =>
        api.Identity.VerifyEmail.$post({ json: { ...link, verificationCode: value.verificationCode } }),
      );
      if (!verified.ok) return verifyFailure(submission, verified);
      // The sign-in rules owe a second factor first (modules/identity/sign-in.server.ts): as after a login.
      if ("twoFactor" in verified.data) {
        const next =
          verified.data.twoFactor === "verify" ? href("/corporate/login-code") : href("/corporate/two-factor-setup");
        throw redirect(next, {
          headers: { "set-cookie": await setChallengeCookie(context, verified.data.challengeToken) },
        });
      }
      const accessToken = verified.data.accessToken;

      // docs/requirements.md §S4: with the new token, the user's details (a failure shows the generic error) and the
      // settings (both false right after verification).
      const signedIn = createApiClient(context, { token: accessToken });
      const [details, settings] = await Promise.all([
        signedIn.call((api) => api.Users.MyDetails.$get()),
        signedIn.call((api) => api.Identity["app-settings"].$get()),
      ]);
      if (!details.ok) {
        services(context).logger.warn({ status: details.status }, "verify: MyDetails failed");
        const status = details.status >= 400 ? details.status : 500;
        return replyBanner(submission, ACCOUNT_MESSAGES.verifyGeneric, { status });
      }
      const user = details.data;
      await startNewSession(context, {
        accessToken,
        user: {
          id: user.id,
          companyId: user.companyId,
          firstName: user.firstName,
          lastName: user.lastName,
          fullName: user.fullName,
          email: user.email,
          companyName: user.companyName,
        },
        appSettings: settings.ok
          ? settings.data
          : { hasProvidedCompanyDetails: false, hasWatchedOnboardingVideo: false },
      });
      throw redirect(DASHBOARD_PATH);
    }
    default:
      return unknownIntent();
  }
}

function verifyFailure(
  submission: Parameters<typeof replyInvalid>[0],
  failure: Extract<ApiResult<unknown>, { ok: false }>,
) {
  const status = failure.status >= 400 ? failure.status : 500;
  if (refusedAs(failure, "wrong-verification-code")) {
    const { data: reply } = replyBanner(submission, ACCOUNT_MESSAGES.invalidCode, { status });
    return data<VerifyReply>({ ...reply, problem: "invalidCode" }, { status });
  }
  const fieldErrors = failure.errors?.verificationCode?.length
    ? { verificationCode: failure.errors.verificationCode }
    : undefined;
  if (fieldErrors) return replyFields(submission, fieldErrors, { status });
  // The rate limits' answers say what happened, word for word (docs/requirements.md §D7).
  const words = failure.status === 429 ? failure.detail : refusalWords(failure, SHOWN_VERIFY);
  const message = words ?? ACCOUNT_MESSAGES.verifyGeneric;
  return replyBanner(submission, message, { status });
}

export default function Verify({ actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Verify" subtitle="Enter the 6-Digit code we emailed you" step={2}>
      <VerifyForm reply={actionData} />
    </AuthLayout>
  );
}

const RESEND_FORM_ID = "resend-form";
const resendButtonClass =
  "font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-wait disabled:text-slate-600";

function VerifyForm({ reply }: { reply?: VerifyReply }) {
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const posting = navigation.state !== "idle" && navigation.formMethod?.toUpperCase() === "POST";
  const postingIntent = posting ? navigation.formData?.get("intent") : undefined;
  const resending = postingIntent === "resend";
  const verifying = postingIntent === "verify";

  const [form, fields] = useSchemaForm(verifyFormSchema, {
    id: "verify-form",
    lastResult: reply?.result,
    // The schema's rule is a pattern (docs/requirements.md §S5: exactly 6 digits); the input is capped at 6.
    constraint: { verificationCode: { required: true, maxLength: VERIFICATION_CODE_LENGTH } },
    defaultNoValidate: false,
  });

  const resent = searchParams.get("resent") === "1" && !reply;
  const invalidCode = reply?.problem === "invalidCode";
  // Only this reply's messages: conform keeps the last ones after a redirect (e.g. the resend).
  const otherErrors = reply && !invalidCode ? (form.errors ?? []) : [];
  const resendButton = (label: string) => (
    <button
      type="submit"
      form={RESEND_FORM_ID}
      disabled={resending}
      className={`${resendButtonClass} ${inlineTargetClass}`}
    >
      {label}
    </button>
  );

  return (
    <>
      <AuthHeading id="verify-heading">Step 2: Verify Email</AuthHeading>
      {/* The resend form: its button sits in the text below (and in the wrong-code message) through form=. */}
      <OwnAddressForm id={RESEND_FORM_ID} className="hidden">
        <CsrfInput />
        <HiddenHoneypot />
        <input type="hidden" name="intent" value="resend" />
      </OwnAddressForm>

      <div className="mb-6 space-y-3">
        <p className="text-slate-700">
          Please allow up to 1 minute to receive your verification code. Not arrived? {resendButton("Resend code")}
        </p>
        <AuthAlert tone="success" focusKey={searchParams.get("requestToken")} focus={resent}>
          {resent ? <p>{ACCOUNT_MESSAGES.resent}</p> : null}
        </AuthAlert>
      </div>

      <OwnAddressForm {...getFormProps(form)} aria-labelledby="verify-heading" className="space-y-4">
        <CsrfInput />
        <HoneypotInputs />
        <input type="hidden" name="intent" value="verify" />
        <AuthAlert focusKey={reply} focus={!hasFieldErrors(reply?.result)}>
          {invalidCode ? (
            <p>Invalid verification code. Please try again or {resendButton("resend verification code")}.</p>
          ) : otherErrors.length > 0 ? (
            otherErrors.map((message) => <p key={message}>{message}</p>)
          ) : null}
        </AuthAlert>
        <AuthField
          field={fields.verificationCode}
          label="Verification Code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern={`[0-9]{${VERIFICATION_CODE_LENGTH}}`}
          title={VERIFICATION_CODE_MESSAGE}
          autoFocus={hasFieldErrors(reply?.result)}
          hint="The 6-digit code from the email we sent you."
        />
        <SubmitButton busy={verifying} className="w-full sm:w-auto">
          Verify &amp; Login
        </SubmitButton>
        <p className="text-sm text-slate-700">On the next screen, you&rsquo;ll add your company details.</p>
      </OwnAddressForm>
    </>
  );
}
