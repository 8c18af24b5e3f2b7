// Issue 6, security: the edge's rate limits trip where DESIGN.md §7 says (login, sign-up, verify,
// resend, reset, waitlist, contact; and card payments): the (N+1)th post within the window is a
// 429 with Retry-After, on the API call and on the web page that posts to it alike. Passwords
// (managers' and recipients') are stored as argon2id hashes. Dependencies are pinned exactly.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../../server/api/accounts.testkit.ts";
import { recipientAccounts, users } from "../../server/db/schema.ts";
import { RATE_RULES } from "../../server/http/rate-limit.ts";
import { startTestApplication, type TestApplication } from "../support/app.ts";
import { describeEachDatabase } from "../support/db.ts";
import { buildWorld } from "./fixtures.ts";

/** For each rule: the API call and the web page whose posts share its budget. */
const SAMPLES: Record<string, string[]> = {
  waitlist: ["/api/WaitList", "/not-ready-yet", "/not-ready-yet.data"],
  contact: ["/api/Help/create-help-anonymous", "/help", "/help.data"],
  register: ["/api/Register", "/corporate/sign-up", "/corporate/sign-up.data"],
  verify: [
    "/api/Identity/VerifyEmail",
    "/api/Identity/VerifyEmailRequest",
    "/api/Identity/ResendVerifyEmailRequest",
    "/corporate/verify",
  ],
  login: ["/api/Identity/login", "/corporate/login", "/corporate/login.data"],
  "reset-request": ["/api/Identity/ResetPasswordRequest", "/corporate/forgot-password-request"],
  reset: ["/api/Identity/ResetPassword", "/corporate/forgot-password"],
  "card-payment": [
    "/api/StripePayment/confirm-simulated-payment",
    "/api/StripePayment/create-payment-intent",
    "/api/StripePayment/create-checkout-session",
    "/portal/reward-my-team-review",
  ],
  "contact-signed-in": ["/api/Help/create-help", "/portal/help"],
};

describe("rate limits through the edge", () => {
  let app: TestApplication;
  beforeAll(async () => {
    app = await startTestApplication();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("covers every action DESIGN.md §7 names (and the card payments)", () => {
    const names = RATE_RULES.map((r) => r.name);
    for (const needed of [
      "login",
      "register",
      "verify",
      "reset-request",
      "reset",
      "waitlist",
      "contact",
      "card-payment",
    ]) {
      expect(names).toContain(needed);
    }
    // Resend shares the verify budget.
    expect(RATE_RULES.find((r) => r.name === "verify")?.path.test("/api/Identity/ResendVerifyEmailRequest")).toBe(true);
    expect(Object.keys(SAMPLES).sort(), "every rule needs samples here").toEqual(names.sort());
  });

  for (const rule of RATE_RULES) {
    it(`${rule.name}: ${rule.points} posts per ${rule.durationSeconds} s, then 429 with Retry-After`, async () => {
      const paths = SAMPLES[rule.name] ?? [];
      for (const p of paths) expect(rule.path.test(p), p).toBe(true);
      for (let i = 0; i < rule.points; i++) {
        const path = paths[i % paths.length] as string;
        const res = await app.app.request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        expect(res.status, `${path} #${i + 1}`).not.toBe(429);
      }
      for (const path of paths) {
        const res = await app.app.request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        expect(res.status, path).toBe(429);
        const retry = Number(res.headers.get("retry-after"));
        expect(retry, path).toBeGreaterThan(0);
        expect(retry, path).toBeLessThanOrEqual(rule.durationSeconds);
        if (path.startsWith("/api/")) expect(((await res.json()) as { detail: string }).detail).toBeTruthy();
      }
      // Reading pages is never limited.
      expect((await app.app.request("http://localhost/healthz")).status).toBe(200);
    });
  }
});

describeEachDatabase("stored passwords", ({ database }) => {
  it("managers' and recipients' passwords are argon2id hashes; the plain password is stored nowhere", async () => {
    const db = database().db;
    await buildWorld(db);
    const managers = (await db.select({ hash: users.passwordHash }).from(users)).filter((r) => r.hash);
    expect(managers.length).toBeGreaterThanOrEqual(2);
    for (const { hash } of managers) expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    const recipients = await db.select({ hash: recipientAccounts.passwordHash }).from(recipientAccounts);
    expect(recipients.length).toBeGreaterThanOrEqual(2);
    for (const { hash } of recipients) expect(hash).toMatch(/^\$argon2id\$/);
    const everything = JSON.stringify(await db.execute(sql`select * from users`));
    expect(everything).not.toContain(PASSWORD);
  });
});

describe("dependencies", () => {
  it("package.json pins every dependency to an exact version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    const loose: string[] = [];
    for (const section of ["dependencies", "devDependencies", "optionalDependencies", "overrides"]) {
      for (const [name, version] of Object.entries(pkg[section] ?? {})) {
        if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
          loose.push(`${section}: ${name}@${version}`);
        }
      }
    }
    expect(loose).toEqual([]);
  });
});
