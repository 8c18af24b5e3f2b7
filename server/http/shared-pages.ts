// Public pages that every anonymous visitor sees alike (the landing page, help, the waitlist, the
// policies) are rendered once and kept, compressed, for a minute: as long as the catalogue cache
// whose rewards the landing page shows. Each visitor still gets their own CSP nonce and CSRF token:
// the page is kept in pieces around those places, each piece compressed on its own, and a
// visitor's values go in between as stored (uncompressed) deflate blocks of one gzip stream. A
// visitor then costs no React render and no compression; the page's CRC comes from the pieces'. Only gzip:
// zstd would allow a frame per piece, but decoders that stop after the first frame exist (Node's
// own), and gzip is understood by every client. ADR 0011.
import { promisify } from "node:util";
import { constants, crc32, deflateRaw } from "node:zlib";
import { SHARED_PAGE_SLOTS } from "../../app/context.ts";
import { selectEncoding } from "./compress.ts";

/** The pages kept; anything else, or any query string, renders per request. */
export const SHARED_PAGE_PATHS: ReadonlySet<string> = new Set([
  "/",
  "/help",
  "/not-ready-yet",
  "/policies/terms-and-conditions",
  "/policies/privacy-policy",
]);

const TTL_MS = 60_000;

type Slot = keyof typeof SHARED_PAGE_SLOTS;

/** Where a slot sits: inside a script (React Router's data) or in markup (an attribute). */
type Within = "script" | "markup";

type Piece =
  | { kind: "text"; raw: Buffer; deflate: Buffer; crc: number; shift: number }
  | { kind: "slot"; slot: Slot; within: Within };

interface Template {
  pieces: Piece[];
  headers: [string, string][];
}

/** What a path has: its template, or null while it cannot be shared (then it renders per request). */
interface Entry {
  template: Template | null;
  expires: number;
}

/**
 * A visitor's own values. Only these characters are accepted (a nonce is base64; a CSRF token is
 * remix-utils' alphabet and a base64url signature), so that none needs JSON escaping and `&` is
 * the only one a page escapes: React writes it `&amp;` in attributes and React Router `\u0026`
 * in its data script. Anything else renders per request.
 */
