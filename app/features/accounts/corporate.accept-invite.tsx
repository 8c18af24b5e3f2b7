// Accept an invitation (ADR 0022 §5): reached from the emailed link
// /corporate/accept-invite?token=…. The page names the company, who invited and the address (the
// API's preview); the invitee chooses their name and password with sign-up's rules and checks
// (modules/managers/schema.ts acceptInviteFormSchema), and is signed in at once (a new session, as login
// makes one) on the dashboard of the company. An unknown, expired, used or withdrawn link, or one
// whose inviter is no longer an Owner, shows its own message instead of the form. The form posts
// to the page's own address; the action reads the token from it. Honeypot and, for a visitor
// with a session, CSRF as on every form. Where the company requires single sign-on (ADR 0046
// Amendment) no password is asked for: the page says so and sends the invitee to the login page's
// "Sign in with your company account", whose callback accepts the invitation (a link, so it works
// without JavaScript; the provider's redirect answers the login page's own form, whose
// Content-Security-Policy allows it).

import { getFormProps } from "@conform-to/react";
import { data, href, Link, redirect } from "react-router";
import { isPasswordAcceptable } from "../../../modules/identity/password.ts";
import { SIGN_UP_CONFIRM_LABEL } from "../../../modules/identity/schema.ts";
import {
  acceptInviteFormSchema,
  inviteTokenField,
  MANAGER_MESSAGES,
  ROLE_LABELS,
} from "../../../modules/managers/schema.ts";
import { SSO_BUTTON_LABEL, SSO_SIGN_IN_DETAILS } from "../../../modules/single-sign-on/schema.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { type FormReply, firstInvalidField, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords, refusedAs } from "../../lib/refusals.ts";
import { flashToast } from "../../lib/toast.server.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthAlert, linkClass, NameFields } from "../../ui/auth-fields.tsx";
import { CsrfInput, OwnAddressForm, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { NewPasswordFields, passwordFocus, usePasswordPair } from "../../ui/password-checklist.tsx";
import { DASHBOARD_PATH } from "../portal/portal-pages.ts";
import type { Route } from "./+types/corporate.accept-invite";
import { PASSWORD_FIELDS } from "./account-forms.server.ts";
import { AuthHeading, AuthLayout } from "./auth-layout.tsx";
import { startSignedInSession } from "./sign-in.server.ts";
import { setChallengeCookie } from "./two-factor-login.server.ts";

const PATH = href("/corporate/accept-invite");
const FIELD_ORDER = ["firstName", "lastName", "password", "confirmPassword"] as const;

/** The link's own refusals, said word for word (and the form gives way to them). */
const LINK_REFUSALS = ["invite-invalid", "invite-expired", "invite-used", "invite-revoked", "inviter-gone"] as const;
/** The accept call's refusal, as the page reads it (by kind, not by its words). */
interface AcceptReply extends FormReply {
  linkGone?: boolean;
  throughProvider?: boolean;
}

const SHOWN = inApiWords(...LINK_REFUSALS, "email-in-use", "invite-through-provider");

export const meta: Route.MetaFunction = () => [
  { title: "Accept Invitation | Reward Portal" },
  { name: "robots", content: "noindex" },
];

// The page names the company and the inviter of one link: never kept by a shared cache.
export const headers: Route.HeadersFunction = () => ({ "cache-control": "private, no-store" });

function tokenOf(request: Request): string | undefined {
  const parsed = inviteTokenField.safeParse(new URL(request.url).searchParams.get("token") ?? "");
  return parsed.success ? parsed.data : undefined;
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const token = tokenOf(request);
  if (!token) return data({ problem: MANAGER_MESSAGES.inviteInvalid, invite: null }, { status: 404 });
  const preview = await createApiClient(context).call((api) => api.ManagerInvites.preview.$post({ json: { token } }));
  if (preview.ok) return { problem: null, invite: preview.data };
  const known = refusedAs(preview, ...LINK_REFUSALS) || preview.status === 429;
  return data(
    { problem: known ? preview.detail : MANAGER_MESSAGES.inviteInvalid, invite: null },
    { status: preview.status === 429 ? 429 : preview.status >= 500 ? 503 : preview.status },
  );
}

export async function action({ context, request }: Route.ActionArgs) {
  const hideFields = PASSWORD_FIELDS;
  const { submission } = (await readPostedForm(context, request)).parse(acceptInviteFormSchema);
  const token = tokenOf(request);
  if (!token) throw redirect(PATH);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields });
  const client = createApiClient(context);
  const result = await client.call((api) => api.ManagerInvites.accept.$post({ json: { token, ...submission.value } }));
  if (!result.ok) {
    const reply = replyFailure(submission, result, { shown: SHOWN, hideFields });
    const refused: AcceptReply = {
      ...reply.data,
      linkGone: refusedAs(result, ...LINK_REFUSALS),
      throughProvider: refusedAs(result, "invite-through-provider"),
    };
    return data(refused, reply.init ?? undefined);
  }

  // The company requires a second factor (ADR 0042): set it up first, as a login would.
  if ("twoFactor" in result.data) {
    const headers = { "set-cookie": await setChallengeCookie(context, result.data.challengeToken) };
    throw redirect(href("/corporate/two-factor-setup"), { headers });
  }
  // Signed in as login signs in.
  const { user, headers } = await startSignedInSession(context, result.data);
  const title = user.companyName ? `Welcome to ${user.companyName}` : "Welcome";
  flashToast(context, { type: "success", title, description: "Your account is ready." });
  throw redirect(DASHBOARD_PATH, { headers });
}

