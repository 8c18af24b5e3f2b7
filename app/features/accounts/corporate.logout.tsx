// Logout (docs/requirements.md §S2 portal menu: "Logout (to /Corporate/Login; removes the access token)").
// POST /corporate/logout (a form, CSRF-checked: see LogoutForm in app/ui/logout-form.tsx) revokes
// the access token at the API, destroys the web session and lands on the login page. A GET
// never logs out (a link or an image could): signed in, it shows a one-button confirmation;
// signed out, it goes to the login page.
import { Form, href, redirect } from "react-router";
import { services } from "../../context.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { LOGIN_PATH, optionalSignedIn } from "../../lib/auth.server.ts";
import { readPostedForm } from "../../lib/forms.server.ts";
import { endSession, getSession } from "../../lib/session.server.ts";
import { CsrfInput, HiddenHoneypot, SubmitButton } from "../../ui/form-fields.tsx";
import type { Route } from "./+types/corporate.logout";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";

export const meta: Route.MetaFunction = () => [
  { title: "Logout | Reward Portal" },
  { name: "robots", content: "noindex" },
];

export async function loader({ context }: Route.LoaderArgs) {
  if (!optionalSignedIn(context)) throw redirect(LOGIN_PATH);
  return null;
}

export async function action({ context, request }: Route.ActionArgs) {
  await readPostedForm(context, request);
  const session = getSession(context);
  const accessToken = session.get("accessToken");
  if (accessToken) {
    // Revoke the token; the session ends whatever the API answers.
    const result = await createApiClient(context, { token: accessToken }).call((api) => api.Identity.logout.$post());
    if (!result.ok && result.status !== 401) {
      services(context).logger.warn({ status: result.status }, "logout: token revocation failed");
    }
  }
  throw redirect(LOGIN_PATH, { headers: { "set-cookie": await endSession(context) } });
}

export default function Logout() {
  return (
    <AuthLayout title="Logout">
      <AuthHeading id="logout-heading">Log out of Reward Portal?</AuthHeading>
      <Form method="post" action={href("/corporate/logout")} aria-labelledby="logout-heading" className="space-y-4">
        <CsrfInput />
        <HiddenHoneypot />
        <p className="text-slate-700">You&rsquo;ll need your email and password to log in again.</p>
        <SubmitButton className="w-full sm:w-auto">Logout</SubmitButton>
      </Form>
    </AuthLayout>
  );
}
