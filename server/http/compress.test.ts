import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { compress, selectEncoding } from "./compress.ts";

const html = `<!doctype html><p>${"Reward your people instantly. ".repeat(200)}</p>`;

function app() {
  const a = new Hono();
  a.use(compress({ threshold: 1024 }));
  a.get("/page", (c) => c.html(html));
  a.get("/small", (c) => c.body("short", 200, { "content-type": "text/plain", "content-length": "5" }));
  a.get("/api/small", (c) => c.json({ status: "ok" }));
  a.get("/api/large", (c) => c.json({ rows: html.split(" ") }, 201));
  a.get("/image", (c) => c.body(new Uint8Array(4096), 200, { "content-type": "image/png" }));
  return a;
}

describe("compress", () => {
  it("prefers zstd, then brotli, then gzip, honouring q-values", () => {
    expect(selectEncoding("gzip, deflate, br, zstd")).toBe("zstd");
    expect(selectEncoding("gzip, deflate, br")).toBe("br");
    expect(selectEncoding("gzip")).toBe("gzip");
    expect(selectEncoding("zstd;q=0, br;q=0.5, gzip")).toBe("gzip");
    expect(selectEncoding("*")).toBe("zstd");
    expect(selectEncoding("identity")).toBeUndefined();
    expect(selectEncoding(undefined)).toBeUndefined();
  });

  it.each([
    ["zstd", (b: Buffer) => zstdDecompressSync(b)],
    ["br", (b: Buffer) => brotliDecompressSync(b)],
    ["gzip", (b: Buffer) => gunzipSync(b)],
  ] as const)("answers %s that decodes to the page", async (encoding, decode) => {
    const res = await app().request("/page", { headers: { "accept-encoding": encoding } });
    expect(res.headers.get("content-encoding")).toBe(encoding);
    expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeLessThan(html.length / 5);
    expect(decode(body).toString()).toBe(html);
  });

  it("reads a JSON answer whole: left as it is when small, compressed in one piece when large", async () => {
    const a = app();
    const small = await a.request("/api/small", { headers: { "accept-encoding": "zstd" } });
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(small.headers.get("content-length")).toBe(String('{"status":"ok"}'.length));
    expect(await small.json()).toEqual({ status: "ok" });
    for (const [encoding, decode] of [
      ["zstd", zstdDecompressSync],
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      const large = await a.request("/api/large", { headers: { "accept-encoding": encoding } });
      expect(large.status).toBe(201);
      expect(large.headers.get("content-encoding")).toBe(encoding);
      const body = Buffer.from(await large.arrayBuffer());
      expect(large.headers.get("content-length")).toBe(String(body.length));
      expect(JSON.parse(decode(body).toString())).toEqual({ rows: html.split(" ") });
    }
  });

  it("leaves small bodies, images and clients without a shared encoding alone", async () => {
    const a = app();
    for (const [path, accept] of [
      ["/small", "zstd"],
      ["/image", "zstd"],
      ["/page", "identity"],
    ]) {
      const res = await a.request(path as string, { headers: { "accept-encoding": accept as string } });
      expect(res.headers.get("content-encoding")).toBeNull();
    }
    expect(await (await a.request("/page")).text()).toBe(html);
  });
});
