import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { createKeptAnswers, KEPT_UNTIL_HEADER } from "./kept-answers.ts";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/**
 * The listener as server.ts builds it, over a stand-in edge that counts its calls and marks its
 * answers kept until `keptUntil()` (0: not kept).
 */
/** The stand-in's shared-link page: /verify with a token of 6 to 12 letters (as a route declares it). */
const VERIFY_QUERY = { token: /^[a-z]{6,12}$/ };

async function start(keptUntil: () => number, clock: { now: number }) {
  const kept = createKeptAnswers(createLogger("silent"), () => clock.now);
  let edgeCalls = 0;
  const listener = getRequestListener(async (request) => {
    edgeCalls++;
    const headers = new Headers({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'self'",
      "x-frame-options": "DENY",
      vary: "Accept-Encoding",
    });
    const until = keptUntil();
    if (new URL(request.url).pathname === "/with-cookie") headers.set("set-cookie", "a=b");
    const body = `<p>page ${new URL(request.url).pathname} for ${request.headers.get("accept-encoding")}</p>`;
    // As the edge's pageResponse does, for GET and HEAD alike.
    headers.set("content-length", String(Buffer.byteLength(body)));
    const response = new Response(request.method === "HEAD" ? null : body, { headers });
    const url = new URL(request.url);
    if (url.search && url.pathname !== "/verify") return response;
    return until ? kept.record(request, response, until, url.search ? VERIFY_QUERY : undefined) : response;
  });
  server = createServer((req, res) => {
    if (!kept.serve(req, res)) listener(req, res);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, edgeCalls: () => edgeCalls };
}

/** A raw GET or HEAD: status, headers without Date, body bytes. */
function get(url: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const { date: _date, connection: _c, "keep-alive": _k, ...rest } = res.headers;
        resolve({ status: res.statusCode ?? 0, headers: rest, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("kept public pages answered by the listener", () => {
  it("answers the same bytes and headers the edge gave, without the edge, until the page expires", async () => {
    const clock = { now: 1_000 };
    const app = await start(() => 61_000, clock);
    const first = await get(`${app.base}/help`, { "accept-encoding": "br" });
    expect(first.headers[KEPT_UNTIL_HEADER]).toBeUndefined();
    expect(app.edgeCalls()).toBe(1);

    const second = await get(`${app.base}/help`, { "accept-encoding": "br" });
    expect(second).toEqual(first);
    expect(app.edgeCalls()).toBe(1);

    clock.now = 61_000;
    expect(await get(`${app.base}/help`, { "accept-encoding": "br" })).toEqual(first);
    expect(app.edgeCalls()).toBe(2);
  });

  it("keeps each method, path and Accept-Encoding apart", async () => {
    const app = await start(() => 61_000, { now: 1_000 });
    const br = await get(`${app.base}/help`, { "accept-encoding": "br" });
    const gzip = await get(`${app.base}/help`, { "accept-encoding": "gzip" });
    expect(gzip.body).not.toBe(br.body);
    expect(await get(`${app.base}/help`, { "accept-encoding": "gzip" })).toEqual(gzip);
    expect(await get(`${app.base}/help`, { "accept-encoding": "br" })).toEqual(br);
    expect(app.edgeCalls()).toBe(2);

    const head = await get(`${app.base}/help`, { "accept-encoding": "br" }, "HEAD");
    expect(head.body).toBe("");
    expect(await get(`${app.base}/help`, { "accept-encoding": "br" }, "HEAD")).toEqual(head);
    await get(`${app.base}/`, { "accept-encoding": "br" });
    expect(app.edgeCalls()).toBe(4);
  });

  it("leaves to the edge: a visitor with a session, an address with a query, posts, answers not kept or setting a cookie", async () => {
    let until = 61_000;
    const app = await start(() => until, { now: 1_000 });
    await get(`${app.base}/help`);
    expect(app.edgeCalls()).toBe(1);

    await get(`${app.base}/help`, { cookie: "session=abc.def" });
    await get(`${app.base}/help?x=1`);
    await get(`${app.base}/help?x=1`);
    await get(`${app.base}/help`, {}, "POST");
    expect(app.edgeCalls()).toBe(5);

    await get(`${app.base}/with-cookie`);
    await get(`${app.base}/with-cookie`);
    expect(app.edgeCalls()).toBe(7);

    until = 0;
    await get(`${app.base}/help-not-kept`);
    await get(`${app.base}/help-not-kept`);
    expect(app.edgeCalls()).toBe(9);
  });

  it("never records a session visitor's answer for others", async () => {
    const app = await start(() => 61_000, { now: 1_000 });
    await get(`${app.base}/help`, { cookie: "__Host-session=abc.def" });
    await get(`${app.base}/help`);
    expect(app.edgeCalls()).toBe(2);
  });
});

describe("a shared link's kept page answered by the listener", () => {
  it("answers every link of the declared query from the copy, and leaves any other query to the edge", async () => {
    const app = await start(() => 61_000, { now: 1_000 });
    const first = await get(`${app.base}/verify?token=abcdefg`);
    expect(app.edgeCalls()).toBe(1);
    // Another link of the same shape: the same bytes, not from the edge.
    expect(await get(`${app.base}/verify?token=zyxwvut`)).toEqual(first);
    expect(app.edgeCalls()).toBe(1);
    // Not the declared shape: a value the pattern refuses, another name, a name twice, an extra name.
    for (const query of ["token=ABC", "other=abcdefg", "token=abcdefg&token=abcdefg", "token=abcdefg&x=1", ""]) {
      await get(`${app.base}/verify?${query}`);
    }
    expect(app.edgeCalls()).toBe(6);
    // A path that declared no query is never answered from a copy when it has one.
    await get(`${app.base}/help`);
    await get(`${app.base}/help?token=abcdefg`);
    expect(app.edgeCalls()).toBe(8);
  });
});
