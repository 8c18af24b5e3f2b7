// Where the company's identity provider sends the browser back (ADR 0046): GET
// /corporate/sso/callback?code=…&state=…&iss=…. The loader hands the query and the state this
// browser kept (its cookie) to the API, which checks the state, the code (PKCE), the ID token's
// signature, issuer, audience, expiry, nonce and verified email, and answers an access token; then
// the session starts as after a password login (sign-in.server.ts). Any refusal shows this page
// with what went wrong and a way back to the login page; it changes nothing. The API's call
// spends the login budget of the client's address (modules/single-sign-on/api.server.ts).
import { data, href, Link, redirect } from "react-router";
import { SSO_DETAILS } from "../../../modules/single-sign-on/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { inApiWords, refusalWords } from "../../lib/refusals.ts";
import { AuthAlert, inlineTargetClass, linkClass } from "../../ui/auth-fields.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import type { Route } from "./+types/corporate.sso.callback";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { startSignedInSession } from "./sign-in.server.ts";
import { clearSsoStateCookie, ssoStateOf } from "./single-sign-on.server.ts";

/** API answers shown word for word; anything else is the generic failure. */
/** The refusals of ADR 0046 said in the API's words; any other shows SSO_DETAILS.failed. */
const SHOWN = inApiWords(
  "sso-failed",
  "sso-no-email",
  "sso-email-not-verified",
  "sso-domain-not-covered",
  "sso-other-company",
);

export const meta: Route.MetaFunction = () => [
  { title: "Signing in | Reward Portal" },
  { name: "robots", content: "noindex" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const query = new URL(request.url).search;
  const state = await ssoStateOf(context, request);
  const clear = await clearSsoStateCookie(context);
  const result =
    query.length > 1 && state
      ? await createApiClient(context).call((api) =>
          api.Identity.sso.callback.$post({ json: { query: query.slice(0, 4000), state } }),
        )
      : null;
  if (result?.ok) {
    const { headers } = await startSignedInSession(context, result.data);
    headers.append("set-cookie", clear);
    throw redirect(DASHBOARD_PATH, { headers });
  }
  // The rate limit's answer says when to try again; the refusals of ADR 0046 say what failed.
  const shown = result && !result.ok && (result.status === 429 ? result.detail : refusalWords(result, SHOWN));
  const detail = shown || SSO_DETAILS.failed;
  return data({ detail }, { status: result?.status === 429 ? 429 : 400, headers: { "set-cookie": clear } });
}

export default function SingleSignOnCallback({ loaderData }: Route.ComponentProps) {
  return (
    <AuthLayout title="Sign in with your company account">
      <AuthHeading id="sso-heading">The sign-in did not complete</AuthHeading>
      <AuthAlert focusKey={loaderData.detail} focus>
        <p>{loaderData.detail}</p>
      </AuthAlert>
      <p className="mt-4 text-sm">
        <Link to={href("/corporate/login")} className={`${linkClass} ${inlineTargetClass}`}>
          Back to the login page
        </Link>
      </p>
    </AuthLayout>
  );
}
