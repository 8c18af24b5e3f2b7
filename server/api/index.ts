// The provider API (SPEC §7, DESIGN.md §2): a fetch-style Hono app mounted at /api. The web
// portal calls it in process through its `fetch`, or over HTTP when PROVIDER_API_URL is set.
import { Hono } from "hono";
import { DETAILS } from "../../core/public-forms.ts";
import { ProblemError, problemResponse } from "../http/problem.ts";
import { errorForLog } from "../logger.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";
import { publicRoutes } from "./public.ts";

export function createApi(deps: ApiDeps) {
  const api = new Hono<ApiEnv>({ strict: false }).basePath("/api");

  api.onError((error, c) => {
    if (error instanceof ProblemError) return problemResponse(error.status, error.message, error.errors);
    deps.logger.error({ ...errorForLog(error), path: c.req.path }, "api error");
    return problemResponse(500, DETAILS.internal);
  });
  api.notFound(() => problemResponse(404, DETAILS.notFound));

  api.route("/", publicRoutes(deps));
  return api;
}

export type Api = ReturnType<typeof createApi>;
