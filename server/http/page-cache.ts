// The process's one HTTP cache, a shared cache in the sense of RFC 9111 in front of the edge
// (docs/decisions/0018-pages-for-visitors-without-a-session.md, amendment "One standard cache").
// It keeps what an answer's own headers allow a shared cache to keep, as http-cache-semantics
// reads them: a page for visitors without a session whose route says
// `Cache-Control: public, max-age=0, s-maxage=60` (core/shared-page.ts) is kept for a minute, one
// copy per Vary variant (Accept-Encoding), and answered with 304 when the visitor's If-None-Match
// names its ETag. Anything else goes to the edge, which stays the only place that decides what a
// page may say (server/http/app.ts: anything rendered for a session or setting a cookie is
// `private, no-store`). A shared cache in front of the app (a CDN, a caching proxy) reads the same
// headers (docs/OPERATIONS.md, "Running for real").
//
// Stricter than RFC 9111 requires, as a cache may be:
// - a request with a web session cookie is never answered from the cache nor stored: a visitor
//   with a session (a toast, their own details) gets their page from the edge;
// - a request's own Cache-Control and Pragma do not make it skip a fresh copy (RFC 9111 §5.2.1:
//   the client only "prefers"): otherwise any visitor could make every request render the page
//   and compress it at the highest levels. A request's no-store is honoured: its answer is not kept;
// - an answer that sets a cookie is never stored, whatever it says;
// - only GET answers with a Content-Length up to MAX_BODY_BYTES are stored; a HEAD is answered
//   from a stored GET, and a HEAD the cache cannot answer goes to the edge.
//
// It wraps the edge's `fetch` and answers a hit without awaiting anything, so @hono/node-server
// writes it straight to the socket: a hit costs about what a bare Node server does
// (docs/BENCHMARKS.md; kept pages answered through the Hono app cost four times that).
import type { IncomingHttpHeaders } from "node:http";
import type { Http2Bindings, HttpBindings } from "@hono/node-server";
import CachePolicy from "http-cache-semantics";
import type { Logger } from "../logger.ts";
import { hasSessionCookie } from "./anonymous-pages.ts";

/** Node's request and response, as @hono/node-server hands them to the app. */
type Bindings = HttpBindings | Http2Bindings;
export type Fetch = (request: Request, env?: Bindings) => Response | Promise<Response>;

export interface PageCacheOptions {
  /** Writes the edge's request log line for the answers given from the cache. */
  logger?: Logger;
  /** Addresses (scheme-less: host and path with query) kept at once; the oldest is dropped. */
  maxAddresses?: number;
  /** Bytes of bodies kept at once; the oldest addresses are dropped beyond it. */
  maxBytes?: number;
}

/** A copy larger than this is left to the edge: pages are 20–120 KB before compression. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Distinct Accept-Encoding strings per address: real browsers send a handful. */
const MAX_VARIANTS = 8;

interface Stored {
  policy: CachePolicy;
  status: number;
  body: Uint8Array<ArrayBuffer>;
  etag: string | undefined;
  /** The request headers its Vary names, lower-case. */
  varyNames: string[];
  /**
   * The library's last "use it" for a request with the same Vary values, and until when it stands:
   * the end of that second (its Age and Date are to the second) or of the copy's freshness,
   * whichever comes first. Asking the library costs about 30 µs a hit, as much as a bare
   * server's whole answer.
   */
  lastHit?: { until: number; varyValues: string; headers: CachePolicy.Headers };
}

/** What http-cache-semantics reads of a request: the address, the method, lower-case headers. */
interface RequestView {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
}

/**
 * True when `ifNoneMatch` names `etag`, by the weak comparison If-None-Match uses (RFC 9110
 * §13.1.2): the opaque tags are equal, either or both marked weak.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => opaque(tag) === wanted);
}

/** RFC 9111 §4.4: a successful unsafe request makes the stored answers for its address invalid. */
const isUnsafe = (method: string) => method !== "GET" && method !== "HEAD" && method !== "OPTIONS";

