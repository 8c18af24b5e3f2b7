// The HTTP face of the process: security headers, compression, logging, health checks, rate
// limits, canonical paths, the provider API at /api, static assets, and the web portal.
import { randomBytes } from "node:crypto";
import { getConnInfo } from "@hono/node-server/conninfo";
import { serveStatic } from "@hono/node-server/serve-static";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { createRequestHandler, RouterContextProvider, type ServerBuild } from "react-router";
import { type RequestServices, SHARED_PAGE_SLOTS, type WebServices } from "../../app/context.ts";
import { DETAILS } from "../../core/public-forms.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { compress } from "./compress.ts";
import { problemResponse } from "./problem.ts";
import { createRateLimiter, RATE_RULES } from "./rate-limit.ts";
import { inWebRequestScope } from "./request-scope.ts";
import { createSharedPages, sharedPageEligible } from "./shared-pages.ts";
import { BODY_TOO_LARGE, BULK_JSON_BYTES } from "./validate.ts";

export const CLIENT_IP_HEADER = "x-rewards-client-ip";

export interface ServerAppOptions {
  config: Config;
  logger: Logger;
  api: { fetch: (request: Request) => Response | Promise<Response> };
  web: WebServices;
  /** The React Router build; a function in dev so each request sees the latest code. */
  build: ServerBuild | (() => Promise<ServerBuild>);
  ready: () => Promise<void>;
  mode: "production" | "development";
  clientDir?: string;
  trustProxy?: boolean;
}

/** First segments of web routes that SPEC spells with capitals too (/Help, /Corporate/Login, /Portal/Help). */
const CASE_INSENSITIVE_SECTIONS = new Set(["help", "corporate", "portal", "policies", "not-ready-yet", "error"]);

export function canonicalPath(pathname: string): string | null {
  const first = pathname.split("/")[1] ?? "";
  if (!CASE_INSENSITIVE_SECTIONS.has(first.toLowerCase())) return null;
  const lower = pathname.toLowerCase();
  return lower === pathname ? null : lower;
}

