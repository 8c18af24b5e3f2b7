// Compression of dynamic responses (pages, API JSON). Built assets are pre-compressed
// (scripts/compress-assets.ts) and never pass through here with a body to compress.
//
// The encodings and levels are chosen for CPU per response, measured on the landing page's
// ~100 KB of HTML (scripts/bench/http-load.ts): zstd level 3 costs about a tenth of gzip's
// default level for a slightly smaller result; brotli quality 4 about half of gzip 6, also
// smaller; gzip level 6 stays for clients that offer nothing else. Current browsers offer zstd
// (Chromium, Firefox) or brotli (Safari). Pieces of a streamed page are joined per event-loop
// turn before compression (about 15 % less CPU per page, measured in process).
import { Duplex } from "node:stream";
import { promisify } from "node:util";
import {
  brotliCompress,
  constants,
  createBrotliCompress,
  createGzip,
  createZstdCompress,
  gzip,
  zstdCompress,
} from "node:zlib";
import type { MiddlewareHandler } from "hono";
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from "hono/compress";
import { parseAccept } from "hono/utils/accept";

export type Encoding = "zstd" | "br" | "gzip";

/** In order of preference when the client accepts several equally. */
const ENCODINGS: Encoding[] = ["zstd", "br", "gzip"];

function compressor(encoding: Encoding, sizeHint: number) {
  switch (encoding) {
    case "zstd":
      return createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } });
    case "br":
      return createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          ...(sizeHint > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: sizeHint } : {}),
        },
      });
    case "gzip":
      return createGzip({ level: 6 });
  }
}

const zstdWhole = promisify(zstdCompress);
const brotliWhole = promisify(brotliCompress);
const gzipWhole = promisify(gzip);

/** A whole body compressed in one call, with the compressor sized to it (off the main thread). */
function compressWhole(encoding: Encoding, body: Buffer): Promise<Buffer> {
  switch (encoding) {
    case "zstd":
      return zstdWhole(body, { params: { [constants.ZSTD_c_compressionLevel]: 3 }, pledgedSrcSize: body.length });
    case "br":
      return brotliWhole(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
    case "gzip":
      return gzipWhole(body, { level: 6 });
  }
}

/** The best of `offered` (in order of preference) the Accept-Encoding header allows (q=0 refuses; `*` covers the rest). */
export function selectEncoding<E extends string = Encoding>(
  header: string | undefined,
  offered: readonly E[] = ENCODINGS as unknown as E[],
): E | undefined {
  if (!header) return undefined;
  const accepts = parseAccept(header);
  const wildcard = accepts.find((a) => a.type === "*")?.q;
  let best: { encoding: E; q: number } | undefined;
  for (const encoding of offered) {
    const explicit = accepts.find((a) => a.type.toLowerCase() === encoding);
    const q = explicit ? explicit.q : (wildcard ?? 0);
    if (q === 1) return encoding;
    if (q > 0 && (!best || q > best.q)) best = { encoding, q };
  }
  return best?.encoding;
}

/**
 * React writes a page in many small pieces; compressing each on its own costs a zlib call (and
 * its callback) per piece. Pieces written in the same turn of the event loop are joined (up to
 * 32 KB) and passed on together, so what streams still streams.
 */
function coalesce(limit = 32 * 1024): TransformStream<Uint8Array, Uint8Array> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let scheduled = false;
  let output: TransformStreamDefaultController<Uint8Array> | undefined;
  const pass = () => {
    scheduled = false;
    if (!size || !output) return;
    const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    try {
      output.enqueue(joined);
    } catch {
      // the response was cancelled (the client went away)
    }
  };
  return new TransformStream({
    start(controller) {
      output = controller;
    },
    transform(chunk) {
      parts.push(chunk);
      size += chunk.byteLength;
      if (size >= limit) pass();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(pass);
      }
    },
    flush() {
      pass();
    },
  });
}

const noTransform = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const json = /^application\/(?:problem\+)?json\b/i;
const varyAcceptEncoding = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i;

/** Like hono/compress (same rules for what is compressed), with zstd and brotli at set levels. */
export function compress(options: { threshold?: number } = {}): MiddlewareHandler {
  const threshold = options.threshold ?? 1024;
  return async function compressResponse(c, next) {
    await next();
    const res = c.res;
    const length = res.headers.get("content-length");
    const type = res.headers.get("content-type");
    if (
      res.status === 206 ||
      res.headers.has("content-encoding") ||
      res.headers.has("transfer-encoding") ||
      c.req.method === "HEAD" ||
      (length && Number(length) < threshold) ||
      !type ||
      !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type) ||
      noTransform.test(res.headers.get("cache-control") ?? "")
    ) {
      return;
    }
    const vary = res.headers.get("vary");
    if (vary !== "*" && !(vary && varyAcceptEncoding.test(vary))) {
      c.header("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
    }
    const encoding = selectEncoding(c.req.header("accept-encoding"));
    if (!encoding || !res.body) return;
    if (!length && json.test(type)) {
      // An API answer is a whole value, never streamed, and usually small: read it, leave it as it
      // is under the threshold, and compress it in one call otherwise. A streaming compressor
      // (sized for any length) costs more than a small answer (measured: /healthz at a tenth of
      // the landing page's rate).
      const body = Buffer.from(await res.arrayBuffer());
      const headers = new Headers(res.headers);
      const encoded = body.length < threshold ? body : await compressWhole(encoding, body);
      if (encoded !== body) headers.set("content-encoding", encoding);
      headers.set("content-length", String(encoded.length));
      c.res = new Response(encoded as Uint8Array<ArrayBuffer>, {
        status: res.status,
        statusText: res.statusText,
        headers,
      });
      return;
    }
    const stream = Duplex.toWeb(compressor(encoding, Number(length) || 0)) as unknown as ReadableWritablePair<
      Uint8Array,
      Uint8Array
    >;
    c.res = new Response(res.body.pipeThrough(coalesce()).pipeThrough(stream), res);
    c.res.headers.delete("content-length");
    c.res.headers.set("content-encoding", encoding);
    const etag = c.res.headers.get("etag");
    if (etag && !etag.startsWith("W/")) c.res.headers.set("etag", `W/${etag}`);
  };
}
