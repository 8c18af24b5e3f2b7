import { crc32, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SHARED_PAGE_SLOTS } from "../../app/context.ts";
import {
  assemble,
  crc32Combine,
  crc32Shift,
  createSharedPages,
  type SharedEncoding,
  sharedPageEligible,
  templateFrom,
} from "./shared-pages.ts";

const { nonce: N, csrf: T } = SHARED_PAGE_SLOTS;
const page = (extra = "") =>
  `<!doctype html><html><head><script nonce="${N}">1</script><link rel="modulepreload" nonce="${N}"/></head>` +
  `<body><form><input type="hidden" name="csrf" value="${T}"/></form>${extra}` +
  `<script nonce="${N}">enqueue("[\\"csrf\\",\\"${T}\\"]")</script><p>${"Reward your people instantly. ".repeat(200)}</p></body></html>`;

/** What React and React Router would have written for these values. */
const expected = (nonce: string, token: string, extra = "") =>
  page(extra)
    .replaceAll(N, nonce)
    .replace(`value="${T}"`, `value="${token.replaceAll("&", "&amp;")}"`)
    .replace(`\\"${T}\\"`, `\\"${token.replaceAll("&", "\\u0026")}\\"`);

function decode(body: Buffer, encoding: SharedEncoding): string {
  if (encoding === "gzip") return gunzipSync(body).toString("utf8");
  return body.toString("utf8");
}

const visitor = {
  nonce: "ZgYOslaTTxpI04L/FDUzhA==",
  csrf: "m(g&Mc1yKNF+aKync(nx$kYmwz5mi&lh.v8pvJmLrRBpIYjaaSG0gVzKc=",
};

describe("assembling a shared page", () => {
  for (const encoding of ["gzip", "identity"] as const) {
    it(`${encoding}: decodes to the page with the visitor's values, escaped for where each sits`, async () => {
      const template = await templateFrom(page(), [["content-type", "text/html; charset=utf-8"]]);
      const body = assemble(template, visitor, encoding);
      expect(decode(body, encoding)).toBe(expected(visitor.nonce, visitor.csrf));
    });
  }

  it("gives each visitor their own values from the same template", async () => {
    const template = await templateFrom(page(), []);
    const other = { nonce: "AAAAAAAAAAAAAAAAAAAAAA==", csrf: "abcdefghijklmnopqrstuvwxyz012345.sig=" };
    expect(decode(assemble(template, other, "gzip"), "gzip")).toBe(expected(other.nonce, other.csrf));
    expect(decode(assemble(template, visitor, "gzip"), "gzip")).toBe(expected(visitor.nonce, visitor.csrf));
  });

  it("handles pages that start or end with a slot, and slots side by side", async () => {
    const html = `${N}<a title="${T}${N}">x</a>${T}`;
    const template = await templateFrom(html, []);
    for (const encoding of ["gzip", "identity"] as const) {
      expect(decode(assemble(template, visitor, encoding), encoding)).toBe(
        `${visitor.nonce}<a title="${visitor.csrf.replaceAll("&", "&amp;")}${visitor.nonce}">x</a>${visitor.csrf.replaceAll("&", "&amp;")}`,
      );
    }
  });
});

describe("the CRC of joined pieces", () => {
  it("equals the CRC of the joined bytes, for any pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        const joined = Buffer.concat([a, b]);
        expect(crc32Combine(crc32(a), crc32(b), crc32Shift(b.length))).toBe(crc32(joined));
      }),
    );
    const big = Buffer.alloc(200_000, 0x61);
    expect(crc32Combine(crc32("x"), crc32(big), crc32Shift(big.length))).toBe(
      crc32(Buffer.concat([Buffer.from("x"), big])),
    );
  });
});

