// Form conventions shared by every route form, and the forms' UI-only pieces (texts, option
// lists, the password hint). Browser and server safe; no validator lives here (ADR 0017).
//
// The pattern, for every form of the project:
//   - a real <Form method="post" action="/route"> that works without JavaScript;
//   - one schema in core/ (zod/mini) per form: the route action reads the post with
//     `readPostedForm(...).parse(schema)` (forms.server.ts: CSRF + honeypot, then conform's
//     parseWithZod with that schema); on
//     success it calls the typed API client and REDIRECTS; on failure it returns a `FormReply`
//     (field errors + a banner message);
//   - the component wires conform's `useForm` with `lastResult: actionData?.result`,
//     `constraint: formConstraint(schema)` and `onValidate: ({ formData }) =>
//     parseWithZod(formData, { schema })` with the same schema, so the browser shows the
//     server's messages before a round trip (the server stays the judge); validate on submit
//     and revalidate on input (a message appearing on blur would shift the control the person
//     is about to click);
//   - before hydration the form has no `noValidate` (`defaultNoValidate: false`), so without
//     JavaScript the browser's own required / maxlength / type=email checks apply.
import type { SubmissionResult, useForm } from "@conform-to/react";
import type * as z from "zod/mini";
import { COMPANY_SIZES, INDUSTRIES } from "../../modules/companies/schema.ts";

/** What an action returns when a post fails: conform's reply, plus the captcha state (docs/requirements.md §S4). */
export interface FormReply {
  result: SubmissionResult<string[]>;
  /** "v2" once the API asked for the visible challenge (or the post already used it). */
  captcha?: "v2";
}

/** docs/requirements.md §S8: any error without its own message. */
export const GENERIC_FORM_ERROR = "An error occurred while submitting the form. Please try again.";

/** True when the reply carries an error for at least one field (not only the banner). */
export function hasFieldErrors(result: SubmissionResult<string[]> | undefined): boolean {
  return Object.entries(result?.error ?? {}).some(([name, messages]) => name !== "" && (messages?.length ?? 0) > 0);
}

/** The first field (in the order given) that has an error in a reply: it takes the focus without JavaScript. */
export function firstInvalidField(
  error: Record<string, string[] | null | undefined> | undefined,
  order: readonly string[],
): string | undefined {
  return order.find((name) => (error?.[name]?.length ?? 0) > 0);
}

// ─── conform's `constraint` from a core schema ───────────────────────────────────────────────

type Constraints = NonNullable<Parameters<typeof useForm>[0]["constraint"]>;
type FieldConstraint = { required: boolean; maxLength?: number };
/** The parts of a zod-core definition read here. */
type Def = {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  checks?: z.core.$ZodCheck[];
};
const defOf = (schema: z.core.$ZodType) => schema._zod.def as Def;

/**
 * `required` and `maxLength` of each field of an object schema (or of a pipe starting with
 * one): the attributes the inputs carry before hydration, when the browser checks them itself.
 * conform's getZodConstraint reads lengths from `_zod.bag`, which zod 4.6's checks no longer
 * fill, so the length checks are read here. `extra` adds what the schema cannot say (the ABN
 * input's 11-character cap, docs/requirements.md §S5, while the API also takes "51 824 753 556").
 */
export function formConstraint(schema: z.core.$ZodType, extra: Constraints = {}): Constraints {
  let def = defOf(schema);
  while (def.type === "pipe" && def.in) def = defOf(def.in);
  const constraints: Constraints = {};
  for (const [name, field] of Object.entries(def.shape ?? {})) constraints[name] = fieldConstraint(field);
  return { ...constraints, ...extra };
}

function fieldConstraint(schema: z.core.$ZodType): FieldConstraint {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "default":
    case "prefault":
      return { ...fieldConstraint(def.innerType as z.core.$ZodType), required: false };
    case "nullable":
    case "readonly":
    case "catch":
      return fieldConstraint(def.innerType as z.core.$ZodType);
    case "pipe": {
      // A value then transformed: the value's rules; a value prepared for a type: the type's.
      const out = def.out as z.core.$ZodType;
      return fieldConstraint(defOf(out).type === "transform" ? (def.in as z.core.$ZodType) : out);
    }
    default: {
      const maxima = (def.checks ?? [])
        .map((check) => check._zod.def as { check: string; maximum?: number })
        .filter((check) => check.check === "max_length" && check.maximum !== undefined)
        .map((check) => check.maximum as number);
      return maxima.length > 0 ? { required: true, maxLength: Math.min(...maxima) } : { required: true };
    }
  }
}

// ─── Texts and options of the forms (docs/requirements.md §S5, §S8; §D8) ─────────────────────────────

/** `title` is what the browser adds to its "Please match the requested format." without JavaScript. */
export const PASSWORD_PATTERN_TITLE =
  "At least 8 characters, with a capital letter, a lowercase letter, a number and a special character.";
/** The hint under the password field before anything is typed (and the whole story without JavaScript). */
export const PASSWORD_HINT =
  'Use at least 8 characters, with at least one capital letter, one number and one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).';
export const RESET_PASSWORD_LABEL = "Choose a password";

/** docs/requirements.md §S8 texts of the account pages. */
export const ACCOUNT_MESSAGES = {
  alreadyRegistered: "Looks like you already have an account with us.",
  retrieveDetails: "Click here to retrieve your details.",
  incorrectLogin: "Incorrect email or password. Please try again or reset your password.",
  invalidCode: "Invalid verification code. Please try again or resend verification code.",
  verifyGeneric: "An error occurred. Please try again, contact us if it persists.",
  resendFailed: "Failed to resend code. Please try again later.",
  resendError: "An error occurred while resending the verification code.",
  resent: "Verification code resent! Please check your inbox or junk mail.",
  forgotIntro: "You will receive an email with a link to reset your password",
  forgotSent:
    "We've sent you an email with a link to reset your password. Please check your inbox and follow the instructions.",
} as const;

/** docs/requirements.md §S3 company sizes, shown as "<size> employees", and industries. */
export const COMPANY_SIZE_OPTIONS = COMPANY_SIZES.map((size) => ({ value: size, label: `${size} employees` }));
export const INDUSTRY_OPTIONS = INDUSTRIES.map((industry) => ({ value: industry, label: industry }));

/** docs/requirements.md §S8: the placeholder of every select. */
export const SELECT_PLACEHOLDER = "Select...";
