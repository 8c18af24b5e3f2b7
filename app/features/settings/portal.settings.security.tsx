// Settings › Security (ADR 0022 §1, ADR 0042): the manager's own two-factor sign-in. Off: a
// button that starts set-up; set-up under way: the QR code, the secret as text and the form for
// the current password and the first code (a session alone enrols no second factor, docs/requirements.md §D7,
// ADR 0042); on: new recovery codes and turning it off (both with the password). New
// recovery codes are flashed through the session and shown on the next load only. Owners also
// get the company's requirement. One action, one form per intent; each redirects on success.

import { getFormProps } from "@conform-to/react";
import { data, Form, href, redirect, useRouteLoaderData } from "react-router";
import { CURRENT_PASSWORD_LABEL } from "../../../modules/settings/schema.ts";
import { securityFormSchema } from "../../../modules/two-factor/schema.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords, TWO_FACTOR_REFUSALS } from "../../lib/refusals.ts";
import { getSession } from "../../lib/session.server.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { AuthField } from "../../ui/auth-fields.tsx";
import { FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.security";
import { SETTINGS_LAYOUT_ID, type SettingsLayoutData } from "./portal.settings.tsx";
import { twoFactorSetupView } from "./two-factor.server.ts";
import { RecoveryCodesPanel, TwoFactorSetupPanel } from "./two-factor-panels.tsx";

const TITLE = "Security";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const ACTION = href("/portal/settings/security");

type Intent = "start" | "confirm" | "disable" | "regenerate" | "requirement";
interface SecurityReply extends FormReply {
  intent: Intent;
}

const SHOWN = { ...TWO_FACTOR_REFUSALS, ...inApiWords("owner-only") };

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const status = await client.call((api) => api.TwoFactor.$get());
  if (!status.ok) throw data(status.detail, { status: status.status });
  // Shown this once: reading the flash removes it from the session (written back after the page).
  const recoveryCodes = getSession(context).get("recoveryCodes") ?? null;
  let setup = null;
  if (status.data.setupPending) {
    const started = await client.call((api) => api.TwoFactor.setup.$post({ json: {} }));
    if (started.ok) setup = await twoFactorSetupView(started.data);
  }
  return { status: status.data, setup, recoveryCodes };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(securityFormSchema);
  const intent = String(submission.payload.intent ?? "start") as Intent satisfies Intent;
  const hideFields = ["password", "code"];
  const reply = (failure: ReturnType<typeof replyInvalid>) =>
    data<SecurityReply>({ ...failure.data, intent }, { status: failure.init?.status ?? 400 });
  if (submission.status !== "success") return reply(replyInvalid(submission, false, { hideFields }));
  const value = submission.value;

  switch (value.intent) {
    case "start": {
      const started = await client.call((api) => api.TwoFactor.setup.$post({ json: {} }));
      if (!started.ok) return reply(replyFailure(submission, started, { shown: SHOWN, hideFields }));
      throw redirect(`${ACTION}#two-factor`);
    }
    case "confirm": {
      const confirmed = await client.call((api) =>
        api.TwoFactor.confirm.$post({ json: { code: value.code, password: value.password } }),
      );
      if (!confirmed.ok) return reply(replyFailure(submission, confirmed, { shown: SHOWN, hideFields }));
      getSession(context).flash("recoveryCodes", confirmed.data.recoveryCodes);
      return redirectWithToast(context, `${ACTION}#two-factor`, {
        type: "success",
        title: "Two-factor sign-in is on",
      });
    }
    case "regenerate": {
      const fresh = await client.call((api) =>
        api.TwoFactor["recovery-codes"].$post({ json: { password: value.password } }),
      );
      if (!fresh.ok) return reply(replyFailure(submission, fresh, { shown: SHOWN, hideFields }));
      getSession(context).flash("recoveryCodes", fresh.data.recoveryCodes);
      return redirectWithToast(context, `${ACTION}#two-factor`, {
        type: "success",
        title: "New recovery codes",
        description: "Your earlier recovery codes no longer work.",
      });
    }
    case "disable": {
      const off = await client.call((api) => api.TwoFactor.disable.$post({ json: { password: value.password } }));
      if (!off.ok) return reply(replyFailure(submission, off, { shown: SHOWN, hideFields }));
      return redirectWithToast(context, `${ACTION}#two-factor`, { title: "Two-factor sign-in is off" });
    }
    case "requirement": {
      const saved = await client.call((api) =>
        api.TwoFactor["company-requirement"].$put({ json: { required: value.required } }),
      );
      if (!saved.ok) return reply(replyFailure(submission, saved, { shown: SHOWN }));
      return redirectWithToast(context, `${ACTION}#company-two-factor`, {
        type: "success",
        title: value.required ? "Two-factor sign-in is now required" : "Two-factor sign-in is no longer required",
      });
    }
    default:
      return unknownIntent();
  }
}

const cardClass = "rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6";
const headingClass = "text-xl font-semibold text-slate-900";
const secondaryButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-slate-400 bg-white px-6 py-2 font-semibold text-slate-900 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 w-full sm:w-auto";

