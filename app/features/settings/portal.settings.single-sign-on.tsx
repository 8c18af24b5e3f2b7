// Settings › Single sign-on (ADR 0046), an Owner's page: the company's OpenID Connect provider
// (issuer URL, client ID, client secret — kept sealed, never shown again), the email domains it
// vouches for, the role of a manager who signs in for the first time, and whether single sign-on
// is required (password sign-in refused for the domains' managers but the break-glass Owner, shown
// here), and how the client authenticates (HTTP Basic or the request body). "Test the connection"
// runs discovery, tries the client's credentials and looks for the email scope, and says in plain
// words what failed (and, beside a success, what the discovery document leaves out). Plain forms
// that work without JavaScript; one action told apart by `intent`. The API judges
// (modules/single-sign-on/api.server.ts): a Manager gets 403.

import { type FieldMetadata, getFormProps, getInputProps } from "@conform-to/react";
import { Form, href } from "react-router";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  parseDomains,
  type SingleSignOnTestResult,
  type SingleSignOnView,
  SSO_BUTTON_LABEL,
  SSO_TOKEN_ENDPOINT_AUTH_LABELS,
  SSO_TOKEN_ENDPOINT_AUTH_METHODS,
  singleSignOnPageSchema,
} from "../../../modules/single-sign-on/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.single-sign-on";
import { card, controlClass, labelClass, secondaryButton, sectionHeading } from "./settings-styles.ts";

const TITLE = "Single sign-on";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/settings/single-sign-on");
/** The provider's refusals: the request's schema, the issuer, the secret, a domain another company holds. */
const SHOWN = inApiWords(
  "owner-only",
  "invalid-request",
  "sso-issuer-invalid",
  "sso-client-secret-required",
  "sso-domain-taken",
);

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const result = await client.call((api) => api.SingleSignOn.$get());
  const redirectUri = new URL("/corporate/sso/callback", services(context).config.appUrl).href;
  if (result.ok)
    return { ownerOnly: false as const, config: result.data.config as SingleSignOnView | null, redirectUri };
  if (result.status !== 403) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "single sign-on fetch failed");
  }
  return { ownerOnly: result.status === 403, config: null, redirectUri };
}

type ActionData = FormReply | { test: SingleSignOnTestResult };

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(singleSignOnPageSchema);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: ["clientSecret"] });
  const value = submission.value;
  switch (value.intent) {
    case "save": {
      const result = await client.call((api) =>
        api.SingleSignOn.$put({
          json: {
            issuerUrl: value.issuerUrl,
            clientId: value.clientId,
            clientSecret: value.clientSecret ?? "",
            domains: parseDomains(value.domains),
            newManagerRole: value.newManagerRole,
            tokenEndpointAuthMethod: value.tokenEndpointAuthMethod,
            required: value.required === "on",
          },
        }),
      );
      if (!result.ok) {
        return replyFailure(submission, result, { shown: SHOWN, hideFields: ["clientSecret"] });
      }
      throw redirectWithToast(context, PAGE, { type: "success", title: "Single sign-on saved" });
    }
    case "test": {
      const result = await client.call((api) => api.SingleSignOn.test.$post());
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      // Not a redirect: nothing changed; the answer is this page's.
      return { test: result.data as SingleSignOnTestResult };
    }
    default:
      return unknownIntent();
  }
}

