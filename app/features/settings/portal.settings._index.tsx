// Settings › Profile (ADR 0022 §1: every manager's own settings): their name, their sign-in email
// (a code sent to the new address finishes the change; the old address is told), their password
// (the current one first; every other session ends) and their open sessions, with "Sign out of
// all other sessions". One action serves the page's forms, told apart by `intent`; each redirects
// on success with a toast and renders the API's message on failure, with or without JavaScript.
//
// Ending the other sessions deletes every web session of the manager's (the API cannot tell which
// holds this browser's token), so this browser continues in a fresh session with the token it
// already holds (startNewSession): it stays signed in, every other browser lands on the login page.

import { getFormProps } from "@conform-to/react";
import { useState } from "react";
import { data, Form, href, redirect, useNavigation } from "react-router";
import {
  CONFIRM_NEW_PASSWORD_LABEL,
  CURRENT_PASSWORD_LABEL,
  emailConfirmFormSchema,
  emailRequestFormSchema,
  NEW_EMAIL_LABEL,
  NEW_PASSWORD_LABEL,
  nameFormSchema,
  passwordFormSchema,
  profileFormSchema,
  SETTINGS_DETAILS,
} from "../../../modules/settings/schema.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, firstInvalidField, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { startNewSession } from "../../lib/session.server.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthField, NameFields } from "../../ui/auth-fields.tsx";
import { FormAlert, HiddenFormInputs, SubmitButton } from "../../ui/form-fields.tsx";
import { NewPasswordFields, passwordFocus } from "../../ui/password-checklist.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings._index";
import { describeUserAgent, formatSessionTime } from "./session-labels.ts";

const TITLE = "Profile";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/settings");
/** The page is the settings layout's index: `?index` sends its posts to this action, not the layout's. */
const ACTION = `${PAGE}?index`;

type Intent = "name" | "email-request" | "email-confirm" | "email-cancel" | "password" | "sign-out-others";
interface ProfileReply extends FormReply {
  intent: Intent;
}

/** The API's messages the forms show word for word (docs/requirements.md §S8 and the settings calls' own). */
const SHOWN = inApiWords(
  "wrong-current-password",
  "same-email",
  "no-email-change",
  "email-in-use",
  "verification-expired",
  "verification-used",
  "verification-superseded",
  "verification-too-many-attempts",
);

