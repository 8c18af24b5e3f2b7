// A deployment fails closed (docs/requirements.md §D3, §D7), tried through the real process (server.ts on the
// production build) as an operator and an attacker would: it refuses to start without real mail,
// payments and a session secret unless DEMO_MODE says so (then every page says it); the dev
// mailbox answers loopback clients only; a huge form post is refused while it arrives; only the
// pages for everyone may be kept by a shared cache (browsers ask again on each visit), one copy for
// all, their scripts allowed by hash; a signed-in visitor's pages carry their token and a fresh nonce.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppProcess,
  launchApp,
  ok,
  REGISTRANT,
  signUpOverHttp,
  startApp,
  verificationCodes,
} from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { openForm, postForm } from "./http.ts";

const DEMO_BANNER = "Demo: no real payments or emails";
const REQUIRED = ["SMTP_URL", "STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET", "SESSION_SECRET"];

describe("a deployment fails closed", () => {
  it("refuses to start without SMTP, Stripe and a session secret, naming each missing one", async () => {
    const app = await launchApp(
      { DATABASE_URL: "memory://", APP_URL: "https://rewards.example.com", SESSION_SECRET: "" },
      { production: true },
    );
    const { code } = await app.exited;
    expect(code).toBe(1);
    for (const name of REQUIRED) expect(app.output()).toContain(name);
    expect(app.output()).toContain("DEMO_MODE=true");
  });

  it("names only what is missing", async () => {
    const app = await launchApp(
      {
        DATABASE_URL: "memory://",
        APP_URL: "https://rewards.example.com",
        SMTP_URL: "smtp://127.0.0.1:1",
        SESSION_SECRET: "a-long-secret-of-at-least-32-characters-0123",
      },
      { production: true },
    );
    expect((await app.exited).code).toBe(1);
    const missing = /Missing: ([^.]+)\./.exec(app.output())?.[1];
    expect(missing).toBe("STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET");
  });

  it("compose files and the example environment carry no secret value", () => {
    const compose = readFileSync(new URL("../../docker-compose.yml", import.meta.url), "utf8");
    for (const name of ["SESSION_SECRET", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SMTP_URL"]) {
      const line = compose.split("\n").find((l) => l.trim().startsWith(`${name}:`));
      // Only from the environment: no default, an empty one, or a "must be set" message.
      if (line) expect(line, name).toMatch(new RegExp(`\\$\\{${name}(:-|:\\?[^}]*)?\\}`));
    }
    const example = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    for (const name of REQUIRED) expect(example, name).toMatch(new RegExp(`^${name}=$`, "m"));
  });

  it("the compose file's replicas sit behind one proxy that names them, within PostgreSQL's connections", () => {
    const compose = readFileSync(new URL("../../docker-compose.yml", import.meta.url), "utf8");
    const caddyfile = readFileSync(new URL("../../deploy/Caddyfile", import.meta.url), "utf8");
    const number = (pattern: RegExp) => Number(pattern.exec(compose)?.[1]);
    const replicas = number(/replicas: (\d+)/);
    const workers = number(/WEB_CONCURRENCY: (\d+)/);
    const pool = number(/DATABASE_POOL_SIZE: (\d+)/);
    const maxConnections = number(/max_connections=(\d+)/);
    expect(replicas).toBeGreaterThan(1);
    // Room for PostgreSQL's three superuser slots, the migrations at start and an administrator.
    expect(replicas * workers * pool).toBeLessThanOrEqual(maxConnections - 10);
    // One proxy in front, and the app counts one hop; only the proxy publishes a port.
    expect(compose).toMatch(/TRUST_PROXY: 1\n/);
    expect(compose.match(/^ {4}ports:/gm)).toHaveLength(1);
    expect(compose).toMatch(/image: caddy:\d+\.\d+\.\d+-alpine/);
    expect(caddyfile).toMatch(/name app\s+port 3000/);
  });
});

describe("demo mode", () => {
  let app: AppProcess;
  beforeAll(async () => {
    app = await startApp(
      { DATABASE_URL: "memory://", APP_URL: "https://demo.example.com", DEMO_MODE: "true", TRUST_PROXY: "1" },
      { production: true },
    );
  }, 60_000);
  afterAll(async () => {
    await app?.kill();
  });

  it("starts on the simulated services and every page shows the demo banner", async () => {
    for (const path of ["/", "/help", "/corporate/login", "/corporate/sign-up", "/not-ready-yet"]) {
      const res = await fetch(`${app.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain(DEMO_BANNER);
    }
  });

  it("opens the dev mailbox to any visitor (its whole point in a demo)", async () => {
    const res = await fetch(`${app.base}/dev/mailbox`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(res.status).toBe(200);
  });
});

describe("a local run", () => {
  let app: AppProcess;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    app = await startApp({ DATABASE_URL: "memory://", TRUST_PROXY: "1" }, { production: true });
    smtp = await createSmtpServer({ listen: true });
  }, 60_000);
  afterAll(async () => {
    await app?.kill();
    await smtp?.stop();
  });

  it("shows no demo banner", async () => {
    expect(await (await fetch(`${app.base}/`)).text()).not.toContain(DEMO_BANNER);
  });

  it("answers /dev/mailbox to loopback clients only", async () => {
    const from = async (ip: string) =>
      (await fetch(`${app.base}/dev/mailbox`, { headers: { "x-forwarded-for": ip } })).status;
    expect(await from("203.0.113.9")).toBe(404);
    expect(await from("2001:db8::9")).toBe(404);
    expect(await from("127.0.0.1")).toBe(200);
    expect(await from("::1")).toBe(200);
    // The client cannot name itself loopback: only the last entry (the proxy's) counts.
    expect(await from("127.0.0.1, 203.0.113.9")).toBe(404);
  });

  it("serves pages for visitors without a session whole from the real entry.server: scripts allowed by hash, no nonce, no preload hints, one copy for all", async () => {
    for (const path of ["/", "/help", "/corporate/login", "/corporate/sign-up", "/corporate/forgot-password-request"]) {
      const first = await fetch(`${app.base}${path}`);
      const second = await fetch(`${app.base}${path}`);
      const csp = first.headers.get("content-security-policy") ?? "";
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1]?.split(" ") ?? [];
      expect(scriptSrc, path).not.toContain("'unsafe-inline'");
      expect(
        scriptSrc.some((source) => source.startsWith("'nonce-")),
        path,
      ).toBe(false);
      const html = await first.text();
      expect(await second.text(), `${path}: the copy kept for every visitor`).toBe(html);
      expect(first.headers.getSetCookie(), path).toEqual([]);
      // React Router's hand-off and route-module scripts, each listed by its hash.
      const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(
        ([, attrs]) => !/\bsrc=/.test(attrs ?? ""),
      );
      expect(inline.length, path).toBeGreaterThanOrEqual(2);
      expect(html, path).toContain("window.__reactRouterContext");
      for (const [tag, attrs, text] of inline) {
        expect(attrs, path).not.toContain("nonce");
        const hash = `'sha256-${createHash("sha256")
          .update(text ?? "")
          .digest("base64")}'`;
        expect(scriptSrc, `${path}: ${tag?.slice(0, 80)}`).toContain(hash);
      }
      // React Router writes a modulepreload hint per module; the edge leaves them out of these
      // pages so a phone paints before it fetches the scripts (anonymous-pages.ts). If React Router
      // changed how it writes them, the page would keep them and this would fail.
      expect(html, path).not.toMatch(/modulepreload/);
    }
  });

  it("answers a shared page from the process's cache with the edge's headers and bytes, 304 for its ETag; a visitor with a session still gets their own page", async () => {
    const raw = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${app.base}${path}`, { headers: { "accept-encoding": "br", ...headers } });
      const { date: _date, age: _age, ...rest } = Object.fromEntries(res.headers);
      return { status: res.status, headers: rest, body: await res.text() };
    };
    for (const path of ["/", "/help", "/corporate/login"]) {
      await raw(path);
      const answers = [await raw(path), await raw(path), await raw(path)];
      for (const answer of answers) expect(answer, path).toEqual(answers[0]);
      expect(
        Object.keys(answers[0]?.headers ?? {}).filter((h) => h.startsWith("x-rewards")),
        path,
      ).toEqual([]);
      expect(answers[0]?.headers["content-encoding"], path).toBe("br");
      expect(answers[0]?.headers["content-security-policy"], path).toMatch(/script-src 'self' 'sha256-/);
      expect(answers[0]?.headers.vary, path).toBe("Accept-Encoding");
      const etag = answers[0]?.headers.etag ?? "";
      expect(etag, path).toMatch(/^W\/"/);
      // A browser's revalidation: 304, no body.
      const notModified = await fetch(`${app.base}${path}`, {
        headers: { "accept-encoding": "br", "if-none-match": etag },
      });
      expect(notModified.status, path).toBe(304);
      expect(await notModified.text(), path).toBe("");
      // HEAD: the same headers, no body.
      const head = await fetch(`${app.base}${path}`, { method: "HEAD", headers: { "accept-encoding": "br" } });
      expect(head.headers.get("content-length"), path).toBe(answers[0]?.headers["content-length"]);
      expect(await head.text(), path).toBe("");
    }
    // A session cookie (valid or not) is never answered from the cache: the edge decides, and
    // an unknown session on a portal page goes to the login page as before.
    const signedIn = await fetch(`${app.base}/portal/dashboard`, {
      headers: { cookie: "session=not-a-session.x" },
      redirect: "manual",
    });
    expect(signedIn.status).toBe(302);
    const home = await fetch(`${app.base}/`, { headers: { cookie: "session=not-a-session.x" } });
    expect(home.headers.get("cache-control")).toBe("private, no-store");
    expect(home.headers.get("age")).toBeNull();
  });

  it("renders the verify and reset pages for each link, kept by no cache and holding nothing of the link; a bad link still goes to /error", async () => {
    const reg = await ok<{ userId: string; requestToken: string }>(app.base, "POST", "/api/Register", {
      firstName: REGISTRANT.firstName,
      lastName: REGISTRANT.lastName,
      email: "kept-copy@example.com",
      companyName: REGISTRANT.companyName,
      password: REGISTRANT.password,
      captchaToken: REGISTRANT.captchaToken,
      isCaptchaV3: true,
    });
    const links = {
      "/corporate/verify": [
        { userId: reg.userId, requestToken: reg.requestToken },
        { userId: "0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a", requestToken: "another-token-1" },
        { userId: "1c8d0b62-4f30-4e7b-8d9c-2a3f4e5d6c7b", requestToken: "another-token-2" },
      ],
      "/corporate/forgot-password": [
        { passwordResetToken: "first-reset-token" },
        { passwordResetToken: "second-reset-token" },
        { passwordResetToken: "third-reset-token" },
      ],
    };
    for (const [path, queries] of Object.entries(links)) {
      const pages: string[] = [];
      for (const query of queries) {
        const res = await fetch(`${app.base}${path}?${new URLSearchParams(query)}`);
        expect(res.status, path).toBe(200);
        // Its address carries a secret: for its visitor alone (ADR 0018, amendment).
        expect(res.headers.get("cache-control"), path).toBe("private, no-store");
        expect(res.headers.get("etag"), path).toBeNull();
        const html = await res.text();
        for (const value of Object.values(query))
          expect(html, `${path}: the page shows no ${value}`).not.toContain(value);
        pages.push(html);
      }
      // The forms post to the page's own address: no action attribute, no hidden copy of the link.
      expect(pages[1], path).toMatch(/<form [^>]*method="post"/);
      expect(pages[1], path).not.toMatch(/<form [^>]*action=/);
    }
    // A link without its parameters or with a malformed one is no page (docs/requirements.md §S2).
    for (const bad of [
      "/corporate/verify",
      `/corporate/verify?userId=${reg.userId}`,
      `/corporate/verify?userId=not-a-uuid&requestToken=${reg.requestToken}`,
      "/corporate/forgot-password",
      "/corporate/forgot-password?passwordResetToken=%20",
    ]) {
      const res = await fetch(`${app.base}${bad}`, { redirect: "manual" });
      expect(res.status, bad).toBe(302);
      expect(res.headers.get("location"), bad).toMatch(/\/error$/);
    }
    // A link with another parameter is rendered for its visitor: the resend notice shows.
    const resent = await fetch(
      `${app.base}/corporate/verify?${new URLSearchParams({ ...links["/corporate/verify"][0], resent: "1" })}`,
    );
    expect(await resent.text()).toContain("Verification code resent!");

    // The verify action reads the link from the address it was posted to: a resend answers a new link.
    const link = `/corporate/verify?${new URLSearchParams(links["/corporate/verify"][0] as Record<string, string>)}`;
    const session = await openForm(app.base, link);
    const resend = await postForm(app.base, link, session, { intent: "resend" });
    expect(resend.status).toBe(302);
    const next = new URL(resend.headers.get("location") ?? "", app.base);
    expect(next.pathname).toBe("/corporate/verify");
    expect(next.searchParams.get("userId")).toBe(reg.userId);
    expect(next.searchParams.get("requestToken")).not.toBe(reg.requestToken);
    expect(next.searchParams.get("resent")).toBe("1");
    const wrong = await postForm(app.base, `${next.pathname}${next.search}`, session, {
      intent: "verify",
      verificationCode: "000000",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Invalid verification code.");
  });

  it("lets a shared cache keep only the pages for everyone, and a browser only to ask again on each visit", async () => {
    // A page's data for client-side navigation (.data) is its route's too: the same for everyone.
    for (const path of ["/", "/help", "/corporate/login", "/not-ready-yet", "/corporate/login.data"]) {
      const res = await fetch(`${app.base}${path}`);
      expect(res.headers.get("cache-control"), path).toBe("public, max-age=0, s-maxage=60");
      expect(res.headers.getSetCookie(), path).toEqual([]);
    }
    for (const path of ["/dev/mailbox", "/corporate/verify", "/corporate/verify.data"]) {
      const res = await fetch(`${app.base}${path}`, { redirect: "manual" });
      expect(res.headers.get("cache-control"), path).toBe("private, no-store");
    }
  });

  it("refuses a 50 MB form post while it arrives, stores nothing and stays small", async () => {
    const rss = () => {
      const status = readFileSync(`/proc/${app.child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
    };
    const session = await openForm(app.base, "/not-ready-yet");
    // Warm up the page's action first, so the measurement sees the post alone.
    await postForm(app.base, "/not-ready-yet", session, { email: "x" });
    const before = rss();
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 50) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    // Streamed (no Content-Length), so the server cannot refuse it by its header alone.
    const streamed = await fetch(`${app.base}/not-ready-yet`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: session.cookie, origin: app.base },
      body,
      duplex: "half",
    } as RequestInit).catch((error: unknown) => error);
    if (streamed instanceof Response) expect(streamed.status).toBe(413);
    expect(sent, "the server stopped reading long before 50 MB").toBeLessThan(50);
    // Declared: refused on the header, before reading anything.
    const declared = await fetch(`${app.base}/corporate/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: session.cookie, origin: app.base },
      body: new Uint8Array(50 * 1024 * 1024).fill(0x61),
    }).catch((error: unknown) => error);
    if (declared instanceof Response) expect(declared.status).toBe(413);
    expect(rss() - before).toBeLessThan(8 * 1024 * 1024);
    expect((await fetch(`${app.base}/healthz`)).status).toBe(200);
  });

  it("gives a CSRF token at login, and a signed-in visitor's pages carry it and the answer's own nonce", async () => {
    const local = await startApp({ DATABASE_URL: "memory://", SMTP_URL: smtp.url }, { production: true });
    try {
      const codeOf = verificationCodes(smtp);
      const email = "csrf.renewal@example.com";
      await signUpOverHttp(local.base, email, codeOf);
      const form = await openForm(local.base, "/corporate/login");
      const res = await postForm(local.base, "/corporate/login", form, {
        userName: email,
        password: "Fault#Test-2026-pass",
        isCaptchaV3: "true",
        captchaToken: "",
      });
      expect(res.status).toBe(302);
      // The login page, the same for every visitor, carried no token and set no cookie.
      expect(form).toEqual({ cookie: "", csrf: "" });
      const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0] as string);
      expect(cookies.find((c) => c.startsWith("csrf="))).toBeDefined();
      const nonces = new Set<string>();
      for (const path of ["/portal/dashboard", "/portal/dashboard", "/portal/my-team"]) {
        const page = await fetch(`${local.base}${path}`, { headers: { cookie: cookies.join("; ") } });
        expect(page.status, path).toBe(200);
        const nonce = /'nonce-([^']+)'/.exec(page.headers.get("content-security-policy") ?? "")?.[1];
        expect(nonce, path).toBeTruthy();
        const html = await page.text();
        const scripts = html.match(/<script\b[^>]*>/g) ?? [];
        expect(scripts.length, path).toBeGreaterThan(0);
        for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
        expect(html, `${path}: the form token`).toMatch(/name="csrf" value="[^"]+"/);
        nonces.add(nonce as string);
      }
      expect(nonces.size, "a nonce is never reused").toBe(3);
    } finally {
      await local.kill();
    }
  }, 60_000);
});
