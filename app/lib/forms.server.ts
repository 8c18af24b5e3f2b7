// The server half of the form conventions (see forms.ts): every route action reads its post once
// with `readPostedForm` (the CSRF and honeypot checks, then the intent and `parse(schema)`; an
// upload form's file handed on as it arrives with `onFile`) and answers a failure with
// `replyInvalid` / `replyFailure` / `replyBanner` (ADR 0032, ADR 0050).
import { Readable } from "node:stream";
import type { Submission } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import busboy from "busboy";
import { data, type RouterContextProvider } from "react-router";
import type * as z from "zod/mini";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import type { ApiResult } from "./api.server.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "./forms.ts";
import { type PageRefusals, refusalWords, refusedAs } from "./refusals.ts";
import { checkFormFields } from "./security.server.ts";

type Context = Readonly<RouterContextProvider>;
type ApiFailure = Extract<ApiResult<unknown>, { ok: false }>;

/** Posted values never echoed back into the re-rendered form. */
const HIDDEN_FIELDS = ["csrf", "captchaToken", "isCaptchaV3"];

const UNREADABLE_FORM = "The form could not be read.";

/** The file part of a post, as it arrives. */
export interface StreamedFile {
  fileName: string;
  stream: ReadableStream<Uint8Array>;
}

/** How an upload form's post is read: its file part handed to `onFile` as it arrives. */
export interface ReadOptions<F> {
  onFile: (file: StreamedFile, fields: FormData) => Promise<F>;
}

/**
 * Every action's one read of its post: refuses a post whose CSRF token does not match (403) or
 * whose honeypot field was filled (400) (security.server.ts), then gives its `intent` and
 * `parse(schema)` with the schema of the branch taken (the body is read once, so no branch needs
 * `request.clone()`).
 *
 * With `onFile` (the CSV upload panes, docs/requirements.md §D7: uploads capped in size and rows),
 * a multipart post is read as it arrives through busboy, so neither the web nor the API ever
 * holds a 50,000-row file whole: at the first file part the fields so far pass the same checks
 * (a refusal is thrown once the body is drained), then `onFile` gets the file's bytes as a
 * stream, with the fields read so far (the intent). Fields after the file part are read but not
 * seen by `onFile`. Any other post is read whole, as without `onFile`.
 */
export async function readPostedForm(context: Context, request: Request): Promise<PostedForm>;
export async function readPostedForm<F>(
  context: Context,
  request: Request,
  options: ReadOptions<F>,
): Promise<PostedForm<F>>;
export async function readPostedForm<F>(
  context: Context,
  request: Request,
  options?: ReadOptions<F>,
): Promise<PostedForm<F>> {
  const type = request.headers.get("content-type") ?? "";
  const streamed = options && /^multipart\/form-data/i.test(type) && request.body;
  const { formData, file } = streamed
    ? await readStreamed(context, request, type, options.onFile)
    : { formData: await readWhole(context, request), file: null };
  return postedForm(formData, file);
}

/** A form post, read once and checked. */
function postedForm<F>(formData: FormData, file: F | null) {
  const intent = formData.get("intent");
  return {
    /** The posted `intent`, for the action's one `switch` ("" without one). */
    intent: typeof intent === "string" ? intent : "",
    /** The posted fields. */
    formData,
    /** Whether a field was posted (a form told apart by a field rather than its intent). */
    has: (name: string) => formData.has(name),
    /** The form's schema (a core/ schema, the browser's too); also whether the post used the visible captcha. */
    parse<Schema extends z.core.$ZodType>(schema: Schema) {
      const submission = parseWithZod(formData, { schema });
      const usedChallenge = formData.get("isCaptchaV3") === "false";
      return { submission, usedChallenge };
    },
    /** What `onFile` answered, or null when the post had no file part (or no `onFile` was given). */
    file,
  };
}

export type PostedForm<F = never> = ReturnType<typeof postedForm<F>>;

/**
 * The `default` of an action's one `switch (intent)` (ADR 0050): a post whose intent the page
 * does not know is refused (400).
 */
export function unknownIntent(): never {
  throw data("Unknown action.", { status: 400 });
}

/** A post read whole (`request.formData()`), then checked. */
async function readWhole(context: Context, request: Request): Promise<FormData> {
  const form = await request.formData();
  await checkFormFields(context, request, form);
  return form;
}

/** A multipart post read as it arrives (see `readPostedForm`). */
async function readStreamed<F>(
  context: Context,
  request: Request,
  type: string,
  onFile: ReadOptions<F>["onFile"],
): Promise<{ formData: FormData; file: F | null }> {
  const formData = new FormData();
  let checked: Promise<void> | null = null;
  const check = () => {
    checked ??= checkFormFields(context, request, formData);
    return checked;
  };
  let handled: Promise<F> | null = null;
  const parser = busboy({
    headers: { "content-type": type },
    // One byte over the cap: the API sees the file is too large and says so (FILE_TOO_LARGE_MESSAGE).
    limits: { files: 1, fileSize: MAX_UPLOAD_BYTES + 1, fields: 50, fieldSize: 64 * 1024, parts: 60 },
  });
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("field", (name, value) => formData.append(name, value));
    parser.on("file", (_name, file, info) => {
      if (handled) {
        file.resume();
        return;
      }
      const source = drainable(file);
      handled = (async () => {
        try {
          await check();
          return await onFile({ fileName: info.filename ?? "", stream: source.stream }, formData);
        } finally {
          // Whatever was not read (a refused form, a file refused part-way) is skipped, so the
          // rest of the body is still read and the answer reaches the browser.
          source.drain();
        }
      })();
      // Seen (and thrown) below, after the whole body is read.
      handled.catch(() => undefined);
    });
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  const body = Readable.fromWeb(request.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("error", (error) => parser.destroy(error));
  body.pipe(parser);
  try {
    await finished;
  } catch {
    // A broken or malformed body: the file's reader (if any) ends with it.
    await (handled as Promise<F> | null)?.catch(() => undefined);
    await check();
    throw data(UNREADABLE_FORM, { status: 400 });
  }
  if (!handled) {
    await check();
    return { formData, file: null };
  }
  return { formData, file: await (handled as Promise<F>) };
}

/** A web stream over busboy's file stream that, once cancelled or done with, skips the rest. */
function drainable(file: Readable): { stream: ReadableStream<Uint8Array>; drain: () => void } {
  let draining = false;
  const drain = () => {
    if (draining) return;
    draining = true;
    file.removeAllListeners("data");
    file.resume();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        file.pause();
        file.on("data", (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) file.pause();
        });
        file.once("end", () => {
          if (!draining) controller.close();
        });
        file.once("error", (error) => controller.error(error));
      },
      pull() {
        if (!draining) file.resume();
      },
      cancel() {
        drain();
      },
    },
    { highWaterMark: 8 },
  );
  return { stream, drain };
}

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

/** What a reply of the page's own hides and answers (400 unless told). */
interface OwnReplyOptions {
  status?: number;
  hideFields?: readonly string[];
}

/** The page's own message in the form's banner (not an API failure: that is `replyFailure`). */
export function replyBanner(submission: Submission<unknown>, message: string, options: OwnReplyOptions = {}) {
  return respond(submission, options.status ?? 400, { formErrors: [message], hideFields: options.hideFields });
}

/** The page's own messages next to their fields. */
export function replyFields(
  submission: Submission<unknown>,
  fieldErrors: Record<string, string[]>,
  options: OwnReplyOptions = {},
) {
  return respond(submission, options.status ?? 400, { fieldErrors, hideFields: options.hideFields });
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