export default function AcceptInvite({ loaderData, actionData }: Route.ComponentProps) {
  const { invite, problem } = loaderData;
  const reply = actionData as AcceptReply | undefined;
  const linkGone = reply?.linkGone === true;
  if (!invite || linkGone) {
    const message = problem ?? reply?.result.error?.[""]?.[0] ?? MANAGER_MESSAGES.inviteInvalid;
    return (
      <AuthLayout title="Accept Invitation" subtitle="Join your company's Reward Portal">
        <AuthHeading id="accept-heading">This invitation cannot be used</AuthHeading>
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-4 text-red-900">
          <p>{message}</p>
        </div>
        <p className="mt-6">
          Already have an account?{" "}
          <Link to={href("/corporate/login")} className={linkClass}>
            Log in
          </Link>
        </p>
      </AuthLayout>
    );
  }
  // The requirement may also have been turned on after the page was shown: the API's refusal says so.
  const throughProvider = invite.signInWithProvider || reply?.throughProvider === true;
  return (
    <AuthLayout title="Accept Invitation" subtitle={`Join ${invite.companyName} on Reward Portal`}>
      {throughProvider ? <AcceptThroughProvider invite={invite} /> : <AcceptForm invite={invite} reply={reply} />}
    </AuthLayout>
  );
}

function AcceptThroughProvider({ invite }: { invite: { companyName: string; inviterName: string; email: string } }) {
  return (
    <>
      <AuthHeading id="accept-heading">Join {invite.companyName}</AuthHeading>
      <div role="status" className="mb-6 rounded-md border border-sky-300 bg-sky-50 p-4 text-sky-950">
        <p>{SSO_SIGN_IN_DETAILS.inviteThroughProvider}</p>
      </div>
      <p className="mb-6 text-slate-700">
        {invite.inviterName} invited <span className="break-words font-semibold">{invite.email}</span> to{" "}
        {invite.companyName}. On the login page, enter this address and choose "{SSO_BUTTON_LABEL}": signing in there
        accepts the invitation.
      </p>
      <Link to={href("/corporate/login")} className={linkClass}>
        Go to the login page
      </Link>
    </>
  );
}

const constraint = formConstraint(acceptInviteFormSchema);

function AcceptForm({
  invite,
  reply,
}: {
  invite: { companyName: string; inviterName: string; email: string; managerRole: "owner" | "manager" };
  reply?: FormReply;
}) {
  const hydrated = useHydrated();
  const { onSubmit, busy } = useFormSubmit(PATH);
  const [form, fields] = useSchemaForm(acceptInviteFormSchema, {
    id: "accept-invite-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const passwords = usePasswordPair(form.id);
  const ready = isPasswordAcceptable(passwords.password) && passwords.password === passwords.confirmation;
  const focusFirst = firstInvalidField(reply?.result.error, FIELD_ORDER);
  const showChecklist = hydrated && passwords.password !== "";
  const messages = form.errors ?? [];

  return (
    <>
      <AuthHeading id="accept-heading">Join {invite.companyName}</AuthHeading>
      <p className="mb-6 text-slate-700">
        {invite.inviterName} invited <span className="break-words font-semibold">{invite.email}</span> to reward the
        team of {invite.companyName} as {invite.managerRole === "owner" ? "an" : "a"} {ROLE_LABELS[invite.managerRole]}.
        Choose your name and password to accept.
      </p>
      <OwnAddressForm {...getFormProps(form)} aria-labelledby="accept-heading" className="space-y-4">
        <CsrfInput />
        <HoneypotInputs />
        <AuthAlert focusKey={reply} focus={!hasFieldErrors(reply?.result)}>
          {messages.length > 0 ? messages.map((message) => <p key={message}>{message}</p>) : null}
        </AuthAlert>
        <NameFields fields={fields} focusFirst={focusFirst} />
        <NewPasswordFields
          fields={{ password: fields.password, confirmation: fields.confirmPassword }}
          labels={{ password: "Password", confirmation: SIGN_UP_CONFIRM_LABEL }}
          pair={passwords}
          checklistId="accept-checklist"
          showChecklist={showChecklist}
          focus={passwordFocus(focusFirst)}
        />
        <SubmitButton busy={busy} disabled={hydrated && !ready} className="w-full sm:w-auto">
          Accept Invitation
        </SubmitButton>
      </OwnAddressForm>
    </>
  );
}
