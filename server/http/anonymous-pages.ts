// Pages for visitors without a session (docs/requirements.md §D7): they carry nothing per visitor (no CSRF
// token, no nonce; anonymous forms are guarded by their Origin), so each is rendered whole, its
// inline scripts are allowed by hash in the CSP, and it is compressed once. A page whose route
// says any cache may share it (`Cache-Control: public, …, s-maxage=N`, core/shared-page.ts) keeps
// that header and gets an ETag; the process's shared cache (./page-cache.ts), and any in front of
// the app, keep it by those headers. Any other page is `private, no-store` (server/http/app.ts).
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { SESSION_COOKIE_NAMES } from "../../modules/identity/session-cookie.ts";

export type PageEncoding = "br" | "gzip";

/** What a rendered page becomes: its bytes in each encoding, and the hashes its CSP must list. */
export interface WholePage {
  status: number;
  headers: Headers;
  bodies: { identity: Buffer } & Partial<Record<PageEncoding, Buffer>>;
  /** CSP sources ('sha256-…') of every inline script of an HTML page; empty otherwise. */
  scriptHashes: string[];
  /**
   * True when its route said a shared cache may keep it (Cache-Control public with s-maxage) and
   * it is a complete page that sets no cookie: its headers then keep that Cache-Control and carry
   * an ETag. False: the edge answers it `private, no-store`.
   */
  shared: boolean;
  /** True when it is worth compressing: its answers then vary by Accept-Encoding. */
  compressible: boolean;
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

/** True when a Cache-Control value lets a shared cache keep the answer: public, with s-maxage above 0 (RFC 9111 §5.2.2). */
export function saysShareable(cacheControl: string | null): boolean {
  const directives = (cacheControl ?? "")
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  const sMaxAge = directives.find((d) => d.startsWith("s-maxage="));
  return (
    directives.includes("public") &&
    !directives.some((d) => d === "private" || d === "no-store" || d.startsWith("no-cache")) &&
    Number(sMaxAge?.slice("s-maxage=".length)) > 0
  );
}

/** A weak validator (RFC 9110 §8.8.1) of a page's text: the same for each of its encodings. */
function etagOf(identity: Buffer): string {
  return `W/"${createHash("sha256").update(identity).digest("base64url").slice(0, 32)}"`;
}

/** True when the request carries a web session cookie, under either of its names. */
export function hasSessionCookie(cookieHeader: string | undefined): boolean {
  const names = new Set((cookieHeader ?? "").split(";").map((pair) => pair.slice(0, pair.indexOf("=")).trim()));
  return SESSION_COOKIE_NAMES.some((name) => names.has(name));
}

/**
 * Reads a rendered answer whole and prepares it for any visitor without a session, compressed in
 * each of `encodings` (the edge asks for the one its visitor accepts; a cache keeps a copy per
 * encoding, ./page-cache.ts).
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
  // Only a complete page for no one in particular is shared: never an error, a redirect, a
  // partial answer, one that sets a cookie, or a signed-in visitor's.
  const shared =
    !signedIn && response.status === 200 && !headers.has("set-cookie") && saysShareable(headers.get("cache-control"));
  if (shared) headers.set("etag", etagOf(identity));
  else {
    headers.delete("cache-control");
    headers.delete("etag");
  }
  headers.delete("content-length");
  const type = headers.get("content-type") ?? "";
  const bodies: WholePage["bodies"] = { identity };
  const compressible =
    identity.length >= COMPRESS_THRESHOLD && COMPRESSIBLE.test(type) && !headers.has("content-encoding");
  if (compressible) {
    // A shared page is compressed once for many visitors: worth the higher levels.
    const [br, gz] = await Promise.all([
      encodings.includes("br")
        ? brotliWhole(identity, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: shared ? 9 : 4,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
            },
          })
        : undefined,
      encodings.includes("gzip") ? gzipWhole(identity, { level: shared ? 9 : 6 }) : undefined,
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
    shared,
    compressible,
  };
}

/** The page as a response in the best encoding the visitor accepts (`encoding` from Accept-Encoding). */
export function pageResponse(page: WholePage, encoding: PageEncoding | undefined, head: boolean): Response {
  const headers = new Headers(page.headers);
  const compressed = encoding ? page.bodies[encoding] : undefined;
  const body = compressed ?? page.bodies.identity;
  if (compressed) headers.set("content-encoding", encoding as PageEncoding);
  // Whether or not this visitor's answer is compressed: a cache must not give it to another
  // visitor who accepts other encodings.
  if (page.compressible) headers.append("vary", "Accept-Encoding");
  headers.set("content-length", String(body.length));
  return new Response(head || page.status === 204 || page.status === 304 ? null : new Uint8Array(body), {
    status: page.status,
    headers,
  });
}
