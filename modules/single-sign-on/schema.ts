// Single sign-on with a company's OpenID Connect provider (ADR 0046): what an Owner sets in
// Settings → Single sign-on, what the API takes and answers, and the words every refusal shows.
// Browser-safe (no server imports).
import * as z from "zod/mini";
import { emailField } from "../../core/fields.ts";

export const SSO_BUTTON_LABEL = "Sign in with your company account";
/** A sign-in sent to the provider must come back within this time (the flow row expires). */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000;
export const SSO_MAX_DOMAINS = 20;
/** The scopes asked for: the ID token must carry the email and whether the provider verified it. */
export const SSO_SCOPES = "openid email profile";
/**
 * How the client authenticates at the provider's token endpoint (OAuth 2.0 §2.3.1, the methods of
 * Discovery 1.0's `token_endpoint_auth_methods_supported`): HTTP Basic by default; some providers
 * mis-read encoded Basic credentials and want the secret in the form body instead.
 */
export const SSO_TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;
export type SsoTokenEndpointAuthMethod = (typeof SSO_TOKEN_ENDPOINT_AUTH_METHODS)[number];
export const SSO_TOKEN_ENDPOINT_AUTH_LABELS: Record<SsoTokenEndpointAuthMethod, string> = {
  client_secret_basic: "HTTP Basic (client_secret_basic)",
  client_secret_post: "In the request body (client_secret_post)",
};

export const SSO_DETAILS = {
  notConfigured: "Single sign-on is not set up for this email's domain. Sign in with your password instead.",
  required: `Your company signs in with single sign-on. Use "${SSO_BUTTON_LABEL}".`,
  failed: "The sign-in with your company account could not be completed. Please start again from the login page.",
  emailNotVerified:
    "Your identity provider has not verified your email address, so it cannot sign you in. Ask your administrator.",
  noEmail: "Your identity provider did not send an email address, so it cannot sign you in. Ask your administrator.",
  domainNotCovered: "Your email address is not in a domain your company's single sign-on covers.",
  otherCompany: "Your email address belongs to a manager of another company. Sign in with your password instead.",
  providerUnavailable: "Your company's identity provider could not be reached. Please try again later.",
  domainTaken: "One of these domains already uses another company's single sign-on.",
  domainsRequired: "Enter at least one email domain, such as example.com.",
  domainInvalid: "Each domain must look like example.com (no @, no spaces).",
  tooManyDomains: `At most ${SSO_MAX_DOMAINS} domains.`,
  issuerInvalid: "Issuer URL must be a full https:// address, such as https://login.example.com.",
  clientIdRequired: "Client ID is required.",
  clientSecretRequired: "Client secret is required.",
  notSetUp: "Single sign-on is not set up yet. Save the identity provider first.",
  logoutRefused: "The logout token was refused.",
  // "Test the connection" (each in plain words, as the issue asks).
  testUnreachable: "The issuer could not be reached, or it did not answer OpenID Connect discovery.",
  testBadCredentials: "The identity provider refused the client ID and client secret.",
  testNoEmailScope: "The identity provider does not offer the email scope; add the email scope and claim.",
  testOk:
    "Connection works: discovery answered, the client ID and secret were accepted, and the email scope is offered.",
  // Notes beside a working connection: worth a look, not a failure.
  testNoteEmailClaimUnlisted:
    "The provider's discovery document does not list the email claim. That list need not be complete (OpenID Connect Discovery 1.0 §3); sign in once to check the email arrives.",
  testNoteAuthMethodUnlisted:
    "The provider's discovery document does not list the client authentication method chosen here; if sign-ins fail, choose one it lists.",
  authMethodInvalid: "Choose how the client authenticates: client_secret_basic or client_secret_post.",
} as const;

/** A domain as stored: lower case, no leading "@". */
export const SSO_DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Splits what the Owner typed ("example.com, @Example.org") into stored domains; duplicates dropped. */
export function parseDomains(text: string): string[] {
  const parts = text
    .split(/[\s,;]+/)
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter((d) => d.length > 0);
  return [...new Set(parts)];
}

/** The domain part of an email address, lower case. */
export function emailDomain(email: string): string {
  const at = email.trim().lastIndexOf("@");
  return at < 0
    ? ""
    : email
        .trim()
        .slice(at + 1)
        .toLowerCase();
}

const issuerUrlField = z.string().check(
  z.trim(),
  z.minLength(1, SSO_DETAILS.issuerInvalid),
  z.maxLength(500, SSO_DETAILS.issuerInvalid),
  z.refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), SSO_DETAILS.issuerInvalid),
);
const clientIdField = z
  .string(SSO_DETAILS.clientIdRequired)
  .check(z.trim(), z.minLength(1, SSO_DETAILS.clientIdRequired), z.maxLength(300));