const SECRET_FIELDS = ["currentPassword", "newPassword", "confirmPassword", "verificationCode"];

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client, session } = portalUser(context);
  const [me, sessions] = await Promise.all([
    client.call((api) => api.Users.MyDetails.$get()),
    client.call((api) => api.Users.MySessions.$get()),
  ]);
  if (!me.ok) throw data(me.detail, { status: me.status });
  if (!sessions.ok) throw data(sessions.detail, { status: sessions.status });
  return {
    me: { firstName: me.data.firstName, lastName: me.data.lastName, email: me.data.email },
    pendingEmail: session.get("emailChange")?.newEmail ?? null,
    sessions: sessions.data.map((s) => ({
      id: s.id,
      current: s.current,
      createdAt: s.createdAt,
      startedLabel: formatSessionTime(s.createdAt),
      device: describeUserAgent(s.userAgent),
      clientIp: s.clientIp,
    })),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const signedIn = portalUser(context);
  const { api: client, session } = signedIn;
  const { submission } = (await readPostedForm(context, request)).parse(profileFormSchema);
  const intent = String(submission.payload.intent ?? "name") as Intent;
  const reply = (failure: ReturnType<typeof replyInvalid>) =>
    data<ProfileReply>({ ...failure.data, intent }, { status: failure.init?.status ?? 400 });
  const fail = (result: Parameters<typeof replyFailure>[1]) =>
    reply(replyFailure(submission, result, { shown: SHOWN, hideFields: SECRET_FIELDS }));
  if (submission.status !== "success") return reply(replyInvalid(submission, false, { hideFields: SECRET_FIELDS }));
  const value = submission.value;

  switch (value.intent) {
    case "name": {
      const saved = await client.call((api) =>
        api.Users.MyDetails.Name.$put({ json: { firstName: value.firstName, lastName: value.lastName } }),
      );
      if (!saved.ok) return fail(saved);
      // The header's greeting reads the session's copy.
      session.set("user", { ...signedIn.user, ...saved.data });
      return redirectWithToast(context, `${PAGE}#name`, { type: "success", title: "Your name is saved" });
    }
    case "email-request": {
      const requested = await client.call((api) =>
        api.Users.MyEmail.Request.$post({
          json: { newEmail: value.newEmail, currentPassword: value.currentPassword },
        }),
      );
      if (!requested.ok) return fail(requested);
      session.set("emailChange", { requestToken: requested.data.requestToken, newEmail: requested.data.newEmail });
      return redirectWithToast(context, `${PAGE}#email`, {
        type: "success",
        title: "Check your new inbox",
        description: `We emailed a 6-digit code to ${requested.data.newEmail}.`,
      });
    }
    case "email-confirm": {
      const pending = session.get("emailChange");
      if (!pending) {
        return reply(
          replyFailure(
            submission,
            { ok: false, status: 400, detail: SETTINGS_DETAILS.noEmailChange, code: "no-email-change" },
            {
              shown: SHOWN,
            },
          ),
        );
      }
      const confirmed = await client.call((api) =>
        api.Users.MyEmail.Confirm.$post({
          json: { requestToken: pending.requestToken, verificationCode: value.verificationCode },
        }),
      );
      if (!confirmed.ok) return fail(confirmed);
      session.unset("emailChange");
      session.set("user", { ...signedIn.user, email: confirmed.data.email });
      return redirectWithToast(context, `${PAGE}#email`, {
        type: "success",
        title: "Your email is changed",
        description: `You now sign in with ${confirmed.data.email}.`,
      });
    }
    case "email-cancel":
      session.unset("emailChange");
      throw redirect(`${PAGE}#email`);
    case "password": {
      const changed = await client.call((api) =>
        api.Users.MyPassword.$post({
          json: { currentPassword: value.currentPassword, newPassword: value.newPassword },
        }),
      );
      if (!changed.ok) return fail(changed);
      await continueInFreshSession(context, signedIn);
      return redirectWithToast(context, `${PAGE}#password`, {
        type: "success",
        title: "Your password is changed",
        description: "Every other session of yours is signed out.",
      });
    }
    case "sign-out-others": {
      const ended = await client.call((api) => api.Users.MySessions.SignOutOthers.$post());
      if (!ended.ok) return fail(ended);
      await continueInFreshSession(context, signedIn);
      return redirectWithToast(context, `${PAGE}#sessions`, {
        type: "success",
        title: "Signed out of all other sessions",
      });
    }
    default:
      return unknownIntent();
  }
}

/** This browser goes on signed in with the token it holds, in a new session row (see the header). */
async function continueInFreshSession(context: Route.ActionArgs["context"], signedIn: ReturnType<typeof portalUser>) {
  await startNewSession(context, {
    accessToken: signedIn.accessToken,
    user: signedIn.user,
    appSettings: signedIn.appSettings,
  });
}

const cardClass = "rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6 scroll-mt-6";
const headingClass = "text-xl font-semibold text-slate-900";
const secondaryButtonClass =
  "inline-flex min-h-11 w-full items-center justify-center rounded-md border border-slate-400 bg-white px-6 py-2 font-semibold text-slate-900 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed disabled:text-slate-500 sm:w-auto";

/** Busy while this page's form of `intent` is on its way (the page's forms share one action). */
function useBusy(intent: Intent) {
  const navigation = useNavigation();
  return (
    navigation.state !== "idle" &&
    navigation.formMethod?.toUpperCase() === "POST" &&
    navigation.formData?.get("intent") === intent
  );
}

export default function ProfileSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { me, pendingEmail, sessions } = loaderData;
  const replyFor = (...intents: Intent[]) =>
    actionData && intents.includes(actionData.intent) ? actionData : undefined;
  return (
    <div className="max-w-3xl space-y-8">
      <NameSection firstName={me.firstName} lastName={me.lastName} reply={replyFor("name")} />
      <EmailSection email={me.email} pendingEmail={pendingEmail} reply={replyFor("email-request", "email-confirm")} />
      <PasswordSection reply={replyFor("password")} />
      <SessionsSection sessions={sessions} reply={replyFor("sign-out-others")} />
    </div>
  );
}

