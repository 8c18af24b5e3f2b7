// Security (DESIGN.md §7): response headers on every page of app/routes.ts and on API answers (CSP
// with a per-request nonce and no 'unsafe-inline' scripts, frame-ancestors 'none', nosniff,
// Referrer-Policy, HSTS only with https), and the cookies (session and CSRF: httpOnly,
// SameSite=Lax, Secure and the __Host- prefix when APP_URL is https). Headers do not depend on
// the database, so this file runs on PGlite only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../../server/api/accounts.testkit.ts";
import { payingManager } from "../../server/api/payments.testkit.ts";
import { rendered, startWebApplication, type WebApplication, type WebRoute } from "./web.ts";

const QUERY: Record<string, string> = {
  "routes/corporate.verify": "?userId=0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a&requestToken=abcdef",
  "routes/corporate.forgot-password": "?passwordResetToken=abcdef",
};
const pageUrl = (r: WebRoute) =>
  `${r.url.replace(":code", "ABC123").replace("/*", "/no-such-page")}${QUERY[r.id] ?? ""}`;

function cspOf(res: Response) {
  const csp = res.headers.get("content-security-policy") ?? "";
  const directives = new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map((parts) => [parts[0] as string, parts.slice(1)]),
  );
  return { csp, directives };
}

function expectSecurityHeaders(res: Response, where: string, https: boolean) {
  const { csp, directives } = cspOf(res);
  expect(csp, `${where}: CSP`).not.toBe("");
  expect(directives.get("frame-ancestors"), where).toEqual(["'none'"]);
  expect(directives.get("object-src"), where).toEqual(["'none'"]);
  expect(directives.get("base-uri"), where).toEqual(["'self'"]);
  const scripts = directives.get("script-src") ?? directives.get("default-src") ?? [];
  expect(scripts, `${where}: script-src`).not.toContain("'unsafe-inline'");
  expect(scripts, `${where}: script-src`).not.toContain("'unsafe-eval'");
  expect(
    scripts.some((s) => /^'nonce-[A-Za-z0-9+/=]{16,}'$/.test(s)),
    `${where}: a nonce`,
  ).toBe(true);
  expect(res.headers.get("x-content-type-options"), where).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), where).toBe("strict-origin-when-cross-origin");
  expect(res.headers.get("x-frame-options"), where).toBe("DENY");
  const hsts = res.headers.get("strict-transport-security");
  if (https) expect(hsts, `${where}: HSTS`).toMatch(/max-age=(\d{8,})/);
  else expect(hsts, `${where}: no HSTS over http`).toBeNull();
}

function cookie(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

async function signIn(app: WebApplication, email: string, https: boolean) {
  const page = await app.request("/corporate/login");
  const csrfCookie = cookie(page, https ? "__Host-csrf" : "csrf");
  expect(csrfCookie).toBeDefined();
  const root = (await rendered(page)).loaderData.root as { csrf: string; honeypot: { nameFieldName: string } };
  const res = await app.request("/corporate/login", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: app.origin,
      cookie: (csrfCookie ?? "").split(";")[0] ?? "",
    },
    body: new URLSearchParams({
      userName: email,
      password: PASSWORD,
      csrf: root.csrf,
      [root.honeypot.nameFieldName]: "",
    }),
  });
  expect(res.status, await res.clone().text()).toBe(302);
  return { page, csrfCookie: csrfCookie ?? "", res };
}

for (const https of [false, true]) {
  describe(`headers and cookies, production, APP_URL ${https ? "https" : "http"}`, () => {
    let app: WebApplication;
    beforeAll(async () => {
      app = await startWebApplication({
        env: https ? { APP_URL: "https://rewards.example", RATE_LIMIT_FACTOR: "100" } : { RATE_LIMIT_FACTOR: "100" },
      });
    });
    afterAll(async () => {
      await app?.close();
    });

    it("every page of app/routes.ts carries the security headers; the CSP nonce is new on each answer and is the page's", async () => {
      const nonces = new Set<string>();
      for (const r of app.routes) {
        const res = await app.request(pageUrl(r));
        expect(res.status, r.id).toBeLessThan(500);
        expectSecurityHeaders(res, r.id, https);
        // A page carries the visitor's CSRF token (and maybe their data): never kept by a cache.
        expect(res.headers.get("cache-control"), `${r.id}: cache-control`).toBe("private, no-store");
        const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1] ?? "";
        expect(nonces.has(nonce), `${r.id}: nonce reused`).toBe(false);
        nonces.add(nonce);
        if (res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/html")) {
          const html = await res.text();
          const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
          for (const tag of scripts) {
            if (tag.includes('type="application/json"')) continue; // data, not script
            expect(tag, `${r.id}: a script without the nonce`).toContain(`nonce="${nonce}"`);
          }
        }
      }
    });

    it("API answers (200, 400, 401, 404) carry them too", async () => {
      const calls: Array<[string, RequestInit?]> = [
        ["/api/Catalogue/latest-reward"],
        ["/api/Users"],
        ["/api/no-such-call"],
        ["/api/Register", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
        ["/healthz"],
      ];
      for (const [path, init] of calls) {
        const res = await app.request(path, init);
        expectSecurityHeaders(res, path, https);
      }
    });

    it("the CSRF and session cookies: httpOnly, SameSite=Lax, Path=/, no Domain; Secure and __Host- only with https", async () => {
      const m = await payingManager(app.api, app.database.db);
      const { csrfCookie, res } = await signIn(app, m.email, https);
      const session = cookie(res, https ? "__Host-session" : "session");
      expect(session, "session cookie").toBeDefined();
      // Login renews the CSRF cookie; the new one is set with the same attributes.
      const renewed = cookie(res, https ? "__Host-csrf" : "csrf");
      expect(renewed, "CSRF cookie renewed at login").toBeDefined();
      expect(renewed?.split(";")[0]).not.toBe(csrfCookie.split(";")[0]);
      for (const c of [csrfCookie, renewed ?? "", session ?? ""]) {
        expect(c).toMatch(/;\s*HttpOnly/i);
        expect(c).toMatch(/;\s*SameSite=Lax/i);
        expect(c).toMatch(/;\s*Path=\/(;|$)/i);
        expect(c).not.toMatch(/;\s*Domain=/i);
        if (https) expect(c).toMatch(/;\s*Secure/i);
        else expect(c).not.toMatch(/;\s*Secure/i);
      }
      // The session cookie is sealed (encrypted under SESSION_SECRET): neither the access token
      // nor the user's details can be read from it.
      const value = decodeURIComponent((session ?? "").split(";")[0]?.split("=").slice(1).join("=") ?? "");
      expect(value).not.toContain(m.email);
      expect(value).not.toContain(m.accessToken);
      // No cookie without the prefix leaks out over https.
      if (https) expect(cookie(res, "session")).toBeUndefined();
    });
  });
}
