// The edge (createServerApp through createApplication): health checks, security headers, canonical
// paths and rate limits, with a tiny React Router build in place of the real one.
import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem } from "../../tests/support/api.ts";
import { edgeFor, startTestApplication, type TestApplication } from "../../tests/support/app.ts";
import { clientKey } from "../api/rate-limits.ts";
import { waitlistEntries } from "../db/schema.ts";
import { canonicalPath, clientAddress } from "./app.ts";
import { BULK_JSON_BYTES } from "./validate.ts";

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
    it("only the login page lets its form post go on to another site (an identity provider, ADR 0046)", async () => {
      for (const path of ["/corporate/login", "/corporate/login/"]) {
        const login = cspDirectives(await running.app.request(path));
        // A local run (APP_URL on loopback): any loopback provider too, which only `http:` can name
        // (127.0.0.2, [::1]; modules/single-sign-on/issuers.server.ts).
        expect(login.get("form-action")).toEqual(["'self'", "https:", "http:"]);
      }
      for (const path of ["/corporate/sign-up", "/corporate/forgot-password-request", "/help"]) {
        expect(cspDirectives(await running.app.request(path)).get("form-action"), path).toEqual(["'self'"]);
      }
    });

    it("a page for a visitor with a session gets a CSP with a fresh nonce for its scripts and no 'unsafe-inline' scripts", async () => {
      const signedIn = { headers: { cookie: "session=abc" } };
      const first = await running.app.request("/", signedIn);
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

      const second = await running.app.request("/", signedIn);
      const secondNonce = (cspDirectives(second).get("script-src") ?? []).find((s) => s.startsWith("'nonce-"));
      expect(secondNonce).toBeDefined();
      expect(secondNonce).not.toBe(nonceSource);
      expect(second.headers.get("cache-control")).toBe("private, no-store");
    });

    it("a page for a visitor without a session lists its inline scripts by hash: no nonce, no 'unsafe-inline'", async () => {
      const res = await running.app.request("/");
      const html = await res.text();
      expect(html).toContain('<script type="module">void 0</script>');
      expect(html).not.toContain("nonce=");
      const scriptSrc = cspDirectives(res).get("script-src") ?? [];
      const hash = createHash("sha256").update("void 0").digest("base64");
      expect(scriptSrc).toEqual(["'self'", `'sha256-${hash}'`]);
      expect(res.headers.get("cache-control")).toBe("private, no-store");
    });

    it("lets a page its route marks shareable say so to caches for visitors without a session, with an ETag; never for a session", async () => {
      // Kept by the process's cache in front of the edge (page-cache.test.ts) and any other.
      const etags = new Set<string | null>();
      for (const encoding of ["br", "gzip"]) {
        const res = await running.app.request("/policies/privacy-policy", { headers: { "accept-encoding": encoding } });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-encoding")).toBe(encoding);
        expect(res.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=60");
        expect(res.headers.get("vary")).toBe("Accept-Encoding");
        etags.add(res.headers.get("etag"));
        const body = Buffer.from(await res.arrayBuffer());
        const html = (encoding === "br" ? brotliDecompressSync(body) : gunzipSync(body)).toString("utf8");
        expect(html).toContain('<p id="path">/policies/privacy-policy</p>');
      }
      expect([...etags]).toEqual([expect.stringMatching(/^W\/"/)]);

      // A visitor with a session (it may hold a toast) gets a page for them alone.
      const signedIn = await running.app.request("/policies/privacy-policy", { headers: { cookie: "session=abc" } });
      expect(signedIn.headers.get("cache-control")).toBe("private, no-store");
      expect(signedIn.headers.get("etag")).toBeNull();
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
      env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PUBLISHABLE_KEY: "pk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x" },
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

describe("the client's address (TRUST_PROXY hops)", () => {
  it("is the socket's without trusted proxies, whatever X-Forwarded-For says", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9", 0)).toBe("127.0.0.1");
  });

  it("is the entry `hops` places from the right: the leftmost entries are the client's own words", () => {
    expect(clientAddress("10.0.0.2", "198.51.100.7, 203.0.113.9", 1)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "198.51.100.7, 203.0.113.9, 10.0.0.1", 2)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "203.0.113.9", 3)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
  });
});

describe("the rate-limit key of an address", () => {
  it("keeps IPv4, maps IPv4-mapped IPv6 to IPv4, and keys other IPv6 by its /64", () => {
    expect(clientKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe(clientKey("2001:db8:1:2:ffff:ffff:ffff:ffff"));
    expect(clientKey("2001:db8:1:2::1")).not.toBe(clientKey("2001:db8:1:3::1"));
    expect(clientKey("not an address")).toBe("unknown");
  });
});
