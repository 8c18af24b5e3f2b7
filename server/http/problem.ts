// RFC 9457 problem details: every API error answers application/problem+json with a `detail`
// whose wording is SPEC §8's where SPEC gives one.
import type { z } from "zod";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

/** Thrown anywhere below an API handler; the API's error handler turns it into a response. */
export class ProblemError extends Error {
  readonly status: number;
  readonly errors?: Record<string, string[]>;
  constructor(status: number, detail: string, errors?: Record<string, string[]>) {
    super(detail);
    this.name = "ProblemError";
    this.status = status;
    this.errors = errors;
  }
}

export function problemBody(status: number, detail: string, errors?: Record<string, string[]>): Problem {
  return { type: "about:blank", title: titles[status] ?? "Error", status, detail, ...(errors ? { errors } : {}) };
}

export function problemResponse(
  status: number,
  detail: string,
  errors?: Record<string, string[]>,
  headers?: HeadersInit,
): Response {
  const h = new Headers(headers);
  h.set("content-type", PROBLEM_CONTENT_TYPE);
  return new Response(JSON.stringify(problemBody(status, detail, errors)), { status, headers: h });
}

/** Field errors of a failed zod parse, keyed by the field's path; the first issue becomes the detail. */
export function problemFromZod(error: z.ZodError): ProblemError {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "body";
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  const first = error.issues[0];
  const detail = first ? first.message : "The request body is not valid.";
  return new ProblemError(400, detail, errors);
}