const roleField = z.enum(["owner", "manager"]);
const authMethodField = z.enum(SSO_TOKEN_ENDPOINT_AUTH_METHODS, SSO_DETAILS.authMethodInvalid);

/** PUT /api/SingleSignOn: an empty or absent clientSecret keeps the one already sealed. */
export const saveSingleSignOnSchema = z.object({
  issuerUrl: issuerUrlField,
  clientId: clientIdField,
  clientSecret: z.optional(z.string().check(z.maxLength(1000))),
  domains: z
    .array(z.string().check(z.trim(), z.toLowerCase(), z.regex(SSO_DOMAIN, SSO_DETAILS.domainInvalid)))
    .check(z.minLength(1, SSO_DETAILS.domainsRequired), z.maxLength(SSO_MAX_DOMAINS, SSO_DETAILS.tooManyDomains)),
  newManagerRole: roleField,
  required: z.boolean(),
  /** Absent: HTTP Basic, as before the setting existed. */
  tokenEndpointAuthMethod: z._default(authMethodField, "client_secret_basic"),
});
export type SaveSingleSignOn = z.infer<typeof saveSingleSignOnSchema>;

/** The Settings page's form: domains typed as one text, the require flag a checkbox. */
export const singleSignOnFormSchema = z.object({
  intent: z.literal("save"),
  issuerUrl: issuerUrlField,
  clientId: clientIdField,
  clientSecret: z.optional(z.string().check(z.maxLength(1000))),
  domains: z.string(SSO_DETAILS.domainsRequired).check(
    z.minLength(1, SSO_DETAILS.domainsRequired),
    z.maxLength(2000),
    z.refine((text) => parseDomains(text).length > 0, SSO_DETAILS.domainsRequired),
    z.refine((text) => parseDomains(text).every((d) => SSO_DOMAIN.test(d)), SSO_DETAILS.domainInvalid),
    z.refine((text) => parseDomains(text).length <= SSO_MAX_DOMAINS, SSO_DETAILS.tooManyDomains),
  ),
  newManagerRole: roleField,
  tokenEndpointAuthMethod: authMethodField,
  required: z.optional(z.literal("on")),
});

/** Settings → Single sign-on posts either the settings (save) or "Test the connection" (test). */
export const singleSignOnPageSchema = z.discriminatedUnion("intent", [
  singleSignOnFormSchema,
  z.object({ intent: z.literal("test") }),
]);

/** The login page's "Sign in with your company account" button: only the email it was pressed with. */
export const ssoLoginFormSchema = z.object({ intent: z.literal("sso"), userName: emailField });

/** POST /api/Identity/sso/start: the email typed on the login page. */
export const startSingleSignOnSchema = z.object({ email: emailField });

/**
 * POST /api/Identity/sso/callback: the query string the provider sent the browser back with
 * (`?code=…&state=…&iss=…`) and the state the browser kept in its cookie since the start.
 */
export const completeSingleSignOnSchema = z.object({
  query: z.string().check(z.minLength(1), z.maxLength(4000)),
  state: z.string().check(z.minLength(1), z.maxLength(200)),
});

export interface SingleSignOnView {
  issuerUrl: string;
  clientId: string;
  /** Never the secret: only whether one is kept. */
  hasClientSecret: true;
  domains: string[];
  newManagerRole: "owner" | "manager";
  tokenEndpointAuthMethod: SsoTokenEndpointAuthMethod;
  required: boolean;
  /** The Owner who can always sign in with a password and a second factor. */
  breakGlass: { userId: number; name: string; email: string } | null;
  updatedAt: string;
}

/** `notes`: what a working connection is worth a look for (never a reason to fail it). */
export type SingleSignOnTestResult = { ok: true; detail: string; notes: string[] } | { ok: false; detail: string };

/**
 * Who may sign in (ADR 0046; modules/identity/sign-in.server.ts): the words of its refusals that
 * are about single sign-on, kept apart from SSO_DETAILS.
 */
export const SSO_SIGN_IN_DETAILS = {
  /** Accepting an invitation with a password, where the company requires single sign-on. */
  inviteThroughProvider: `Your company signs in with single sign-on. Accept this invitation with "${SSO_BUTTON_LABEL}".`,
} as const;

/** A manager an Owner removed, back at the provider: refused until an Owner invites them again. */
export function ssoRemovedDetail(companyName: string): string {
  return `Your access to ${companyName} was removed. Ask an Owner to invite you again.`;
}
