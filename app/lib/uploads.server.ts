// CSV uploads in a route action (docs/requirements.md §D7: uploads capped in size and rows), read as they
// arrive: a multipart post goes through busboy, so neither the web nor the API ever holds a
// 50,000-row file whole. The fields before the file part (the pane's forms put the CSRF token,
// the honeypot and the intent first) are checked like any form post (security.server.ts) before
// a byte of the file is read; the file part is then handed on as a stream, to the API's import
// (POST /Imports, modules/imports/service.server.ts), which checks it with the browser's reader, stages its
// rows and answers the job. Both bulk panes (My Team, Reward My Team) post through here.
import { Readable } from "node:stream";
import busboy from "busboy";
import { data, type RouterContextProvider } from "react-router";
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, isCsvFileName } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { type ApiClient, asQuery } from "./api.server.ts";
import { importProgressOf, type PendingCsvUpload } from "./csv-upload.ts";
import { checkFormFields, checkFormPost } from "./security.server.ts";

type Context = Readonly<RouterContextProvider>;

export const NO_FILE_MESSAGE = "Please choose a CSV file.";
const UNREADABLE_FORM = "The form could not be read.";

/** The file part of a post, as it arrives. */
export interface StreamedFile {
  fileName: string;
  stream: ReadableStream<Uint8Array>;
}

/** A form post whose file part (if any) was handed to `onFile`: its fields and what `onFile` answered. */
export interface StreamedPost<T> {
  formData: FormData;
  /** What `onFile` answered, or null when the post had no file part. */
  file: T | null;
}

/**
 * Reads a form post. Multipart: the fields as they come; at the first file part the fields so
 * far pass the CSRF and honeypot checks (a refusal is thrown once the body is drained), then
 * `onFile` gets the file's bytes as a stream, with the fields read so far (the intent). Any other
 * post: checkFormPost. Fields after the file part are read but not seen by `onFile`.
 */
export async function readStreamedPost<T>(
  context: Context,
  request: Request,
  onFile: (file: StreamedFile, fields: FormData) => Promise<T>,
): Promise<StreamedPost<T>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(type) || !request.body) {
    return { formData: await checkFormPost(context, request), file: null };
  }
  const formData = new FormData();
  let checked: Promise<void> | null = null;
  const check = () => {
    checked ??= checkFormFields(context, request, formData);
    return checked;
  };
  let handled: Promise<T> | null = null;
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
    await (handled as Promise<T> | null)?.catch(() => undefined);
    await check();
    throw data(UNREADABLE_FORM, { status: 400 });
  }
  if (!handled) {
    await check();
    return { formData, file: null };
  }
  return { formData, file: await (handled as Promise<T>) };
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

export type ImportKind = "team" | "reward";

/** The job the API answered for a file (modules/imports/service.server.ts ImportView). */
export type ImportJob = Extract<Awaited<ReturnType<typeof readImportJob>>, { ok: true }>["data"];

/** The job as the API holds it now (GET /Imports/:id). */
function readImportJob(client: ApiClient, id: string) {
  return client.call((api) => api.Imports[":id"].$get({ param: { id }, query: {} }));
}

/**
 * The pane's view of an import that is not done yet (no JavaScript): a refused file's messages
 * (the job is dropped), the working view while it is applied, or the checked file's preview.
 */
export async function pendingImportView<P>(
  client: ApiClient,
  job: ImportJob,
  preview: (job: ImportJob) => P,
): Promise<PendingCsvUpload<P>> {
  if (job.status === "failed") {
    await client.call((api) => api.Imports[":id"].$delete({ param: { id: job.id } }));
    return { id: job.id, errors: job.errors ?? [] };
  }
  if (job.status !== "staged") return { id: job.id, working: importProgressOf(job) };
  return { id: job.id, ...preview(job) };
}

export type ImportStarted = { ok: true; job: ImportJob } | { ok: false; status: number; errors: string[] };

/**
 * The posted file handed to the API's import as it arrives: refused here for a missing file or a
 * name that is not .csv (its bytes are then skipped), else the API's job or the file's messages.
 */
export async function importCsvFile(
  client: ApiClient,
  file: StreamedFile,
  options: { kind: ImportKind; queue: boolean; id?: string; expectedRows?: number },
): Promise<ImportStarted> {
  if (file.fileName === "") return { ok: false, status: 400, errors: [NO_FILE_MESSAGE] };
  if (!isCsvFileName(file.fileName)) return { ok: false, status: 400, errors: [INVALID_FILE_TYPE_MESSAGE] };
  const query = asQuery({
    kind: options.kind,
    fileName: file.fileName,
    queue: options.queue,
    ...(options.id ? { id: options.id } : {}),
    ...(options.expectedRows ? { expectedRows: options.expectedRows } : {}),
  });
  const result = await client.call((api) =>
    api.Imports.$post(
      { query },
      // A stream body needs half duplex in Node's fetch; the API reads it as it comes.
      { init: { body: file.stream, headers: { "content-type": "text/csv" }, duplex: "half" } as RequestInit },
    ),
  );
  if (result.ok) return { ok: true, job: result.data };
  const listed = result.errors?.file ?? [];
  const status = result.status === 413 ? 413 : result.status;
  if (result.status === 413) return { ok: false, status, errors: [FILE_TOO_LARGE_MESSAGE] };
  return { ok: false, status, errors: listed.length > 0 ? listed : [result.detail] };
}

/** A browser-chosen job id as posted (the API checks it again), or undefined. */
export function postedImportId(value: FormDataEntryValue | null): string | undefined {
  return typeof value === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(value) ? value : undefined;
}

/** The browser's count of the file's rows as posted (the progress's total while it arrives). */
export function postedRowCount(value: FormDataEntryValue | null): number | undefined {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Waits for a queued job to be applied by the import worker (modules/imports/service.server.ts): the job
 * once done or failed, or null when it is still waiting after `timeoutMs` (or gone).
 */
export async function awaitImport(client: ApiClient, id: string, timeoutMs: number): Promise<ImportJob | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const read = await readImportJob(client, id);
    if (!read.ok) return null;
    if (read.data.status === "done" || read.data.status === "failed") return read.data;
    if (Date.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
