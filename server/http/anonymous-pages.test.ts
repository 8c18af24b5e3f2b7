import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { sharedLinkPageHeaders } from "../../core/shared-page.ts";
import {
  createPageCache,
  hasSessionCookie,
  inlineScriptHashes,
  type PageEncoding,
  pageResponse,
  wholePage,
} from "./anonymous-pages.ts";

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

  it("leaves out the module preload hints, lists the inline scripts, and compresses once in brotli and gzip", async () => {
    const whole = await wholePage(htmlResponse(page, { headers: { "CDN-Cache-Control": "max-age=60" } }));
    const html = whole.bodies.identity.toString("utf8");
    expect(html).not.toContain("modulepreload");
    expect(html).toContain('<link rel="icon" href="/favicon.svg"/>');
    expect(whole.scriptHashes).toEqual([sha("boot()")]);
    expect(whole.sharedMaxAge).toBe(60);
    expect(whole.headers.has("cdn-cache-control")).toBe(false);
    expect(brotliDecompressSync(whole.bodies.br as Buffer).toString("utf8")).toBe(html);
    expect(gunzipSync(whole.bodies.gzip as Buffer).toString("utf8")).toBe(html);
  });

  it("keeps nothing but a complete page: an error or a redirect is never shared", async () => {
    const shareable = { "CDN-Cache-Control": "max-age=60" };
    expect((await wholePage(htmlResponse(page, { status: 500, headers: shareable }))).sharedMaxAge).toBe(0);
    const redirect = new Response(null, { status: 302, headers: { location: "/", ...shareable } });
    expect((await wholePage(redirect)).sharedMaxAge).toBe(0);
    expect((await wholePage(htmlResponse(page))).sharedMaxAge).toBe(0);
  });

  it("answers in the encoding asked for, with its length, and no body to a HEAD", async () => {
    const whole = await wholePage(htmlResponse(page));
    const br = pageResponse(whole, "br", false);
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
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
  });
});

const at = (path: string) => new URL(path, "https://rewards.test");

