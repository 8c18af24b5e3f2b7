// The one typed client the web routes use to reach the provider API (docs/requirements.md §D2). It calls
// the API in process (ADR 0015); the bearer token comes from the server-held session, never
// from the browser, and the client's address travels in a header only the edge sets.
// Every call's path, body and answer are the API's own types through hono/client (ADR 0016):
// renaming a route or changing its schema fails `npm run typecheck` at the caller. The routes
// call it directly, `user.api.call((api) => api.Users["create-user"].$post({ json }))`, with no
// method per operation here (ADR 0032).
import { type ClientResponse, hc } from "hono/client";
import type { SuccessStatusCode } from "hono/utils/http-status";
import type { RouterContextProvider } from "react-router";
import { isRefusalKind, type RefusalKind } from "../../core/refusals.ts";
import type { ApiBindings } from "../../server/api/deps.ts";
import type { Api } from "../../server/api/index.ts";
import { services } from "../context.ts";

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | {
      ok: false;
      status: number;
      detail: string;
      /** The refusal's kind (problem+json `code`, core/refusals.ts): what a page switches on (app/lib/refusals.ts). */
      code?: RefusalKind;
      errors?: Record<string, string[]>;
      /** The problem's members beyond the standard ones (RFC 9457 extensions), unchecked: parse before use. */
      extensions?: Record<string, unknown>;
    };

/** The members every problem has; anything else it carries is an extension. */
const PROBLEM_MEMBERS = new Set(["type", "title", "status", "detail", "instance", "code", "errors"]);

/** The in-process API answers any origin; the URL only carries the path and query. */
const IN_PROCESS_ORIGIN = "http://api.internal";

const FALLBACK_DETAIL = "An error occurred while submitting the form. Please try again.";

export interface ApiClientOptions {
  /** The bearer token from the web session. */
  token?: string;
  /** Called on any 401 (docs/requirements.md §S8: the session ends and the browser lands on the login page). */
  onUnauthorized?: () => Promise<never>;
}

/** What a call answers on success: its handler's `c.json(...)`, or undefined for an empty body. */
type Answer<R> =
  R extends ClientResponse<infer T, infer S, infer F>
    ? S extends SuccessStatusCode
      ? F extends "json"
        ? T
        : undefined
      : never
    : never;

/** The in-process fetch threw: logged where it happened, answered as a 503. */
class ApiUnreachable extends Error {}

/**
 * A query as the API's routes take it: every value as text (hono/client sends strings; the API's
 * schema turns them back into numbers and flags). Values left undefined are not sent.
 */
type AsText<V> = V extends boolean ? `${V}` : V extends string ? V : V extends number ? string : never;

export function asQuery<Q extends Record<string, string | number | boolean | undefined>>(
  query: Q,
): { [K in keyof Q]: AsText<Q[K]> } {
  const text: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) text[key] = String(value);
  // The same keys, each as text (a key left undefined is optional in Q and absent here).
  return text as { [K in keyof Q]: AsText<Q[K]> };
}