describe("which requests get a shared page", () => {
  const url = (s: string) => new URL(s, "http://localhost");
  it("a plain GET of a kept path without a session", () => {
    expect(sharedPageEligible("GET", url("/"), undefined)).toBe(true);
    expect(sharedPageEligible("GET", url("/help"), "csrf=abc; theme=x")).toBe(true);
  });
  it("not a visitor with a session, a query string, another method or another path", () => {
    expect(sharedPageEligible("GET", url("/"), "csrf=abc; session=123")).toBe(false);
    expect(sharedPageEligible("GET", url("/"), "__Host-session=123")).toBe(false);
    expect(sharedPageEligible("GET", url("/?ref=mail"), undefined)).toBe(false);
    expect(sharedPageEligible("HEAD", url("/"), undefined)).toBe(false);
    expect(sharedPageEligible("POST", url("/help"), undefined)).toBe(false);
    expect(sharedPageEligible("GET", url("/portal/dashboard"), undefined)).toBe(false);
    expect(sharedPageEligible("GET", url("/Help"), undefined)).toBe(false);
  });
});

describe("the kept pages", () => {
  const html = (status = 200, headers: Record<string, string> = {}) =>
    new Response(page(), { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });

  it("renders a page once per minute, serves the kept one meanwhile and refreshes it after", async () => {
    let clock = 0;
    let renders = 0;
    const pages = createSharedPages({
      now: () => clock,
      render: async () => {
        renders++;
        return html();
      },
    });
    const first = await pages.respond("/", visitor, "gzip, deflate, br, zstd", "csrf=new");
    expect(first?.headers.get("content-encoding")).toBe("gzip");
    expect(first?.headers.get("vary")).toBe("Accept-Encoding");
    expect(first?.headers.get("set-cookie")).toBe("csrf=new");
    expect(decode(Buffer.from(await first!.arrayBuffer()), "gzip")).toBe(expected(visitor.nonce, visitor.csrf));
    await Promise.all([1, 2, 3].map(() => pages.respond("/", visitor, "gzip", null)));
    expect(renders).toBe(1);
    clock = 61_000;
    const stale = await pages.respond("/", visitor, undefined, null);
    expect(stale?.headers.get("content-encoding")).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(renders).toBe(2);
  });

  it("renders together visitors who arrive before the first page is ready", async () => {
    let renders = 0;
    const pages = createSharedPages({
      render: async () => {
        renders++;
        await new Promise((r) => setTimeout(r, 20));
        return html();
      },
    });
    const answers = await Promise.all([1, 2, 3, 4].map(() => pages.respond("/help", visitor, "gzip", null)));
    expect(answers.every((a) => a?.status === 200)).toBe(true);
    expect(renders).toBe(1);
  });

  it("does not share an error, a page that sets a cookie, or a page without the nonce slot", async () => {
    for (const response of [
      () => html(500),
      () => html(200, { "set-cookie": "session=1" }),
      () => new Response("<p>no scripts</p>", { headers: { "content-type": "text/html" } }),
      () => new Response("{}", { headers: { "content-type": "application/json" } }),
    ]) {
      const pages = createSharedPages({ render: async () => response() });
      expect(await pages.respond("/", visitor, "gzip", null)).toBeNull();
    }
  });

  it("a failed render is tried again after a minute, not on every request", async () => {
    let clock = 0;
    let renders = 0;
    const pages = createSharedPages({
      now: () => clock,
      render: async () => {
        renders++;
        if (renders === 1) throw new Error("database unavailable");
        return html();
      },
    });
    expect(await pages.respond("/", visitor, "gzip", null)).toBeNull();
    expect(await pages.respond("/", visitor, "gzip", null)).toBeNull();
    expect(renders).toBe(1);
    clock = 60_000;
    await pages.respond("/", visitor, "gzip", null);
    await new Promise((r) => setTimeout(r, 50));
    expect((await pages.respond("/", visitor, "gzip", null))?.status).toBe(200);
  });

  it("renders per request when a visitor's values are not of the expected alphabet", async () => {
    const pages = createSharedPages({ render: async () => html() });
    expect(await pages.respond("/", { ...visitor, csrf: 'a"b<script>' }, "gzip", null)).toBeNull();
    expect(await pages.respond("/", { ...visitor, nonce: "short" }, "gzip", null)).toBeNull();
  });
});
