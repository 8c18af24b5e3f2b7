// Issue 6, security: the authorization matrix over every route of /api. The routes are read from
// the Hono app itself, so a new route fails this test until it is classified here. For every
// bearer-protected call: anonymous → 401, company B's manager using company A's ids → 401/404
// (never 2xx) and not one row changes, A's manager → success.
import { describe, expect, it } from "vitest";
import { describeEachDatabase } from "../support/db.ts";
import { type Api, buildWorld, call, snapshot, type World } from "./fixtures.ts";

type Req = { path: string; body?: unknown; status?: number };
type Entry =
  | { kind: "public" }
  | { kind: "webhook" }
  | {
      kind: "bearer";
      /** "ids": the call names A's rows (B must get 404); "self": it acts on the caller's own company only. */
      scope: "ids" | "self";
      owner: (w: World) => Req | Promise<Req>;
      /** Owner calls run in this order (destructive ones last). */
      order?: number;
    };

const member = (w: World) => ({ firstName: "Zed", lastName: "Newman", email: `zed.${w.a.userId}@example.com` });

const API_ROUTES: Record<string, Entry> = {
  "GET /api/Catalogue/latest-reward": { kind: "public" },
  "POST /api/Register": { kind: "public" },
  "POST /api/WaitList": { kind: "public" },
  "POST /api/Help/create-help-anonymous": { kind: "public" },
  "POST /api/Identity/login": { kind: "public" },
  "POST /api/Identity/VerifyEmail": { kind: "public" },
  "POST /api/Identity/VerifyEmailRequest": { kind: "public" },
  "POST /api/Identity/ResendVerifyEmailRequest": { kind: "public" },
  "POST /api/Identity/ResetPasswordRequest": { kind: "public" },
  "POST /api/Identity/ResetPassword": { kind: "public" },
  "POST /api/StripePayment/webhook": { kind: "webhook" },

  "GET /api/Users/MyDetails": { kind: "bearer", scope: "self", owner: () => ({ path: "Users/MyDetails" }) },
  "GET /api/Users": { kind: "bearer", scope: "self", owner: () => ({ path: "Users?pageNumber=1&pageSize=8" }) },
  "GET /api/Identity/app-settings": { kind: "bearer", scope: "self", owner: () => ({ path: "Identity/app-settings" }) },
  "GET /api/RewardHistory/get-reward-history": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardHistory/get-reward-history" }),
  },
  "GET /api/RewardMyTeam/get-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward" }),
  },
  "GET /api/RewardMyTeam/get-reward-page": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward-page?pageNumber=1&pageSize=7" }),
  },
  "GET /api/RewardMyTeam/get-reward-summary": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward-summary" }),
  },
  "PUT /api/Companies": {
    kind: "bearer",
    scope: "self",
    owner: () => ({
      path: "Companies",
      body: { name: "Alpha Two Pty Ltd", ABN: "53004085616", size: "11-50", industry: "Retail" },
    }),
  },
  "POST /api/Help/create-help": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Help/create-help", body: { message: "Hello there" } }),
  },
  "POST /api/Identity/onboarding-video-watched": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Identity/onboarding-video-watched", status: 204 }),
  },
  "POST /api/Users/create-user": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({ path: "Users/create-user", body: member(w) }),
  },
  "POST /api/Users/create-user-bulk-upload": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "Users/create-user-bulk-upload",
      body: { users: [{ ...member(w), email: `bulk.${w.a.userId}@example.com` }] },
    }),
  },
  "PUT /api/Users/:id": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: `Users/${w.paidMembers[0]}`,
      body: { firstName: "Renamed", lastName: "Person", email: `renamed.${w.a.userId}@example.com` },
      status: 204,
    }),
  },
  "DELETE /api/Users/:id": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: `Users/${w.paidMembers[1]}`, status: 204 }),
    order: 5,
  },
  "POST /api/RewardMyTeam/create-reward-search": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "RewardMyTeam/create-reward-search", body: { userId: w.paidMembers[0] } }),
  },
  "PUT /api/RewardMyTeam/update-reward": {
    kind: "bearer",
    scope: "ids",
    // After create-reward-search (order 0) put this member back into A's draft.
    owner: (w) => ({ path: "RewardMyTeam/update-reward", body: { userId: w.paidMembers[0], value: 150 } }),
    order: 1,
  },
  "DELETE /api/RewardMyTeam/delete-reward": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "RewardMyTeam/delete-reward", body: { userId: w.paidMembers[0] } }),
    order: 4,
  },
  "PUT /api/RewardMyTeam/update-all-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/update-all-reward", body: { value: 25 } }),
  },
  "PUT /api/RewardMyTeam/update-reward-name": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/update-reward-name", body: { name: "Renamed Thanks" } }),
  },
  "DELETE /api/RewardMyTeam/delete-all-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/delete-all-reward" }),
    order: 8,
  },
  "POST /api/RewardMyTeam/create-reward-user": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "RewardMyTeam/create-reward-user",
      body: { firstName: "Rita", lastName: "Reward", email: `rita.${w.a.userId}@example.com`, value: 30 },
    }),
  },
  "POST /api/RewardMyTeam/bulk-upload-reward": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "RewardMyTeam/bulk-upload-reward",
      body: { rewards: [{ firstName: "Bo", lastName: "Bulk", email: `bo.${w.a.userId}@example.com`, value: 12 }] },
    }),
  },
  "POST /api/StripePayment/check-payment-intent": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "StripePayment/check-payment-intent", body: { paymentIntent: w.paid.paymentIntentId } }),
  },
  "POST /api/StripePayment/get-simulated-payment": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: "StripePayment/get-simulated-payment",
      body: { paymentIntent: w.pending.paymentIntentId, clientSecret: w.pending.clientSecret },
    }),
    order: -3,
  },
  "POST /api/StripePayment/confirm-simulated-payment": {
    kind: "bearer",
    scope: "ids",
    // A card that asks for authentication, so complete-simulated-authentication has work next.
    owner: (w) => ({
      path: "StripePayment/confirm-simulated-payment",
      body: {
        paymentIntent: w.pending.paymentIntentId,
        clientSecret: w.pending.clientSecret,
        cardNumber: "4000 0025 0000 3155",
        expiry: "12/34",
        cvc: "123",
        nameOnCard: "Jane Citizen",
      },
    }),
    order: -2,
  },
  "POST /api/StripePayment/complete-simulated-authentication": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: "StripePayment/complete-simulated-authentication",
      body: { paymentIntent: w.pending.paymentIntentId, clientSecret: w.pending.clientSecret, outcome: "complete" },
    }),
    order: -1,
  },
  "POST /api/StripePayment/create-payment-intent": {
    kind: "bearer",
    scope: "self",
    // Runs after the draft was rebuilt by the calls of order 0 and 1: pays its current total.
    owner: async (w) => {
      const summary = await w.a.json<{ total: number }>("GET", "RewardMyTeam/get-reward-summary");
      return { path: "StripePayment/create-payment-intent", body: { amount: Math.round(summary.total * 100) } };
    },
    order: 2,
  },
  "POST /api/StripePayment/create-checkout-session": {
    kind: "bearer",
    scope: "self",
    // Only with Stripe: the simulated processor answers 404 to everyone (checked below).
    owner: () => ({ path: "StripePayment/create-checkout-session", body: { amount: 100 }, status: 404 }),
  },
  "POST /api/Identity/logout": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Identity/logout", status: 204 }),
    order: 9,
  },
};

