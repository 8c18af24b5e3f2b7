// Security (docs/requirements.md §D7): response headers on every page of app/routes.ts and on API answers (CSP
// with no 'unsafe-inline' scripts: a per-request nonce on a signed-in visitor's pages, the hash of
// each inline script on pages for visitors without a session; frame-ancestors 'none', nosniff,
// Referrer-Policy, HSTS only with https), and the cookies (session and CSRF: httpOnly,
// SameSite=Lax, Secure and the __Host- prefix when APP_URL is https). Headers do not depend on
// the database, so this file runs on PGlite only.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_PAGE_CACHE_CONTROL } from "../../core/shared-page.ts";
import { PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { payingManager } from "../../modules/orders/payments.testkit.ts";
import { rendered, startWebApplication, type WebApplication, type WebRoute } from "./web.ts";

const QUERY: Record<string, string> = {
  "features/accounts/corporate.verify": "?userId=0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a&requestToken=abcdef",
  "features/accounts/corporate.forgot-password": "?passwordResetToken=abcdef",
};
/** The routes whose page is the same for every visitor without a session (their `headers` export). */
const SHARED_ROUTES = new Set([
  "features/landing/home",
  "features/help/help",
  "features/waitlist/not-ready-yet",
  "features/policies/policies.privacy",
  "features/policies/policies.terms",
  "features/accounts/corporate.sign-up",
  "features/accounts/corporate.login",
  "features/accounts/corporate.forgot-password-request",
]);
const pageUrl = (r: WebRoute) =>
  `${r.url
    .replace(":code", "ABC123")
    // Any other parameter (an order's id) as a number: a literal ":orderId" would only meet the
    // lower-case redirect of portal addresses.
    .replace(/:[A-Za-z]+/g, "1")
    .replace("/*", "/no-such-page")}${QUERY[r.id] ?? ""}`;

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

/** How a page's scripts are allowed: its own nonce, the hashes of its inline scripts, or none run. */
type ScriptPolicy = "nonce" | "hashes";

function expectSecurityHeaders(res: Response, where: string, https: boolean, policy: ScriptPolicy = "hashes") {
  const { csp, directives } = cspOf(res);
  expect(csp, `${where}: CSP`).not.toBe("");
  expect(directives.get("frame-ancestors"), where).toEqual(["'none'"]);
  expect(directives.get("object-src"), where).toEqual(["'none'"]);
  expect(directives.get("base-uri"), where).toEqual(["'self'"]);
  const scripts = directives.get("script-src") ?? directives.get("default-src") ?? [];
  expect(scripts, `${where}: script-src`).not.toContain("'unsafe-inline'");
  expect(scripts, `${where}: script-src`).not.toContain("'unsafe-eval'");
  if (policy === "nonce") {
    expect(
      scripts.some((s) => /^'nonce-[A-Za-z0-9+/=]{16,}'$/.test(s)),
      `${where}: a nonce`,
    ).toBe(true);
  } else {
    expect(
      scripts.filter((s) => !/^'sha256-[A-Za-z0-9+/]{43}='$/.test(s)),
      `${where}: script-src`,
    ).toEqual(["'self'"]);
  }
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

/** The login form as a browser posts it (anonymous forms are checked by Origin, not a token). */
async function signIn(app: WebApplication, email: string) {
  const page = await app.request("/corporate/login");
  // A page for visitors without a session is the same for all of them: it sets no cookie.
  expect(page.headers.getSetCookie()).toEqual([]);
  const root = (await rendered(page)).loaderData.root as { csrf: string; honeypot: { nameFieldName: string } };
  expect(root.csrf).toBe("");
  const res = await app.request("/corporate/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: app.origin },
    body: new URLSearchParams({ userName: email, password: PASSWORD, [root.honeypot.nameFieldName]: "" }),
  });
  expect(res.status, await res.clone().text()).toBe(302);
  return { page, res };
}

/** Every script element of an HTML page: its start tag and, when inline, its text. */
function scriptsOf(html: string) {
  return [...html.matchAll(/(<script\b[^>]*>)([\s\S]*?)<\/script>/g)].map((m) => ({
    tag: m[1] ?? "",
    text: m[2] ?? "",
  }));
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

    it("every page of app/routes.ts for a visitor without a session: the security headers, and each inline script allowed by its hash", async () => {
      for (const r of app.routes) {
        const res = await app.request(pageUrl(r));
        expect(res.status, r.id).toBeLessThan(500);
        expectSecurityHeaders(res, r.id, https, "hashes");
        // Only the pages whose route says so may be kept by a shared cache (core/shared-page.ts);
        // every other page is for its visitor alone.
        expect(res.headers.get("cache-control"), `${r.id}: cache-control`).toBe(
          SHARED_ROUTES.has(r.id) ? SHARED_PAGE_CACHE_CONTROL : "private, no-store",
        );
        if (res.status !== 200 || !(res.headers.get("content-type") ?? "").includes("text/html")) continue;
        const allowed = cspOf(res).directives.get("script-src") ?? [];
        const html = await res.text();
        for (const { tag, text } of scriptsOf(html)) {
          expect(tag, `${r.id}: no nonce on a page shared by visitors`).not.toContain("nonce=");
          if (/\bsrc=/.test(tag)) continue;
          const hash = `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
          expect(allowed, `${r.id}: ${tag}${text.slice(0, 60)}`).toContain(hash);
        }
      }
    });

    it("every page of app/routes.ts for a signed-in visitor: the security headers; the CSP nonce is new on each answer and is the page's", async () => {
      const m = await payingManager(app.api, app.database.db);
      const { res: login } = await signIn(app, m.email);
      const cookies = login.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const nonces = new Set<string>();
      for (const r of app.routes) {
        const res = await app.request(pageUrl(r), { headers: { cookie: cookies } });
        expect(res.status, r.id).toBeLessThan(500);
        expectSecurityHeaders(res, r.id, https, "nonce");
        // A page carries the visitor's CSRF token (and maybe their data): never kept by a cache.
        expect(res.headers.get("cache-control"), `${r.id}: cache-control`).toBe("private, no-store");
        const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1] ?? "";
        expect(nonces.has(nonce), `${r.id}: nonce reused`).toBe(false);
        nonces.add(nonce);
        if (res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/html")) {
          for (const { tag } of scriptsOf(await res.text())) {
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
      const { res } = await signIn(app, m.email);
      const session = cookie(res, https ? "__Host-session" : "session");
      expect(session, "session cookie").toBeDefined();
      // Login gives the signed-in visitor a fresh CSRF cookie for their forms.
      const csrf = cookie(res, https ? "__Host-csrf" : "csrf");
      expect(csrf, "CSRF cookie set at login").toBeDefined();
      for (const c of [csrf ?? "", session ?? ""]) {
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
