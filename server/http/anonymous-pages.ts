// Pages for visitors without a session (docs/requirements.md §D7): they carry nothing per visitor (no CSRF
// token, no nonce; anonymous forms are guarded by their Origin), so each is rendered whole, its
// inline scripts are allowed by hash in the CSP, and it is compressed once. A page whose route
// says `CDN-Cache-Control: max-age=N` (RFC 9213: meant for a shared cache in front of the app,
// which this is) is kept for N seconds and served to every such visitor; the header itself is
// never sent on. A page whose route also declares a Shared-Page-Query (core/shared-page.ts) is
// kept once for every query of exactly those names and well-formed values, and only while it holds
// none of those values.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { SESSION_COOKIE_NAMES } from "../../core/session-cookie.ts";
import { OPAQUE_QUERY_HEADER, type OpaqueQuery, opaqueQueryOf } from "../../core/shared-page.ts";

export type PageEncoding = "br" | "gzip";

/** What a rendered page becomes: its bytes in each encoding, and the hashes its CSP must list. */
export interface WholePage {
  status: number;
  headers: Headers;
  bodies: { identity: Buffer } & Partial<Record<PageEncoding, Buffer>>;
  /** CSP sources ('sha256-…') of every inline script of an HTML page; empty otherwise. */
  scriptHashes: string[];
  /** Seconds a shared cache may keep it (CDN-Cache-Control max-age); 0: not kept. */
  sharedMaxAge: number;
  /** The query parameters the page says it does not show (a shared page only). */
  opaqueQuery?: OpaqueQuery;
  /** Set once the page is kept for every visitor: when the kept copy expires (epoch ms). */
  keptUntil?: number;
}

const brotliWhole = promisify(brotliCompress);
const gzipWhole = promisify(gzip);

/** Compressing less than this costs more than it saves (the same floor as hono/compress). */
const COMPRESS_THRESHOLD = 1024;
const COMPRESSIBLE = /^\s*(?:text\/|application\/(?:json|javascript|xml|x-script)|image\/svg)/i;

/**
 * Every classic or module script written inline in `html`, as a CSP hash source. A script element
 * ends at the first `</script` (HTML parsing rules), and React and React Router escape `<` inside
 * the data they write into scripts, so the text between the tags is exactly what runs.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const [, attributes = "", text = ""] = match;
    if (/\bsrc\s*=/i.test(attributes)) continue;
    hashes.add(`'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

function sharedMaxAgeOf(headers: Headers): number {
  const directive = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(headers.get("cdn-cache-control") ?? "");
  return directive ? Math.min(Number(directive[1]), 3600) : 0;
}

/** True when the request carries a web session cookie, under either of its names. */
export function hasSessionCookie(cookieHeader: string | undefined): boolean {
  const names = new Set((cookieHeader ?? "").split(";").map((pair) => pair.slice(0, pair.indexOf("=")).trim()));
  return SESSION_COOKIE_NAMES.some((name) => names.has(name));
}

/**
 * Reads a rendered answer whole and prepares it for any visitor without a session, compressed in
 * each of `encodings` (a page kept for everyone needs both; one rendered for a single visitor only
 * the one they accept).
 */
export async function wholePage(
  response: Response,
  encodings: readonly PageEncoding[] = ["br", "gzip"],
  { signedIn = false }: { signedIn?: boolean } = {},
): Promise<WholePage> {
  const isHtml = /^text\/html/i.test(response.headers.get("content-type") ?? "");
  // An HTML page is read as text once: the preload hints leave it and its scripts are hashed from
  // it. A signed-in visitor's page keeps its hints (its scripts carry the request's nonce).
  const text = isHtml ? await response.text() : undefined;
  const html = signedIn ? text : text?.replace(/<link rel="modulepreload"[^>]*>/g, "");
  const identity = html === undefined ? Buffer.from(await response.arrayBuffer()) : Buffer.from(html, "utf8");
  const headers = new Headers(response.headers);
  // Only a complete page is kept: never an error, a redirect or a partial answer.
  const sharedMaxAge = response.status === 200 ? sharedMaxAgeOf(headers) : 0;
  const opaqueQuery = sharedMaxAge > 0 ? opaqueQueryOf(headers.get(OPAQUE_QUERY_HEADER)) : undefined;
  headers.delete("cdn-cache-control");
  headers.delete(OPAQUE_QUERY_HEADER);
  headers.delete("content-length");
  const type = headers.get("content-type") ?? "";
  const bodies: WholePage["bodies"] = { identity };
  if (identity.length >= COMPRESS_THRESHOLD && COMPRESSIBLE.test(type) && !headers.has("content-encoding")) {
    // A kept page is compressed once for many visitors: worth the higher levels.
    const [br, gz] = await Promise.all([
      encodings.includes("br")
        ? brotliWhole(identity, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: sharedMaxAge > 0 ? 9 : 4,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
            },
          })
        : undefined,
      encodings.includes("gzip") ? gzipWhole(identity, { level: sharedMaxAge > 0 ? 9 : 6 }) : undefined,
    ]);
    if (br) bodies.br = br;
    if (gz) bodies.gzip = gz;
  }
  const scriptHashes = html === undefined || signedIn ? [] : inlineScriptHashes(html);
  return {
    status: response.status,
    headers,
    bodies,
    scriptHashes,
    sharedMaxAge,
    ...(opaqueQuery ? { opaqueQuery } : {}),
  };
}

