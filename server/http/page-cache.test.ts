// The process's shared HTTP cache (./page-cache.ts) through a real HTTP server, as server.ts wires
// it: first in front of the real edge (createApplication with a tiny React Router build whose
// /policies/* pages say `public, s-maxage=60`), then in front of a stand-in edge for the rules the
// real one never needs (an answer that sets a cookie yet says public, expiry, concurrent first
// visits, invalidation by a post).
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { getRequestListener } from "@hono/node-server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SHARED_PAGE_CACHE_CONTROL } from "../../core/shared-page.ts";
import { startTestApplication, type TestApplication } from "../../tests/support/app.ts";
import { etagMatches, type Fetch, withPageCache } from "./page-cache.ts";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A raw request (no encoding added, none decoded): status, headers, body bytes. */
function send(base: string, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A listening server over `fetch`, as server.ts makes it; its base URL. */
async function listen(fetch: Fetch): Promise<{ base: string; server: Server }> {
  const server = createServer(getRequestListener(fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("the page cache in front of the edge", () => {
  let running: TestApplication;
  let base: string;
  let server: Server;
  beforeAll(async () => {
    running = await startTestApplication();
    ({ base, server } = await listen(running.fetch));
  });
  afterAll(async () => {
    await close(server);
    await running.close();
  });
  const renders = (path: string) => running.seen.paths.filter((p) => p === path).length;

  it("keeps a page its route marks shareable, one copy per Accept-Encoding (Vary), and answers it without the edge", async () => {
    const path = "/policies/privacy-policy";
    const first = await send(base, path, { "accept-encoding": "br" });
    expect(first.status).toBe(200);
    expect(first.headers["cache-control"]).toBe(SHARED_PAGE_CACHE_CONTROL);
    expect(first.headers.vary).toBe("Accept-Encoding");
    expect(first.headers["content-encoding"]).toBe("br");
    expect(first.headers.etag).toMatch(/^W\/"/);
    const html = brotliDecompressSync(first.body).toString("utf8");
    expect(html).toContain('<p id="path">/policies/privacy-policy</p>');

    const again = await send(base, path, { "accept-encoding": "br" });
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers["content-security-policy"]).toBe(first.headers["content-security-policy"]);
    expect(again.headers.age, "a shared cache says how old its copy is").toMatch(/^\d+$/);
    expect(renders(path)).toBe(1);

    // Another encoding is another variant: rendered once, then kept too.
    const gzip = await send(base, path, { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString("utf8")).toBe(html);
    expect(gzip.headers.etag, "one validator for the page's text").toBe(first.headers.etag);
    await send(base, path, { "accept-encoding": "gzip" });
    const plain = await send(base, path);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString("utf8")).toBe(html);
    await send(base, path);
    expect(renders(path)).toBe(3);

    // HEAD from the kept GET: the same headers, no body.
    const head = await send(base, path, { "accept-encoding": "br" }, "HEAD");
    expect(head.headers["content-length"]).toBe(first.headers["content-length"]);
    expect(head.body.length).toBe(0);
    expect(renders(path)).toBe(3);
  });

  it("answers 304 to a visitor whose If-None-Match names the copy, and the page to one whose does not", async () => {
    const path = "/policies/terms-and-conditions";
    const first = await send(base, path, { "accept-encoding": "gzip" });
    const etag = first.headers.etag as string;
    const notModified = await send(base, path, { "accept-encoding": "gzip", "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(notModified.headers.etag).toBe(etag);
    expect(notModified.headers["cache-control"]).toBe(SHARED_PAGE_CACHE_CONTROL);
    expect(notModified.headers.vary).toBe("Accept-Encoding");
    const changed = await send(base, path, { "accept-encoding": "gzip", "if-none-match": 'W/"another"' });
    expect(changed.status).toBe(200);
    expect(changed.body.equals(first.body)).toBe(true);
    // A first visit that brings a validator (its browser kept the page last minute) gets 304 too.
    const cold = await send(base, path, { "accept-encoding": "br", "if-none-match": etag });
    expect(cold.status).toBe(304);
    expect(renders(path)).toBe(2);
  });

  it("never answers a visitor with a session cookie from the cache, nor keeps their page", async () => {
    const path = "/policies/privacy-policy";
    await send(base, path, { "accept-encoding": "br" });
    const before = renders(path);
    for (const cookie of ["session=abc.def", "csrf=x; __Host-session=abc.def"]) {
      const signedIn = await send(base, path, { "accept-encoding": "br", cookie });
      expect(signedIn.headers["cache-control"], cookie).toBe("private, no-store");
      expect(signedIn.headers.etag, cookie).toBeUndefined();
      expect(signedIn.headers.age, cookie).toBeUndefined();
    }
    expect(renders(path)).toBe(before + 2);
    // Another cookie is no session: the visitor gets the copy kept for everyone.
    await send(base, path, { "accept-encoding": "br", cookie: "csrf=x" });
    expect(renders(path)).toBe(before + 2);
  });

  it("renders a page its route does not mark shareable for each visitor, private, no-store", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await send(base, "/help", { "accept-encoding": "br" });
      expect(res.headers["cache-control"]).toBe("private, no-store");
      expect(res.headers.etag).toBeUndefined();
    }
    expect(renders("/help")).toBe(2);
  });
});

describe("the page cache's own rules, in front of a stand-in edge", () => {
  let server: Server | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    if (server) await close(server);
    server = undefined;
  });

  /** An edge that answers each path with `headersOf(path)` and counts its calls. */
  async function start(headersOf: (path: string) => Record<string, string>, delayMs = 0) {
    const calls: string[] = [];
    const edge: Fetch = async (request) => {
      const url = new URL(request.url);
      calls.push(`${request.method} ${url.pathname}${url.search}`);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const body = `<p>${url.pathname} #${calls.length}</p>`;
      return new Response(request.method === "HEAD" ? null : body, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-length": String(Buffer.byteLength(body)),
          ...headersOf(url.pathname),
        },
      });
    };
    const listening = await listen(withPageCache(edge));
    server = listening.server;
    return { base: listening.base, calls };
  }
  const shared = { "cache-control": SHARED_PAGE_CACHE_CONTROL, etag: 'W/"v1"' };

  it("keeps a copy for its s-maxage, then asks the edge again", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-27T10:00:00Z") });
    const app = await start(() => shared);
    await send(app.base, "/");
    vi.setSystemTime(new Date("2026-11-27T10:00:59Z"));
    const kept = await send(app.base, "/");
    expect(kept.body.toString()).toBe("<p>/ #1</p>");
    expect(kept.headers.age).toBe("59");
    expect(app.calls).toHaveLength(1);
    vi.setSystemTime(new Date("2026-11-27T10:01:00Z"));
    expect((await send(app.base, "/")).body.toString()).toBe("<p>/ #2</p>");
    expect((await send(app.base, "/")).body.toString()).toBe("<p>/ #2</p>");
    expect(app.calls).toHaveLength(2);
  });

  it("never keeps an answer that sets a cookie, is private or no-store, or says nothing, whatever else it says", async () => {
    const answers: Record<string, Record<string, string>> = {
      "/cookie": { ...shared, "set-cookie": "toast=abc" },
      "/private": { "cache-control": "private, max-age=60" },
      "/no-store": { "cache-control": "public, s-maxage=60, no-store" },
      "/silent": {},
    };
    const app = await start((path) => answers[path] ?? {});
    for (const path of ["/cookie", "/private", "/no-store", "/silent"]) {
      await send(app.base, path);
      const second = await send(app.base, path);
      expect(second.headers.age, path).toBeUndefined();
    }
    expect(app.calls).toHaveLength(8);
  });

  it("answers a fresh copy whatever the request's own Cache-Control says, and keeps nothing for a request that says no-store", async () => {
    const app = await start(() => shared);
    await send(app.base, "/", { "cache-control": "no-store" });
    await send(app.base, "/");
    const directives: Record<string, string>[] = [
      { "cache-control": "no-cache" },
      { pragma: "no-cache" },
      { "cache-control": "max-age=0" },
    ];
    for (const headers of directives) {
      const res = await send(app.base, "/", { ...headers, "if-none-match": 'W/"v1"' });
      expect(res.status, JSON.stringify(headers)).toBe(304);
    }
    expect(app.calls).toEqual(["GET /", "GET /"]);
  });

  it("holds at most its number of addresses and bytes, dropping the oldest", async () => {
    const calls: string[] = [];
    const edge: Fetch = (request) => {
      calls.push(new URL(request.url).pathname);
      return new Response("x".repeat(100), {
        headers: { "content-length": "100", "cache-control": SHARED_PAGE_CACHE_CONTROL },
      });
    };
    for (const limits of [{ maxAddresses: 2 }, { maxBytes: 250 }]) {
      calls.length = 0;
      const cached = withPageCache(edge, limits);
      for (const path of ["/a", "/b", "/c", "/c", "/b", "/a"]) await cached(new Request(`http://rewards.test${path}`));
      expect(calls, JSON.stringify(limits)).toEqual(["/a", "/b", "/c", "/a"]);
    }
  });

  it("keeps each address with its query apart", async () => {
    const app = await start(() => shared);
    for (const path of ["/help?x=1", "/help?x=2", "/help?x=1", "/help"]) await send(app.base, path);
    expect(app.calls).toEqual(["GET /help?x=1", "GET /help?x=2", "GET /help"]);
  });

  it("asks the edge once for the visitors who come while a first render is under way", async () => {
    const app = await start(() => shared, 200);
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(app.base, "/")));
    expect(app.calls).toEqual(["GET /"]);
    expect(new Set(answers.map((a) => a.body.toString()))).toEqual(new Set(["<p>/ #1</p>"]));
  });

  it("drops the copy of an address a post to it succeeded on (RFC 9111 §4.4), and passes posts and HEADs it cannot answer to the edge", async () => {
    const app = await start(() => shared);
    await send(app.base, "/corporate/login", {}, "HEAD");
    await send(app.base, "/corporate/login");
    await send(app.base, "/corporate/login");
    await send(app.base, "/corporate/login", {}, "POST");
    await send(app.base, "/corporate/login");
    expect(app.calls).toEqual([
      "HEAD /corporate/login",
      "GET /corporate/login",
      "POST /corporate/login",
      "GET /corporate/login",
    ]);
  });
});

describe("etagMatches", () => {
  it.each([
    ['W/"a"', 'W/"a"', true],
    ['"a"', 'W/"a"', true],
    ['W/"b", W/"a"', 'W/"a"', true],
    ["*", 'W/"a"', true],
    ['W/"b"', 'W/"a"', false],
    [undefined, 'W/"a"', false],
    ['W/"a"', undefined, false],
  ])("If-None-Match %s against %s: %s", (header, etag, expected) => {
    expect(etagMatches(header, etag)).toBe(expected);
  });
});