export function createApiClient(context: Readonly<RouterContextProvider>, options: ApiClientOptions = {}) {
  const s = services(context);
  // The client lives for one request: its calls share one bearer check of its token.
  const bindings: ApiBindings = { bearerChecks: new Map() };
  const gets = new Map<string, Promise<{ status: number; headers: Headers; body: ArrayBuffer }>>();

  async function inProcessFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    request.headers.set("accept", "application/json");
    if (options.token) request.headers.set("authorization", `Bearer ${options.token}`);
    request.headers.set("x-rewards-client-ip", s.clientIp);
    if (s.userAgent) request.headers.set("user-agent", s.userAgent);
    // A GET already on its way is not sent twice (the same spirit as the one token lookup per
    // page, ADR 0010): the loaders of a page run side by side and may ask the same thing (the
    // settings layout and its Profile page both read MyDetails). Only while it is on its way: an
    // action that polls an import's progress must see it move, and any other method forgets every
    // GET, so the loaders after an action see what it wrote.
    if (request.method !== "GET") gets.clear();
    else {
      const url = request.url;
      let answer = gets.get(url);
      if (!answer) {
        const sent = send(request).then(async (r) => ({
          status: r.status,
          headers: r.headers,
          body: await r.arrayBuffer(),
        }));
        answer = sent;
        gets.set(url, sent);
        const forget = () => {
          if (gets.get(url) === sent) gets.delete(url);
        };
        sent.then(forget, forget);
      }
      const { status, headers, body } = await answer;
      // A Response takes a copy of the bytes it is given: each caller reads its own.
      return new Response(body, { status, headers });
    }
    return send(request);
  }

  async function send(request: Request): Promise<Response> {
    try {
      return await s.apiFetch(request, bindings);
    } catch (error) {
      const path = new URL(request.url).pathname.replace(/^\/api\//, "");
      s.logger.error({ err: error instanceof Error ? error.message : String(error), path }, "provider API unreachable");
      throw new ApiUnreachable();
    }
  }

  const api = hc<Api>(IN_PROCESS_ORIGIN, { fetch: inProcessFetch }).api;

  async function call<R extends ClientResponse<unknown, number, string>>(
    send: Promise<R>,
  ): Promise<ApiResult<Answer<R>>> {
    let response: R;
    try {
      response = await send;
    } catch (error) {
      if (error instanceof ApiUnreachable) return { ok: false, status: 503, detail: FALLBACK_DETAIL };
      throw error;
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { ok: true, status: response.status, data: parsed as Answer<R> };
    if (response.status === 401 && options.onUnauthorized) await options.onUnauthorized();
    const problem = (parsed ?? {}) as { detail?: unknown; code?: unknown; errors?: Record<string, string[]> };
    const extensions =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? Object.fromEntries(Object.entries(parsed).filter(([key]) => !PROBLEM_MEMBERS.has(key)))
        : {};
    return {
      ok: false,
      status: response.status,
      detail: typeof problem.detail === "string" ? problem.detail : FALLBACK_DETAIL,
      ...(isRefusalKind(problem.code) ? { code: problem.code } : {}),
      errors: problem.errors,
      ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    };
  }

  /** A call that answers a file (`read` takes its body), not JSON; a problem is read as call() reads it. */
  async function callFile<T>(
    send: Promise<ClientResponse<unknown, number, string>>,
    read: (response: ClientResponse<unknown, number, string>) => Promise<T>,
  ): Promise<ApiResult<T>> {
    let response: ClientResponse<unknown, number, string>;
    try {
      response = await send;
    } catch (error) {
      if (error instanceof ApiUnreachable) return { ok: false, status: 503, detail: FALLBACK_DETAIL };
      throw error;
    }
    if (response.ok) return { ok: true, status: response.status, data: await read(response) };
    return call(Promise.resolve(response)) as Promise<ApiResult<never>>;
  }
  /** A CSV file. */
  const callText = (send: Promise<ClientResponse<unknown, number, string>>) => callFile(send, (r) => r.text());
  /** A PDF. */
  const callBytes = (send: Promise<ClientResponse<unknown, number, string>>) => callFile(send, (r) => r.arrayBuffer());

  type Routes = typeof api;
  type Sent = ClientResponse<unknown, number, string>;

  const client = {
    /**
     * One call of the API: `send` picks the route and gives its input, typed by the route itself
     * (`(api) => api.Users["create-user"].$post({ json })`). The answer is the route's success body,
     * or the problem it answered (ApiResult).
     */
    call: <R extends Sent>(send: (api: Routes) => Promise<R>) => call(send(api)),
    /** A call that answers a CSV or other text file. */
    text: (send: (api: Routes) => Promise<Sent>) => callText(send(api)),
    /** A call that answers a PDF or other binary file. */
    bytes: (send: (api: Routes) => Promise<Sent>) => callBytes(send(api)),
  };

  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;
