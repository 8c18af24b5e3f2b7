// The OpenAPI 3.1 document of /api/v1 (ADR 0028), served at GET /api/v1/openapi.json. Generated
// from the zod schemas the routes validate with and the answers are checked against
// (modules/api-v1/schema.ts, pathIdSchema): no hand-written copy of a schema. JSON Schema draft 2020-12 is
// OpenAPI 3.1's dialect. modules/api-v1/openapi.test.ts checks it validates, that it lists exactly
// the routes of /api/v1, and that the real answers parse with its schemas. Below it, the document
// of every call under /api (GET /api/openapi.json), which embeds this one's operations.
import * as z from "zod/mini";
import { PROBLEM_CONTENT_TYPE } from "../../server/http/problem.ts";
import { type RouteDoc, type RouteSecurity, routeDocOf } from "../../server/http/route-doc.ts";
import { pathIdSchema } from "../../server/http/validate.ts";
import {
  IDEMPOTENCY_KEY_PATTERN,
  v1CreateOrderSchema,
  v1OrderPageSchema,
  v1OrderSchema,
  v1OrdersQuerySchema,
  v1ProblemSchema,
  v1QuoteSchema,
} from "./schema.ts";

type JsonSchema = Record<string, unknown>;

interface Operation {
  method: "get" | "post";
  /** OpenAPI's form: `/api/v1/orders/{orderId}`. */
  path: string;
  operationId: string;
  summary: string;
  /** false: no key needed. */
  secured: boolean;
  query?: z.core.$ZodType;
  params?: Record<string, z.core.$ZodType>;
  /** Request headers: their schema and what they mean. */
  headers?: Record<string, { schema: z.core.$ZodType; required: boolean; description: string }>;
  /** The JSON body's schema, a name under components.schemas. */
  body?: keyof typeof COMPONENTS;
  /** The answer's schema, a name under components.schemas; `status` 200 unless given. */
  ok: { description: string; schema: keyof typeof COMPONENTS | "OpenApiDocument"; status?: number };
  /** Further successful answers with the same schema (status → description). */
  alsoOk?: Record<number, string>;
  /** Problem answers besides 401 and 429 (which every secured call may give). */
  problems?: Record<number, string>;
}

const COMPONENTS = {
  OrderPage: v1OrderPageSchema,
  Order: v1OrderSchema,
  CreateOrder: v1CreateOrderSchema,
  Quote: v1QuoteSchema,
  Problem: v1ProblemSchema,
};

/** The schemas read as input (what a caller sends) rather than as output. */
const INPUT_COMPONENTS = new Set<string>(["CreateOrder"]);

export const V1_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/api/v1/orders",
    operationId: "createOrder",
    summary:
      "Place an order paid from the company's prepaid balance; the same Idempotency-Key and body answer the same order",
    secured: true,
    headers: {
      "Idempotency-Key": {
        schema: z.string().check(z.regex(IDEMPOTENCY_KEY_PATTERN)),
        required: true,
        description:
          "A new value (e.g. a UUID) for each new order, 1 to 255 printable ASCII characters. Sent again with the " +
          "same body within 24 hours, it answers the same order (200) and charges nothing more; with another body, 409. " +
          "It belongs to the API key that sent it: another key, even of the same company, may use the same value " +
          "for an order of its own, and never gets this key's order back.",
      },
    },
    body: "CreateOrder",
    ok: {
      description: "The order, placed and charged to the balance (released, or scheduled).",
      schema: "Order",
      status: 201,
    },
    alsoOk: {
      200: "The order this Idempotency-Key placed before, as it is now.",
      202: "The order, placed and waiting for an Owner's approval (at or above the company's threshold); nothing charged yet.",
    },
    problems: {
      400: "The body, the send time or the Idempotency-Key is not valid (errors names each field); nothing changed.",
      402: "The company's balance does not cover the order's total; nothing changed.",
      409: "This Idempotency-Key was used with a different request.",
    },
  },
  {
    method: "post",
    path: "/api/v1/quotes",
    operationId: "quoteOrder",
    summary:
      "What createOrder would charge for the same body (rewards, fee, GST, total) and the balance it would leave; nothing is charged or kept",
    secured: true,
    body: "CreateOrder",
    ok: { description: "The order's cost and the balance after it.", schema: "Quote" },
    problems: {
      400: "The body or the send time is not valid, or createOrder would refuse it (errors names each field); nothing changed.",
    },
  },
  {
    method: "get",
    path: "/api/v1/orders",
    operationId: "listOrders",
    summary: "The company's paid orders, newest first, a page at a time",
    secured: true,
    query: v1OrdersQuerySchema,
    ok: { description: "One page of orders.", schema: "OrderPage" },
  },
  {
    method: "get",
    path: "/api/v1/orders/{orderId}",
    operationId: "getOrder",
    summary: "An order and, once released, each recipient's email delivery (recipients is null before)",
    secured: true,
    params: { orderId: pathIdSchema },
    ok: { description: "The order.", schema: "Order" },
    problems: { 404: "No such order of this company." },
  },
  {
    method: "get",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This document (no key needed)",
    secured: false,
    ok: { description: "The OpenAPI 3.1 document of /api/v1.", schema: "OpenApiDocument" },
  },
];