function NameSection({ firstName, lastName, reply }: { firstName: string; lastName: string; reply?: ProfileReply }) {
  const busy = useBusy("name");
  const [form, fields] = useSchemaForm(nameFormSchema, {
    id: "name-form",
    lastResult: reply?.result,
    defaultValue: { firstName, lastName },
    constraint: formConstraint(nameFormSchema),
    defaultNoValidate: false,
  });
  const focusFirst = firstInvalidField(reply?.result.error, ["firstName", "lastName"]);
  return (
    <section id="name" aria-labelledby="name-heading" className={cardClass}>
      <h2 id="name-heading" className={headingClass}>
        Your name
      </h2>
      <Form method="post" action={ACTION} preventScrollReset {...getFormProps(form)} className="mt-4 space-y-4">
        <HiddenFormInputs intent="name" />
        <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
        <NameFields fields={fields} focusFirst={focusFirst} />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Save name
        </SubmitButton>
      </Form>
    </section>
  );
}

function EmailSection({
  email,
  pendingEmail,
  reply,
}: {
  email: string;
  pendingEmail: string | null;
  reply?: ProfileReply;
}) {
  return (
    <section id="email" aria-labelledby="email-heading" className={`${cardClass} space-y-4`}>
      <div>
        <h2 id="email-heading" className={headingClass}>
          Email address
        </h2>
        <p className="mt-2 text-slate-700">
          You sign in with <span className="font-semibold break-all text-slate-900">{email}</span>.
        </p>
      </div>
      {pendingEmail ? (
        <EmailCodeForm pendingEmail={pendingEmail} reply={reply?.intent === "email-confirm" ? reply : undefined} />
      ) : (
        <EmailRequestForm reply={reply?.intent === "email-request" ? reply : undefined} />
      )}
    </section>
  );
}

function EmailRequestForm({ reply }: { reply?: ProfileReply }) {
  const busy = useBusy("email-request");
  const [form, fields] = useSchemaForm(emailRequestFormSchema, {
    id: "email-request-form",
    lastResult: reply?.result,
    constraint: formConstraint(emailRequestFormSchema),
    defaultNoValidate: false,
  });
  const focusFirst = firstInvalidField(reply?.result.error, ["newEmail", "currentPassword"]);
  return (
    <Form
      method="post"
      action={ACTION}
      preventScrollReset
      {...getFormProps(form)}
      aria-labelledby="email-request-heading"
      className="space-y-4 border-t border-slate-200 pt-4"
    >
      <h3 id="email-request-heading" className="text-lg font-semibold text-slate-900">
        Change your email
      </h3>
      <p className="text-slate-700">
        We email a 6-digit code to the new address. Your email changes once you enter it here.
      </p>
      <HiddenFormInputs intent="email-request" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <AuthField
        field={fields.newEmail}
        label={NEW_EMAIL_LABEL}
        type="email"
        autoComplete="email"
        autoFocus={focusFirst === "newEmail"}
        className="max-w-md"
      />
      <AuthField
        field={fields.currentPassword}
        label={CURRENT_PASSWORD_LABEL}
        type="password"
        autoComplete="current-password"
        autoFocus={focusFirst === "currentPassword"}
        className="max-w-md"
      />
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Send code
      </SubmitButton>
    </Form>
  );
}

function EmailCodeForm({ pendingEmail, reply }: { pendingEmail: string; reply?: ProfileReply }) {
  const busy = useBusy("email-confirm");
  const cancelling = useBusy("email-cancel");
  const [form, fields] = useSchemaForm(emailConfirmFormSchema, {
    id: "email-confirm-form",
    lastResult: reply?.result,
    constraint: formConstraint(emailConfirmFormSchema, { verificationCode: { required: true, maxLength: 6 } }),
    defaultNoValidate: false,
  });
  return (
    <div className="space-y-4 border-t border-slate-200 pt-4">
      <Form
        method="post"
        action={ACTION}
        preventScrollReset
        {...getFormProps(form)}
        aria-labelledby="email-confirm-heading"
        className="space-y-4"
      >
        <h3 id="email-confirm-heading" className="text-lg font-semibold text-slate-900">
          Enter the code
        </h3>
        <p className="text-slate-700">
          We emailed a 6-digit code to <span className="font-semibold break-all text-slate-900">{pendingEmail}</span>.
          It expires 10 minutes after it was sent.
        </p>
        <HiddenFormInputs intent="email-confirm" />
        <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
        <AuthField
          field={fields.verificationCode}
          label="Verification Code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\d{6}"
          title="The 6 digits from the email"
          autoFocus={hasFieldErrors(reply?.result)}
          className="max-w-xs"
        />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Confirm new email
        </SubmitButton>
      </Form>
      <Form method="post" action={ACTION} preventScrollReset>
        <HiddenFormInputs intent="email-cancel" />
        <p className="text-sm text-slate-700">No code, or the wrong address? Cancel and ask again.</p>
        <button type="submit" disabled={cancelling} className={`${secondaryButtonClass} mt-2`}>
          Cancel email change
        </button>
      </Form>
    </div>
  );
}

