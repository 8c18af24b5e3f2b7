// The OpenAPI 3.1 document of /api/v1 (ADR 0028): served without a key, valid by a maintained
// OpenAPI validator, listing exactly the operations of the API's own route table under /api/v1,
// and true: the real answers of both order calls parse with its response schemas.
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeEach, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { REFUSAL_KINDS } from "../../core/refusals.ts";
import { createApi } from "../../server/api/index.ts";
import { REFUSAL_ANSWERS } from "../../server/api/refusals.ts";
import { captchaOff } from "../../server/captcha/port.ts";
import { loadConfig } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import { orders } from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { API_ROUTES } from "../../tests/security/api-routes.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { call } from "../identity/accounts.testkit.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { buildApiOpenApiDocument, buildOpenApiDocument } from "./openapi.server.ts";
import { v1OrderPageSchema, v1OrderSchema, v1ProblemSchema, v1QuoteSchema } from "./schema.ts";

const DAY = 24 * 60 * 60_000;

type Doc = { paths: Record<string, Record<string, unknown>> };

function apiApp() {
  return createApi({
    db: null as never,
    config: loadConfig({}),
    logger: createLogger("silent"),
    captcha: captchaOff,
  });
}

/** "GET /api/v1/orders/{orderId}" for every route of the API app under `prefix` (middleware excluded). */
function routesOfApi(prefix = "/api/v1/"): string[] {
  const out = new Set<string>();
  for (const route of apiApp().routes) {
    if (route.method === "ALL" || !route.path.startsWith(prefix)) continue;
    out.add(`${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`);
  }
  return [...out].sort();
}
const v1RoutesOfApi = () => routesOfApi();

function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

describe("the /api/v1 OpenAPI document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(buildOpenApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("lists exactly the operations of the API's route table under /api/v1", () => {
    const routes = v1RoutesOfApi();
    expect(routes).toContain("GET /api/v1/orders/{orderId}");
    expect(operationsOf(buildOpenApiDocument() as Doc)).toEqual(routes);
  });

  it("documents the path id, the paging query and the bearer key from the routes' own schemas", () => {
    const doc = buildOpenApiDocument() as Doc & { components: { securitySchemes: unknown } };
    const getOrder = doc.paths["/api/v1/orders/{orderId}"]?.get as { parameters: unknown[] };
    expect(getOrder.parameters).toEqual([
      { name: "orderId", in: "path", required: true, schema: expect.objectContaining({ type: "integer", minimum: 1 }) },
    ]);
    const list = doc.paths["/api/v1/orders"]?.get as { parameters: unknown[]; responses: Record<string, unknown> };
    expect(list.parameters).toEqual([
      expect.objectContaining({ name: "pageNumber", in: "query", required: false }),
      expect.objectContaining({ name: "pageSize", in: "query", required: false }),
    ]);
    expect(Object.keys(list.responses)).toEqual(["200", "401", "429"]);
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
  });

  it("says the Idempotency-Key belongs to the API key that sent it (docs/requirements.md §D7)", () => {
    const doc = buildOpenApiDocument() as Doc;
    const create = doc.paths["/api/v1/orders"]?.post as { parameters: Array<{ name: string; description?: string }> };
    const header = create.parameters.find((p) => p.name === "Idempotency-Key");
    expect(header?.description).toContain("belongs to the API key that sent it");
    expect(header?.description).toContain("even of the same company");
  });

  it("documents a refusal's code: one kind of core/refusals.ts, every kind of the API edge's table (ADR 0039)", () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, JsonSchema> } };
    const code = doc.components.schemas.Problem?.properties?.code;
    expect(code?.enum).toEqual([...REFUSAL_KINDS]);
    expect(Object.keys(REFUSAL_ANSWERS).sort()).toEqual([...REFUSAL_KINDS].sort());
    expect(doc.components.schemas.Problem?.required).not.toContain("code");
  });
});

type JsonSchema = { properties?: Record<string, { enum?: unknown[] }>; required?: string[] };

const BEARER_OR_CHALLENGE = ["POST /api/TwoFactor/setup", "POST /api/TwoFactor/confirm"];

