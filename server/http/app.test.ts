// The edge (createServerApp through createApplication): health checks, security headers, canonical
// paths and rate limits, with a tiny React Router build in place of the real one.
import { gunzipSync } from "node:zlib";
import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { expectProblem, postJson } from "../../tests/support/api.ts";
import { edgeFor, startTestApplication, type TestApplication } from "../../tests/support/app.ts";
import { waitlistEntries } from "../db/schema.ts";
import { canonicalPath } from "./app.ts";
import { BULK_JSON_BYTES } from "./validate.ts";

const waitlistBody = (n: number | string) => ({
  firstName: "Rate",
  lastName: "Limited",
  email: `person${n}@example.com`,
  companyName: "Acme",
  isOptedIn: true,
  captchaToken: "",
  isCaptchaV3: true,
});

function cspDirectives(response: Response): Map<string, string[]> {
  const csp = response.headers.get("content-security-policy");
  expect(csp, "Content-Security-Policy header").toBeTruthy();
  return new Map(
    (csp ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name as string, values]),
  );
}

describe("edge app", () => {
  let running: TestApplication;
  beforeAll(async () => {
    running = await startTestApplication({ env: { APP_URL: "http://localhost:3000" } });
  });
  afterAll(() => running.close());

  describe("health", () => {
    it("/healthz answers 200 while the process is up", async () => {
      const res = await running.app.request("/healthz");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    });

    it("/readyz answers 200 while the database answers", async () => {
      const res = await running.app.request("/readyz");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ready" });
    });
  });

  describe("security headers (production mode)", () => {
    it("a page gets a CSP with a fresh nonce for its scripts and no 'unsafe-inline' scripts", async () => {
      const first = await running.app.request("/");
      expect(first.status).toBe(200);
      const csp = cspDirectives(first);
      const scriptSrc = csp.get("script-src") ?? [];
      const nonceSource = scriptSrc.find((s) => /^'nonce-[A-Za-z0-9+/=_-]{16,}'$/.test(s));
      expect(nonceSource, `script-src ${scriptSrc.join(" ")}`).toBeDefined();
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(scriptSrc).not.toContain("'unsafe-eval'");
      expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
      expect(csp.get("object-src")).toEqual(["'none'"]);
      expect(csp.get("base-uri")).toEqual(["'self'"]);
      expect(csp.get("form-action")).toEqual(["'self'"]);

      // The page's own script carries the very nonce the header allows.
      const nonce = nonceSource?.slice("'nonce-".length, -1);
      expect(await first.text()).toContain(`<script nonce="${nonce}"`);

      const second = await running.app.request("/");
      const secondNonce = (cspDirectives(second).get("script-src") ?? []).find((s) => s.startsWith("'nonce-"));
      expect(secondNonce).toBeDefined();
      expect(secondNonce).not.toBe(nonceSource);
    });

    it("renders a shared public page once for anonymous visitors, each answer with its own nonce", async () => {
      running.seen.paths.length = 0;
      const nonces = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const res = await running.app.request("/policies/privacy-policy", { headers: { "accept-encoding": "gzip" } });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-encoding")).toBe("gzip");
        const nonce = (cspDirectives(res).get("script-src") ?? []).find((s) => s.startsWith("'nonce-"))?.slice(7, -1);
        expect(nonce).toBeDefined();
        const html = gunzipSync(Buffer.from(await res.arrayBuffer())).toString("utf8");
        expect(html).toContain(`<script nonce="${nonce}"`);
        nonces.add(nonce!);
      }
      expect(nonces.size).toBe(3);
      expect(running.seen.paths).toEqual(["/policies/privacy-policy"]);

      // A visitor with a session (it may hold a toast) and a request with a query render per request.
      await running.app.request("/policies/privacy-policy", { headers: { cookie: "session=abc" } });
      await running.app.request("/policies/privacy-policy?from=mail");
      expect(running.seen.paths).toHaveLength(3);
    });

    it.each(["/", "/api/Catalogue/latest-reward", "/healthz"])(
      "%s carries nosniff, Referrer-Policy and frame protection, but no HSTS over http",
      async (path) => {
        const res = await running.app.request(path);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        expect(cspDirectives(res).get("frame-ancestors")).toEqual(["'none'"]);
        expect(res.headers.get("strict-transport-security")).toBeNull();
      },
    );
  });

  describe("canonical paths", () => {
    it.each([
      ["/Help", "/help"],
      ["/HELP", "/help"],
      ["/Corporate/Login", "/corporate/login"],
      ["/Corporate/Sign-Up", "/corporate/sign-up"],
      ["/Portal/Help", "/portal/help"],
      ["/Help?tab=contact", "/help?tab=contact"],
    ])("GET %s redirects permanently to %s", async (from, to) => {
      const res = await running.app.request(from, { redirect: "manual" });
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe(to);
    });

    it("HEAD redirects too", async () => {
      const res = await running.app.request("/Corporate/Login", { method: "HEAD" });
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe("/corporate/login");
    });

    it.each(["/help", "/corporate/login", "/GiftCard/AbC", "/GiftCard/abc-DEF", "/"])(
      "GET %s is served as is",
      async (path) => {
        running.seen.paths.length = 0;
        const res = await running.app.request(path);
        expect(res.status).toBe(200);
        expect(res.headers.get("location")).toBeNull();
        // Rendered now, or (a shared public page) from the copy kept since an earlier test.
        expect(running.seen.paths.filter((seen) => seen !== path)).toEqual([]);
      },
    );

    it("a form post to a capitalised path is not redirected (the body would be lost)", async () => {
      running.seen.paths.length = 0;
      const res = await running.app.request("/Help", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "message=hi",
      });
      expect(res.status).not.toBe(301);
      expect(running.seen.paths).toEqual(["/Help"]);
    });

    it("/api paths are left to the API", async () => {
      const res = await running.app.request("/api/Catalogue/latest-reward", { redirect: "manual" });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveLength(12);
      const unknown = await running.app.request("/api/Help", { redirect: "manual" });
      await expectProblem(unknown, 404);
      await expectProblem(await running.app.request("/api"), 404);
    });

    it.each<[string, string | null]>([
      ["/Help", "/help"],
      ["/Corporate/Login", "/corporate/login"],
      ["/Portal/Help", "/portal/help"],
      ["/Policies/Terms-And-Conditions", "/policies/terms-and-conditions"],
      ["/Not-Ready-Yet", "/not-ready-yet"],
      ["/help", null],
      ["/GiftCard/AbC", null],
      ["/api/WaitList", null],
      ["/API/WaitList", null],
      ["/assets/Entry-ABC.js", null],
      ["/", null],
    ])("canonicalPath(%s) is %s", (path, expected) => {
      expect(canonicalPath(path)).toBe(expected);
    });
  });

  it("serves public files with a day's caching, and leaves a path that names no file to the web app", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const clientDir = mkdtempSync(join(tmpdir(), "client-"));
    writeFileSync(join(clientDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    const edge = edgeFor(running, { clientDir });
    const file = await edge.app.request("/favicon.svg");
    expect(file.status).toBe(200);
    expect(file.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(await file.text()).toContain("<svg");
    for (const path of ["/robots.txt", "/portal/my-team/template.csv", "/help"]) {
      edge.seen.paths.length = 0;
      const res = await edge.app.request(path);
      expect(res.status, path).toBe(200);
      expect(
        edge.seen.paths.filter((seen) => seen !== path),
        path,
      ).toEqual([]);
    }
  });

  it("refuses an API body longer than the largest call allows while it arrives, declared or streamed", async () => {
    const tooLong = BULK_JSON_BYTES + 1;
    const before = await running.database.db.select({ n: count() }).from(waitlistEntries);
    const declared = await running.app.request("/api/WaitList", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(tooLong) },
      body: "{}",
    });
    expect((await expectProblem(declared, 413)).detail).toBe("The request body is too large.");
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 3 * tooLong) return controller.close();
        const chunk = new Uint8Array(256 * 1024).fill(0x20);
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await running.app.request("/api/WaitList", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect((await expectProblem(streamed, 413)).detail).toBe("The request body is too large.");
    // A chunk or two may be pulled ahead; a body read whole would be three times the limit.
    expect(sent, "refused before the whole body was read").toBeLessThanOrEqual(tooLong + 4 * 256 * 1024);
    expect(await running.database.db.select({ n: count() }).from(waitlistEntries)).toEqual(before);
  });

  it("sends HSTS when APP_URL is https, in production only", async () => {
    const { app } = edgeFor(running, { env: { APP_URL: "https://rewards.example.com" } });
    for (const path of ["/healthz", "/", "/api/Catalogue/latest-reward"]) {
      const hsts = (await app.request(path)).headers.get("strict-transport-security") ?? "";
      expect(Number(/max-age=(\d+)/.exec(hsts)?.[1]), `${path}: ${hsts}`).toBeGreaterThanOrEqual(31_536_000);
      expect(hsts).toContain("includeSubDomains");
    }

    const dev = edgeFor(running, { env: { APP_URL: "https://rewards.example.com" }, mode: "development" });
    expect((await dev.app.request("/healthz")).headers.get("strict-transport-security")).toBeNull();
  });

  it("allows Stripe's Payment Element and Checkout redirect only when Stripe is the processor", async () => {
    const stripe = edgeFor(running, {
      env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PUBLISHABLE_KEY: "pk_test_x" },
    });
    const csp = cspDirectives(await stripe.app.request("/"));
    expect(csp.get("frame-src")).toEqual(expect.arrayContaining(["https://js.stripe.com", "https://hooks.stripe.com"]));
    expect(csp.get("connect-src")).toEqual(["'self'", "https://api.stripe.com"]);
    expect(csp.get("form-action")).toEqual(["'self'", "https://checkout.stripe.com"]);
    expect(csp.get("script-src")).not.toContain("'unsafe-inline'");

    const simulated = cspDirectives(await running.app.request("/"));
    for (const directive of ["frame-src", "connect-src", "form-action", "script-src", "img-src"]) {
      expect((simulated.get(directive) ?? []).join(" "), directive).not.toContain("stripe");
    }
  });

  it("/readyz answers 503 when the database ping fails", async () => {
    const { app, logs } = edgeFor(running, { ready: () => Promise.reject(new Error("connection refused")) });
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "unavailable" });
    expect(logs.records().some((r) => r.msg === "readiness check failed")).toBe(true);
    expect((await app.request("/healthz")).status).toBe(200);
  });

  describe("rate limits on public posts", () => {
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    const stored = async () => (await running.database.db.select({ n: count() }).from(waitlistEntries))[0]?.n;
    const helpBody = (n: number | string) => ({
      firstName: "A",
      lastName: "B",
      email: `help${n}@example.com`,
      message: "hello",
    });

    it("lets RATE_LIMIT_FACTOR × 10 waitlist posts through per IP, then answers 429 with Retry-After", async () => {
      // 10 a minute, times 0.3: 3.
      const { app } = edgeFor(running, { env: { RATE_LIMIT_FACTOR: "0.3" }, trustProxy: 1 });
      const before = await stored();
      for (let n = 0; n < 3; n++) {
        const res = await postJson(app, "/api/WaitList", waitlistBody(`a${n}`), from("198.51.100.1"));
        expect(res.status).toBe(200);
      }
      const limited = await postJson(app, "/api/WaitList", waitlistBody("a3"), from("198.51.100.1"));
      const problem = await expectProblem(limited, 429);
      expect(problem.detail).toBe(DETAILS.tooManyRequests);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await stored()).toBe((before ?? 0) + 3);
    });

    it("shares the budget with the web form, keeps other IPs and forms apart, and never limits reads", async () => {
      const { app } = edgeFor(running, { env: { RATE_LIMIT_FACTOR: "0.3" }, trustProxy: 1 });
      const ip = from("198.51.100.2");
      for (let n = 0; n < 3; n++) {
        expect((await postJson(app, "/api/WaitList", waitlistBody(`b${n}`), ip)).status).toBe(200);
      }
      // The waitlist page's own form post counts against the same budget, and gets an HTML page.
      const page = await app.request("/not-ready-yet", {
        method: "POST",
        headers: { ...ip, "content-type": "application/x-www-form-urlencoded" },
        body: "email=x@example.com",
      });
      expect(page.status).toBe(429);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await page.text()).toContain(DETAILS.tooManyRequests);

      // Another address still gets through; the contact form has its own budget; reads are free.
      expect((await postJson(app, "/api/WaitList", waitlistBody("c0"), from("198.51.100.3"))).status).toBe(200);
      expect((await postJson(app, "/api/Help/create-help-anonymous", helpBody("c"), ip)).status).toBe(200);
      for (let n = 0; n < 5; n++) {
        expect((await app.request("/api/Catalogue/latest-reward", { headers: ip })).status).toBe(200);
      }
    });

    it("without TRUST_PROXY, X-Forwarded-For cannot buy a fresh budget", async () => {
      const { app } = edgeFor(running, { env: { RATE_LIMIT_FACTOR: "0.3" }, trustProxy: 0 });
      const statuses = [];
      for (let n = 0; n < 4; n++) {
        const res = await postJson(app, "/api/Help/create-help-anonymous", helpBody(`d${n}`), from(`192.0.2.${n}`));
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it.each([
      ["1", 10],
      ["2", 20],
    ])("RATE_LIMIT_FACTOR=%s allows %i contact posts a minute", async (factor, allowed) => {
      const { app } = edgeFor(running, { env: { RATE_LIMIT_FACTOR: factor } });
      const post = (n: number) => postJson(app, "/api/Help/create-help-anonymous", helpBody(`f${factor}-${n}`));
      for (let n = 0; n < allowed; n++) expect((await post(n)).status).toBe(200);
      await expectProblem(await post(allowed), 429);
    });
  });
});

describe("/readyz when the database is gone", () => {
  let running: TestApplication;
  beforeAll(async () => {
    running = await startTestApplication();
  });
  afterAll(() => running.mailWorker.stop());

  it("answers 503 while /healthz still answers 200", async () => {
    expect((await running.app.request("/readyz")).status).toBe(200);
    await running.database.close();
    const res = await running.app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "unavailable" });
    expect(running.logs.records().some((r) => r.msg === "readiness check failed")).toBe(true);
    expect((await running.app.request("/healthz")).status).toBe(200);
  });
});
