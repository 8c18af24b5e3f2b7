// docs/requirements.md §D7, tried as an attacker would, through the real process (server.ts on the
// production build, over HTTP): every rate-limited operation holds its budget whatever URL
// reaches it (its page, React Router's `.data` and `_.data` URLs, a trailing slash, other letter
// case, percent-encoding, and the API), and under concurrency. The operations come from the API's
// own route table (the limits are named middleware there) and the pages from app/routes.ts.
import { randomUUID } from "node:crypto";
import { createCookie } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import appRoutes from "../../app/routes.ts";
import { createApi } from "../../server/api/index.ts";
import { RATE_RULES, type RateRuleName } from "../../server/api/rate-limits.ts";
import { captchaOff } from "../../server/captcha/port.ts";
import { loadConfig } from "../../server/config.ts";
import { createLogger } from "../../server/logger.ts";
import {
  type AppProcess,
  launchApp,
  signUpOverHttp,
  startApp,
  verificationCodes,
  waitUntilReady,
} from "../support/app-process.ts";
import { createPostgresDatabase, databases } from "../support/db.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type FormSession, openForm, postForm, postJson, urlVariants } from "./http.ts";

const FACTOR = 0.2;
const PARTNER_KEY = "partner-key-of-the-limits-test-0123456789";
const PASSWORD = "Limits#Test-2026-pass";
const budget = (name: RateRuleName) => Math.max(1, Math.round(RATE_RULES[name].points * FACTOR));

/** Which API operations each per-client rule guards, read from the API's own route table. */
function operationsByRule(): Map<string, string[]> {
  const api = createApi({
    db: null as never,
    config: loadConfig({}),
    logger: createLogger("silent"),
    captcha: captchaOff,
  });
  const out = new Map<string, string[]>();
  for (const route of api.routes) {
    const rule = (route.handler as { rateRule?: string }).rateRule;
    if (rule) out.set(rule, [...(out.get(rule) ?? []), `${route.method} ${route.path}`]);
  }
  return out;
}

interface ConfigEntry {
  path?: string;
  file: string;
  children?: ConfigEntry[];
}

/** The URL of the page whose module is `file` in app/routes.ts. */
function pageOf(file: string): string {
  const walk = (entries: ConfigEntry[], base: string): string | undefined => {
    for (const e of entries) {
      const url = e.path ? `${base}/${e.path}` : base;
      if (e.file === file) return url;
      const found = e.children && walk(e.children, url);
      if (found) return found;
    }
    return undefined;
  };
  const url = walk(appRoutes as unknown as ConfigEntry[], "");
  if (!url) throw new Error(`${file} is not in app/routes.ts`);
  return url;
}

/** For each rule: the page whose form reaches it, and a valid request of each kind (i makes it unique). */
interface Operation {
  page?: {
    file: string;
    fields: (i: number) => Record<string, string>;
    signedIn?: boolean;
    /** What the page's address needs to show the form. */
    query?: () => string;
  };
  api: (path: string, i: number) => unknown;
  signedIn?: boolean;
}

const captcha = { captchaToken: "", isCaptchaV3: "true" };
const person = (i: number, tag: string) => ({ firstName: "Rate", lastName: "Limit", email: `${tag}.${i}@example.com` });

