// What the OpenAPI document of the whole provider API (modules/api-v1/openapi.server.ts, GET /api/openapi.json)
// knows of a route, attached to the middleware that enforces it where the route is declared: a
// JSON body's and a page query's zod schema (validate.ts jsonBody, pageParams), path ids (idParams)
// and who may call (the bearer, API key and partner key checks). A route's handler chain is in
// the Hono app's route table, so the document is built from that table and these marks, and no
// second list of routes is kept by hand (ADR 0044).
import type { z } from "zod";

/**
 * Who may call a route: a manager's bearer token, a company API key (/api/v1), the catalogue
 * partner's key; or a bearer token or, without one, a login challenge in the body (two-factor
 * set-up during a login, modules/two-factor/api.server.ts).
 */
export type RouteSecurity = "bearer" | "apiKey" | "partner" | "bearerOrChallenge";

export interface RouteDoc {
  /** The JSON body's schema, as the route validates it. */
  body?: z.core.$ZodType;
  /** The query's schema, as the route validates it. */
  query?: z.core.$ZodType;
  /** Path parameters and their schemas. */
  params?: Record<string, z.core.$ZodType>;
  security?: RouteSecurity;
}

// biome-ignore lint/complexity/noBannedTypes: any middleware or handler function is a key.
const docs = new WeakMap<Function, RouteDoc>();

/** Marks `handler` (a middleware) with what it enforces; answers it unchanged. */
// biome-ignore lint/complexity/noBannedTypes: any middleware or handler function.
export function documented<H extends Function>(handler: H, doc: RouteDoc): H {
  docs.set(handler, { ...docs.get(handler), ...doc });
  return handler;
}

/** What `handler` was marked with, if anything. */
// biome-ignore lint/complexity/noBannedTypes: any middleware or handler function.
export function routeDocOf(handler: Function): RouteDoc | undefined {
  return docs.get(handler);
}
