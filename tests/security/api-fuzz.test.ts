// Security (docs/requirements.md §D7): fast-check fuzzing of every /api call that reads a body (enumerated from the
// Hono app; each needs a well-formed template in api-routes.ts). Two properties per route:
//  - refused input (a field of the wrong type, an oversized field, a body that is no JSON object,
//    the wrong content type, an oversized body): always a 4xx with a `detail`, never a 5xx, and
//    not one row stored;
//  - hostile but well-typed input (SQL and HTML fragments, control and bidi characters, emoji,
//    lone surrogates, odd numbers, prototype-pollution keys): never a 5xx; a 4xx carries a detail.
// Afterwards Object.prototype is untouched. Path parameters and query strings are fuzzed too.
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../support/db.ts";
import { API_ROUTES, apiRoutes } from "./api-routes.ts";
import { buildWorld, call, PARTNER_KEY, rowCounts, type World } from "./fixtures.ts";

const RUNS = Number(process.env.SECURITY_FUZZ_RUNS ?? 30);

const HOSTILE = [
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "1; SELECT pg_sleep(5)",
  "<script>alert(1)</script>",
  '<img src=x onerror="alert(1)">',
  "javascript:alert(1)",
  "{{7*7}}$" + "{7*7}",
  "../../../../etc/passwd",
  '=HYPERLINK("http://evil.example")',
  "+1+1",
  "-2+3",
  "@SUM(A1)",
  "\u0000",
  "a\u0000b",
  "\u202eevil\u202c",
  "\ud800",
  "😀👩‍👩‍👧‍👦",
  "Ω≈ç√∫˜µ≤≥÷",
  "\r\nSet-Cookie: x=1",
  "%00%0d%0a",
  "__proto__",
  "constructor",
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 1e15, Number.MAX_SAFE_INTEGER + 2, -1e308, 2 ** 31),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/**
 * Values that are never of the expected type for a leaf of type `kind`. A reward `value` is
 * lenient by design (modules/reward-drafts/schema.ts: number, numeric text or null; other text counts as $0),
 * so only arrays, objects and booleans are wrong for it.
 */
function wrongType(kind: string, key: string | number | undefined): fc.Arbitrary<unknown> {
  // Fields that take a number as typed text too, and (the threshold, a budget) null or "" for none.
  if (key === "value" || key === "thresholdDollars" || key === "budgetDollars") {
    return fc.oneof(fc.boolean(), fc.array(fc.integer(), { maxLength: 2 }), fc.constant({}));
  }
  // The automation budget (ADR 0035): a number, or null for none, so null is not a wrong type there.
  if (key === "budget") {
    return fc.oneof(
      fc.boolean(),
      hostileString,
      fc.constant("1"),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.constant({}),
    );
  }
  // The draft's send time: null means "send once paid", so null is not a wrong type there.
  if (key === "sendAt") {
    return fc.oneof(fc.boolean(), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.constant({}));
  }
  const all: Array<fc.Arbitrary<unknown>> = [
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), hostileString), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "__proto__", "constructor", "prototype"), fc.integer(), { maxKeys: 2 }),
  ];
  if (kind !== "number") all.push(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  if (kind !== "boolean") all.push(fc.boolean());
  if (kind !== "string") all.push(hostileString, fc.constant("1"), fc.constant("true"));
  return fc.oneof(...all);
}

/** Oversized text: more characters than any field allows (the longest, a captcha token, 4,096). */
const huge = fc
  .tuple(fc.integer({ min: 5_000, max: 40_000 }), fc.constantFrom("A", "é", "😀", "<b>", "' OR 1=1 --"))
  .map(([n, unit]) => unit.repeat(n));

type Path = Array<string | number>;

/** Every leaf of a JSON template, with its type. */
function leaves(value: unknown, path: Path = []): Array<{ path: Path; kind: string }> {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [{ path, kind: typeof value }];
}

function setAt(template: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(template) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = replacement;
  return copy;
}

/** JSON text with extra keys (JSON.parse makes "__proto__" an own property, as an attacker's body would). */
function withKeys(body: unknown, keys: Array<[string, unknown]>): string {
  const text = JSON.stringify(body);
  const extra = keys.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",");
  if (!extra || !text.startsWith("{")) return text;
  return text === "{}" ? `{${extra}}` : `{${extra},${text.slice(1)}`;
}

const pollution: fc.Arbitrary<Array<[string, unknown]>> = fc.subarray(
  [
    ["__proto__", { polluted: "yes", isAdmin: true, companyId: 1 }],
    ["constructor", { prototype: { polluted: "yes" } }],
    ["prototype", { polluted: "yes" }],
    ["companyId", 1],
    ["userId", 1],
    ["role", "admin"],
  ] as Array<[string, unknown]>,
  { minLength: 1 },
);

type Sent = { status: number; text: string };