const OPERATIONS: Record<string, Operation> = {
  waitlist: {
    page: {
      file: "features/waitlist/not-ready-yet.tsx",
      fields: (i) => ({ ...person(i, "wl"), companyName: "Acme", terms: "on", ...captcha }),
    },
    api: (_, i) => ({
      ...person(i, "wl-api"),
      companyName: "Acme",
      isOptedIn: true,
      captchaToken: "",
      isCaptchaV3: true,
    }),
  },
  contact: {
    page: { file: "features/help/help.tsx", fields: (i) => ({ ...person(i, "help"), message: "Hello", ...captcha }) },
    api: (_, i) => ({ ...person(i, "help-api"), message: "Hello", captchaToken: "", isCaptchaV3: true }),
  },
  register: {
    page: {
      file: "features/accounts/corporate.sign-up.tsx",
      fields: (i) => ({
        ...person(i, "reg"),
        companyName: "Acme",
        password: PASSWORD,
        confirmPassword: PASSWORD,
        ...captcha,
      }),
    },
    api: (_, i) => ({
      ...person(i, "reg-api"),
      companyName: "Acme",
      password: PASSWORD,
      captchaToken: "",
      isCaptchaV3: true,
    }),
  },
  login: {
    page: {
      file: "features/accounts/corporate.login.tsx",
      fields: (i) => ({ userName: `nobody.${i}@example.com`, password: PASSWORD, ...captcha }),
    },
    // The password login and both single sign-on calls (ADR 0046) share the address's login budget.
    api: (path, i) =>
      path.endsWith("/sso/start")
        ? { email: `nobody.sso.${i}@example.com` }
        : path.endsWith("/sso/callback")
          ? { query: `?code=forged-${i}&state=forged-${i}`, state: `forged-${i}` }
          : { userName: `nobody.api.${i}@example.com`, password: PASSWORD, captchaToken: "", isCaptchaV3: true },
  },
  verify: {
    page: {
      file: "features/accounts/corporate.verify.tsx",
      query: () => `?userId=${randomUUID()}&requestToken=${"x".repeat(43)}`,
      fields: () => ({
        intent: "verify",
        userId: randomUUID(),
        requestToken: "x".repeat(43),
        verificationCode: "123456",
      }),
    },
    api: (path) =>
      path.endsWith("/VerifyEmail")
        ? { userId: randomUUID(), requestToken: "x".repeat(43), verificationCode: "123456" }
        : { userId: randomUUID() },
  },
  resetRequest: {
    page: {
      file: "features/accounts/corporate.forgot-password-request.tsx",
      fields: (i) => ({ email: `reset.${i}@example.com` }),
    },
    api: (_, i) => ({ email: `reset.api.${i}@example.com` }),
  },
  reset: {
    page: {
      file: "features/accounts/corporate.forgot-password.tsx",
      query: () => `?passwordResetToken=${"y".repeat(43)}`,
      fields: () => ({ passwordResetToken: "y".repeat(43), password: PASSWORD, confirmPassword: PASSWORD }),
    },
    api: () => ({ passwordResetToken: "y".repeat(43), password: PASSWORD }),
  },
  contactSignedIn: {
    page: {
      file: "features/help/portal.help.tsx",
      fields: () => ({ message: "Hello from the portal" }),
      signedIn: true,
    },
    api: () => ({ message: "Hello from the API" }),
    signedIn: true,
  },
  managerInviteLink: {
    // An invitation link's preview and accept (ADR 0022 §5). The accept page shows its form only
    // for a live link, and its loader and action reach these same two calls in process, with the
    // visitor's address: the API's budget is theirs.
    api: (path) =>
      path.endsWith("/accept")
        ? {
            token: "z".repeat(43),
            firstName: "Rate",
            lastName: "Limit",
            password: PASSWORD,
            confirmPassword: PASSWORD,
          }
        : { token: "z".repeat(43) },
  },
  ssoLogout: {
    // An identity provider's back-channel logout (ADR 0046): a forged token, refused after it is counted.
    api: (_, i) => ({ logout_token: `forged.${i}.token` }),
  },
  cardPayment: {
    // The card form's page posts several intents; the API's three card calls are what the rule guards.
    api: (path) =>
      path.endsWith("confirm-simulated-payment")
        ? {
            paymentIntent: "pi_unknown",
            clientSecret: "x",
            cardNumber: "4242424242424242",
            expiry: "12/34",
            cvc: "123",
          }
        : { amount: 111 },
    signedIn: true,
  },
};

