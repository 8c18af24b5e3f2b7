// The provider API (docs/requirements.md §S7, §D2): a fetch-style Hono app mounted at /api. The web
// portal calls it in process through its `fetch` (ADR 0015).
import { Hono } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { apiKeysRoutes } from "../../modules/api-keys/api.server.ts";
import { apiV1Routes } from "../../modules/api-v1/api.server.ts";
import { apiOpenApiJson } from "../../modules/api-v1/openapi.server.ts";
import { approvalsRoutes } from "../../modules/approvals/api.server.ts";
import { auditRoutes } from "../../modules/audit/api.server.ts";
import { automationsRoutes } from "../../modules/automations/api.server.ts";
import { balanceRoutes } from "../../modules/balance/api.server.ts";
import { budgetsRoutes } from "../../modules/budgets/api.server.ts";
import { companiesRoutes } from "../../modules/companies/api.server.ts";
import { deliveriesRoutes } from "../../modules/deliveries/api.server.ts";
import { helpRoutes } from "../../modules/help/api.server.ts";
import { identityRoutes } from "../../modules/identity/api.server.ts";
import { importsRoutes } from "../../modules/imports/api.server.ts";
import { invoicesRoutes } from "../../modules/invoices/api.server.ts";
import { redemptionsRoutes } from "../../modules/lots/api.server.ts";
import { managersRoutes } from "../../modules/managers/api.server.ts";
import { paymentsRoutes } from "../../modules/orders/payments.api.server.ts";
import { rewardOrdersRoutes } from "../../modules/orders/reward-orders.api.server.ts";
import { rewardMyTeamRoutes } from "../../modules/reward-drafts/api.server.ts";
import { rewardHistoryRoutes } from "../../modules/reward-history/api.server.ts";
import { settingsRoutes } from "../../modules/settings/api.server.ts";
import { singleSignOnRoutes } from "../../modules/single-sign-on/api.server.ts";
import { usersRoutes } from "../../modules/team/api.server.ts";
import { twoFactorRoutes } from "../../modules/two-factor/api.server.ts";
import { webhooksRoutes } from "../../modules/webhooks/api.server.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { ProblemError, problemResponse } from "../http/problem.ts";
import { errorForLog } from "../logger.ts";
import { paymentsFor } from "../payments/index.ts";
import { Refusal } from "../refusal.ts";
import { bearerAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import { publicRoutes } from "./public.ts";
import { createRateLimits, RateLimitedError } from "./rate-limits.ts";
import { problemOfRefusal, refusalProblem } from "./refusals.ts";

/** Set by the edge (server/http/app.ts) and by the web's API client: the caller's address. */
const CLIENT_IP_HEADER = "x-rewards-client-ip";

/** The answer of a refusal the API itself makes (its own failures), with any headers. */
function refusalResponse(refusal: Refusal, headers?: HeadersInit): Response {
  const p = refusalProblem(refusal);
  return problemResponse(p.status, p.message, p.errors, headers, p.extensions, p.code);
}

export function createApi(deps: ApiDeps) {
  const api = new Hono<ApiEnv>({ strict: false }).basePath("/api");

  api.onError((error, c) => {
    if (error instanceof RateLimitedError) {
      return problemResponse(error.status, error.message, undefined, {
        "retry-after": String(error.retryAfterSeconds),
      });
    }
    const problem = error instanceof ProblemError ? error : problemOfRefusal(error);
    if (problem) {
      return problemResponse(
        problem.status,
        problem.message,
        problem.errors,
        undefined,
        problem.extensions,
        problem.code,
      );
    }
    if (isDatabaseUnavailable(error)) {
      deps.logger.warn({ ...errorForLog(error), path: c.req.path }, "database unavailable");
      return refusalResponse(new Refusal("service-unavailable"), { "retry-after": "5" });
    }
    deps.logger.error({ ...errorForLog(error), path: c.req.path }, "api error");
    return refusalResponse(new Refusal("internal-error"));
  });
  api.notFound(() => problemResponse(404, DETAILS.notFound));

  api.use(async (c, next) => {
    const ip = c.req.header(CLIENT_IP_HEADER)?.trim();
    if (ip) c.set("clientIp", ip.slice(0, 64));
    await next();
  });

  const now = () => deps.now?.() ?? new Date();
  // Every authenticated call (docs/requirements.md §S6) goes through this one bearer check.
  const auth = bearerAuth(deps.db, now);
  const limits = createRateLimits(deps.config.RATE_LIMIT_FACTOR, deps.rateLimitStore, deps.onRateLimited);
  // One card processor for the payment calls and the payment of an approved order.
  const payments = deps.payments ?? paymentsFor(deps.config, deps.db, now);

  // Chained, so the app's type carries every route with its input and answers (ADR 0016).
  return (
    api
      .route("/", publicRoutes(deps, limits))
      .route("/", identityRoutes(deps, auth, limits, now))
      .route("/", usersRoutes(deps, auth))
      .route("/", settingsRoutes(deps, auth, limits, now))
      .route("/", companiesRoutes(deps, auth, now))
      .route("/", helpRoutes(deps, auth, limits))
      .route("/", rewardHistoryRoutes(deps, auth, now))
      .route("/", invoicesRoutes(deps, auth))
      .route("/", deliveriesRoutes(deps, auth, limits, now))
      .route("/", redemptionsRoutes(deps, limits, now))
      .route("/", paymentsRoutes(deps, payments, auth, now, limits))
      .route("/", approvalsRoutes(deps, payments, auth, now))
      .route("/", rewardOrdersRoutes(deps, payments, auth, now))
      .route("/", rewardMyTeamRoutes(deps, auth, now))
      .route("/", importsRoutes(deps, auth))
      .route("/", auditRoutes(deps, auth))
      .route("/", managersRoutes(deps, auth, limits, now))
      .route("/", twoFactorRoutes(deps, auth, limits, now))
      .route("/", apiKeysRoutes(deps, auth, now))
      // Monthly budgets this month (ADR 0034).
      .route("/", budgetsRoutes(deps, auth, now))
      // Signed webhooks of the company's events (ADR 0045).
      .route("/", webhooksRoutes(deps, auth, now, limits))
      // Single sign-on with the company's OpenID Connect provider (ADR 0046).
      .route("/", singleSignOnRoutes(deps, auth, limits, now))
      // The prepaid balance and its card top-ups (ADR 0043).
      .route("/", balanceRoutes(deps, payments, auth, now, limits))
      // Birthday and work-anniversary automations (ADR 0035).
      .route("/", automationsRoutes(deps, auth, now))
      // A company API key's calls (ADR 0028): their own middleware, never a manager's token.
      .route("/", apiV1Routes(deps, limits, now, payments))
      // The OpenAPI document of every call above (public), built from this app's own route table
      // when first asked, once every route is in it (openapi.ts buildApiOpenApiDocument).
      .get("/openapi.json", (c) =>
        c.body(apiOpenApiJson(api.routes), 200, {
          "content-type": "application/json",
          "cache-control": "public, max-age=3600",
        }),
      )
  );
}

/** The provider API with every route's types: what the web's client (app/lib/api.server.ts) is built on. */
export type Api = ReturnType<typeof createApi>;