export type SlotValues = Record<Slot, string>;
const SAFE_VALUE: Record<Slot, RegExp> = {
  nonce: /^[A-Za-z0-9+/=]{16,64}$/,
  csrf: /^[A-Za-z0-9!@#$%^&*()_+.=-]{16,200}$/,
};
const AMPERSAND: Record<Within, string> = { script: "\\u0026", markup: "&amp;" };

function encodeFor(within: Within, value: string): string {
  return value.includes("&") ? value.replaceAll("&", AMPERSAND[within]) : value;
}

const deflateRawAsync = promisify(deflateRaw);
const slotPattern = new RegExp(`(${Object.values(SHARED_PAGE_SLOTS).join("|")})`);
const slotByMarker = new Map<string, Slot>(
  Object.entries(SHARED_PAGE_SLOTS).map(([slot, marker]) => [marker, slot as Slot]),
);

/** Whether a request may get the shared page: a plain GET of a kept path by a visitor without a session. */
export function sharedPageEligible(method: string, url: URL, cookieHeader: string | undefined): boolean {
  return (
    method === "GET" &&
    url.search === "" &&
    SHARED_PAGE_PATHS.has(url.pathname) &&
    // A session can hold a flashed toast (and, signed in, other state): those visitors render per request.
    !/(?:^|;\s*)(?:__Host-)?session=/.test(cookieHeader ?? "")
  );
}

/**
 * Cuts a page rendered with the slot markers into pieces and compresses each text piece (off the
 * main thread, at the highest level: this runs once a minute per page, not per visitor).
 */
export async function templateFrom(html: string, headers: [string, string][]): Promise<Template> {
  const parts = html.split(slotPattern);
  // Whether each slot sits inside a <script>: the text before it opened one and has not closed it.
  let inScript = false;
  const within = parts.map((part, index) => {
    if (index % 2 === 0) {
      const opened = part.lastIndexOf("<script");
      const closed = part.lastIndexOf("</script");
      if (opened !== closed) inScript = opened > closed;
    }
    return inScript ? "script" : "markup";
  });
  const pieces = await Promise.all(
    parts.map(async (part, index): Promise<Piece | null> => {
      if (index % 2 === 1) return { kind: "slot", slot: slotByMarker.get(part)!, within: within[index]! };
      if (part === "") return null;
      const raw = Buffer.from(part, "utf8");
      // Sync flush: the piece ends on a byte boundary without closing the stream.
      const deflate = await deflateRawAsync(raw, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
      return { kind: "text", raw, deflate, crc: crc32(raw), shift: crc32Shift(raw.length) };
    }),
  );
  return { pieces: pieces.filter((p) => p !== null), headers };
}

/** A non-final stored deflate block holding `data` (RFC 1951 §3.2.4); the stream is byte-aligned here. */
function storedBlock(data: Buffer): Buffer {
  const block = Buffer.alloc(5 + data.length);
  block[0] = 0x00;
  block.writeUInt16LE(data.length, 1);
  block.writeUInt16LE(~data.length & 0xffff, 3);
  data.copy(block, 5);
  return block;
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A final, empty stored block. */
const DEFLATE_END = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);

export type SharedEncoding = "gzip" | "identity";

/** The page with `values` in their places, in `encoding`. */
export function assemble(template: Template, values: SlotValues, encoding: SharedEncoding): Buffer {
  const out: Buffer[] = encoding === "gzip" ? [GZIP_HEADER] : [];
  let checksum = 0;
  let size = 0;
  for (const piece of template.pieces) {
    if (piece.kind === "text") {
      out.push(encoding === "gzip" ? piece.deflate : piece.raw);
      // The page's CRC from the pieces' own, kept with them: no pass over the whole page per visit.
      checksum = crc32Combine(checksum, piece.crc, piece.shift);
      size += piece.raw.length;
      continue;
    }
    const raw = Buffer.from(encodeFor(piece.within, values[piece.slot]), "latin1");
    out.push(encoding === "gzip" ? storedBlock(raw) : raw);
    checksum = crc32Combine(checksum, crc32(raw), crc32Shift(raw.length));
    size += raw.length;
  }
  if (encoding === "gzip") {
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(checksum >>> 0, 0);
    trailer.writeUInt32LE(size >>> 0, 4);
    out.push(DEFLATE_END, trailer);
  }
  return Buffer.concat(out);
}

// CRC-32 of joined pieces from each piece's CRC (zlib's crc32_combine, in its x^n mod p form):
// crc(a ‖ b) = crc(a) · x^(8·len(b)) mod p  ⊕  crc(b), in the reflected bit order of CRC-32.
const CRC_POLY = 0xedb88320;

/** a · b modulo the CRC-32 polynomial (reflected). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let x = b >>> 0;
  for (;;) {
    if (a & m) {
      p ^= x;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    x = x & 1 ? (x >>> 1) ^ CRC_POLY : x >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N: number[] = [];
for (let k = 0, p = 0x40000000; k < 32; k++) {
  X2N.push(p);
  p = multModP(p, p);
}

/** x^(8·bytes) modulo the polynomial: what appending `bytes` bytes does to a CRC. */
export function crc32Shift(bytes: number): number {
  let p = 0x80000000;
  for (let n = bytes, k = 3; n > 0; n = Math.floor(n / 2), k++) {
    if (n % 2 === 1) p = multModP(X2N[k % 32]!, p);
  }
  return p;
}

/** The CRC-32 of a ‖ b from crc(a), crc(b) and crc32Shift(len(b)). */
export function crc32Combine(crcA: number, crcB: number, shiftB: number): number {
  return (multModP(shiftB, crcA) ^ crcB) >>> 0;
}

export interface SharedPagesOptions {
  /** Renders `path` for an anonymous visitor with the slot markers in place of the nonce and token. */
  render: (path: string) => Promise<Response>;
  now?: () => number;
}

/** The kept pages of one application. `respond` answers null when the request must render per request. */
export function createSharedPages(options: SharedPagesOptions) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const refreshing = new Map<string, Promise<Entry>>();

  async function build(path: string): Promise<Template | null> {
    const response = await options.render(path);
    const html = await response.text();
    const type = response.headers.get("content-type") ?? "";
    // Only a plain, cookie-free page with the nonce marker in it is shared; anything else (an
    // error, a redirect, a page that set a cookie) renders per request until the next try.
    if (
      response.status !== 200 ||
      !type.startsWith("text/html") ||
      response.headers.has("set-cookie") ||
      !html.includes(SHARED_PAGE_SLOTS.nonce)
    ) {
      return null;
    }
    const headers = [...response.headers].filter(([name]) => !["content-length", "content-encoding"].includes(name));
    return templateFrom(html, headers);
  }

  function refresh(path: string): Promise<Entry> {
    let pending = refreshing.get(path);
    if (!pending) {
      pending = build(path)
        .catch(() => null)
        .then((template) => {
          const entry = { template, expires: now() + TTL_MS };
          entries.set(path, entry);
          return entry;
        })
        .finally(() => refreshing.delete(path));
      refreshing.set(path, pending);
    }
    return pending;
  }

  return {
    async respond(
      path: string,
      values: SlotValues,
      acceptEncoding: string | undefined,
      setCookie: string | null,
    ): Promise<Response | null> {
      if (!(Object.keys(SAFE_VALUE) as Slot[]).every((slot) => SAFE_VALUE[slot].test(values[slot]))) return null;
      let entry = entries.get(path);
      if (!entry) entry = await refresh(path);
      // Past its minute, the kept page still serves while a fresh one renders in the background.
      else if (entry.expires <= now()) void refresh(path);
      const template = entry.template;
      if (!template) return null;
      const encoding: SharedEncoding = selectEncoding(acceptEncoding, ["gzip"]) ?? "identity";
      const body = assemble(template, values, encoding);
      const headers = new Headers(template.headers);
      headers.set("content-length", String(body.length));
      headers.set("vary", "Accept-Encoding");
      if (encoding !== "identity") headers.set("content-encoding", encoding);
      if (setCookie) headers.append("set-cookie", setCookie);
      // The visitor's own nonce and CSRF token are in it: no shared cache may keep it.
      headers.set("cache-control", "private, no-store");
      return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
    },
  };
}

export type SharedPages = ReturnType<typeof createSharedPages>;
