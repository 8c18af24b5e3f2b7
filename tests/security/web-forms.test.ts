// Security (docs/requirements.md §D7): every web action and portal page of app/routes.ts (enumerated), through the
// real edge with the real route modules (tests/security/web.ts). A cross-site form post without
// the CSRF token (or with another session's token) is refused and changes nothing; a visitor
// without a session posts anonymous forms only from our own pages (Origin, Sec-Fetch-Site, Referer); the honeypot
// refuses bots; anonymous visitors are sent to the login page; another company's manager using
// A's ids through the web forms and page addresses gets nothing of A's and changes nothing.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { databases } from "../support/db.ts";
import { buildWorld, snapshot, type World } from "./fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication, type WebRoute } from "./web.ts";

const EVIL = "https://evil.example";
/** Rows a refused post may legitimately touch: none; web_sessions only changes with a new login. */
// Sessions, and on PostgreSQL the rate-limit counters (the accepted posts below are attempts
// that count): neither is data a refused post could change.
const IGNORE = ["web_sessions", "rate_limit_counters"];

interface Browser {
  jar: Jar;
  csrf: string;
  honeypot: string;
  /** The token this browser had before it logged in (login renews it). */
  preLoginCsrf?: string;
}

async function openBrowser(app: WebApplication): Promise<Browser> {
  const jar = new Jar();
  const res = await app.request("/corporate/login");
  expect(res.status).toBe(200);
  jar.take(res);
  const root = (await rendered(res)).loaderData.root as { csrf: string; honeypot: { nameFieldName: string } };
  return { jar, csrf: root.csrf, honeypot: root.honeypot.nameFieldName };
}

