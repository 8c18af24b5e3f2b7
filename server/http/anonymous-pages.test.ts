import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SHARED_PAGE_CACHE_CONTROL } from "../../core/shared-page.ts";
import { hasSessionCookie, inlineScriptHashes, pageResponse, saysShareable, wholePage } from "./anonymous-pages.ts";

const sha = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

function htmlResponse(body: string, init: { status?: number; headers?: Record<string, string> } = {}) {
  return new Response(body, {
    status: init.status ?? 200,
    headers: { "content-type": "text/html; charset=utf-8", ...init.headers },
  });
}

describe("inlineScriptHashes", () => {
  it("hashes the text of each inline script, classic or module, and skips scripts with a src", () => {
    const html = `<script>window.a = 1;</script><script type="module" async="">import "/x.js";\nrun();</script><script src="/y.js"></script><script></script>`;
    expect(inlineScriptHashes(html)).toEqual([sha("window.a = 1;"), sha('import "/x.js";\nrun();'), sha("")]);
  });

  it("lists a script repeated on the page once", () => {
    expect(inlineScriptHashes("<script>1</script><p></p><script>1</script>")).toEqual([sha("1")]);
  });
});

describe("wholePage", () => {
  const page = `<!doctype html><html><head><link rel="modulepreload" href="/assets/a.js"/><link rel="icon" href="/favicon.svg"/></head><body>${"<p>Reward your people.</p>".repeat(100)}<script>boot()</script></body></html>`;

  const shareable = { "Cache-Control": SHARED_PAGE_CACHE_CONTROL };

  it("leaves out the module preload hints, lists the inline scripts, and compresses once in brotli and gzip", async () => {
    const whole = await wholePage(htmlResponse(page, { headers: shareable }));
    const html = whole.bodies.identity.toString("utf8");
    expect(html).not.toContain("modulepreload");
    expect(html).toContain('<link rel="icon" href="/favicon.svg"/>');
    expect(whole.scriptHashes).toEqual([sha("boot()")]);
    expect(whole.shared).toBe(true);
    expect(whole.headers.get("cache-control")).toBe(SHARED_PAGE_CACHE_CONTROL);
    expect(whole.headers.get("etag")).toMatch(/^W\/"[A-Za-z0-9_-]{32}"$/);
    expect(brotliDecompressSync(whole.bodies.br as Buffer).toString("utf8")).toBe(html);
    expect(gunzipSync(whole.bodies.gzip as Buffer).toString("utf8")).toBe(html);
  });

  it("shares nothing but a complete page for no one in particular: never an error, a redirect, a cookie or a signed-in page", async () => {
    const notShared = async (response: Response, options?: { signedIn: boolean }) => {
      const whole = await wholePage(response, ["br"], options);
      expect(whole.shared).toBe(false);
      expect(whole.headers.get("cache-control"), "the edge answers it private, no-store").toBeNull();
      expect(whole.headers.get("etag")).toBeNull();
    };
    await notShared(htmlResponse(page, { status: 500, headers: shareable }));
    await notShared(new Response(null, { status: 302, headers: { location: "/", ...shareable } }));
    await notShared(htmlResponse(page));
    await notShared(htmlResponse(page, { headers: { ...shareable, "set-cookie": "toast=1" } }));
    await notShared(htmlResponse(page, { headers: shareable }), { signedIn: true });
    // The same text has the same validator, whatever encoding a visitor gets.
    const [a, b] = await Promise.all([
      wholePage(htmlResponse(page, { headers: shareable }), ["br"]),
      wholePage(htmlResponse(page, { headers: shareable }), ["gzip"]),
    ]);
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
  });

  it.each([
    ["public, max-age=0, s-maxage=60", true],
    ["Public, S-MaxAge=5", true],
    ["public, max-age=60", false],
    ["s-maxage=60", false],
    ["public, s-maxage=0", false],
    ["public, s-maxage=60, no-store", false],
    ["public, s-maxage=60, private", false],
    [null, false],
  ])("saysShareable(%s) is %s", (cacheControl, expected) => {
    expect(saysShareable(cacheControl)).toBe(expected);
  });

  it("answers in the encoding asked for, with its length, and no body to a HEAD", async () => {
    const whole = await wholePage(htmlResponse(page));
    const br = pageResponse(whole, "br", false);
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    // Vary too when this visitor gets it uncompressed: another visitor may get it compressed.
    expect(pageResponse(await wholePage(htmlResponse(page), []), undefined, false).headers.get("vary")).toBe(
      "Accept-Encoding",
    );
    expect(Number(br.headers.get("content-length"))).toBe((await br.arrayBuffer()).byteLength);
    const plain = pageResponse(whole, undefined, false);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(whole.bodies.identity.toString("utf8"));
    expect(await pageResponse(whole, "gzip", true).text()).toBe("");
  });

  it("does not compress a short answer", async () => {
    const whole = await wholePage(htmlResponse("<p>short</p>"));
    expect(whole.bodies.br).toBeUndefined();
    expect(pageResponse(whole, "br", false).headers.get("content-encoding")).toBeNull();
    expect(pageResponse(whole, "br", false).headers.get("vary")).toBeNull();
  });
});

describe("hasSessionCookie", () => {
  it.each([
    ["session=abc", true],
    ["csrf=x; __Host-session=abc", true],
    ["mysession=abc", false],
    ["csrf=x", false],
    [undefined, false],
  ])("%s → %s", (cookie, expected) => {
    expect(hasSessionCookie(cookie)).toBe(expected);
  });
});
