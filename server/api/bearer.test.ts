import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type Auth, requireBearer } from "./bearer.ts";
import type { ApiBindings, ApiEnv } from "./deps.ts";

const goodToken = "a".repeat(43);
const auth: Auth = { userId: 7, companyId: 3, tokenId: 11, managerRole: "owner" };

function app(checked: string[] = []) {
  const api = new Hono<ApiEnv>();
  api.use(
    "/private/*",
    requireBearer(async (token) => {
      checked.push(token);
      return token === goodToken ? auth : null;
    }),
  );
  api.get("/private/me", (c) => c.json(c.get("auth") ?? null));
  return api;
}

describe("requireBearer", () => {
  it("passes the verified identity to the handler", async () => {
    const res = await app().request("/private/me", { headers: { authorization: `Bearer ${goodToken}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(auth);
  });

  it.each([
    ["no header", undefined],
    ["wrong scheme", `Basic ${goodToken}`],
    ["unknown token", `Bearer ${"b".repeat(43)}`],
    ["too short", "Bearer abc"],
  ])("answers 401 problem+json for %s", async (_name, header) => {
    const res = await app().request("/private/me", { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect((await res.json()).detail).toBe("Authentication is required.");
  });

  it("checks a token on every call that shares no checks (a call over HTTP)", async () => {
    const checked: string[] = [];
    const api = app(checked);
    for (let i = 0; i < 3; i++) {
      const res = await api.request("/private/me", { headers: { authorization: `Bearer ${goodToken}` } });
      expect(res.status).toBe(200);
    }
    expect(checked).toHaveLength(3);
  });

  it("checks a token once for the calls that share checks (one page's in-process calls)", async () => {
    const checked: string[] = [];
    const api = app(checked);
    const page: ApiBindings = { bearerChecks: new Map() };
    const call = (token: string) => api.request("/private/me", { headers: { authorization: `Bearer ${token}` } }, page);
    const answers = await Promise.all([call(goodToken), call(goodToken), call(goodToken)]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(checked).toEqual([goodToken]);
    // Another token in the same set is checked on its own, and refused.
    const unknown = "b".repeat(43);
    expect((await call(unknown)).status).toBe(401);
    expect((await call(unknown)).status).toBe(401);
    expect(checked).toEqual([goodToken, unknown]);
    // A new page checks again.
    await api.request(
      "/private/me",
      { headers: { authorization: `Bearer ${goodToken}` } },
      { bearerChecks: new Map() },
    );
    expect(checked).toEqual([goodToken, unknown, goodToken]);
  });
});