describe("the OpenAPI document of the whole /api", () => {
  const doc = () => buildApiOpenApiDocument(apiApp().routes) as Doc;
  type Op = {
    security: Array<Record<string, string[]>>;
    parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
    requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } };
    operationId: string;
  };
  const op = (method: string, path: string) => doc().paths[path]?.[method] as Op;

  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("lists exactly every route of the API app's table, each with a unique operationId", () => {
    const routes = routesOfApi("/api/");
    expect(routes.length).toBeGreaterThan(100);
    expect(routes).toContain("GET /api/openapi.json");
    expect(operationsOf(doc())).toEqual(routes);
    const ids = Object.values(doc().paths).flatMap((item) => Object.values(item).map((o) => (o as Op).operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("says who may call each route as the security suite's classification does (tests/security/api-routes.ts)", () => {
    const expected = {
      public: [],
      webhook: [],
      bearer: [{ bearer: [] }],
      apiKey: [{ apiKey: [] }],
      partner: [{ partner: [] }],
    };
    const wrong: string[] = [];
    for (const route of routesOfApi("/api/")) {
      const [method, path] = route.split(" ") as [string, string];
      const entry = API_ROUTES[`${method} ${path.replace(/\{(\w+)\}/g, ":$1")}`];
      if (!entry) {
        wrong.push(`${route}: not in api-routes.ts`);
        continue;
      }
      const security = op(method.toLowerCase(), path).security;
      // Two-factor set-up takes a bearer token or, during a login, the challenge token in its body.
      const want = BEARER_OR_CHALLENGE.includes(route) ? [{ bearer: [] }, {}] : expected[entry.kind];
      if (JSON.stringify(security) !== JSON.stringify(want)) {
        wrong.push(`${route}: ${entry.kind}, documented ${JSON.stringify(security)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("describes bodies, page queries and path ids from the schemas the routes validate with", () => {
    const login = op("post", "/api/Identity/login");
    expect(login.requestBody?.content["application/json"].schema).toMatchObject({
      type: "object",
      properties: expect.objectContaining({ userName: expect.anything(), password: expect.anything() }),
    });
    expect(op("get", "/api/RewardHistory").parameters.map((p) => [p.name, p.in])).toEqual([
      ["pageNumber", "query"],
      ["pageSize", "query"],
    ]);
    expect(op("get", "/api/RewardOrders/{orderId}").parameters).toEqual([
      { name: "orderId", in: "path", required: true, schema: expect.objectContaining({ type: "integer", minimum: 1 }) },
    ]);
    const quote = op("post", "/api/v1/quotes");
    expect(quote.requestBody).toBeDefined();
    expect(op("post", "/api/Redemptions").requestBody?.content["application/json"].schema).toMatchObject({
      properties: expect.objectContaining({ accessCode: expect.anything(), amountCents: expect.anything() }),
    });
  });
});

describeEachDatabase("the /api/v1 OpenAPI document, served and true", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  it("is served without a key, cacheable, and the real answers parse with its schemas", async () => {
    const ctx = paymentsApi(db(), { config });
    const served = await call(ctx.api, "GET", "/api/v1/openapi.json");
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json/);
    expect(served.headers.get("cache-control")).toMatch(/public/);
    expect(await served.json()).toEqual(buildOpenApiDocument());
    const whole = await call(ctx.api, "GET", "/api/openapi.json");
    expect(whole.status).toBe(200);
    expect(whole.headers.get("cache-control")).toMatch(/public/);
    expect(await whole.json()).toEqual(buildApiOpenApiDocument(ctx.api.routes));

    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    await seedDraft(db(), a, [60, 40], "Released Thanks");
    expect((await payDraftByCard(a, [60, 40])).status).toBe("succeeded");
    await seedDraft(db(), a, [25], "Scheduled Thanks");
    const sendAt = new Date(ctx.clock.now().getTime() + 2 * DAY).toISOString();
    await a.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt });
    expect((await payDraftByCard(a, [25])).status).toBe("succeeded");
    const rows = await db().select({ id: orders.id, status: orders.status }).from(orders);
    const { key } = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    const v1 = async (path: string) => {
      const res = await call(ctx.api, "GET", `/api/v1/${path}`, undefined, key);
      expect(res.status, path).toBe(200);
      return res.json();
    };

    const page = z.parse(v1OrderPageSchema, await v1("orders"));
    expect(page.items.map((i) => i.state).sort()).toEqual(["released", "scheduled"]);
    for (const { id } of rows) z.parse(v1OrderSchema, await v1(`orders/${id}`));
    const released = z.parse(v1OrderSchema, await v1(`orders/${rows.find((o) => o.status === "paid")?.id}`));
    expect(released.recipients).toHaveLength(2);

    const quoted = await call(
      ctx.api,
      "POST",
      "/api/v1/quotes",
      { rewardName: "Quoted", recipients: [{ email: "q@example.com", firstName: "Q", lastName: "Uote", amount: 10 }] },
      key,
    );
    expect(quoted.status).toBe(200);
    z.parse(v1QuoteSchema, await quoted.json());

    const refused = await call(ctx.api, "GET", "/api/v1/orders/999999", undefined, key);
    expect(refused.status).toBe(404);
    z.parse(v1ProblemSchema, await refused.json());
  });
});