export function withPageCache(fetch: Fetch, options: PageCacheOptions = {}): Fetch {
  const { logger, maxAddresses = 128, maxBytes = 32 * 1024 * 1024 } = options;
  /** By address (Host and request target); each address's Vary variants. */
  const stored = new Map<string, Stored[]>();
  /** The bytes of every body in `stored`. */
  let bytes = 0;
  const sizeOf = (variants: Stored[] | undefined) =>
    (variants ?? []).reduce((sum, entry) => sum + entry.body.byteLength, 0);
  /** Sets (or, with no variants, drops) an address's copies, newest last in the map's order. */
  function keep(address: string, variants: Stored[]) {
    bytes -= sizeOf(stored.get(address));
    stored.delete(address);
    if (variants.length === 0) return;
    stored.set(address, variants);
    bytes += sizeOf(variants);
    while (stored.size > maxAddresses || (bytes > maxBytes && stored.size > 1)) {
      const oldest = stored.keys().next().value as string;
      bytes -= sizeOf(stored.get(oldest));
      stored.delete(oldest);
    }
  }
  /** First renders under way, by address and Accept-Encoding: the others wait for them. */
  const pending = new Map<string, Promise<unknown>>();

  /** The request as http-cache-semantics reads it: Node's own headers when node-server gave them. */
  function viewOf(request: Request, env: Bindings | undefined): RequestView {
    const incoming = env?.incoming;
    if (incoming) return { url: incoming.url ?? "/", method: request.method, headers: incoming.headers };
    const url = new URL(request.url);
    return {
      url: url.pathname + url.search,
      method: request.method,
      headers: { host: url.host, ...Object.fromEntries(request.headers) },
    };
  }

  /** The request as a stored copy is chosen for it: without its own cache directives (see above). */
  function withoutDirectives(view: RequestView): RequestView {
    const { headers } = view;
    if (headers["cache-control"] === undefined && headers.pragma === undefined) return view;
    return { ...view, headers: { ...headers, "cache-control": undefined, pragma: undefined } };
  }

  const addressOf = (view: RequestView) => `${view.headers.host ?? ""} ${view.url}`;

  /** The stored answer `view` may be given now, or undefined; drops the ones no longer usable. */
  function lookup(view: RequestView): { entry: Stored; headers: CachePolicy.Headers } | undefined {
    const variants = stored.get(addressOf(view));
    if (!variants) return undefined;
    // A HEAD is answered from the stored GET (RFC 9110 §9.3.2: the same header fields).
    const plain = withoutDirectives(view);
    const asGet = view.method === "GET" ? plain : { ...plain, method: "GET" };
    const now = Date.now();
    for (const entry of variants) {
      const varyValues = entry.varyNames.map((name) => headerOf(plain.headers[name]) ?? "").join("\n");
      const last = entry.lastHit;
      if (last && now < last.until && last.varyValues === varyValues) return { entry, headers: last.headers };
      const { response, revalidation } = entry.policy.evaluateRequest(asGet);
      if (response && !revalidation) {
        const until = Math.min(now - (now % 1000) + 1000, now + entry.policy.timeToLive());
        entry.lastHit = { until, varyValues, headers: response.headers };
        return { entry, headers: response.headers };
      }
    }
    const usable = variants.filter((entry) => entry.policy.timeToLive() > 0);
    if (usable.length < variants.length) keep(addressOf(view), usable);
    return undefined;
  }

  function store(view: RequestView, entry: Stored) {
    const address = addressOf(view);
    // A copy that answers the same requests replaces the old one (a new render after expiry).
    const others = (stored.get(address) ?? []).filter(
      (old) => old.policy.timeToLive() > 0 && !entry.policy.satisfiesWithoutRevalidation(asRequestOf(old)),
    );
    keep(address, [entry, ...others].slice(0, MAX_VARIANTS));
  }

  /** The request a stored copy was made for, to compare two copies' variants. */
  const requestOf = new WeakMap<Stored, RequestView>();
  const asRequestOf = (entry: Stored): RequestView => requestOf.get(entry) as RequestView;

  /** The answer to `view` from a stored copy: 304 when its If-None-Match names the copy, else the copy. */
  function answer(view: RequestView, entry: Stored, headers: CachePolicy.Headers, log = true): Response {
    const started = performance.now();
    const notModified = etagMatches(view.headers["if-none-match"], entry.etag);
    const status = notModified ? 304 : entry.status;
    // The headers may be shared with other answers this second (lastHit): never changed in place.
    const { "content-length": _length, ...without } = headers;
    const response = new Response(notModified || view.method === "HEAD" ? null : entry.body, {
      status,
      headers: (notModified ? without : headers) as Record<string, string>,
    });
    // The edge's request log line (server/http/app.ts): the path only, a query can carry tokens.
    if (log)
      logger?.info(
        { method: view.method, path: view.url.split("?")[0], status, ms: Math.round(performance.now() - started) },
        "request",
      );
    return response;
  }

  /** Asks the edge, and keeps its answer when its headers allow a shared cache to. */
  async function fromEdge(request: Request, env: Bindings | undefined, view: RequestView): Promise<Response> {
    const response = await fetch(request, env);
    if (view.method !== "GET") return response;
    const headers: CachePolicy.Headers = Object.fromEntries(response.headers);
    const policy = new CachePolicy(view, { status: response.status, headers }, { shared: true });
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    const keep =
      policy.storable() &&
      policy.timeToLive() > 0 &&
      !response.headers.has("set-cookie") &&
      length >= 0 &&
      length <= MAX_BODY_BYTES;
    if (!keep) return response;
    const entry: Stored = {
      policy,
      status: response.status,
      body: new Uint8Array(await response.arrayBuffer()),
      etag: response.headers.get("etag") ?? undefined,
      varyNames: (response.headers.get("vary") ?? "")
        .toLowerCase()
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    };
    requestOf.set(entry, withoutDirectives(view));
    store(view, entry);
    // Answered from the new copy, so a conditional request gets its 304; the edge has logged it.
    return answer(view, entry, policy.responseHeaders(), false);
  }

  return (request, env) => {
    const view = viewOf(request, env);
    if (isUnsafe(view.method)) {
      return (async () => {
        const response = await fetch(request, env);
        if (response.status < 400) keep(addressOf(view), []);
        return response;
      })();
    }
    if ((view.method !== "GET" && view.method !== "HEAD") || hasSessionCookie(headerOf(view.headers.cookie))) {
      return fetch(request, env);
    }
    const hit = lookup(view);
    // Answered without awaiting: node-server writes a Response it gets synchronously at once.
    if (hit) return answer(view, hit.entry, hit.headers);
    if (view.method === "HEAD") return fetch(request, env);
    return (async () => {
      // Visitors who come while the first render of the same variant is under way wait for it
      // rather than each rendering and compressing the page (50 at once after a start took
      // 550 MB for one page in the benchmark, docs/BENCHMARKS.md).
      const key = `${addressOf(view)} ${headerOf(view.headers["accept-encoding"]) ?? ""}`;
      const first = pending.get(key);
      if (first) {
        await first.catch(() => undefined);
        const after = lookup(view);
        if (after) return answer(view, after.entry, after.headers);
        return fromEdge(request, env, view);
      }
      const render = fromEdge(request, env, view);
      pending.set(key, render);
      try {
        return await render;
      } finally {
        pending.delete(key);
      }
    })();
  };
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
