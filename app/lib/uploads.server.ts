// Reading a CSV upload in a route action (DESIGN.md §7: uploads capped in size and rows). The
// body is read with a cap before anything parses it, then the usual CSRF + honeypot check runs
// on the buffered form (security.server.ts), and the file itself is checked: a .csv name, at
// most MAX_UPLOAD_BYTES. Both bulk panes (My Team, Reward My Team) post through it.
import type { RouterContextProvider } from "react-router";
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, isCsvFileName } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { checkFormPost } from "./security.server.ts";

type Context = Readonly<RouterContextProvider>;

/** Room for the other fields and the multipart framing around a file of MAX_UPLOAD_BYTES. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
/** Beyond this the rest of an oversized body is not even drained: the connection is dropped. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

export const NO_FILE_MESSAGE = "Please choose a CSV file.";

/**
 * The request with its body read into memory, or null when the body is larger than `maxBytes`
 * (the rest is drained, up to a point, so the browser still receives the answer).
 */
export async function bufferBody(request: Request, maxBytes: number): Promise<Request | null> {
  const declared = Number(request.headers.get("content-length") ?? "");
  const reader = request.body?.getReader();
  if (!reader) return request;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = Number.isFinite(declared) && declared > maxBytes;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) tooLarge = true;
    if (!tooLarge) chunks.push(value);
    if (size > DRAIN_LIMIT_BYTES) {
      await reader.cancel();
      break;
    }
  }
  if (tooLarge) return null;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}

/**
 * A form post that may carry a CSV file (multipart): the form data after the CSRF and honeypot
 * checks, or the message for a body over the cap.
 */
export async function readUploadPost(
  context: Context,
  request: Request,
): Promise<{ ok: true; formData: FormData } | { ok: false; message: string }> {
  const buffered = await bufferBody(request, MAX_UPLOAD_BYTES + FORM_OVERHEAD_BYTES);
  if (!buffered) return { ok: false, message: FILE_TOO_LARGE_MESSAGE };
  return { ok: true, formData: await checkFormPost(context, buffered) };
}

/** The posted CSV file's name and text, or the message that refuses it. */
export async function readCsvFile(
  formData: FormData,
  field = "file",
): Promise<{ ok: true; fileName: string; text: string } | { ok: false; message: string }> {
  const file = formData.get(field);
  if (!(file instanceof File) || (file.name === "" && file.size === 0)) return { ok: false, message: NO_FILE_MESSAGE };
  if (!isCsvFileName(file.name)) return { ok: false, message: INVALID_FILE_TYPE_MESSAGE };
  if (file.size > MAX_UPLOAD_BYTES) return { ok: false, message: FILE_TOO_LARGE_MESSAGE };
  return { ok: true, fileName: file.name, text: await file.text() };
}
