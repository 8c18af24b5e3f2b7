import type { Context } from "hono";
import type { z } from "zod";
import { ProblemError, problemFromZod } from "./problem.ts";

const MAX_JSON_BYTES = 1_000_000;
/**
 * The bulk calls (5,000 rows at full field lengths) need more: a 1 MB CSV becomes about 1.2 MB of
 * JSON, and 5,000 rows of maximum-length fields about 2.2 MB.
 */
export const BULK_JSON_BYTES = 4_000_000;

export const BODY_TOO_LARGE = "The request body is too large.";

/** Reads a JSON body and validates it; anything else is a 400 with a clear `detail`. */
export async function jsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  { maxBytes = MAX_JSON_BYTES }: { maxBytes?: number } = {},
): Promise<z.output<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ProblemError(415, "The request body must be JSON (Content-Type: application/json).");
  }
  const text = await c.req.text();
  if (text.length > maxBytes) throw new ProblemError(413, BODY_TOO_LARGE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProblemError(400, "The request body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ProblemError(400, "The request body must be a JSON object.");
  }
  if (!storableText(value)) {
    throw new ProblemError(400, "The request body contains characters that are not allowed.");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw problemFromZod(parsed.error);
  return parsed.data;
}

/**
 * False when any string (key or value) holds a NUL character or a lone surrogate: PostgreSQL
 * cannot store either in a text column, so such input would otherwise fail as a 500 (found by
 * tests/security/api-fuzz.test.ts).
 */
function storableText(value: unknown): boolean {
  if (typeof value === "string") return value.isWellFormed() && !value.includes("\u0000");
  if (Array.isArray(value)) return value.every(storableText);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).every(([k, v]) => storableText(k) && storableText(v));
  }
  return true;
}
