// Security (docs/requirements.md §D7): the authorization matrix over every route of /api. The routes are read from
// the Hono app itself, so a new route fails this test until it is classified here. For every
// bearer-protected call: anonymous → 401, company B's manager using company A's ids → 401/404
// (never 2xx) and not one row changes, A's Manager (ADR 0022) → 403 on Owner-only calls with not
// one row changed, success on the reads every manager may make; A's Owner → success.
import { describe, expect, it } from "vitest";
import { describeEachDatabase } from "../support/db.ts";
import { API_ROUTES, apiRoutes, type Entry, type Req } from "./api-routes.ts";
import { buildWorld, call, PARTNER_KEY, snapshot, type World } from "./fixtures.ts";

/** A concrete URL path for a route pattern (":id" → A's member). */
function concrete(path: string, w: World) {
  return path.replace(":id", String(w.paidMembers[0]));
}

const is2xx = (s: number) => s >= 200 && s < 300;

describeEachDatabase("authorization matrix over every /api route", ({ database }) => {
  let w: World;
  const db = () => database().db;

  it("builds the fixtures (A with members, a paid order, a pending payment; B)", async () => {
    w = await buildWorld(db());
    expect(w.pending.paymentIntentId).toMatch(/^pi_sim_/);
  });

  it("classifies every route of the API app as public, bearer-protected, the partner's, an API key's or webhook", () => {
    const routes = apiRoutes(w.api);
    expect(routes.length).toBeGreaterThan(30);
    const unclassified = routes.filter((r) => !API_ROUTES[r.key]).map((r) => r.key);
    expect(unclassified, "new /api routes must be classified in tests/security/api-authorization.test.ts").toEqual([]);
    const gone = Object.keys(API_ROUTES).filter((k) => !routes.some((r) => r.key === k));
    expect(gone, "classified routes that no longer exist").toEqual([]);
  });

  it("anonymous (no token, a malformed token, an unknown token): every bearer route answers 401 and changes nothing", async () => {
    // The owner's requests first: making one may stage a row of A's (an import to name).
    const requests = [];
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind === "bearer") requests.push({ r, req: await entry.owner(w) });
    }
    const before = await snapshot(db());
    for (const { r, req } of requests) {
      for (const token of [undefined, "x", "0123456789abcdef0123456789abcdef"]) {
        const res = await call(w.api, r.method, `/api/${req.path}`, req.body, token);
        const text = await res.text();
        expect(res.status, `${r.key} with token ${token}: ${text}`).toBe(401);
        expect(JSON.parse(text).detail).toBeTruthy();
      }
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("public routes are reachable without a token (never 401)", async () => {
    for (const r of apiRoutes(w.api)) {
      if (API_ROUTES[r.key]?.kind !== "public") continue;
      const res = await call(w.api, r.method, concrete(r.path, w), r.method === "GET" ? undefined : {});
      expect(res.status, r.key).not.toBe(401);
      expect(res.status, r.key).toBeLessThan(500);
    }
  });

  // With the simulated processor there is no webhook at all (404); with Stripe but no signing
  // secret it is a 503 (modules/orders/payments-stripe.test.ts).
  it("the webhook refuses unsigned events from anyone (404 with the simulated processor)", async () => {
    const before = await snapshot(db());
    for (const token of [undefined, w.a.accessToken, w.b.accessToken]) {
      const res = await call(
        w.api,
        "POST",
        "/api/StripePayment/webhook",
        { type: "payment_intent.succeeded", data: { object: { id: w.pending.paymentIntentId } } },
        token,
      );
      expect(is2xx(res.status)).toBe(false);
      expect(res.status).toBe(404);
    }
    expect(await snapshot(db())).toEqual(before);
  });

  // The catalogue partner's call takes the partner's key only: no manager's token opens it.
  it("the partner's routes refuse no key, A's and B's tokens and a wrong key (401), and change nothing", async () => {
    const before = await snapshot(db());
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind !== "partner") continue;
      for (const token of [undefined, w.a.accessToken, w.b.accessToken, `${PARTNER_KEY}0`]) {
        const res = await call(w.api, r.method, r.path, entry.body(w), token);
        const text = await res.text();
        expect(res.status, `${r.key} with ${token}: ${text}`).toBe(401);
        expect(JSON.parse(text).detail).toBeTruthy();
      }
    }
    expect(await snapshot(db())).toEqual(before);
  });

  // A company API key's calls (/api/v1, ADR 0028) take a key only: no manager's token opens them,
  // and B's key sees none of A's orders.
  it("the API key routes refuse no key, A's and B's tokens, a wrong key and the partner's (401); B's key gets 404 on A's ids; A's key succeeds", async () => {
    let checked = 0;
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind !== "apiKey") continue;
      const req = await entry.request(w);
      const before = await snapshot(db());
      const wrongKey = `rk_${"A".repeat(43)}`;
      const send = (token?: string) => callWithHeaders(w, r.method, req, token);
      for (const token of [undefined, w.a.accessToken, w.b.accessToken, wrongKey, `${w.aApiKey}0`, PARTNER_KEY]) {
        const res = await send(token);
        const text = await res.text();
        expect(res.status, `${r.key} with ${token}: ${text}`).toBe(401);
        expect(JSON.parse(text).detail).toBeTruthy();
      }
      expect(await snapshot(db())).toEqual(before);
      const byB = await send(w.bApiKey);
      const bText = await byB.text();
      if (entry.scope === "ids") expect(byB.status, `${r.key} by B's key: ${bText}`).toBe(404);
      else expect(byB.status, `${r.key} by B's key: ${bText}`).toBe(entry.bStatus ?? 200);
      for (const secret of [w.a.email, "Paid Thanks", "Scheduled Thanks", "Alpha Pty Ltd"]) {
        expect(bText, `${r.key} answered A's data to B's key`).not.toContain(secret);
      }
      const byA = await send(w.aApiKey);
      const aText = await byA.text();
      expect(byA.status, `${r.key} by A's key: ${aText}`).toBe(req.status ?? 200);
      checked++;
    }
    expect(checked).toBeGreaterThan(1);
  });

  it("company B's manager using A's ids: never 2xx on id routes, never sees or changes A's rows", async () => {
    const aSecrets = [w.a.email, "Paid Thanks", "Pending Thanks", w.pending.paymentIntentId, "Alpha Pty Ltd"];
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind !== "bearer") continue;
      if (r.key === "POST /api/Identity/logout") continue; // B logging B out is B's right; checked last.
      const req = await entry.owner(w);
      // B's own rows may change on "self" calls (that is B acting on B); A's rows must not.
      const before = await snapshot(db(), []);
      const res = await call(w.api, r.method, `/api/${req.path}`, req.body, w.b.accessToken);
      const text = await res.text();
      expect(res.status, `${r.key}: ${text}`).toBeLessThan(500);
      if (entry.scope === "ids") {
        expect([401, 403, 404], `${r.key} by B: ${res.status} ${text}`).toContain(res.status);
        expect(await snapshot(db()), r.key).toEqual(before);
      } else {
        const after = await snapshot(db());
        let aRowCount = 0;
        for (const table of Object.keys(before)) {
          const aRows = (s: Record<string, string>) =>
            (s[table] ?? "")
              .split("\n")
              .filter((line) => new RegExp(`"company_id":"?${w.a.companyId}"?[,}]`).test(line));
          expect(aRows(after), `${r.key} changed A's rows in ${table}`).toEqual(aRows(before));
          aRowCount += aRows(before).length;
        }
        expect(aRowCount, "the snapshot sees A's rows").toBeGreaterThan(10);
      }
      for (const secret of aSecrets) expect(text, `${r.key} answered A's data to B`).not.toContain(secret);
    }
    // Two snapshots of the whole database per bearer route: past the default 30 s on a loaded
    // 2-core machine once the route table grew (single sign-on, ADR 0046).
  }, 90_000);

  // ADR 0022 §1–2: a Manager has the team and rewards; an Owner-only call answers the Manager 403
  // "Only an Owner of your company can do this." before reading its body, and changes nothing.
  it("company A's Manager (not an Owner): every Owner-only route answers 403 and changes nothing", async () => {
    const requests = [];
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind === "bearer" && entry.ownerOnly) requests.push({ r, req: await entry.owner(w) });
    }
    const before = await snapshot(db());
    for (const { r, req } of requests) {
      const res = await call(w.api, r.method, `/api/${req.path}`, req.body, w.aManager.accessToken);
      const text = await res.text();
      expect(res.status, `${r.key} by A's Manager: ${text}`).toBe(403);
      expect(JSON.parse(text).detail).toBe("Only an Owner of your company can do this.");
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("company A's Manager reads what every manager may read (the company-wide GET routes that are not Owner-only)", async () => {
    let checked = 0;
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      // "ids" reads name rows of the Owner's own (an import is its uploader's), so only the company-wide reads.
      if (entry?.kind !== "bearer" || entry.ownerOnly || r.method !== "GET" || entry.scope !== "self") continue;
      const req = await entry.owner(w);
      const res = await call(w.api, r.method, `/api/${req.path}`, req.body, w.aManager.accessToken);
      const text = await res.text();
      if (req.status !== undefined) expect(res.status, `${r.key}: ${text}`).toBe(req.status);
      else expect(is2xx(res.status), `${r.key} by A's Manager: ${res.status} ${text}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(4);
    // The Manager's own details name the role the portal shows (or hides) Owner-only things by.
    const me = await call(w.api, "GET", "/api/Users/MyDetails", undefined, w.aManager.accessToken);
    expect(((await me.json()) as { managerRole: string }).managerRole).toBe("manager");
  });

  it("company A's Manager rewards the team as an Owner does (adds a member, puts an amount in the draft)", async () => {
    const add = await call(
      w.api,
      "POST",
      "/api/RewardMyTeam/create-reward-user",
      { firstName: "Mia", lastName: "Managed", email: `mia.${w.a.userId}@example.com`, value: 40 },
      w.aManager.accessToken,
    );
    expect(add.status, await add.text()).toBeLessThan(300);
  });

  it("company A's manager (the owner) succeeds on every bearer route", async () => {
    const entries = apiRoutes(w.api)
      .map((r) => ({ r, entry: API_ROUTES[r.key] }))
      .filter((x): x is { r: (typeof x)["r"]; entry: Extract<Entry, { kind: "bearer" }> } => x.entry?.kind === "bearer")
      .sort((x, y) => (x.entry.order ?? 0) - (y.entry.order ?? 0));
    for (const { r, entry } of entries) {
      const req = await entry.owner(w);
      const res = await call(w.api, r.method, `/api/${req.path}`, req.body, w.a.accessToken);
      const text = await res.text();
      if (req.status !== undefined) expect(res.status, `${r.key}: ${text}`).toBe(req.status);
      else expect(is2xx(res.status), `${r.key}: ${res.status} ${text}`).toBe(true);
    }
    // The pending payment, authenticated by A, is paid; B still cannot read it.
    const check = await call(
      w.api,
      "POST",
      "/api/StripePayment/check-payment-intent",
      { paymentIntent: w.pending.paymentIntentId },
      w.b.accessToken,
    );
    expect(check.status).toBe(404);
    // A logged out last: A's token is dead now.
    expect((await call(w.api, "GET", "/api/Users/MyDetails", undefined, w.a.accessToken)).status).toBe(401);
  });
});

describe("route table", () => {
  it("lists each classified key once", () => {
    expect(new Set(Object.keys(API_ROUTES)).size).toBe(Object.keys(API_ROUTES).length);
  });
});

/** `call` with the request's own headers too (POST /api/v1/orders needs its Idempotency-Key). */
function callWithHeaders(w: World, method: string, req: Req, token?: string) {
  if (!req.headers) return call(w.api, method, `/api/${req.path}`, req.body, token);
  const headers: Record<string, string> = { ...req.headers, "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  return w.api.request(`/api/${req.path}`, { method, headers, body: JSON.stringify(req.body) });
}
