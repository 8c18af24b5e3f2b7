// The server half of the form conventions (see forms.ts): every route action that handles a
// form post goes through `handleFormPost`, or through `readForm` + `replyFailure` when it needs
// more than "validate, call the API, redirect".
import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider, redirect } from "react-router";
import type * as z from "zod/mini";
import type { ApiResult } from "./api.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "./forms.ts";
import { type PageRefusals, refusalWords, refusedAs } from "./refusals.ts";
import { checkFormPost } from "./security.server.ts";

type Context = Readonly<RouterContextProvider>;
type ApiFailure = Extract<ApiResult<unknown>, { ok: false }>;

/** Posted values never echoed back into the re-rendered form. */
const HIDDEN_FIELDS = ["csrf", "captchaToken", "isCaptchaV3"];

/**
 * CSRF + honeypot (`checkFormPost`), then the form's schema (a core/ schema, the one the browser
 * validates with too); also tells whether the post used the visible captcha.
 */
export async function readForm<Schema extends z.core.$ZodType>(context: Context, request: Request, schema: Schema) {
  return (await readPostedForm(context, request)).parse(schema);
}

/**
 * A form post of several intents, read once: CSRF + honeypot, then its `intent` for the action's
 * one `switch`, and `parse(schema)` with the schema of the branch taken (the body is read once, so
 * no branch needs `request.clone()`).
 */
export async function readPostedForm(context: Context, request: Request) {
  const formData = await checkFormPost(context, request);
  const intent = formData.get("intent");
  return {
    intent: typeof intent === "string" ? intent : "",
    /** Whether a field was posted (a form told apart by a field rather than its intent). */
    has: (name: string) => formData.has(name),
    parse<Schema extends z.core.$ZodType>(schema: Schema) {
      const submission = parseWithZod(formData, { schema });
      const usedChallenge = formData.get("isCaptchaV3") === "false";
      return { submission, usedChallenge };
    },
  };
}

export type PostedForm = Awaited<ReturnType<typeof readPostedForm>>;

type ReplyOptions = {
  formErrors?: string[];
  fieldErrors?: Record<string, string[]>;
  captcha?: "v2";
  /** Posted values never echoed back besides the captcha and CSRF inputs (e.g. passwords). */
  hideFields?: readonly string[];
};

/** The action data of a failed post, with its HTTP status (400 for a form the schema refused). */
function respond(
  submission: Submission<unknown>,
  status: number,
  { captcha, hideFields = [], ...errors }: ReplyOptions = {},
) {
  const result = submission.reply({ ...errors, hideFields: [...HIDDEN_FIELDS, ...hideFields] });
  return data<FormReply>(captcha ? { result, captcha } : { result }, { status });
}

/** A form that did not pass the schema: field errors next to the fields. */
export function replyInvalid(
  submission: Submission<unknown>,
  usedChallenge = false,
  options: { hideFields?: readonly string[] } = {},
) {
  return respond(submission, 400, { ...(usedChallenge ? { captcha: "v2" as const } : {}), ...options });
}

/** How a form says an API failure: the refusals it says (app/lib/refusals.ts), and what it posted. */
export interface FailureOptions {
  /** The refusals the page says, by kind; "any": whatever the API answered. */
  shown?: PageRefusals | "any";
  usedChallenge?: boolean;
  hideFields?: readonly string[];
  /** The page's words for any failure it does not say (default: the generic message). */
  otherwise?: string;
}

/**
 * An API failure rendered for the form (docs/requirements.md §S8): the captcha refusal switches the form to the
 * visible challenge and clears the message; field errors go next to their fields; the
 * refusals the page says (`shown`, by kind) appear in the banner in its words; anything else
 * shows the generic message.
 */
export function replyFailure(submission: Submission<unknown>, failure: ApiFailure, options: FailureOptions = {}) {
  const status = failure.status >= 400 ? failure.status : 500;
  const { hideFields } = options;
  if (refusedAs(failure, "captcha-failed")) {
    return respond(submission, status, { captcha: "v2", hideFields });
  }
  const captcha = options.usedChallenge ? ("v2" as const) : undefined;
  const posted = new Set(Object.keys(submission.payload));
  const fieldErrors = Object.fromEntries(
    Object.entries(failure.errors ?? {}).filter(([name, messages]) => posted.has(name) && messages.length > 0),
  );
  if (Object.keys(fieldErrors).length > 0) return respond(submission, status, { fieldErrors, captcha, hideFields });
  // The rate limits' answers (docs/requirements.md §D7) say what happened on every form, word for word.
  const words = failure.status === 429 ? failure.detail : refusalWords(failure, options.shown);
  const message = words ?? options.otherwise ?? GENERIC_FORM_ERROR;
  return respond(submission, status, { formErrors: [message], captcha, hideFields });
}

/**
 * The whole action of a simple form: read and validate the post, call the API, then redirect
 * (post/redirect/get) on success or answer the errors for the form on failure.
 */
export async function handleFormPost<Schema extends z.core.$ZodType>(
  context: Context,
  request: Request,
  options: {
    schema: Schema;
    send: (value: z.output<Schema>) => Promise<ApiResult<unknown>>;
    redirectTo: string;
    shown?: FailureOptions["shown"];
  },
) {
  const { submission, usedChallenge } = await readForm(context, request, options.schema);
  if (submission.status !== "success") return replyInvalid(submission, usedChallenge);
  const result = await options.send(submission.value);
  if (result.ok) throw redirect(options.redirectTo);
  return replyFailure(submission, result, { shown: options.shown, usedChallenge });
}