async function send(
  w: World,
  method: string,
  path: string,
  token: string | undefined,
  body: { json?: unknown; raw?: string; contentType?: string },
): Promise<Sent> {
  let res: Response;
  if (body.raw !== undefined || body.contentType) {
    const headers: Record<string, string> = { "content-type": body.contentType ?? "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    res = await w.api.request(path, { method, headers, body: body.raw ?? JSON.stringify(body.json) });
  } else {
    res = await call(w.api, method, path, body.json, token);
  }
  return { status: res.status, text: await res.text() };
}

function expectProblem(sent: Sent, where: string) {
  expect(sent.status, `${where}: ${sent.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(sent.status, `${where}: ${sent.text.slice(0, 300)}`).toBeLessThan(500);
  const detail = (JSON.parse(sent.text) as { detail?: unknown }).detail;
  expect(typeof detail === "string" && detail.length > 0, `${where}: a detail`).toBe(true);
}

describeEachDatabase("fuzzing every /api body", ({ database }) => {
  let w: World;
  const db = () => database().db;
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  const bodyRoutes = () => apiRoutes(w.api).filter((r) => r.method !== "GET" && API_ROUTES[r.key]?.kind !== "webhook");

  /** The route's template request for `w` (A's token for bearer routes). */
  async function template(key: string): Promise<{ path: string; body: unknown; token?: string } | null> {
    const entry = API_ROUTES[key];
    if (!entry || entry.kind === "webhook") return null;
    // The partner's call with the partner's key (it takes no manager's token).
    if (entry.kind === "partner") return { path: key.split(" ")[1] as string, body: entry.body(w), token: PARTNER_KEY };
    // A company API key's call with A's key (it takes no manager's token).
    if (entry.kind === "apiKey") {
      const req = await entry.request(w);
      return req.body === undefined ? null : { path: `/api/${req.path}`, body: req.body, token: w.aApiKey };
    }
    if (entry.kind === "public") {
      const body = entry.body?.(w);
      return body === undefined ? null : { path: key.split(" ")[1] as string, body };
    }
    const req = await entry.owner(w);
    // No JSON body to fuzz: none, or a file's text (a CSV import: tests/security/uploads.test.ts).
    if (req.body === undefined || typeof req.body === "string") return null;
    return { path: `/api/${req.path}`, body: req.body, token: w.a.accessToken };
  }

  beforeAll(async () => {
    // The rate limits live in the API operations now and are tested on their own
    // (tests/security/rate-limits.test.ts); at their real budgets the fuzzer's calls would reach
    // a 429 before the validation being fuzzed.
    w = await buildWorld(db(), { RATE_LIMIT_FACTOR: "1000" });
  });

  it("every body route has a template (or reads no body)", async () => {
    const noBody: string[] = [];
    for (const r of bodyRoutes()) if (!(await template(r.key))) noBody.push(r.key);
    // These read no JSON body (checked by hand: no jsonBody middleware on their routes). POST
    // /api/Imports reads a CSV stream, refused and fuzzed by tests/security/uploads.test.ts and
    // modules/imports/imports.test.ts.
    expect(noBody.sort()).toEqual(
      [
        "DELETE /api/ApiKeys/:id",
        "DELETE /api/Webhooks/:id",
        "POST /api/Webhooks/:id/deliveries/:deliveryId/resend",
        "POST /api/Webhooks/:id/ping",
        "DELETE /api/Imports/:id",
        "POST /api/Imports",
        "POST /api/Imports/:id/start",
        "DELETE /api/RewardMyTeam/delete-all-reward",
        "DELETE /api/Users/:id",
        "DELETE /api/Managers/:id",
        "DELETE /api/Managers/invites/:id",
        "POST /api/Approvals/:orderId/approve",
        "POST /api/Approvals/:orderId/payment-intent",
        "POST /api/RewardReleases/:releaseId/recipients/:userId/resend",
        "POST /api/RewardOrders/:orderId/cancel",
        "POST /api/Identity/logout",
        "POST /api/Identity/onboarding-video-watched",
        "POST /api/Users/MySessions/SignOutOthers",
        "POST /api/Balance/TopUps/:id/check",
        "POST /api/SingleSignOn/test",
      ].sort(),
    );
  });

  it("refused input: always a 4xx with a detail, nothing stored", { timeout: 300_000 }, async () => {
    for (const r of bodyRoutes()) {
      const t = await template(r.key);
      if (!t) continue;
      const leafs = leaves(t.body);
      const big = r.key.includes("bulk") || r.key.includes("create-reward-user") ? 4_100_000 : 1_100_000;
      const strings = leafs.filter((l) => l.kind === "string");
      const refused = fc.oneof(
        fc
          .constantFrom(...leafs)
          .chain((leaf) =>
            wrongType(leaf.kind, leaf.path[leaf.path.length - 1]).map((v) => ({ json: setAt(t.body, leaf.path, v) })),
          ),
        strings.length > 0
          ? fc.constantFrom(...strings).chain((leaf) => huge.map((v) => ({ json: setAt(t.body, leaf.path, v) })))
          : fc.constant({ raw: "{" }),
        fc.constantFrom<{ json?: unknown; raw?: string; contentType?: string }>(
          { raw: "" },
          { raw: "{" },
          { raw: "null" },
          { raw: "[]" },
          { raw: "42" },
          { raw: '"text"' },
          { raw: '{"a":1,}' },
          { raw: JSON.stringify(t.body), contentType: "text/plain" },
          { raw: JSON.stringify(t.body), contentType: "application/x-www-form-urlencoded" },
          { raw: `{"pad":"${"x".repeat(big)}"}` },
          { json: [t.body] },
        ),
      );
      const before = await rowCounts(db());
      await fc.assert(
        fc.asyncProperty(refused, async (body) => {
          expectProblem(await send(w, r.method, t.path, t.token, body), r.key);
        }),
        { numRuns: RUNS },
      );
      expect(await rowCounts(db()), `${r.key}: rows stored for refused input`).toEqual(before);
    }
  });

  it("hostile but well-typed input: never a 5xx; a 4xx carries a detail", { timeout: 300_000 }, async () => {
    for (const r of bodyRoutes()) {
      const t = await template(r.key);
      if (!t) continue;
      const leafs = leaves(t.body);
      const mutated = fc
        .tuple(
          fc.array(
            fc
              .constantFrom(...leafs)
              .chain((leaf) =>
                (leaf.kind === "number" ? hostileNumber : leaf.kind === "string" ? hostileString : fc.boolean()).map(
                  (v) => [leaf.path, v] as const,
                ),
              ),
            { minLength: 0, maxLength: 3 },
          ),
          fc.option(pollution, { nil: undefined }),
        )
        .map(([changes, keys]) => {
          let body = t.body;
          for (const [path, v] of changes) body = setAt(body, path, v);
          return keys ? { raw: withKeys(body, keys) } : { json: body };
        });
      await fc.assert(
        fc.asyncProperty(mutated, async (body) => {
          const sent = await send(w, r.method, t.path, t.token, body);
          expect(sent.status, `${r.key}: ${sent.text.slice(0, 300)}`).toBeLessThan(500);
          if (sent.status >= 400) expectProblem(sent, r.key);
        }),
        { numRuns: RUNS },
      );
    }
  });

  it("path parameters and query strings: never a 5xx; a bad id is a 4xx with a detail", {
    timeout: 120_000,
  }, async () => {
    const ids = fc.oneof(
      fc.constantFrom(
        "0",
        "-1",
        "1.5",
        "1e3",
        "abc",
        "9007199254740993",
        "99999999999999999999",
        "%00",
        "' OR 1=1",
        "__proto__",
      ),
      // encodeURIComponent cannot encode a lone surrogate; a browser could not send one either.
      hostileString.filter((s) => s.length > 0 && s.isWellFormed()),
    );
    await fc.assert(
      fc.asyncProperty(ids, fc.constantFrom("PUT", "DELETE"), async (id, method) => {
        const body = method === "PUT" ? { firstName: "A", lastName: "B", email: "a.b@example.com" } : undefined;
        const sent = await send(w, method, `/api/Users/${encodeURIComponent(id)}`, w.b.accessToken, { json: body });
        expectProblem(sent, `${method} /api/Users/${id}`);
      }),
      { numRuns: RUNS },
    );
    const gets = apiRoutes(w.api).filter((r) => r.method === "GET");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...gets),
        fc.dictionary(
          fc.constantFrom("pageNumber", "pageSize", "search", "isRewardMyTeam", "__proto__"),
          hostileString,
          {
            maxKeys: 4,
          },
        ),
        async (r, query) => {
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          const sent = await send(w, "GET", `${r.path}?${qs}`, w.b.accessToken, {});
          expect(sent.status, `${r.key}?${qs}: ${sent.text.slice(0, 200)}`).toBeLessThan(500);
          if (sent.status >= 400) expectProblem(sent, r.key);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it("regression: a NUL character or a lone surrogate in any field is a 400, not a 500 (PostgreSQL cannot store them)", async () => {
    const before = await rowCounts(db());
    for (const bad of ["a\u0000b", "\ud800", "x\udfffy"]) {
      const sent = await send(w, "POST", "/api/Help/create-help-anonymous", undefined, {
        json: {
          firstName: bad,
          lastName: "B",
          email: "nul@example.com",
          message: "Hi",
          captchaToken: "t",
          isCaptchaV3: true,
        },
      });
      expectProblem(sent, "create-help-anonymous");
      expect(sent.status).toBe(400);
      const member = await send(w, "POST", "/api/Users/create-user", w.a.accessToken, {
        json: { firstName: "A", lastName: bad, email: "nul.member@example.com" },
      });
      expect(member.status).toBe(400);
    }
    expect(await rowCounts(db())).toEqual(before);
  });

  it("Object.prototype is not polluted", () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(probe.companyId).toBeUndefined();
  });
});