/** Every route the API app answers (middleware entries, method ALL, are not routes). */
function apiRoutes(api: Api): Array<{ method: string; path: string; key: string }> {
  const seen = new Map<string, { method: string; path: string; key: string }>();
  for (const r of api.routes) {
    if (r.method === "ALL") continue;
    const key = `${r.method} ${r.path.replace(/\/+$/, "")}`;
    seen.set(key, { method: r.method, path: r.path, key });
  }
  return [...seen.values()];
}

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

  it("classifies every route of the API app as public, bearer-protected or webhook", () => {
    const routes = apiRoutes(w.api);
    expect(routes.length).toBeGreaterThan(30);
    const unclassified = routes.filter((r) => !API_ROUTES[r.key]).map((r) => r.key);
    expect(unclassified, "new /api routes must be classified in tests/security/api-authorization.test.ts").toEqual([]);
    const gone = Object.keys(API_ROUTES).filter((k) => !routes.some((r) => r.key === k));
    expect(gone, "classified routes that no longer exist").toEqual([]);
  });

  it("anonymous (no token, a malformed token, an unknown token): every bearer route answers 401 and changes nothing", async () => {
    const before = await snapshot(db());
    for (const r of apiRoutes(w.api)) {
      const entry = API_ROUTES[r.key];
      if (entry?.kind !== "bearer") continue;
      const req = await entry.owner(w);
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

  it("the webhook refuses unsigned events from anyone (404 while no webhook secret is configured)", async () => {
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
    }
    expect(await snapshot(db())).toEqual(before);
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