describe("rate limits through the real process", () => {
  let app: AppProcess;
  let smtp: TestSmtpServer;
  let token: string;
  let portal: FormSession;
  const email = "limits.owner@example.com";
  let ipCounter = 0;
  /** Redemptions with the right partner key so far: they spend partnerRedemption's budget. */
  let rightPartnerCalls = 0;
  /** A client address of its own for each scenario, so budgets do not mix. */
  const freshIp = () => `198.51.100.${++ipCounter}`;

  beforeAll(async () => {
    smtp = await createSmtpServer({ listen: true });
    app = await startApp(
      {
        DATABASE_URL: "memory://",
        SMTP_URL: smtp.url,
        TRUST_PROXY: "1",
        RATE_LIMIT_FACTOR: String(FACTOR),
        PARTNER_API_KEY: PARTNER_KEY,
      },
      { production: true },
    );
    const codeOf = verificationCodes(smtp);
    ({ accessToken: token } = await signUpOverHttp(app.base, email, codeOf));
    // A signed-in browser: the login form's session cookie, then the portal page's CSRF token.
    const login = await openForm(app.base, "/corporate/login");
    const res = await postForm(app.base, "/corporate/login", login, {
      userName: email,
      password: "Fault#Test-2026-pass",
      ...captcha,
    });
    expect(res.status).toBe(302);
    const session = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    portal = await openForm(app.base, pageOf("features/help/portal.help.tsx"), session);
  }, 120_000);

  afterAll(async () => {
    await app?.kill();
    await smtp?.stop();
  });

  it("the API's route table names a limit for every operation docs/requirements.md §D7 lists, and this test covers each", () => {
    const byRule = operationsByRule();
    for (const name of Object.keys(RATE_RULES) as RateRuleName[]) {
      if (RATE_RULES[name].per === "client") expect(byRule.get(name), name).toBeDefined();
    }
    expect([...byRule.keys()].sort()).toEqual(Object.keys(OPERATIONS).sort());
    // Resend and the code request share the verify budget.
    expect(byRule.get("verify")).toEqual(
      expect.arrayContaining(["POST /api/Identity/ResendVerifyEmailRequest", "POST /api/Identity/VerifyEmailRequest"]),
    );
  });

  for (const [rule, operation] of Object.entries(OPERATIONS)) {
    it(`${rule}: its budget holds across every URL that reaches it, sent all at once`, async () => {
      const query = operation.page?.query?.() ?? "";
      const name = rule as RateRuleName;
      const apiPaths = (operationsByRule().get(rule) ?? []).map((op) => op.split(" ")[1] as string);
      const ip = freshIp();
      const sends: (() => Promise<Response>)[] = [];
      let i = 0;
      for (const apiPath of apiPaths) {
        for (const url of urlVariants(apiPath, false)) {
          const n = ++i;
          sends.push(() =>
            postJson(app.base, url, operation.api(apiPath, n), {
              clientIp: ip,
              token: operation.signedIn ? token : undefined,
            }),
          );
        }
      }
      const page = operation.page;
      if (page) {
        // The page's own form posts to its address with the same query (verify, reset).
        const session = page.signedIn ? portal : await openForm(app.base, pageOf(page.file) + query);
        for (const url of urlVariants(pageOf(page.file), true)) {
          const n = ++i;
          sends.push(() => postForm(app.base, url + query, session, page.fields(n), ip));
        }
      }
      // More attempts than the budget, whatever it is.
      while (sends.length < budget(name) * 2 + 2)
        sends.push(sends[sends.length % Math.max(1, i)] as () => Promise<Response>);

      const statuses = await Promise.all(sends.map(async (send) => (await send()).status));
      const reached = statuses.filter((s) => s !== 429);
      expect(reached.length, `statuses ${statuses.join(",")}`).toBe(budget(name));
      expect(
        reached.every((s) => s < 500 && s !== 403 && s !== 413),
        `statuses ${statuses.join(",")}`,
      ).toBe(true);

      // Another address still has its own budget.
      const other = page
        ? await postForm(
            app.base,
            pageOf(page.file) + query,
            page.signedIn ? portal : await openForm(app.base, pageOf(page.file) + query),
            page.fields(++i),
            freshIp(),
          )
        : await postJson(app.base, apiPaths[0] as string, operation.api(apiPaths[0] as string, ++i), {
            clientIp: freshIp(),
            token,
          });
      expect(other.status).not.toBe(429);
    });
  }

  it("login: the single sign-on callback page (a GET from the provider's redirect) spends the login budget at every URL that reaches it, sent all at once", async () => {
    const callback = pageOf("features/accounts/corporate.sso.callback.tsx");
    // A browser that was sent off with this state (its cookie, as the login page sets it): only
    // then does the page call the API, whose limit this is. The state is forged, so each reached
    // call is refused (400) and changes nothing.
    const cookie = (await createCookie("sso_state").serialize("forged-state")).split(";")[0] as string;
    const ip = freshIp();
    const urls = urlVariants(callback, true);
    const sends = Array.from(
      { length: budget("login") * 2 + 2 },
      (_, n) => () =>
        fetch(`${app.base}${urls[n % urls.length]}?code=forged-${n}&state=forged-state`, {
          headers: { cookie, "x-forwarded-for": ip },
          // A trailing slash is redirected to the page's address, followed as a browser would.
        }),
    );
    const statuses = await Promise.all(sends.map(async (send) => (await send()).status));
    const reached = statuses.filter((s) => s !== 429);
    expect(reached.length, statuses.join(",")).toBe(budget("login"));
    expect(
      reached.every((s) => s === 400),
      statuses.join(","),
    ).toBe(true);
    // Another address has its own budget.
    const other = await fetch(`${app.base}${callback}?code=x&state=forged-state`, {
      headers: { cookie, "x-forwarded-for": freshIp() },
    });
    expect(other.status).toBe(400);
  });

  it("rewardResend: a manager's resends hold their budget across the API's URLs, the page's and any client address, sent all at once", async () => {
    // A release of the signed-in owner's, over HTTP: one recipient, paid with the simulated card.
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${app.base}/api/${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const recipient = "resend.limit@example.com";
    expect(
      (
        await api("POST", "RewardMyTeam/create-reward-user", {
          firstName: "Rae",
          lastName: "Send",
          email: recipient,
          value: 10,
        })
      ).status,
    ).toBe(200);
    const created = await api("POST", "StripePayment/create-payment-intent", {
      amount: 1110,
      rewardName: "Resend limit",
    });
    expect(created.status).toBe(200);
    const intent = (await created.json()) as {
      paymentIntentId: string;
      clientSecret: string;
    };
    const paid = await api("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: intent.paymentIntentId,
      clientSecret: intent.clientSecret,
      cardNumber: "4242424242424242",
      expiry: "12/34",
      cvc: "123",
      nameOnCard: "Rae Send",
    });
    const paidBody = await paid.text();
    expect((JSON.parse(paidBody) as { status: string }).status, paidBody).toBe("succeeded");
    const [release] = (await (await api("GET", "RewardHistory/get-reward-history")).json()) as {
      rewardReleaseId: number;
    }[];
    const delivery = (await (await api("GET", `RewardReleases/${release?.rewardReleaseId}`)).json()) as {
      recipients: { userId: number }[];
    };
    const userId = delivery.recipients[0]?.userId;
    const apiPath = `/api/RewardReleases/${release?.rewardReleaseId}/recipients/${userId}/resend`;
    const pagePath = `/portal/rewards/${release?.rewardReleaseId}`;
    const session = await openForm(app.base, pagePath, portal.cookie);

    const resends = () => smtp.messages.filter((m) => m.to.includes(recipient)).length;
    // The release's own email first, so that only resends are counted below.
    await expect.poll(resends, { timeout: 15_000 }).toBe(1);
    const before = resends();
    const sends: (() => Promise<Response>)[] = [];
    for (const url of urlVariants(apiPath, false))
      sends.push(() => postJson(app.base, url, {}, { clientIp: freshIp(), token }));
    for (const url of urlVariants(pagePath, true)) {
      sends.push(() => postForm(app.base, url, session, { intent: "resend", userId: String(userId) }, freshIp()));
    }
    while (sends.length < budget("rewardResend") * 2 + 2)
      sends.push(sends[sends.length % 10] as () => Promise<Response>);
    const statuses = await Promise.all(sends.map(async (send) => (await send()).status));
    expect(
      statuses.every((status) => status < 500),
      statuses.join(","),
    ).toBe(true);
    // Counted where it matters: the emails that actually went out (a limited page post redirects with a toast).
    await expect.poll(resends, { timeout: 15_000 }).toBeGreaterThanOrEqual(before + budget("rewardResend"));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(resends() - before, statuses.join(",")).toBe(budget("rewardResend"));
  });

  it("apiKey: a company key's budget holds across /api/v1's URLs and any client address, sent all at once; another key has its own", async () => {
    const makeKey = async (name: string) => {
      const res = await postJson(app.base, "/api/ApiKeys", { name }, { token });
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    };
    const key = await makeKey("Limits test");
    // Many addresses of a range of their own (freshIp's has room for only 254 scenarios).
    let n = 0;
    const otherIp = () => `203.0.113.${(n++ % 200) + 1}`;
    const get = (url: string, withKey: string) =>
      fetch(`${app.base}${url}`, {
        headers: { authorization: `Bearer ${withKey}`, accept: "application/json", "x-forwarded-for": otherIp() },
      });
    const urls = urlVariants("/api/v1/orders", false);
    const sends = Array.from(
      { length: budget("apiKey") * 2 + 2 },
      (_, n) => () => get(urls[n % urls.length] as string, key),
    );
    const statuses = await Promise.all(sends.map(async (send) => (await send()).status));
    const reached = statuses.filter((s) => s !== 429);
    expect(reached.length, statuses.join(",")).toBe(budget("apiKey"));
    expect(
      reached.every((s) => s === 200),
      statuses.join(","),
    ).toBe(true);
    expect((await get("/api/v1/orders", await makeKey("Another system"))).status).toBe(200);
  });

  it("topUpCreate: an Owner's top-ups hold their budget per company across the API's URLs, the Balance page's and any client address, sent all at once", async () => {
    let n = 0;
    const otherIp = () => `192.0.2.${(n++ % 200) + 1}`;
    const pagePath = pageOf("features/settings/portal.settings.balance.tsx");
    const session = await openForm(app.base, pagePath, portal.cookie);
    const sends: (() => Promise<Response>)[] = [];
    for (const url of urlVariants("/api/Balance/TopUps", false))
      sends.push(() => postJson(app.base, url, { amount: 1000 }, { clientIp: otherIp(), token }));
    for (const url of urlVariants(pagePath, true))
      sends.push(() => postForm(app.base, url, session, { intent: "top-up", amount: "10" }, otherIp()));
    while (sends.length < budget("topUpCreate") * 2 + 2)
      sends.push(sends[sends.length % 10] as () => Promise<Response>);
    const statuses = await Promise.all(sends.map(async (send) => (await send()).status));
    // Made: 201 from the API, a redirect to the new top-up's card page from the page; all else 429.
    const made = statuses.filter((s) => s === 201 || s === 302 || s === 303);
    expect(made.length, statuses.join(",")).toBe(budget("topUpCreate"));
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(statuses.length - made.length);
  });

  it("partnerKeyFailure: wrong partner keys from one address are cut off across the URLs, sent all at once; the right key is never counted", async () => {
    const ip = freshIp();
    const redeem = (url: string, key: string, from: string) =>
      fetch(`${app.base}${url}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json",
          "x-forwarded-for": from,
        },
        body: JSON.stringify({ accessCode: "AAAA-BBBB-CCCC", amountCents: 100, idempotencyKey: randomUUID() }),
      });
    const urls = urlVariants("/api/Redemptions", false);
    const wrong = Array.from({ length: budget("partnerKeyFailure") * 2 + 2 }, (_, n) =>
      redeem(urls[n % urls.length] as string, `wrong-partner-key-${n}-0123456789abcdef`, ip),
    );
    const statuses = (await Promise.all(wrong)).map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length, statuses.join(",")).toBe(budget("partnerKeyFailure"));
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(
      statuses.length - budget("partnerKeyFailure"),
    );
    // The right key, even from the address just cut off, is judged on its request (an unknown access code).
    for (let n = 0; n < budget("partnerKeyFailure") + 2; n++) {
      expect((await redeem("/api/Redemptions", PARTNER_KEY, ip)).status).toBe(404);
      rightPartnerCalls++;
    }
  });

  // Budgets kept per company or per key (docs/SECURITY.md §5, second table): whatever the client
  // address, exactly the budget reaches the operation; the rest are 429. Each operation is
  // counted before its body is judged, so a request it then refuses (no draft to pay, no single
  // sign-on set up, an unknown access code) still spends one.
  const perCompanyBudgets: {
    rule: RateRuleName;
    path: string;
    body: () => unknown;
    auth: () => string;
    /** Spent by the tests above in this budget's window (vitest runs a file's tests in order). */
    spent: () => number;
  }[] = [
    { rule: "balancePayment", path: "/api/Balance/pay-order", body: () => ({}), auth: () => token, spent: () => 0 },
    { rule: "ssoTest", path: "/api/SingleSignOn/test", body: () => ({}), auth: () => token, spent: () => 0 },
    {
      rule: "partnerRedemption",
      path: "/api/Redemptions",
      body: () => ({ accessCode: "AAAA-BBBB-CCCC", amountCents: 100, idempotencyKey: randomUUID() }),
      auth: () => PARTNER_KEY,
      spent: () => rightPartnerCalls,
    },
  ];
  for (const { rule, path, body, auth, spent } of perCompanyBudgets) {
    it(`${rule}: its budget holds across the API's URLs and any client address, sent all at once`, async () => {
      let n = 0;
      const otherIp = () => `198.18.${rule.length}.${(n++ % 200) + 1}`;
      const urls = urlVariants(path, false);
      const statuses = await Promise.all(
        Array.from({ length: budget(rule) * 2 + 2 }, async (_, i) => {
          const res = await postJson(app.base, urls[i % urls.length] as string, body(), {
            clientIp: otherIp(),
            token: auth(),
          });
          await res.body?.cancel();
          return res.status;
        }),
      );
      const reached = statuses.filter((s) => s !== 429);
      expect(reached.length, statuses.join(",")).toBe(budget(rule) - spent());
      expect(
        reached.every((s) => s < 500 && s !== 401 && s !== 403),
        statuses.join(","),
      ).toBe(true);
    });
  }

  it("a limited answer says so: 429 with Retry-After on the API, the message on the page", async () => {
    const ip = freshIp();
    const body = OPERATIONS.waitlist?.api("", 0);
    for (let n = 0; n < budget("waitlist"); n++) await postJson(app.base, "/api/WaitList", body, { clientIp: ip });
    const limited = await postJson(app.base, "/api/WaitList", body, { clientIp: ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { detail: string }).detail).toBe(
      "Too many requests. Please wait a minute and try again.",
    );
    const page = await postForm(
      app.base,
      "/not-ready-yet",
      await openForm(app.base, "/not-ready-yet"),
      OPERATIONS.waitlist?.page?.fields(99) ?? {},
      ip,
    );
    expect(page.status).toBe(429);
    expect(await page.text()).toContain("Too many requests. Please wait a minute and try again.");
  });

  it("X-Forwarded-For entries the client writes buy no fresh budget; one IPv6 /64 is one client", async () => {
    const proxied = "203.0.113.50";
    const statuses: number[] = [];
    for (let n = 0; n < budget("contact") + 3; n++) {
      const res = await fetch(`${app.base}/api/Help/create-help-anonymous`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `192.0.2.${n}, ${proxied}` },
        body: JSON.stringify(OPERATIONS.contact?.api("", n)),
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s !== 429)).toHaveLength(budget("contact"));

    const v6: number[] = [];
    for (let n = 0; n < budget("contact") + 3; n++) {
      const res = await postJson(app.base, "/api/Help/create-help-anonymous", OPERATIONS.contact?.api("", 100 + n), {
        clientIp: `2001:db8:5:7::${(n + 1).toString(16)}`,
      });
      v6.push(res.status);
    }
    expect(v6.filter((s) => s !== 429)).toHaveLength(budget("contact"));
    // Another /64 is another client.
    const elsewhere = await postJson(app.base, "/api/Help/create-help-anonymous", OPERATIONS.contact?.api("", 200), {
      clientIp: "2001:db8:5:8::1",
    });
    expect(elsewhere.status).toBe(200);
  });

  it("50 concurrent wrong passwords for one account are 50 attempts; the owner still logs in from another address", async () => {
    const attacker = freshIp();
    const wrong = { userName: email, password: "Wrong#Guess-2026-pass", captchaToken: "", isCaptchaV3: true };
    const statuses = await Promise.all(
      Array.from(
        { length: 50 },
        async () => (await postJson(app.base, "/api/Identity/login", wrong, { clientIp: attacker })).status,
      ),
    );
    // A 400 is a password checked; the rest were refused before any check.
    const checked = statuses.filter((s) => s === 400).length;
    expect(checked).toBe(budget("loginAccountClient"));
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - checked);

    // A slower flood from many addresses spends the account's own budget: it slows, never locks.
    const flood = await Promise.all(
      Array.from({ length: budget("loginAccount") + 6 }, async (_, n) => {
        const res = await postJson(app.base, "/api/Identity/login", wrong, { clientIp: `192.0.2.${n + 1}` });
        return res.status;
      }),
    );
    const floodChecked = flood.filter((s) => s === 400).length;
    // The budget, and at most one more check per trickle slot while the rest waited (6 s, one every 2 s).
    // (The checks above already spent part of the account's budget.)
    const left = budget("loginAccount") - checked;
    expect(floodChecked).toBeGreaterThanOrEqual(left);
    expect(floodChecked).toBeLessThanOrEqual(left + 4);

    const owner = await postJson(
      app.base,
      "/api/Identity/login",
      { userName: email, password: "Fault#Test-2026-pass", captchaToken: "", isCaptchaV3: true },
      { clientIp: freshIp() },
    );
    expect(owner.status).toBe(200);
    expect(((await owner.json()) as { accessToken?: string }).accessToken).toBeTruthy();
  }, 60_000);
});

