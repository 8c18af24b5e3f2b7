// Login when the company requires two-factor sign-in and the manager has none yet (ADR 0042):
// set up an authenticator app before any session. The login's set-up challenge (an httpOnly
// cookie, two-factor-login.server.ts) stands in for the bearer of the set-up calls. The first
// right code turns it on and starts the session; the security page then shows the recovery codes
// once.
import { data, href, Link, redirect } from "react-router";
import { DETAILS } from "../../../core/public-forms.ts";
import { twoFactorConfirmFormSchema } from "../../../modules/two-factor/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { optionalSignedIn } from "../../lib/auth.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import type { FormReply } from "../../lib/forms.ts";
import { TWO_FACTOR_REFUSALS } from "../../lib/refusals.ts";
import { AuthAlert, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import { twoFactorSetupView } from "../settings/two-factor.server.ts";
import { TwoFactorSetupPanel } from "../settings/two-factor-panels.tsx";
import type { Route } from "./+types/corporate.two-factor-setup";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { challengeTokenOf, clearChallengeCookie, signInAfterSecondFactor } from "./two-factor-login.server.ts";

const ACTION = href("/corporate/two-factor-setup");
const LOGIN = href("/corporate/login");
const SECURITY = href("/portal/settings/security");

export const meta: Route.MetaFunction = () => [
  { title: "Set up two-factor sign-in | Reward Portal" },
  { name: "robots", content: "noindex" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  if (optionalSignedIn(context)) throw redirect(DASHBOARD_PATH);
  const challengeToken = await challengeTokenOf(context, request);
  if (!challengeToken) throw redirect(LOGIN);
  const started = await createApiClient(context).call((api) => api.TwoFactor.setup.$post({ json: { challengeToken } }));
  if (!started.ok) {
    // Expired or used up: the sign-in starts again from the password.
    return data(
      { setup: null, problem: started.status === 401 ? started.detail : DETAILS.unavailable },
      { headers: { "set-cookie": await clearChallengeCookie(context) } },
    );
  }
  return { setup: await twoFactorSetupView(started.data), problem: null };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { submission } = (await readPostedForm(context, request)).parse(twoFactorConfirmFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const challengeToken = await challengeTokenOf(context, request);
  if (!challengeToken) throw redirect(LOGIN);
  const result = await createApiClient(context).call((api) =>
    api.TwoFactor.confirm.$post({ json: { challengeToken, code: submission.value.code } }),
  );
  if (result.ok && result.data.signIn) {
    return signInAfterSecondFactor(context, result.data.signIn, {
      after: SECURITY,
      recoveryCodes: result.data.recoveryCodes,
    });
  }
  if (!result.ok && result.status === 401) throw redirect(LOGIN);
  return replyFailure(submission, result.ok ? { ok: false, status: 500, detail: DETAILS.internal } : result, {
    shown: TWO_FACTOR_REFUSALS,
  });
}

export default function TwoFactorSetup({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Login" subtitle="Your company asks every manager to sign in with a second step">
      <AuthHeading id="two-factor-setup-heading">Set up two-factor sign-in</AuthHeading>
      {loaderData.setup ? (
        <>
          <p className="mb-6 text-slate-700">
            Your company requires a code from an authenticator app each time you log in. Set it up now to continue.
          </p>
          <TwoFactorSetupPanel
            view={loaderData.setup}
            action={ACTION}
            reply={actionData as FormReply | undefined}
            submitLabel="Turn on & Login"
          />
        </>
      ) : (
        <>
          <AuthAlert focus focusKey={loaderData.problem}>
            <p>{loaderData.problem}</p>
          </AuthAlert>
          <p className="mt-4">
            <Link to={LOGIN} className={`${linkClass} ${inlineTargetClass}`}>
              Log in again
            </Link>
          </p>
        </>
      )}
    </AuthLayout>
  );
}
