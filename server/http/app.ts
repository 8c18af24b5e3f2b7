// The HTTP face of the process: security headers, compression, logging, health checks, body
// limits, the client's address, canonical paths, the provider API at /api, static assets, and the
// web portal. Rate limits belong to the API operations they guard (server/api/rate-limits.ts).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { getConnInfo } from "@hono/node-server/conninfo";
import { serveStatic } from "@hono/node-server/serve-static";
import { type Context, Hono } from "hono";
import { accepts } from "hono/accepts";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { secureHeaders } from "hono/secure-headers";
import { createRequestHandler, RouterContextProvider, type ServerBuild } from "react-router";
import type { RequestServices, WebServices } from "../../app/context.ts";
import { FILE_TOO_LARGE_MESSAGE } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { ssoLoginFormActionSources } from "../../modules/single-sign-on/issuers.server.ts";
import type { WorkerCount } from "../cluster.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { hasSessionCookie, type PageEncoding, pageResponse, wholePage } from "./anonymous-pages.ts";
import { problemResponse } from "./problem.ts";
import { BODY_TOO_LARGE, BULK_JSON_BYTES } from "./validate.ts";

export const CLIENT_IP_HEADER = "x-rewards-client-ip";

export interface ServerAppOptions {
  config: Config;
  logger: Logger;
  api: { fetch: (request: Request) => Response | Promise<Response> };
  web: WebServices;
  /** The React Router build; a function in dev so each request sees the latest code. */
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Throws when the database does not answer; in a cluster worker, names the workers listening. */
  ready: () => Promise<{ workers?: WorkerCount } | undefined>;
  mode: "production" | "development";
  clientDir?: string;
  /** Reverse-proxy hops in front of the app (TRUST_PROXY): the client is that many entries from the right of X-Forwarded-For. */
  trustProxy?: number;
  /** What GET /metrics answers once its token is right (server/metrics.ts); unset: 401 to everyone. */
  scrapeMetrics?: () => Promise<{ contentType: string; body: string }>;
}

/** A web form post longer than this is refused while it arrives (docs/requirements.md §D7). */
export const WEB_FORM_MAX_BYTES = 256 * 1024;
/** Multipart posts carry a CSV file: the upload routes apply their own cap (MAX_UPLOAD_BYTES) and message under this one. */
export const WEB_MULTIPART_MAX_BYTES = MAX_UPLOAD_BYTES + 1024 * 1024;

