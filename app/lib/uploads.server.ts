// CSV uploads in a route action (docs/requirements.md §D7: uploads capped in size and rows): the
// post is read as it arrives by `readPostedForm(..., { onFile })` (forms.server.ts: busboy, the
// fields before the file part checked like any form post before a byte of the file is read), and
// the file part is handed on here as a stream to the API's import (POST /Imports,
// modules/imports/service.server.ts), which checks it with the browser's reader, stages its rows
// and answers the job. Both bulk panes (My Team, Reward My Team) post through here.
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, isCsvFileName } from "../../core/csv.ts";
import { type ApiClient, asQuery } from "./api.server.ts";
import { importProgressOf, type PendingCsvUpload } from "./csv-upload.ts";
import type { StreamedFile } from "./forms.server.ts";

export const NO_FILE_MESSAGE = "Please choose a CSV file.";

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