export function createServerApp(options: ServerAppOptions) {
  const { config, logger, api, web, mode } = options;
  const app = new Hono();
  const limiter = createRateLimiter(RATE_RULES, config.RATE_LIMIT_FACTOR);
  const handleWeb = createRequestHandler(
    typeof options.build === "function" ? options.build : () => options.build as ServerBuild,
    mode,
  );
  const getBuild = async () => (typeof options.build === "function" ? options.build() : options.build);

  const clientIp = (c: Context): string => {
    if (options.trustProxy) {
      const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
      if (forwarded) return forwarded;
    }
    try {
      return getConnInfo(c).remote.address ?? "unknown";
    } catch {
      return "unknown";
    }
  };

  // Request log: one line per request, without query strings (they can carry tokens).
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const path = c.req.path;
    if (path.startsWith("/assets/")) return;
    logger.info(
      { method: c.req.method, path, status: c.res.status, ms: Math.round(performance.now() - started) },
      "request",
    );
  });

  const captchaHosts = config.captchaEnabled
    ? ["https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"]
    : [];
  const mediaHosts = [
    ...new Set([config.ONBOARDING_VIDEO_URL, config.HOW_IT_WORKS_VIDEO_URL].map((u) => new URL(u).origin)),
  ];
  // Stripe's Payment Element (its script, frames and API) and the Checkout redirect after the
  // no-JavaScript form post (Chrome applies form-action to the redirect). Only when Stripe is on.
  const stripe = config.payments === "stripe";
  const stripeFrames = stripe ? ["https://js.stripe.com", "https://hooks.stripe.com"] : [];
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: stripe ? ["'self'", "https://checkout.stripe.com"] : ["'self'"],
        // 'strict-dynamic' lets the nonced module scripts load their own chunks.
        scriptSrc:
          mode === "development"
            ? ["'self'", "'unsafe-inline'", ...captchaHosts]
            : [NONCE, "'strict-dynamic'", ...captchaHosts, ...(stripe ? ["https://js.stripe.com"] : [])],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: stripe ? ["'self'", "data:", "https://*.stripe.com"] : ["'self'", "data:"],
        fontSrc: ["'self'"],
        connectSrc: [
          "'self'",
          ...(mode === "development" ? ["ws:"] : []),
          ...(stripe ? ["https://api.stripe.com"] : []),
        ],
        frameSrc: [...captchaHosts, ...mediaHosts, ...stripeFrames],
        mediaSrc: ["'self'", ...mediaHosts],
      },
      // HSTS in production only: a developer's https dev server must not pin the host for two years.
      strictTransportSecurity: config.isHttps && mode === "production" ? "max-age=63072000; includeSubDomains" : false,
      referrerPolicy: "strict-origin-when-cross-origin",
      xFrameOptions: "DENY",
      xContentTypeOptions: true,
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: "same-origin",
    }),
  );

  // Compression for dynamic responses (zstd, brotli or gzip; ./compress.ts); built assets are
  // pre-compressed (scripts/compress-assets.ts).
  app.use(compress({ threshold: 1024 }));

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    try {
      await options.ready();
      return c.json({ status: "ready" });
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "readiness check failed");
      return c.json({ status: "unavailable" }, 503);
    }
  });

  app.use(async (c, next) => {
    const verdict = await limiter.check(c.req.method, c.req.path, clientIp(c));
    if (verdict.allowed) return next();
    const headers = { "retry-after": String(verdict.retryAfterSeconds) };
    logger.warn({ rule: verdict.rule, path: c.req.path }, "rate limited");
    if (c.req.path.toLowerCase().startsWith("/api/"))
      return problemResponse(429, DETAILS.tooManyRequests, undefined, headers);
    return c.html(tooManyRequestsPage(), 429, headers);
  });

  // No API body is longer than a 5,000-row bulk upload: a longer one is refused while it arrives,
  // before it is held in memory whole (jsonBody then applies each call's own, smaller limit).
  app.use("/api/*", bodyLimit({ maxSize: BULK_JSON_BYTES, onError: () => problemResponse(413, BODY_TOO_LARGE) }));

  app.all("/api/*", (c) => {
    const request = new Request(c.req.raw);
    request.headers.set(CLIENT_IP_HEADER, clientIp(c));
    return api.fetch(request);
  });
  app.all("/api", () => problemResponse(404, DETAILS.notFound));

  if (mode === "production") {
    const root = options.clientDir ?? "build/client";
    app.use(
      "/assets/*",
      async (c, next) => {
        await next();
        if (c.res.status === 200) c.header("cache-control", "public, max-age=31536000, immutable");
      },
      serveStatic({ root, precompressed: true }),
    );
    const publicFiles = serveStatic({ root, precompressed: true });
    app.use(async (c, next) => {
      // Only a path that names a file can be one (favicon, brand tiles): pages skip the file-system lookup.
      if (!/\.[A-Za-z0-9]+$/.test(c.req.path)) return next();
      // serveStatic answers the file's Response, or what next() gave when there is no such file.
      const found = await publicFiles(c, next);
      if (found instanceof Response) c.res = found;
      // Public files change rarely but are not fingerprinted.
      if (
        c.res.status === 200 &&
        !c.res.headers.has("cache-control") &&
        /\.(svg|png|ico|webp|jpg|txt|webmanifest)$/.test(c.req.path)
      ) {
        c.header("cache-control", "public, max-age=86400");
      }
    });
  }

  /** React Router's answer to `request`, with the services every loader and action receives. */
  const renderWeb = async (
    request: Request,
    extra: Pick<RequestServices, "nonce" | "clientIp" | "sharedPageRender">,
  ) => {
    const build = await getBuild();
    const context = new RouterContextProvider();
    const key = (build.entry.module as unknown as { webContext: Parameters<RouterContextProvider["set"]>[0] })
      .webContext;
    context.set(key, { ...web, ...extra } satisfies RequestServices);
    // One token lookup per page even though the layout and the page each call the API (./request-scope.ts).
    if (request.method === "GET" || request.method === "HEAD")
      return inWebRequestScope(() => handleWeb(request, context));
    return handleWeb(request, context);
  };

  // The public pages every anonymous visitor sees alike, rendered once a minute (./shared-pages.ts).
  // Not in development, where each request must see the latest code.
  const sharedPages =
    mode === "production"
      ? createSharedPages({
          render: (path) =>
            renderWeb(new Request(new URL(path, config.APP_URL)), {
              nonce: SHARED_PAGE_SLOTS.nonce,
              clientIp: "127.0.0.1",
              sharedPageRender: true,
            }),
        })
      : null;

  app.all("*", async (c) => {
    const url = new URL(c.req.url);
    const canonical = canonicalPath(url.pathname);
    if (canonical && (c.req.method === "GET" || c.req.method === "HEAD")) {
      return c.redirect(canonical + url.search, 301);
    }
    const nonce = (c.get("secureHeadersNonce" as never) as string | undefined) ?? randomBytes(16).toString("base64");
    if (sharedPages && sharedPageEligible(c.req.method, url, c.req.header("cookie"))) {
      // The visitor's own CSRF token: the one their cookie holds, or a new one with its cookie.
      const [csrf, setCookie] = await web.formGuards.csrf.commitToken(c.req.raw);
      const shared = await sharedPages.respond(
        url.pathname,
        { nonce, csrf },
        c.req.header("accept-encoding"),
        setCookie,
      );
      if (shared) return shared;
    }
    return renderWeb(c.req.raw, { nonce, clientIp: clientIp(c) });
  });

  return app;
}

function tooManyRequestsPage(): string {
  return `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Too many requests</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem"><h1>Too many requests</h1>
<p>${DETAILS.tooManyRequests}</p><p><a href="/">Go back home</a></p></body></html>`;
}