function PasswordSection({ reply }: { reply?: ProfileReply }) {
  const hydrated = useHydrated();
  const busy = useBusy("password");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [form, fields] = useSchemaForm(passwordFormSchema, {
    id: "password-form",
    lastResult: reply?.result,
    constraint: formConstraint(passwordFormSchema),
    defaultNoValidate: false,
  });
  const focusFirst = firstInvalidField(reply?.result.error, ["currentPassword", "newPassword", "confirmPassword"]);
  const showChecklist = hydrated && password !== "";
  return (
    <section id="password" aria-labelledby="password-heading" className={cardClass}>
      <h2 id="password-heading" className={headingClass}>
        Password
      </h2>
      <p className="mt-2 text-slate-700">Changing your password signs you out everywhere except here.</p>
      <Form method="post" action={ACTION} preventScrollReset {...getFormProps(form)} className="mt-4 space-y-4">
        <HiddenFormInputs intent="password" />
        <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
        <AuthField
          field={fields.currentPassword}
          label={CURRENT_PASSWORD_LABEL}
          type="password"
          autoComplete="current-password"
          autoFocus={focusFirst === "currentPassword"}
          className="max-w-md"
        />
        <NewPasswordFields
          fields={{ password: fields.newPassword, confirmation: fields.confirmPassword }}
          labels={{ password: NEW_PASSWORD_LABEL, confirmation: CONFIRM_NEW_PASSWORD_LABEL }}
          pair={{ password, confirmation, setPassword, setConfirmation }}
          checklistId="new-password-checklist"
          showChecklist={showChecklist}
          focus={passwordFocus(focusFirst, "newPassword")}
          fieldClassName="max-w-md"
        />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          Change password
        </SubmitButton>
      </Form>
    </section>
  );
}

interface SessionRow {
  id: number;
  current: boolean;
  createdAt: string;
  startedLabel: string;
  device: string;
  clientIp: string | null;
}

function SessionsSection({ sessions, reply }: { sessions: SessionRow[]; reply?: ProfileReply }) {
  const busy = useBusy("sign-out-others");
  const others = sessions.filter((s) => !s.current).length;
  return (
    <section id="sessions" aria-labelledby="sessions-heading" className={`${cardClass} space-y-4`}>
      <div>
        <h2 id="sessions-heading" className={headingClass}>
          Active sessions
        </h2>
        <p className="mt-2 text-slate-700">Each sign-in stays open for 12 hours unless you sign out.</p>
      </div>
      <ul className="divide-y divide-slate-200 rounded-md border border-slate-200" data-testid="session-list">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="font-semibold text-slate-900">
                {s.device}
                {s.current ? (
                  <span className="ml-2 rounded-full bg-emerald-100 px-2 py-0.5 text-sm font-semibold text-emerald-900">
                    This session
                  </span>
                ) : null}
              </p>
              <p className="text-sm text-slate-700">
                Signed in <time dateTime={s.createdAt}>{s.startedLabel}</time>
                {s.clientIp ? <span className="break-all"> · {s.clientIp}</span> : null}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <Form method="post" action={ACTION} preventScrollReset>
        <HiddenFormInputs intent="sign-out-others" />
        <FormAlert messages={reply?.result.error?.[""] ?? []} focusKey={reply} focus />
        {others > 0 ? (
          <SubmitButton busy={busy} className="mt-2 w-full sm:w-auto">
            Sign out of all other sessions
          </SubmitButton>
        ) : (
          <p className="text-slate-700">You have no other sessions.</p>
        )}
      </Form>
    </section>
  );
}
