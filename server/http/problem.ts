// RFC 9457 problem details: every API error answers application/problem+json with a `detail`
// whose wording is docs/requirements.md §S8's where SPEC gives one. A refusal of the domain also
// names its kind in `code` (core/refusals.ts, ADR 0039): what a caller switches on, never the detail.
import type { RefusalKind } from "../../core/refusals.ts";

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
  /** The refusal's kind (core/refusals.ts), when the answer is a refusal of the domain. */
  code?: RefusalKind;
  errors?: Record<string, string[]>;
}

/**
 * RFC 9457 extension members: what a problem tells beyond its detail, e.g. where the caller goes
 * next (login of an unverified manager: the verification request it just made).
 */
export type ProblemExtensions = Record<string, string | number | boolean>;

/** Thrown anywhere below an API handler; the API's error handler turns it into a response. */
export class ProblemError extends Error {
  readonly status: number;
  readonly errors?: Record<string, string[]>;
  readonly extensions?: ProblemExtensions;
  readonly code?: RefusalKind;
  constructor(
    status: number,
    detail: string,
    errors?: Record<string, string[]>,
    extensions?: ProblemExtensions,
    code?: RefusalKind,
  ) {
    super(detail);
    this.name = "ProblemError";
    this.status = status;
    this.errors = errors;
    this.extensions = extensions;
    this.code = code;
  }
}

export function problemBody(
  status: number,
  detail: string,
  errors?: Record<string, string[]>,
  extensions?: ProblemExtensions,
  code?: RefusalKind,
): Problem {
  // The extensions first: they never replace a standard member.
  return {
    ...extensions,
    type: "about:blank",
    title: titles[status] ?? "Error",
    status,
    detail,
    ...(code ? { code } : {}),
    ...(errors ? { errors } : {}),
  };
}

export function problemResponse(
  status: number,
  detail: string,
  errors?: Record<string, string[]>,
  headers?: HeadersInit,
  extensions?: ProblemExtensions,
  code?: RefusalKind,
): Response {
  const h = new Headers(headers);
  h.set("content-type", PROBLEM_CONTENT_TYPE);
  return new Response(JSON.stringify(problemBody(status, detail, errors, extensions, code)), { status, headers: h });
}