// docs/requirements.md §D7's budgets are the node's, not each process's: on PostgreSQL every process counts in
// one table, so three processes give an attacker no more guesses than one.
const postgres = databases.find((d) => d.kind === "postgres");
describe.skipIf(Boolean(postgres?.skipped))("rate limits shared by three processes on one PostgreSQL", () => {
  let apps: AppProcess[] = [];
  let smtp: TestSmtpServer;
  let database: { url: string; drop(): Promise<void> };
  const email = "shared.limits@example.com";

  beforeAll(async () => {
    smtp = await createSmtpServer({ listen: true });
    database = await createPostgresDatabase();
    const env = { DATABASE_URL: database.url, SMTP_URL: smtp.url, TRUST_PROXY: "1", RATE_LIMIT_FACTOR: String(FACTOR) };
    // Started together, as a deployment's processes are (their migrations take turns).
    apps = await Promise.all([0, 1, 2].map(() => launchApp(env, { production: true })));
    await Promise.all(apps.map((app) => waitUntilReady(app, 120_000)));
    await signUpOverHttp((apps[0] as AppProcess).base, email, verificationCodes(smtp));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.kill()));
    await smtp?.stop();
    await database?.drop();
  });

  it("wrong passwords spread over the processes are refused after the same count as on one", async () => {
    const wrong = { userName: email, password: "Wrong#Guess-2026-pass", captchaToken: "", isCaptchaV3: true };
    const attempts = 3 * budget("loginAccountClient") + 3;
    const statuses: number[] = [];
    for (let i = 0; i < attempts; i++) {
      const app = apps[i % apps.length] as AppProcess;
      statuses.push((await postJson(app.base, "/api/Identity/login", wrong, { clientIp: "203.0.113.77" })).status);
    }
    // One process's budget for one account from one address, however the attempts were spread.
    expect(statuses.filter((s) => s === 400)).toHaveLength(budget("loginAccountClient"));
    expect(statuses.slice(budget("loginAccountClient")).every((s) => s === 429)).toBe(true);

    // All at once, a per-client budget holds too: one address's logins (any account) over all three.
    const flood = await Promise.all(
      Array.from({ length: 3 * budget("login") }, async (_, i) => {
        const app = apps[i % apps.length] as AppProcess;
        const body = { ...wrong, userName: `nobody.${i}@example.com` };
        return (await postJson(app.base, "/api/Identity/login", body, { clientIp: "203.0.113.78" })).status;
      }),
    );
    expect(flood.filter((s) => s !== 429)).toHaveLength(budget("login"));
  }, 60_000);
});