describe("createPageCache", () => {
  function renderer(sharedMaxAge: number) {
    let renders = 0;
    const render = async () => {
      renders++;
      return { ...(await wholePage(htmlResponse(`<p>render ${renders}</p>`))), sharedMaxAge };
    };
    return { render, renders: () => renders };
  }

  it("keeps a shareable page for its age, then renders it again", async () => {
    let now = 0;
    const cached = createPageCache(() => now);
    const r = renderer(60);
    await cached(at("/"), "br", r.render);
    await cached(at("/"), "br", r.render);
    now = 59_999;
    await cached(at("/"), "br", r.render);
    expect(r.renders()).toBe(1);
    now = 60_000;
    const again = await cached(at("/"), "br", r.render);
    expect(r.renders()).toBe(2);
    expect(again.bodies.identity.toString()).toBe("<p>render 2</p>");
  });

  it("serves the expired copy to others while one visitor renders it again", async () => {
    let now = 0;
    const cached = createPageCache(() => now);
    const r = renderer(60);
    await cached(at("/"), "br", r.render);
    now = 61_000;
    const refreshing = cached(at("/"), "br", r.render);
    const meanwhile = await cached(at("/"), "br", r.render);
    expect(meanwhile.bodies.identity.toString()).toBe("<p>render 1</p>");
    expect((await refreshing).bodies.identity.toString()).toBe("<p>render 2</p>");
    expect(r.renders()).toBe(2);
  });

  it("never keeps a page its route did not mark shareable, nor a failed render", async () => {
    const cached = createPageCache(() => 0);
    const r = renderer(0);
    await cached(at("/dev/mailbox"), "br", r.render);
    await cached(at("/dev/mailbox"), "br", r.render);
    expect(r.renders()).toBe(2);
    await expect(cached(at("/"), "br", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    const ok = renderer(60);
    await cached(at("/"), "br", ok.render);
    expect(ok.renders()).toBe(1);
  });

  it("renders a page with no copy yet once for the visitors who come while it renders", async () => {
    const cached = createPageCache(() => 0);
    const r = renderer(60);
    const pages = await Promise.all(Array.from({ length: 20 }, () => cached(at("/"), "br", r.render)));
    expect(r.renders()).toBe(1);
    expect(new Set(pages.map((p) => p.bodies.identity.toString()))).toEqual(new Set(["<p>render 1</p>"]));
  });

  it("lets each waiting visitor render their own when the first render is not kept or fails", async () => {
    const cached = createPageCache(() => 0);
    const r = renderer(0);
    await Promise.all(Array.from({ length: 5 }, () => cached(at("/dev/mailbox"), "br", r.render)));
    expect(r.renders()).toBe(5);
    let calls = 0;
    const failsOnce = async () => {
      calls++;
      if (calls === 1) throw new Error("down");
      return { ...(await wholePage(htmlResponse("<p>ok</p>"))), sharedMaxAge: 60 };
    };
    const answers = await Promise.allSettled(Array.from({ length: 3 }, () => cached(at("/"), "br", failsOnce)));
    expect(answers.map((a) => a.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(calls).toBe(3);
  });

  it("holds at most its number of pages, dropping the oldest", async () => {
    const cached = createPageCache(() => 0, 2);
    const r = renderer(60);
    for (const path of ["/a", "/b", "/c", "/a"]) await cached(at(path), "br", r.render);
    expect(r.renders()).toBe(4);
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

describe("createPageCache: a page whose route declares its query opaque", () => {
  const query = { userId: /^[0-9a-f]{8}$/, requestToken: /^\S{1,20}$/ };
  /** Renders of the verify-like page: each says which encodings it was asked for. */
  function linkPage(body = "<p>Step 2</p>") {
    const asked: (readonly string[] | undefined)[] = [];
    const render = async (encodings?: readonly PageEncoding[]) => {
      asked.push(encodings);
      const headers = sharedLinkPageHeaders(query)();
      return wholePage(htmlResponse(body.repeat(200), { headers }), encodings);
    };
    return { render, asked };
  }

  it("learns the query from a render, then keeps one copy for every link of exactly those names and well-formed values", async () => {
    const cached = createPageCache(() => 0);
    const r = linkPage();
    const first = await cached(at("/corporate/verify?userId=0a1b2c3d&requestToken=one"), "gzip", r.render);
    expect(first.opaqueQuery).toBeDefined();
    expect(r.asked, "the first link is rendered for its visitor, in the encoding they accept").toEqual([["gzip"]]);
    await cached(at("/corporate/verify?userId=0a1b2c3d&requestToken=two"), "br", r.render);
    await cached(at("/corporate/verify?requestToken=three&userId=99999999"), "gzip", r.render);
    await cached(at("/corporate/verify?userId=11111111&requestToken=four"), "br", r.render);
    expect(r.asked, "kept from the second link on, in both encodings").toEqual([["gzip"], undefined]);
  });

  it.each([
    ["a malformed value", "?userId=NOT-HEX!&requestToken=two"],
    ["a missing name", "?userId=0a1b2c3d"],
    ["a repeated name", "?userId=0a1b2c3d&userId=0a1b2c3d&requestToken=two"],
    ["another parameter", "?userId=0a1b2c3d&requestToken=two&resent=1"],
  ])("renders %s for its visitor alone, never from the kept copy", async (_, search) => {
    const cached = createPageCache(() => 0);
    const r = linkPage();
    await cached(at("/corporate/verify?userId=0a1b2c3d&requestToken=one"), "br", r.render);
    await cached(at("/corporate/verify?userId=0a1b2c3d&requestToken=one"), "br", r.render);
    expect(r.asked).toHaveLength(2);
    await cached(at(`/corporate/verify${search}`), "br", r.render);
    await cached(at(`/corporate/verify${search}`), "br", r.render);
    expect(r.asked).toEqual([["br"], undefined, ["br"], ["br"]]);
  });

  it("never keeps a copy that holds one of the link's values, as written, URL-encoded or HTML-escaped", async () => {
    for (const [token, body] of [
      ["tok-123", "<p>tok-123</p>"],
      ["a&b", '<a href="?t=a%26b">x</a>'],
      ["a<b", "<p>a&lt;b</p>"],
    ] as const) {
      const cached = createPageCache(() => 0);
      const r = linkPage(body);
      const link = at(`/corporate/verify?${new URLSearchParams({ userId: "0a1b2c3d", requestToken: token })}`);
      for (let i = 0; i < 3; i++) await cached(link, "br", r.render);
      expect(r.asked.filter((e) => e === undefined).length, token).toBe(2);
      expect(r.asked, token).toHaveLength(3);
    }
  });
});
