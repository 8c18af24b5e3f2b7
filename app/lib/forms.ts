// Form conventions shared by every route form (browser and server safe, no zod here: zod stays
// on the server so public pages keep their JavaScript budget).
//
// The pattern, for every form of the project:
//   - a real <Form method="post" action="/route"> that works without JavaScript;
//   - the route action reads it with `readForm` (forms.server.ts): CSRF + honeypot, then zod
//     through conform's parseWithZod; on success it calls the typed API client and REDIRECTS;
//     on failure it returns a `FormReply` (field errors + a banner message);
//   - the component wires conform's `useForm` with `lastResult: actionData?.result`, the
//     `constraint` and client `onValidate` built below from the same `FormRules`, so the
//     browser shows the server's messages before a round trip (the server stays the judge);
//     validate on submit and revalidate on input (a message appearing on blur would shift the
//     control the person is about to click);
//   - before hydration the form has no `noValidate` (`defaultNoValidate: false`), so without
//     JavaScript the browser's own required / maxlength / type=email checks apply.
import { parse, type SubmissionResult, type useForm } from "@conform-to/react";

/** What an action returns when a post fails: conform's reply, plus the captcha state (SPEC §4). */
export interface FormReply {
  result: SubmissionResult<string[]>;
  /** "v2" once the API asked for the visible challenge (or the post already used it). */
  captcha?: "v2";
}

/** SPEC §8: any error without its own message. */
export const GENERIC_FORM_ERROR = "An error occurred while submitting the form. Please try again.";

/** SPEC §5 field limits (the same numbers as core/fields.ts LIMITS, which imports zod). */
export const FIELD_LIMITS = { name: 64, email: 256, companyName: 100, message: 256 } as const;

export const TERMS_REQUIRED_MESSAGE =
  "Please agree to the Terms and Conditions and the Privacy Policy to join the waitlist.";

/** One field's rules, written once for the browser (constraint + messages). */
export interface FieldRule {
  /** The visible label, used in "<label> is required." */
  label: string;
  required?: boolean;
  maxLength?: number;
  email?: boolean;
  requiredMessage?: string;
  maxLengthMessage?: string;
}
export type FormRules = Record<string, FieldRule>;

const nameRule = (label: string): FieldRule => ({ label, required: true, maxLength: FIELD_LIMITS.name });
const emailRule: FieldRule = { label: "Email", required: true, maxLength: FIELD_LIMITS.email, email: true };

export const WAITLIST_RULES = {
  firstName: nameRule("First Name"),
  lastName: nameRule("Last Name"),
  email: emailRule,
  companyName: { label: "Company Name", required: true, maxLength: FIELD_LIMITS.companyName },
  terms: { label: "Terms", required: true, requiredMessage: TERMS_REQUIRED_MESSAGE },
} satisfies FormRules;

export type WaitlistFields = {
  firstName: string;
  lastName: string;
  email: string;
  companyName: string;
  terms: boolean;
};

export type ContactFields = { firstName: string; lastName: string; email: string; message: string };

export const CONTACT_RULES = {
  firstName: nameRule("First Name"),
  lastName: nameRule("Last Name"),
  email: emailRule,
  message: {
    label: "Message",
    required: true,
    maxLength: FIELD_LIMITS.message,
    maxLengthMessage: "Message must be less than 256 characters.",
  },
} satisfies FormRules;

type Constraints = NonNullable<Parameters<typeof useForm>[0]["constraint"]>;

/** conform's `constraint` option: gives getInputProps the `required` and `maxLength` attributes. */
export function constraintsOf(rules: FormRules): Constraints {
  const out: Constraints = {};
  for (const [name, rule] of Object.entries(rules)) {
    out[name] = { required: rule.required, maxLength: rule.maxLength };
  }
  return out;
}

// zod's default email pattern (z.email()), so the browser and the API agree.
const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** The messages of one value against its rule (the first failing rule only). */
export function checkField(rule: FieldRule, raw: unknown): string[] | undefined {
  const value = typeof raw === "string" ? raw.trim() : "";
  if (rule.required && value === "") return [rule.requiredMessage ?? `${rule.label} is required.`];
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    return [rule.maxLengthMessage ?? `${rule.label} must be at most ${rule.maxLength} characters.`];
  }
  if (rule.email && value !== "" && !EMAIL_PATTERN.test(value)) return ["The email format is incorrect."];
  return undefined;
}

/** conform's `onValidate` for a form described by `rules` (`Shape` is the form's value type). */
export function validateWithRules<Shape extends Record<string, unknown>>(formData: FormData, rules: FormRules) {
  return parse<Shape, string[]>(formData, {
    resolve(payload) {
      const error: Record<string, string[]> = {};
      for (const [name, rule] of Object.entries(rules)) {
        const messages = checkField(rule, payload[name]);
        if (messages) error[name] = messages;
      }
      return Object.keys(error).length > 0 ? { error } : { value: payload as Shape };
    },
  });
}

/** True when the reply carries an error for at least one field (not only the banner). */
export function hasFieldErrors(result: SubmissionResult<string[]> | undefined): boolean {
  return Object.entries(result?.error ?? {}).some(([name, messages]) => name !== "" && (messages?.length ?? 0) > 0);
}