/**
 * A zod schema as an OpenAPI 3.1 Schema Object (draft 2020-12, without the `$schema` member). A
 * part JSON Schema cannot say (a transform, a custom check) is left open rather than refused.
 */
function jsonSchema(schema: z.core.$ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  return rest;
}

function parameters(op: Pick<Operation, "params" | "headers" | "query">): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [name, schema] of Object.entries(op.params ?? {})) {
    out.push({ name, in: "path", required: true, schema: jsonSchema(schema, "input") });
  }
  for (const [name, header] of Object.entries(op.headers ?? {})) {
    out.push({
      name,
      in: "header",
      required: header.required,
      description: header.description,
      schema: jsonSchema(header.schema, "input"),
    });
  }
  if (op.query) {
    const properties = (jsonSchema(op.query, "input").properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, schema] of Object.entries(properties)) {
      // A query value with a default falls back to it when missing or out of range.
      out.push({ name, in: "query", required: !("default" in schema), schema });
    }
  }
  return out;
}

const problemResponse = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
});

function operation(op: Operation): JsonSchema {
  const okSchema =
    op.ok.schema === "OpenApiDocument" ? { type: "object" } : { $ref: `#/components/schemas/${op.ok.schema}` };
  const responses: JsonSchema = {
    [op.ok.status ?? 200]: { description: op.ok.description, content: { "application/json": { schema: okSchema } } },
  };
  for (const [status, description] of Object.entries(op.alsoOk ?? {})) {
    responses[status] = { description, content: { "application/json": { schema: okSchema } } };
  }
  if (op.secured) responses[401] = problemResponse("No key, or a revoked, expired or unknown one.");
  for (const [status, description] of Object.entries(op.problems ?? {}))
    responses[status] = problemResponse(description);
  if (op.secured) responses[429] = problemResponse("Over the key's rate limit; Retry-After says when to call again.");
  return {
    operationId: op.operationId,
    summary: op.summary,
    // The document itself is public; every other call needs the key (the top-level default).
    ...(op.secured ? {} : { security: [] }),
    parameters: parameters(op),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${op.body}` } } },
          },
        }
      : {}),
    responses,
  };
}

/** The document, built from V1_OPERATIONS and the schemas. */
export function buildOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of V1_OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  const schemas = Object.fromEntries(
    Object.entries(COMPONENTS).map(([name, s]) => [
      name,
      jsonSchema(s, INPUT_COMPONENTS.has(name) ? "input" : "output"),
    ]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Rewards portal API for your own systems",
      version: "1",
      description:
        "Place orders paid from the company's prepaid balance (Settings → Balance), and read a company's orders " +
        "and their delivery, with a company API key (Settings → API keys). " +
        "Refusals answer application/problem+json (RFC 9457); a refusal's `code` names what was refused, " +
        "for a program to act on (its `detail` is for people).",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "rk_…",
          description: "A company API key: `Authorization: Bearer rk_…`.",
        },
      },
    },
  };
}

let built: string | undefined;

/** The document as served: built once, the same bytes on every call. */
export function openApiJson(): string {
  built ??= JSON.stringify(buildOpenApiDocument());
  return built;
}

// ─── The whole provider API: GET /api/openapi.json ───────────────────────────────────────────
// Built from the Hono app's route table (every route under /api) and what each route's
// middleware was marked with where it is declared (server/http/route-doc.ts): the body and page
// query schemas the routes validate with, their path ids, and who may call. The /api/v1
// operations are V1_OPERATIONS' own, answers included; the others name no answer schema (their
// answers are TypeScript types, not schemas) and point to docs/API.md "The API".

/** A route of the Hono app's table: one entry per handler of its chain (middleware ALL ones skipped). */
export interface AppRoute {
  method: string;
  path: string;
  // biome-ignore lint/complexity/noBannedTypes: Hono's handlers and middleware, looked up by identity.
  handler: Function;
}

const SECURITY_SCHEMES: Record<Exclude<RouteSecurity, "bearerOrChallenge">, JsonSchema> = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "A manager's access token from POST /api/Identity/login: `Authorization: Bearer <token>`.",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "rk_…",
    description: "A company API key: `Authorization: Bearer rk_…`.",
  },
  partner: {
    type: "http",
    scheme: "bearer",
    description: "The catalogue partner's key (PARTNER_API_KEY): `Authorization: Bearer <key>`.",
  },
};

/** `/api/Users/:id` as OpenAPI writes it: `/api/Users/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

/** Each route (method and path) with the marks of all of its chain's middleware. */
export function documentedRoutes(
  routes: readonly AppRoute[],
): Map<string, { method: string; path: string; doc: RouteDoc }> {
  const out = new Map<string, { method: string; path: string; doc: RouteDoc }>();
  for (const route of routes) {
    if (route.method === "ALL") continue;
    const path = openApiPath(route.path.replace(/\/+$/, ""));
    const key = `${route.method} ${path}`;
    const entry = out.get(key) ?? { method: route.method, path, doc: {} };
    const mark = routeDocOf(route.handler);
    if (mark) entry.doc = { ...entry.doc, ...mark, params: { ...entry.doc.params, ...mark.params } };
    out.set(key, entry);
  }
  return out;
}

/** An operation's security requirement: none (public), one scheme, or a bearer token or nothing (a challenge in the body). */
function securityOf(security: RouteSecurity | undefined): JsonSchema[] {
  if (!security) return [];
  if (security === "bearerOrChallenge") return [{ bearer: [] }, {}];
  return [{ [security]: [] }];
}

function genericOperation(method: string, path: string, doc: RouteDoc): JsonSchema {
  const name = path.replace(/^\/api\//, "");
  const tag = name.split("/")[0] ?? "api";
  const declared = doc.params ?? {};
  const params: Record<string, z.core.$ZodType> = {};
  for (const [, param] of path.matchAll(/\{(\w+)\}/g)) {
    params[param as string] = declared[param as string] ?? z.string();
  }
  const responses: JsonSchema = {
    "2XX": {
      description:
        'Done. JSON unless the API guide (docs/API.md, "The API") says otherwise (a CSV export, a PDF, 204).',
    },
  };
  if (doc.security) responses[401] = problemResponse("No valid credentials for this call.");
  responses["4XX"] = problemResponse(
    "Refused: problem+json (RFC 9457) with a detail and, for a bad body, errors naming each field; nothing changed.",
  );
  return {
    operationId: `${method.toLowerCase()}_${name.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+/g, "_")}`,
    summary: `${method} ${path}`,
    tags: [tag],
    security: securityOf(doc.security),
    parameters: parameters({ params, query: doc.query }),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: jsonSchema(doc.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

/** The document of every call under /api, from the app's route table (see above). */
export function buildApiOpenApiDocument(routes: readonly AppRoute[]): JsonSchema {
  const v1 = buildOpenApiDocument() as { paths: Record<string, Record<string, JsonSchema>>; components: JsonSchema };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const { method, path, doc } of documentedRoutes(routes).values()) {
    const verb = method.toLowerCase();
    const own = v1.paths[path]?.[verb];
    // A /api/v1 operation keeps V1_OPERATIONS' detail; its security is the key whatever the default.
    const op = own
      ? { ...own, tags: ["v1"], security: own.security ?? [{ apiKey: [] }] }
      : genericOperation(method, path, doc);
    paths[path] = { ...paths[path], [verb]: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Rewards portal provider API",
      version: "1",
      description:
        "Every call under /api: the portal's own calls (a manager's bearer token), the catalogue partner's, " +
        "and /api/v1 for a company's systems (an API key; also described on its own at /api/v1/openapi.json). " +
        "Bodies and queries are described from the schemas the routes validate with. " +
        "Refusals answer application/problem+json (RFC 9457); a refusal's `code` names what was refused, " +
        "for a program to act on (its `detail` is for people).",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    paths,
    components: {
      schemas: (v1.components as { schemas: JsonSchema }).schemas,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** Per route table (one per app; the tests make many apps in one process), built once. */
const builtApi = new WeakMap<readonly AppRoute[], string>();

/** The whole API's document as served: built on the first call, when every route is in the table. */
export function apiOpenApiJson(routes: readonly AppRoute[]): string {
  let json = builtApi.get(routes);
  if (json === undefined) {
    json = JSON.stringify(buildApiOpenApiDocument(routes));
    builtApi.set(routes, json);
  }
  return json;
}