function post(
  app: WebApplication,
  path: string,
  fields: Record<string, string>,
  opts: { cookie?: string; origin?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  if (opts.origin === EVIL) headers["sec-fetch-site"] = "cross-site";
  return app.request(path, { method: "POST", body: new URLSearchParams(fields), headers });
}

async function logIn(app: WebApplication, email: string): Promise<Browser> {
  const b = await openBrowser(app);
  const res = await post(
    app,
    "/corporate/login",
    { userName: email, password: PASSWORD, csrf: b.csrf, [b.honeypot]: "" },
    { cookie: b.jar.header(), origin: app.origin },
  );
  expect(res.status, await res.clone().text()).toBe(302);
  b.jar.take(res);
  expect(b.jar.cookies.has("session")).toBe(true);
  // Login renews the CSRF cookie (a token planted before login must not outlive it): the forms
  // after login carry the token of the page rendered with the new cookie.
  const page = await app.request("/portal/dashboard", { headers: { cookie: b.jar.header() } });
  expect(page.status).toBe(200);
  b.jar.take(page);
  const csrf = ((await rendered(page)).loaderData.root as { csrf: string }).csrf;
  expect(csrf).not.toBe(b.csrf);
  return { ...b, csrf, preLoginCsrf: b.csrf };
}

/** Query strings the pages' loaders need to render at all (else they redirect to /error). */
const QUERY: Record<string, string> = {
  "features/accounts/corporate.verify": "?userId=0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a&requestToken=abcdef",
  "features/accounts/corporate.forgot-password": "?passwordResetToken=abcdef",
  "features/payment/portal.payment-authentication":
    "?payment_intent=pi_sim_unknown&payment_intent_client_secret=pi_sim_unknown_secret_x",
  // A layout's index takes posts at `?index` (without it they go to the layout, which has no action).
  "features/settings/portal.settings._index": "?index",
};
/** The intent that reaches each action's form check (an unknown intent is refused earlier, with 400). */
const INTENT: Record<string, string> = { "features/payment/portal.reward-my-team-review": "pay" };
const intentOf = (r: WebRoute) => INTENT[r.id] ?? "remove";
/** A concrete address for a route (":code", ":orderId", ":invoiceNumber", ":releaseId", ":topUpId", ":endpointId" filled in); `.data` is React Router's single-fetch URL. */
const urlOf = (r: WebRoute, single = false) =>
  `${r.url.replace(":code", "ABC123").replace(":orderId", "1").replace(":invoiceNumber", "inv-000001").replace(":releaseId", "1").replace(":topUpId", "1").replace(":endpointId", "1").replace("/*", "/no-such-page")}${single ? ".data" : ""}${QUERY[r.id] ?? ""}`;

for (const { kind, skipped } of databases) {
  (skipped ? describe.skip : describe)(`web forms and pages through the edge [${kind}]`, () => {
    let app: WebApplication;
    let w: World;
    let a: Browser;
    let b: Browser;
    let origin: string;
    const db = () => app.database.db;
    const actions = () => app.routes.filter((r) => typeof r.module.action === "function");

    beforeAll(async () => {
      // Rate limits are tested on their own (rate-limits.test.ts); here they would only get in the way.
      app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
      origin = app.origin;
      w = await buildWorld(db());
      a = await logIn(app, w.a.email);
      b = await logIn(app, w.b.email);
    });
    afterAll(async () => {
      await app?.close();
    });

    /** The earlier posts must not have ended A's session (else the checks would pass vacuously). */
    async function stillSignedIn(x: Browser) {
      const res = await app.request("/portal/my-team", { headers: { cookie: x.jar.header() } });
      expect(res.status).toBe(200);
    }

    it("finds the actions of app/routes.ts (public forms and portal forms)", () => {
      const ids = actions().map((r) => r.id);
      expect(ids).toEqual(
        expect.arrayContaining([
          "features/accounts/corporate.login",
          "features/accounts/corporate.sign-up",
          "features/my-team/portal.my-team",
          "features/reward-my-team/portal.reward-my-team",
          "features/payment/portal.reward-my-team-review",
          "features/payment/portal.payment-authentication",
        ]),
      );
      expect(ids.length).toBeGreaterThanOrEqual(14);
    });

    it("a cross-site post (Origin of another site, no CSRF token) is refused by every action, and nothing changes", async () => {
      const before = await snapshot(db(), IGNORE);
      for (const r of actions()) {
        // The victim's session cookie is sent (the worst case: SameSite=Lax would drop it).
        const sessionOnly = `session=${a.jar.cookies.get("session")}`;
        for (const path of [urlOf(r), urlOf(r, true)]) {
          const res = await post(
            app,
            path,
            { intent: intentOf(r), [a.honeypot]: "" },
            { cookie: sessionOnly, origin: EVIL },
          );
          // React Router refuses a foreign Origin itself (400); our CSRF check answers 403.
          expect([400, 403], `${r.id} ${path}: ${res.status}`).toContain(res.status);
        }
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
    });

    it("a post without Origin and without the CSRF token (cookie-less or with the victim's cookies) is refused (403)", async () => {
      const before = await snapshot(db(), IGNORE);
      for (const r of actions()) {
        for (const path of [urlOf(r), urlOf(r, true)]) {
          for (const cookie of [`session=${a.jar.cookies.get("session")}`, a.jar.header()]) {
            const res = await post(app, path, { intent: intentOf(r), [a.honeypot]: "" }, { cookie });
            expect(res.status, `${r.id} ${path}: ${res.status}`).toBe(403);
          }
        }
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
      await stillSignedIn(a);
    });

    it("a visitor without a session: an anonymous form is accepted only when the browser says the post came from here (docs/requirements.md §D7)", async () => {
      const before = await snapshot(db(), IGNORE);
      const login = { userName: "nobody@example.com", password: "Wrong#Pass-2026", [a.honeypot]: "" };
      const send = (headers: Record<string, string>) =>
        app.request("/corporate/login", {
          method: "POST",
          body: new URLSearchParams(login),
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        });
      const refused: Array<Record<string, string>> = [
        {},
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { referer: `${EVIL}/page` },
        { referer: "not a url" },
      ];
      for (const headers of refused) expect((await send(headers)).status, JSON.stringify(headers)).toBe(403);
      // A foreign or opaque Origin: React Router refuses it itself (400), or our check does (403).
      for (const origin of [EVIL, "null"]) expect([400, 403], origin).toContain((await send({ origin })).status);
      const accepted: Array<Record<string, string>> = [
        { origin },
        { "sec-fetch-site": "same-origin" },
        { "sec-fetch-site": "none" },
        { referer: `${origin}/corporate/login` },
      ];
      for (const headers of accepted) {
        const res = await send(headers);
        // Past the guard: the wrong password's own answer.
        expect(res.status, JSON.stringify(headers)).toBe(400);
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
    });

    it("another session's CSRF token (an attacker's own) does not pass for the victim, and nothing changes", async () => {
      const attacker = await openBrowser(app);
      const before = await snapshot(db(), IGNORE);
      for (const r of actions()) {
        const res = await post(
          app,
          urlOf(r),
          { intent: intentOf(r), csrf: attacker.csrf, [a.honeypot]: "" },
          { cookie: a.jar.header() },
        );
        expect(res.status, r.id).toBe(403);
        // A forged token of the right shape is refused too.
        const forged = await post(
          app,
          urlOf(r),
          { intent: intentOf(r), csrf: `${a.csrf.slice(0, -2)}AA`, [a.honeypot]: "" },
          { cookie: a.jar.header() },
        );
        expect(forged.status, r.id).toBe(403);
        // The victim's own token from before login (e.g. planted in the browser) is dead after it.
        const stale = await post(
          app,
          urlOf(r),
          { intent: intentOf(r), csrf: a.preLoginCsrf ?? "", [a.honeypot]: "" },
          { cookie: a.jar.header(), origin },
        );
        expect(stale.status, r.id).toBe(403);
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
    });

    it("the honeypot refuses a post whose hidden name field is filled (400), and nothing changes", async () => {
      const before = await snapshot(db(), IGNORE);
      for (const r of actions()) {
        const filled = await post(
          app,
          urlOf(r, true),
          { intent: intentOf(r), csrf: a.csrf, [a.honeypot]: "bot" },
          { cookie: a.jar.header(), origin },
        );
        expect(filled.status, r.id).toBe(400);
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
    });

    it("control: with the session's own token the same posts pass the CSRF check (never 403)", async () => {
      await stillSignedIn(a);
      for (const r of actions()) {
        if (r.id === "features/accounts/corporate.logout") continue; // would end A's session; checked below
        const res = await post(app, urlOf(r), { [a.honeypot]: "", csrf: a.csrf }, { cookie: a.jar.header(), origin });
        expect(res.status, r.id).not.toBe(403);
        expect(res.status, r.id).toBeLessThan(500);
      }
      await stillSignedIn(a);
    });

    it("anonymous visitors: every portal page and portal action sends them to the login page, nothing changes", async () => {
      const before = await snapshot(db(), IGNORE);
      const anon = await openBrowser(app);
      const portal = app.routes.filter((r) => r.url.startsWith("/portal"));
      expect(portal.length).toBeGreaterThan(10);
      for (const r of portal) {
        if (typeof r.module.loader === "function") {
          const res = await app.request(urlOf(r), { headers: { cookie: anon.jar.header() } });
          expect([302, 303], `${r.id} GET: ${res.status}`).toContain(res.status);
          // The portal's index forwards to the dashboard, which then asks for a login.
          expect(res.headers.get("location"), r.id).toMatch(/^\/(corporate\/login|portal\/dashboard$)/);
        }
        if (typeof r.module.action === "function") {
          const res = await post(
            app,
            urlOf(r),
            { csrf: anon.csrf, [anon.honeypot]: "", intent: "remove", id: "1" },
            {
              cookie: anon.jar.header(),
              origin,
            },
          );
          expect([302, 303], `${r.id} POST: ${res.status}`).toContain(res.status);
          expect(res.headers.get("location"), r.id).toMatch(/^\/corporate\/login/);
        }
      }
      expect(await snapshot(db(), IGNORE)).toEqual(before);
    });

    it("company B's manager, through the web forms with A's ids: A's rows never change", async () => {
      const aMember = String(w.draftMembers[0]);
      const attempts: Array<[string, Record<string, string>]> = [
        [
          "/portal/my-team",
          { intent: "update-user", id: aMember, firstName: "Hacked", lastName: "Hacked", email: "h@example.com" },
        ],
        ["/portal/my-team", { intent: "delete-user", id: aMember, firstName: "X" }],
        ["/portal/reward-my-team", { intent: "save-amount", userId: aMember, value: "999" }],
        ["/portal/reward-my-team", { intent: "remove", userId: aMember }],
        ["/portal/reward-my-team", { intent: "add-from-search", userId: aMember }],
        [`/portal/payment-authentication?payment_intent=${w.pending.paymentIntentId}`, { outcome: "complete" }],
        [`/portal/payment-authentication?payment_intent=${w.pending.paymentIntentId}`, { outcome: "fail" }],
      ];
      const aRows = (s: Record<string, string>) =>
        Object.fromEntries(
          Object.entries(s).map(([t, rows]) => [
            t,
            rows.split("\n").filter((l) => new RegExp(`"company_id":"?${w.a.companyId}"?[,}]`).test(l)),
          ]),
        );
      await stillSignedIn(b);
      for (const [path, fields] of attempts) {
        const before = aRows(await snapshot(db(), IGNORE));
        const pendingBefore = (await snapshot(db(), IGNORE)).simulated_payments;
        const res = await post(
          app,
          path,
          { ...fields, csrf: b.csrf, [b.honeypot]: "" },
          { cookie: b.jar.header(), origin },
        );
        expect(res.status, `${path} ${fields.intent ?? fields.outcome}`).toBeLessThan(500);
        expect(aRows(await snapshot(db(), IGNORE)), `${path} ${JSON.stringify(fields)}`).toEqual(before);
        expect((await snapshot(db(), IGNORE)).simulated_payments).toEqual(pendingBefore);
      }
    });

    it("company B's manager opening portal addresses with A's ids sees nothing of A's", async () => {
      await stillSignedIn(b);
      const secrets = [w.a.email, "Alpha Pty Ltd", "Pending Thanks", "Paid Thanks", w.pending.clientSecret];
      const addresses = [
        `/portal/payment-authentication?payment_intent=${w.pending.paymentIntentId}`,
        `/portal/payment-confirmation?payment_intent=${w.paid.paymentIntentId}`,
        `/portal/payment-confirmation?payment_intent=${w.pending.paymentIntentId}`,
        `/portal/my-team?dialog=edit&member=${w.draftMembers[0]}`,
        `/portal/my-team?dialog=remove&member=${w.draftMembers[0]}`,
        `/portal/reward-my-team/search?search=${encodeURIComponent(w.a.email.slice(0, 8))}`,
        "/portal/reward-my-team",
        "/portal/reward-my-team-review",
        "/portal/dashboard",
      ];
      for (const address of addresses) {
        const res = await app.request(address, { headers: { cookie: b.jar.header() } });
        const text = await res.text();
        expect(res.status, address).toBeLessThan(500);
        for (const s of secrets) expect(text, `${address} shows A's ${s}`).not.toContain(s);
      }
    });

    it("fuzzing every form action with hostile fields (with a valid token): never a 5xx", {
      timeout: 300_000,
    }, async () => {
      const c = await logIn(app, w.b.email);
      const names = [
        "intent",
        "firstName",
        "lastName",
        "email",
        "userName",
        "password",
        "confirmPassword",
        "companyName",
        "message",
        "id",
        "userId",
        "value",
        "name",
        "rewardName",
        "ABN",
        "size",
        "industry",
        "outcome",
        "cardNumber",
        "expiry",
        "cvc",
        "nameOnCard",
        "amount",
        "uploadId",
        "verificationCode",
        "requestToken",
        "passwordResetToken",
        "isOptedIn",
        "__proto__",
        "constructor",
      ];
      const intents = [
        "create-user",
        "update-user",
        "delete-user",
        "remove",
        "save-amount",
        "save-amounts",
        "apply-all",
        "remove-all",
        "add-single",
        "add-from-search",
        "bulk-save",
        "bulk-preview",
        "pay",
        "checkout",
        "verify",
        "resend",
        "video-watched",
      ];
      const value = fc.oneof(
        fc.constantFrom(
          "' OR 1=1 --",
          "<script>alert(1)</script>",
          "=1+1",
          "a\u0000b",
          "😀",
          "-1",
          "1e308",
          "",
          " ",
          "x".repeat(5000),
        ),
        fc.string({ unit: "grapheme", maxLength: 30 }),
        fc.constantFrom(...intents),
        fc.integer().map(String),
      );
      const fields = fc.dictionary(fc.constantFrom(...names), value, { minKeys: 1, maxKeys: 8 });
      for (const r of actions()) {
        if (r.id === "features/accounts/corporate.logout") continue;
        await fc.assert(
          fc.asyncProperty(fields, fc.boolean(), async (f, single) => {
            const res = await post(
              app,
              urlOf(r, single),
              { ...f, csrf: c.csrf, [c.honeypot]: "" },
              { cookie: c.jar.header(), origin },
            );
            expect(res.status, `${r.id} ${JSON.stringify(f).slice(0, 200)}`).toBeLessThan(500);
          }),
          { numRuns: Number(process.env.SECURITY_FUZZ_RUNS ?? 30) },
        );
      }
      await stillSignedIn(c);
    });

    it("logout needs the token too; with it, the session is gone", async () => {
      const c = await logIn(app, w.a.email);
      const refused = await post(app, "/corporate/logout", { [c.honeypot]: "" }, { cookie: c.jar.header() });
      expect(refused.status).toBe(403);
      expect((await app.request("/portal/dashboard", { headers: { cookie: c.jar.header() } })).status).toBe(200);
      const ok = await post(
        app,
        "/corporate/logout",
        { csrf: c.csrf, [c.honeypot]: "" },
        { cookie: c.jar.header(), origin },
      );
      expect([302, 303]).toContain(ok.status);
      const old = c.jar.header();
      expect((await app.request("/portal/dashboard", { headers: { cookie: old } })).status).toBe(302);
    });
  });
}