/** The page as a response in the best encoding the visitor accepts (`encoding` from Accept-Encoding). */
export function pageResponse(page: WholePage, encoding: PageEncoding | undefined, head: boolean): Response {
  const headers = new Headers(page.headers);
  const compressed = encoding ? page.bodies[encoding] : undefined;
  const body = compressed ?? page.bodies.identity;
  if (compressed) headers.set("content-encoding", encoding as PageEncoding);
  if (page.bodies.br || page.bodies.gzip) headers.append("vary", "Accept-Encoding");
  headers.set("content-length", String(body.length));
  return new Response(head || page.status === 204 || page.status === 304 ? null : new Uint8Array(body), {
    status: page.status,
    headers,
  });
}

/**
 * True when `params` holds each of the query's names exactly once, nothing else, and every value
 * matches its pattern: then the page is the one every such link gets. Stricter than the loader
 * (which reads the first value and ignores other names), so a kept copy only answers a link the
 * loader would accept.
 */
export function sharesCopy(params: URLSearchParams, query: OpaqueQuery): boolean {
  const names = Object.keys(query);
  if ([...params.keys()].length !== names.length) return false;
  return names.every((name) => {
    const values = params.getAll(name);
    return values.length === 1 && (query[name] as RegExp).test(values[0] as string);
  });
}

/** True when the page's text holds any of `values` as written, URL-encoded or HTML-escaped. */
function holdsAny(page: WholePage, values: string[]): boolean {
  if (values.length === 0) return false;
  const text = page.bodies.identity.toString("utf8");
  const escapeHtml = (v: string) =>
    v
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#x27;");
  return values.some((v) => [v, encodeURIComponent(v), escapeHtml(v)].some((form) => text.includes(form)));
}

/**
 * The kept pages for one server build (a new build in development starts afresh), by path, or by
 * path and parameter names for a page that declared its query opaque. Only a page its route marked
 * shareable is kept; while an expired one is rendered again, the other visitors get the expired
 * copy rather than a render each. Nothing is shared before a render has shown its page shareable:
 * a route that is not (the dev mailbox answers by client address) is rendered for each visitor,
 * and so is any other query, in the one encoding its visitor accepts.
 */
export function createPageCache(now: () => number = Date.now, maxEntries = 64) {
  const entries = new Map<string, { expires: number; page: WholePage; refreshing: boolean }>();
  /**
   * The render under way for a key with no copy yet: the visitors who come meanwhile wait for it
   * rather than each rendering and compressing the page at the highest levels (50 at once after a
   * start took 550 MB for the verify page in the benchmark).
   */
  const firstRenders = new Map<string, Promise<unknown>>();
  /** What each path's last shared render declared about its query. */
  const opaqueQueries = new Map<string, OpaqueQuery>();

  function keyOf(url: URL): string | undefined {
    if (!url.search) return url.pathname;
    const query = opaqueQueries.get(url.pathname);
    if (!query || !sharesCopy(url.searchParams, query)) return undefined;
    return `${url.pathname}?${Object.keys(query).sort().join("&")}`;
  }

  function learn(path: string, page: WholePage) {
    if (page.opaqueQuery) opaqueQueries.set(path, page.opaqueQuery);
  }

  return async function cached(
    url: URL,
    encoding: PageEncoding | undefined,
    render: (encodings?: readonly PageEncoding[]) => Promise<WholePage>,
  ): Promise<WholePage> {
    const key = keyOf(url);
    if (key === undefined) {
      const page = await render(encoding ? [encoding] : []);
      learn(url.pathname, page);
      return page;
    }
    let hit = entries.get(key);
    if (hit && (hit.expires > now() || hit.refreshing)) return hit.page;
    const first = hit ? undefined : firstRenders.get(key);
    if (first) {
      await first;
      // Kept: shared with everyone who waited. Not kept (not shareable, or it failed): each
      // visitor renders their own, as without the wait.
      hit = entries.get(key);
      if (hit && hit.expires > now()) return hit.page;
    }
    if (hit) hit.refreshing = true;
    const done = Promise.withResolvers<void>();
    if (!hit && !first) firstRenders.set(key, done.promise);
    try {
      const page = await render();
      learn(url.pathname, page);
      const values = [...url.searchParams.values()];
      if (page.sharedMaxAge > 0 && !holdsAny(page, values)) {
        entries.delete(key);
        page.keptUntil = now() + page.sharedMaxAge * 1000;
        entries.set(key, { expires: page.keptUntil, page, refreshing: false });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      } else {
        entries.delete(key);
      }
      return page;
    } catch (error) {
      entries.delete(key);
      throw error;
    } finally {
      if (firstRenders.get(key) === done.promise) firstRenders.delete(key);
      done.resolve();
    }
  };
}