export default function SingleSignOnSettings({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.ownerOnly) {
    return (
      <div className={card} role="status">
        <h2 className={sectionHeading}>Only an Owner can manage single sign-on</h2>
        <p className="mt-2 text-slate-700">{DETAILS.ownerOnly}</p>
      </div>
    );
  }
  const answer = actionData as ActionData | undefined;
  const test = answer && "test" in answer ? answer.test : undefined;
  const reply = answer && "result" in answer ? answer : undefined;
  const intentOf = (reply?.result?.initialValue as { intent?: string } | undefined)?.intent;
  const { config, redirectUri } = loaderData;
  return (
    <div className="max-w-4xl space-y-8">
      <section aria-labelledby="sso-heading" className={card}>
        <h2 id="sso-heading" className={sectionHeading}>
          Your identity provider
        </h2>
        <p className="mt-1 text-slate-700">
          Managers whose email is in your domains can sign in with “{SSO_BUTTON_LABEL}” on the login page, through your
          OpenID Connect provider (Microsoft Entra ID, Google Workspace, Okta and others). Register this redirect URI at
          your provider, with the scopes <code>openid email profile</code>:
        </p>
        <p className="mt-2 break-all rounded bg-slate-100 p-2 font-mono text-sm" data-testid="sso-redirect-uri">
          {redirectUri}
        </p>
        <SettingsForm config={config} reply={intentOf === "save" ? reply : undefined} />
      </section>

      {config ? (
        <section aria-labelledby="sso-test-heading" className={card}>
          <h2 id="sso-test-heading" className={sectionHeading}>
            Test the connection
          </h2>
          <p className="mt-1 text-slate-700">
            Checks that the issuer answers discovery, that it accepts the client ID and secret, and that it offers the
            email scope; notes what its discovery document leaves out.
          </p>
          {test ? (
            <p
              role="status"
              data-testid="sso-test-result"
              className={`mt-3 rounded-md p-3 ${test.ok ? "bg-green-50 text-green-900" : "bg-red-50 text-red-900"}`}
            >
              {test.detail}
            </p>
          ) : null}
          {test?.ok && test.notes.length > 0 ? (
            // Beside the success: worth a look, not a failure (ADR 0046).
            <ul data-testid="sso-test-notes" className="mt-2 list-disc space-y-1 pl-5 text-slate-800">
              {test.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          ) : null}
          {reply && intentOf === "test" ? (
            <FormAlert messages={reply.result?.error?.[""] ?? [GENERIC_FORM_ERROR]} focusKey={reply} focus />
          ) : null}
          <Form method="post" action={PAGE} preventScrollReset className="mt-4">
            <HiddenFormInputs intent="test" />
            <button type="submit" className={secondaryButton}>
              Test the connection
            </button>
          </Form>
        </section>
      ) : null}
    </div>
  );
}

function SettingsForm({ config, reply }: { config: SingleSignOnView | null; reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const [form, fields] = useSchemaForm(singleSignOnPageSchema, {
    id: "sso-form",
    lastResult: reply?.result,
    defaultValue: config
      ? {
          issuerUrl: config.issuerUrl,
          clientId: config.clientId,
          domains: config.domains.join(", "),
          newManagerRole: config.newManagerRole,
          tokenEndpointAuthMethod: config.tokenEndpointAuthMethod,
          required: config.required ? "on" : undefined,
        }
      : { newManagerRole: "manager", tokenEndpointAuthMethod: "client_secret_basic" },
    onSubmit,
  });
  const role = (fields.newManagerRole.initialValue as string | undefined) ?? "manager";
  const authMethod = (fields.tokenEndpointAuthMethod.initialValue as string | undefined) ?? "client_secret_basic";
  return (
    <Form method="post" action={PAGE} preventScrollReset {...getFormProps(form)} className="mt-4 space-y-4">
      <HiddenFormInputs intent="save" />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus />
      <ProviderField
        field={fields.issuerUrl}
        type="url"
        label="Issuer URL"
        placeholder="https://login.microsoftonline.com/your-tenant-id/v2.0"
      />
      <ProviderField field={fields.clientId} type="text" label="Client ID" />
      <ProviderField
        field={fields.clientSecret}
        type="password"
        label="Client secret"
        autoComplete="new-password"
        hint={
          config
            ? "Kept sealed and never shown again. Leave empty to keep the current secret."
            : "Kept sealed and never shown again."
        }
      />
      <div>
        <label htmlFor={fields.tokenEndpointAuthMethod.id} className={labelClass}>
          Client authentication
        </label>
        <select
          id={fields.tokenEndpointAuthMethod.id}
          name={fields.tokenEndpointAuthMethod.name}
          defaultValue={authMethod}
          aria-describedby={`${fields.tokenEndpointAuthMethod.id}-hint`}
          className={controlClass}
        >
          {SSO_TOKEN_ENDPOINT_AUTH_METHODS.map((method) => (
            <option key={method} value={method}>
              {SSO_TOKEN_ENDPOINT_AUTH_LABELS[method]}
            </option>
          ))}
        </select>
        <p id={`${fields.tokenEndpointAuthMethod.id}-hint`} className="mt-1 text-sm text-slate-600">
          How the client secret is sent to the provider's token endpoint: one your provider lists. HTTP Basic unless it
          asks otherwise.
        </p>
        <FieldError id={fields.tokenEndpointAuthMethod.errorId} errors={fields.tokenEndpointAuthMethod.errors} />
      </div>
      <ProviderField
        field={fields.domains}
        type="text"
        label="Email domains"
        placeholder="example.com, example.com.au"
        hint="One or more, separated by commas."
      />
      <div>
        <label htmlFor={fields.newManagerRole.id} className={labelClass}>
          Role of a manager signing in for the first time
        </label>
        <select
          id={fields.newManagerRole.id}
          name={fields.newManagerRole.name}
          defaultValue={role}
          className={controlClass}
        >
          <option value="manager">Manager</option>
          <option value="owner">Owner</option>
        </select>
      </div>
      <div className="flex items-start gap-3">
        <input
          id={fields.required.id}
          name={fields.required.name}
          type="checkbox"
          defaultChecked={fields.required.initialValue === "on"}
          className="mt-1 h-5 w-5 shrink-0"
        />
        <label htmlFor={fields.required.id} className="text-slate-800">
          Require single sign-on for these domains: password sign-in, password reset and the two-factor step are refused
          for their managers. API keys keep working.
        </label>
      </div>
      <p className="text-sm text-slate-700" data-testid="sso-break-glass">
        {config?.breakGlass
          ? `Break-glass Owner: ${config.breakGlass.name} (${config.breakGlass.email}) can always sign in with a password and their second factor, so a broken identity provider cannot lock your company out.`
          : "Break-glass Owner: you, once saved. You can always sign in with your password and second factor, so a broken identity provider cannot lock your company out."}
      </p>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Save single sign-on
      </SubmitButton>
    </Form>
  );
}

/**
 * One of the provider's text inputs: its label, the input, a hint under it and its errors. Not
 * app/ui's TextField, which puts its help above the input and ties it in with aria-describedby:
 * this page keeps its own markup.
 */
function ProviderField({
  field,
  type,
  label,
  placeholder,
  autoComplete = "off",
  hint,
}: {
  field: FieldMetadata<string>;
  type: "url" | "text" | "password";
  label: string;
  placeholder?: string;
  /** "off" for the provider's names, "new-password" for the client secret (then no spellCheck either). */
  autoComplete?: "off" | "new-password";
  hint?: string;
}) {
  const { key, ...props } = getInputProps(field, { type });
  return (
    <div>
      <label htmlFor={field.id} className={labelClass}>
        {label}
      </label>
      <input
        key={key}
        {...props}
        placeholder={placeholder}
        autoComplete={autoComplete}
        spellCheck={autoComplete === "off" ? false : undefined}
        className={controlClass}
      />
      {hint ? <p className="mt-1 text-sm text-slate-600">{hint}</p> : null}
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  );
}
