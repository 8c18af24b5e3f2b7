// The typed inputs of the provider API's routes (ADR 0016): middleware that reads and checks a
// body or query and hands the handler its parsed value through `c.req.valid(...)`, while the
// route's type tells the web's client (hono/client) what to send.
import type { Env, MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { z } from "zod";
import { MAX_ID, parseId } from "../../core/fields.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import type { PageRequest } from "../../core/paging.ts";
import type { RefusalKind } from "../../core/refusals.ts";
import { problemFromZod } from "../api/refusals.ts";
import { Refusal } from "../refusal.ts";
import { ProblemError } from "./problem.ts";
import { documented } from "./route-doc.ts";

const MAX_JSON_BYTES = 1_000_000;
/**
 * The bulk JSON calls of docs/requirements.md §S7 need more: a CSV file of MAX_UPLOAD_BYTES (MAX_IMPORT_ROWS rows of
 * about 200 bytes) becomes about 1.2 times as much JSON. The web never sends such a body: its CSV
 * imports stream the file itself (modules/imports/api.server.ts).
 */
export const BULK_JSON_BYTES = Math.ceil(MAX_UPLOAD_BYTES * 1.2);

export const BODY_TOO_LARGE = "The request body is too large.";

/** What a route reading a JSON body declares: the client sends `z.input<S>`, the handler gets `z.output<S>`. */
export type JsonInput<S extends z.core.$ZodType> = { in: { json: z.input<S> }; out: { json: z.output<S> } };

export interface JsonBodyOptions {
  maxBytes?: number;
  /** Rewrites the problem of a body that fails the schema (a bulk upload names the row). */
  onInvalid?: (problem: ProblemError) => ProblemError;
}

/**
 * Middleware that reads a JSON body and validates it; the handler reads it with
 * `c.req.valid("json")`. Non-JSON is a 415, too large a 413, anything else a 400 with a clear
 * `detail` (field errors from zod). Not hono/validator's `validator`: it decides JSON-ness by its
 * own media-type test (passing `{}` on for a type it does not know) and answers bad JSON with
 * its own message, so keeping these answers would mean parsing every body twice.
 */
export function jsonBody<S extends z.core.$ZodType<object>>(
  schema: S,
  { maxBytes = MAX_JSON_BYTES, onInvalid }: JsonBodyOptions = {},
): MiddlewareHandler<Env, string, JsonInput<S>> {
  // Marked with its schema: the OpenAPI document of /api describes the body from it (route-doc.ts).
  return documented<MiddlewareHandler<Env, string, JsonInput<S>>>(
    async (c, next) => {
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
      const parsed = z.safeParse(schema, value);
      if (!parsed.success) {
        const problem = problemFromZod(parsed.error);
        throw onInvalid ? onInvalid(problem) : problem;
      }
      c.req.addValidatedData("json", parsed.data);
      await next();
    },
    { body: schema },
  );
}

/**
 * Middleware that reads the query string with `parse` (which throws ProblemError to refuse);
 * the handler reads the result with `c.req.valid("query")`. `parse` gets each parameter's first
 * value, as `c.req.query(name)` gives it; its parameter's type is what the client may send.
 */
export function queryParams<In extends Record<string, string | undefined>, Out extends object>(
  parse: (query: In) => Out,
): MiddlewareHandler<Env, string, { in: { query: In }; out: { query: Out } }> {
  return async (c, next) => {
    c.req.addValidatedData("query", parse(c.req.query() as In));
    await next();
  };
}

/** The page parameters of a list route's query string, as the client sends them. */
export type PageParams = { pageNumber?: string; pageSize?: string };

/**
 * The page of a list route's query, read with its pageQuerySchema (core/paging.ts): a lenient
 * schema never refuses; a strict one's refusal is a 400 whose detail is the first refused
 * parameter's (pageNumber before pageSize), with no field errors, as modules/team/team.test.ts and
 * audit.test.ts assert.
 */
export function pageOf(schema: z.core.$ZodType<PageRequest>, query: PageParams): PageRequest {
  const parsed = z.safeParse(schema, { pageNumber: query.pageNumber, pageSize: query.pageSize });
  if (parsed.success) return parsed.data;
  throw new ProblemError(400, parsed.error.issues[0]?.message ?? "The page query is not valid.");
}

/** Middleware for a list route whose only query is its page: `c.req.valid("query")` is the PageRequest. */
export function pageParams(schema: z.core.$ZodType<PageRequest>) {
  return documented(
    queryParams((query: PageParams) => pageOf(schema, query)),
    { query: schema },
  );
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

/** A path id's value: a positive integer of at most 15 digits (also what /api/v1's OpenAPI document says). */
export const pathIdSchema = z.int().min(1).max(MAX_ID);

/**
 * A path id ("123"): an id of core/fields.ts `parseId` (of pathIdSchema), else the kind's 404 (an
 * id that cannot exist names nothing, like one that does not).
 */
export function positiveIdParam(text: string | undefined, notFound: RefusalKind): number {
  const id = parseId(text);
  if (id === null) throw new Refusal(notFound);
  return id;
}

/**
 * Hono's param validator for routes whose only params are ids (`:orderId`, `:releaseId`, `:id`, …):
 * every API route with a numeric path id reads it here, so all take the same ids (15 digits).
 */
export function idParams<K extends string>(names: Record<K, RefusalKind>) {
  const check = validator("param", (param: Record<string, string>) => {
    const out = {} as Record<K, number>;
    for (const name of Object.keys(names) as K[]) out[name] = positiveIdParam(param[name], names[name]);
    return out;
  });
  return documented(check, { params: Object.fromEntries(Object.keys(names).map((name) => [name, pathIdSchema])) });
}
