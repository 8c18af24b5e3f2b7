import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type Auth, requireBearer } from "./bearer.ts";
import type { ApiEnv } from "./deps.ts";

const goodToken = "a".repeat(43);
const auth: Auth = { userId: 7, companyId: 3, tokenId: 11, managerRole: "owner" };

function app() {
  const api = new Hono<ApiEnv>();
  api.use(
    "/private/*",
    requireBearer(async (token) => (token === goodToken ? auth : null)),
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
});