/**
 * The client's address: the socket's, or with `hops` trusted proxies in front, the entry that
 * many places from the right of X-Forwarded-For (the entries further left are the client's own
 * words). Fewer entries than hops: the leftmost one, the furthest any proxy vouches for.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  hops: number,
): string {
  if (hops > 0 && forwardedFor) {
    const entries = forwardedFor
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    const vouched = entries[Math.max(0, entries.length - hops)];
    if (vouched) return vouched;
  }
  return socketAddress ?? "unknown";
}

/** True when `given` is `expected`, compared in constant time: both hashed first, so their lengths leak nothing. */
export function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** First segments of web routes that SPEC spells with capitals too (/Help, /Corporate/Login, /Portal/Help). */
/** The login page (any letter case; its action answers at the same address), whose form may post on to an identity provider. */
const LOGIN_PAGE = /^\/corporate\/login\/?$/i;

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
  const handleWeb = createRequestHandler(options.build, mode);
  const getBuild = async () => (typeof options.build === "function" ? options.build() : options.build);

  const clientIp = (c: Context): string => {
    let socket: string | undefined;
    try {
      socket = getConnInfo(c).remote.address;
    } catch {
      socket = undefined;
    }
    return clientAddress(socket, c.req.header("x-forwarded-for"), options.trustProxy ?? 0);
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
  const scriptHosts = [...captchaHosts, ...(stripe ? ["https://js.stripe.com"] : [])];
  const formAction = stripe ? "'self' https://checkout.stripe.com" : "'self'";
  // The login page's "Sign in with your company account" is a plain form post answered by a
  // redirect to the company's own identity provider (ADR 0046), and Chrome applies form-action to
  // that redirect. The login page alone allows every provider single sign-on accepts (the same
  // rule decides both: modules/single-sign-on/issuers.server.ts).
  const loginFormAction = ssoLoginFormActionSources(config.APP_URL);
  const policyFor = (pathname: string) =>
    [
      "default-src 'self'",
      "base-uri 'self'",
      "object-src 'none'",
      "frame-ancestors 'none'",
      `form-action ${LOGIN_PAGE.test(pathname) ? loginFormAction.join(" ") : formAction}`,
      "style-src 'self' 'unsafe-inline'",
      `img-src ${stripe ? "'self' data: https://*.stripe.com" : "'self' data:"}`,
      "font-src 'self'",
      `connect-src ${["'self'", ...(mode === "development" ? ["ws:"] : []), ...(stripe ? ["https://api.stripe.com"] : [])].join(" ")}`,
      `frame-src ${[...captchaHosts, ...mediaHosts, ...stripeFrames].join(" ") || "'none'"}`,
      `media-src ${["'self'", ...mediaHosts].join(" ")}`,
    ].join("; ");
  const policyRest = policyFor("");
  const loginPolicyRest = policyFor("/corporate/login");
  /**
   * docs/requirements.md §D7. A page for a signed-in visitor is streamed: its scripts carry this request's
   * nonce, and 'strict-dynamic' admits the modules they import. A page for a visitor without a
   * session is rendered whole and its inline scripts are listed by hash ('self' admits the built
   * modules and their preload hints). Development allows inline scripts for Vite's HMR runtime.
   */
  const contentSecurityPolicy = (scripts: { nonce: string } | { hashes: string[] }, pathname = "") => {
    const scriptSrc =
      mode === "development"
        ? ["'self'", "'unsafe-inline'"]
        : "nonce" in scripts
          ? [`'nonce-${scripts.nonce}'`, "'strict-dynamic'"]
          : ["'self'", ...scripts.hashes];
    const rest = LOGIN_PAGE.test(pathname) ? loginPolicyRest : policyRest;
    return `${rest}; script-src ${[...scriptSrc, ...scriptHosts].join(" ")}`;
  };

  app.use(
    secureHeaders({
      // Set below, per answer: nonces for pages rendered per visitor, hashes for the others.
      contentSecurityPolicy: undefined,
      // HSTS in production only: a developer's https dev server must not pin the host for two years.
      strictTransportSecurity: config.isHttps && mode === "production" ? "max-age=63072000; includeSubDomains" : false,
      referrerPolicy: "strict-origin-when-cross-origin",
      xFrameOptions: "DENY",
      xContentTypeOptions: true,
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: "same-origin",
    }),
  );

  // API answers and React Router's data responses are compressed as they stream; HTML pages are
  // compressed whole (./anonymous-pages.ts) and built assets ahead of time
  // (scripts/compress-assets.ts), so both already carry their encoding.
  app.use(compress());
  // Answers other than pages (API JSON, files, the body-limit page) run no inline script.
  app.use(async (c, next) => {
    await next();
    if (!c.res.headers.has("content-security-policy")) {
      c.header("content-security-policy", contentSecurityPolicy({ hashes: [] }));
    }
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    try {
      const details = (await options.ready()) ?? {};
      // A cluster worker answers for the node: not ready while a worker is missing (one that died
      // and is being restarted, or the first start), so a load balancer drains it meanwhile.
      const workers = details.workers;
      if (workers && workers.listening < workers.wanted) return c.json({ status: "starting", ...details }, 503);
      return c.json({ status: "ready", ...details });
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "readiness check failed");
      return c.json({ status: "unavailable" }, 503);
    }
  });

  // Figures for operators (docs/decisions/0033-metrics-for-operators.md): only with the bearer token
  // METRICS_TOKEN, compared in constant time; unset, nobody gets them, in production and in
  // development alike. Never kept by a cache: no-store, and the page cache keeps only what an answer
  // allows (server/http/page-cache.ts).
  app.get("/metrics", async (c) => {
    const token = config.METRICS_TOKEN;
    const given = /^Bearer[ ]+(\S+)[ ]*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const headers = { "cache-control": "no-store" };
    if (!token || !given || !sameToken(given, token) || !options.scrapeMetrics) {
      return c.text("Unauthorized\n", 401, { ...headers, "www-authenticate": 'Bearer realm="metrics"' });
    }
    try {
      const { contentType, body } = await options.scrapeMetrics();
      return c.body(body, 200, { ...headers, "content-type": contentType });
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "metrics: scrape failed");
      return c.text("Metrics unavailable\n", 503, headers);
    }
  });

  // No JSON body is longer than a bulk upload: a longer one is refused while it arrives, before
  // it is held in memory whole (jsonBody then applies each call's own, smaller limit). A CSV
  // import's body is the file, read as a stream under the upload cap (modules/imports/service.server.ts).
  const jsonLimit = bodyLimit({ maxSize: BULK_JSON_BYTES, onError: () => problemResponse(413, BODY_TOO_LARGE) });
  const importLimit = bodyLimit({
    maxSize: MAX_UPLOAD_BYTES,
    onError: () => problemResponse(413, FILE_TOO_LARGE_MESSAGE),
  });
  app.use("/api/*", (c, next) => (/^\/api\/Imports\/?$/i.test(c.req.path) ? importLimit : jsonLimit)(c, next));

  app.all("/api/*", (c) => {
    const request = new Request(c.req.raw);
    request.headers.set(CLIENT_IP_HEADER, clientIp(c));
    return api.fetch(request);
  });
  app.all("/api", () => problemResponse(404, DETAILS.notFound));

  // Web form posts: refused while they arrive once longer than a form can be, before anything
  // holds them (the web routes never see a body past these limits).
  const formLimit = bodyLimit({ maxSize: WEB_FORM_MAX_BYTES, onError: (c) => c.html(tooLargePage(), 413) });
  const multipartLimit = bodyLimit({ maxSize: WEB_MULTIPART_MAX_BYTES, onError: (c) => c.html(tooLargePage(), 413) });
  app.use(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const multipart = /^multipart\/form-data/i.test(c.req.header("content-type") ?? "");
    return (multipart ? multipartLimit : formLimit)(c, next);
  });

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
    build: ServerBuild,
    request: Request,
    extra: Pick<RequestServices, "nonce" | "clientIp" | "userAgent">,
  ) => {
    const context = new RouterContextProvider();
    const key = (build.entry.module as unknown as { webContext: Parameters<RouterContextProvider["set"]>[0] })
      .webContext;
    context.set(key, { ...web, ...extra } satisfies RequestServices);
    return handleWeb(request, context);
  };

  /** The best encoding of a page the visitor accepts (br, else gzip), or undefined for none. */
  const encodingOf = (c: Context): PageEncoding | undefined => {
    const accepted = accepts(c, { header: "Accept-Encoding", supports: ["br", "gzip"], default: "identity" });
    return accepted === "identity" ? undefined : (accepted as PageEncoding);
  };

  app.all("*", async (c) => {
    const url = new URL(c.req.url);
    const method = c.req.method;
    const canonical = canonicalPath(url.pathname);
    if (canonical && (method === "GET" || method === "HEAD")) {
      return c.redirect(canonical + url.search, 301);
    }
    const build = await getBuild();
    if ((method === "GET" || method === "HEAD") && !hasSessionCookie(c.req.header("cookie"))) {
      // Rendered as GET (HEAD shares the page and drops the body), compressed in the one
      // encoding its visitor accepts. A page its route marks shareable keeps its public
      // Cache-Control and gets an ETag (./anonymous-pages.ts), for the process's cache
      // (./page-cache.ts) and any in front of the app; any other is for this visitor alone.
      const encoding = encodingOf(c);
      const page = await wholePage(
        await renderWeb(build, new Request(c.req.raw, { method: "GET" }), {
          nonce: undefined,
          clientIp: clientIp(c),
        }),
        encoding ? [encoding] : [],
      );
      const response = pageResponse(page, encoding, method === "HEAD");
      if (!page.shared) response.headers.set("cache-control", "private, no-store");
      response.headers.set(
        "content-security-policy",
        contentSecurityPolicy({ hashes: page.scriptHashes }, url.pathname),
      );
      return response;
    }
    const nonce = randomBytes(16).toString("base64");
    const rendered = await renderWeb(build, c.req.raw, {
      nonce,
      clientIp: clientIp(c),
      userAgent: c.req.header("user-agent"),
    });
    // A signed-in page is read whole and compressed once, in the encoding its visitor accepts:
    // streamed through hono/compress it went out in many small compressed writes, which cost
    // more CPU than the page's render (docs/BENCHMARKS.md, the profile of a signed-in page).
    const encoding = encodingOf(c);
    const response = /^text\/html/i.test(rendered.headers.get("content-type") ?? "")
      ? pageResponse(
          await wholePage(rendered, encoding ? [encoding] : [], { signedIn: true }),
          encoding,
          method === "HEAD",
        )
      : rendered;
    // Signed-in pages carry the visitor's CSRF token and details: never kept by anyone, whatever
    // the route says for visitors without a session.
    response.headers.set("cache-control", "private, no-store");
    response.headers.delete("etag");
    response.headers.set("content-security-policy", contentSecurityPolicy({ nonce }, url.pathname));
    return response;
  });

  return app;
}

function tooLargePage(): string {
  return `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Form too large</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem"><h1>Form too large</h1>
<p>What was sent is larger than this form accepts. Please go back and try again with less.</p><p><a href="/">Go back home</a></p></body></html>`;
}