export default function SecuritySettings({ loaderData, actionData }: Route.ComponentProps) {
  const layout = useRouteLoaderData<SettingsLayoutData>(SETTINGS_LAYOUT_ID);
  const { status, setup, recoveryCodes } = loaderData;
  const replyFor = (intent: Intent) => (actionData?.intent === intent ? actionData : undefined);
  const enabledOn = status.enabledAt
    ? new Date(status.enabledAt).toLocaleDateString("en-AU", { day: "numeric", month: "long", year: "numeric" })
    : null;

  return (
    <div className="max-w-3xl space-y-8">
      <section id="two-factor" aria-labelledby="two-factor-heading" className={`${cardClass} scroll-mt-6 space-y-6`}>
        <div>
          <h2 id="two-factor-heading" className={headingClass}>
            Two-factor sign-in
          </h2>
          <p className="mt-2 text-slate-700">
            After your password, you also enter a 6-digit code from an authenticator app on your phone, so a stolen
            password alone cannot open your account.
          </p>
          <p className="mt-3 font-semibold text-slate-900" data-testid="two-factor-status">
            {status.enabled ? `On since ${enabledOn}` : setup ? "Being set up" : "Off"}
            {status.enabled ? (
              <span className="font-normal text-slate-700">
                {" "}
                · {status.recoveryCodesLeft} recovery {status.recoveryCodesLeft === 1 ? "code" : "codes"} left
              </span>
            ) : null}
          </p>
          {status.companyRequired ? (
            <p className="mt-2 text-slate-700">Your company requires two-factor sign-in for every manager.</p>
          ) : null}
        </div>

        {recoveryCodes ? <RecoveryCodesPanel codes={recoveryCodes} /> : null}

        {status.enabled ? (
          <>
            <PasswordForm
              intent="regenerate"
              reply={replyFor("regenerate")}
              title="New recovery codes"
              text="Get ten new recovery codes. The ones you have now stop working."
              submitLabel="Get new recovery codes"
            />
            {status.companyRequired ? null : (
              <PasswordForm
                intent="disable"
                reply={replyFor("disable")}
                title="Turn off two-factor sign-in"
                text="Your password alone will sign you in again."
                submitLabel="Turn off"
              />
            )}
          </>
        ) : setup ? (
          <TwoFactorSetupPanel
            view={setup}
            action={ACTION}
            intent="confirm"
            reply={replyFor("confirm")}
            submitLabel="Turn on two-factor sign-in"
            passwordLabel={CURRENT_PASSWORD_LABEL}
          />
        ) : (
          <StartForm reply={replyFor("start")} />
        )}
      </section>

      {layout?.managerRole === "owner" ? (
        <RequirementForm required={status.companyRequired} reply={replyFor("requirement")} />
      ) : null}
    </div>
  );
}

function StartForm({ reply }: { reply?: FormReply }) {
  const { busy } = useFormSubmit(ACTION);
  return (
    <Form method="post" action={ACTION} preventScrollReset>
      <HiddenFormInputs intent="start" />
      <FormAlert messages={reply?.result.error?.[""] ?? []} focusKey={reply} focus />
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Set up two-factor sign-in
      </SubmitButton>
    </Form>
  );
}

function PasswordForm({
  intent,
  reply,
  title,
  text,
  submitLabel,
}: {
  intent: "disable" | "regenerate";
  reply?: FormReply;
  title: string;
  text: string;
  submitLabel: string;
}) {
  const { onSubmit, busy } = useFormSubmit(ACTION);
  const [form, fields] = useSchemaForm(securityFormSchema, {
    id: `two-factor-${intent}-form`,
    lastResult: reply?.result,
    constraint: { password: { required: true, maxLength: 256 } },
    defaultNoValidate: false,
    onSubmit,
  });
  const headingId = `two-factor-${intent}-heading`;
  return (
    <Form
      method="post"
      action={ACTION}
      preventScrollReset
      {...getFormProps(form)}
      aria-labelledby={headingId}
      className="space-y-4 border-t border-slate-200 pt-6"
    >
      <h3 id={headingId} className="text-lg font-semibold text-slate-900">
        {title}
      </h3>
      <p className="text-slate-700">{text}</p>
      <HiddenFormInputs intent={intent} />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <AuthField
        field={fields.password}
        label="Your password"
        type="password"
        autoComplete="current-password"
        autoFocus={hasFieldErrors(reply?.result)}
        className="max-w-sm"
      />
      <button type="submit" disabled={busy} aria-busy={busy || undefined} className={secondaryButtonClass}>
        {busy ? "Please wait" : submitLabel}
      </button>
    </Form>
  );
}

function RequirementForm({ required, reply }: { required: boolean; reply?: FormReply }) {
  const { busy } = useFormSubmit(ACTION);
  return (
    <section
      id="company-two-factor"
      aria-labelledby="company-two-factor-heading"
      className={`${cardClass} scroll-mt-6 space-y-4`}
    >
      <h2 id="company-two-factor-heading" className={headingClass}>
        Require two-factor sign-in for your company
      </h2>
      <p className="text-slate-700">
        {required
          ? "Every manager of your company signs in with a code from an authenticator app. Managers without one set it up at their next login."
          : "When required, every manager must sign in with a code from an authenticator app; managers without one are asked to set it up at their next login."}
      </p>
      <p className="font-semibold text-slate-900" data-testid="company-two-factor-status">
        {required ? "Required" : "Not required"}
      </p>
      <Form method="post" action={ACTION} preventScrollReset>
        <HiddenFormInputs intent="requirement" />
        <input type="hidden" name="required" value={required ? "off" : "on"} />
        <FormAlert messages={reply?.result.error?.[""] ?? []} focusKey={reply} focus />
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          {required ? "Stop requiring two-factor sign-in" : "Require two-factor sign-in"}
        </SubmitButton>
      </Form>
    </section>
  );
}
