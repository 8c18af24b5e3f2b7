// The webhook test ping and re-send (ADR 0045), tried as
// an attacker would, through the real process (server.ts on the production build, over HTTP), as
// tests/security/rate-limits.test.ts tries docs/requirements.md §D7's limits: each ping adds an event and a
// delivery retried for 72 hours, so unlimited they would turn the server into a traffic amplifier
// against any address. Both share one budget per endpoint and one per company, bound to the API
// operations: the API's URLs and the Settings pages' action URLs (`.data`, a trailing slash,
// other letter case, percent-encoding), all sent at once, make exactly the budget and no more
// deliveries, and another endpoint and another company keep their own.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_RULES, type RateRule } from "../../server/api/rate-limits.ts";
import { type AppProcess, signUpOverHttp, startApp, verificationCodes } from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type FormSession, openForm, postForm, postJson, urlVariants } from "./http.ts";

const FACTOR = 0.2;
// The documented budgets (README "API", ADR 0045): 10 an hour per endpoint and 60 an
// hour per company, ping and re-send together.
const ENDPOINT_PER_HOUR = 10;
const COMPANY_PER_HOUR = 60;
const scaled = (points: number) => Math.max(1, Math.round(points * FACTOR));
const ENDPOINT_BUDGET = scaled(ENDPOINT_PER_HOUR);
const COMPANY_BUDGET = scaled(COMPANY_PER_HOUR);
const PASSWORD = "Fault#Test-2026-pass";
const captcha = { captchaToken: "", isCaptchaV3: "true" };

/** Did the request do its work: the API's 202, or the page's redirect (a document post) or data answer. */
const made = (status: number) => status < 400;

interface Delivery {
  id: number;
  eventType: string;
}

describe("webhook ping and re-send limits through the real process", () => {
  let app: AppProcess;
  let smtp: TestSmtpServer;
  let receiver: Server;
  let receiverBase = "";
  /** How many requests the receiver got, per path. */
  const received = new Map<string, number>();
  const codeOf = () => verificationCodes(smtp);
  let ip = 0;
  let companies = 0;
  const anyIp = () => `198.51.100.${(ip++ % 250) + 1}`;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.set(req.url ?? "", (received.get(req.url ?? "") ?? 0) + 1);
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    smtp = await createSmtpServer({ listen: true });
    app = await startApp(
      { DATABASE_URL: "memory://", SMTP_URL: smtp.url, TRUST_PROXY: "1", RATE_LIMIT_FACTOR: String(FACTOR) },
      // A loaded machine may take a while to start the production build.
      { production: true, readyWithinMs: 120_000 },
    );
  }, 180_000);

  afterAll(async () => {
    await app?.kill();
    await smtp?.stop();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  /** A new company's Owner: their token, and a signed-in browser session (the login form's cookie). */
  async function owner(email: string) {
    // From an address of its own, so the sign-ups stay within the per-client sign-up budget.
    const from = `192.0.2.${++companies}`;
    const { accessToken: token } = await signUpOverHttp(app.base, email, codeOf(), {
      call: async (_step, method, path, body, bearer) => {
        const res = await fetch(`${app.base}${path}`, {
          method,
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "x-forwarded-for": from,
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
        return text ? JSON.parse(text) : undefined;
      },
    });
    const login = await openForm(app.base, "/corporate/login");
    const res = await postForm(
      app.base,
      "/corporate/login",
      login,
      { userName: email, password: PASSWORD, ...captcha },
      from,
    );
    expect(res.status).toBe(302);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const endpoint = async (path: string) => {
      const created = await postJson(
        app.base,
        "/api/Webhooks",
        { url: `${receiverBase}${path}`, events: ["order.released"] },
        { token },
      );
      expect(created.status, await created.clone().text()).toBe(201);
      return ((await created.json()) as { id: number }).id;
    };
    const deliveries = async (id: number) => {
      const res = await fetch(`${app.base}/api/Webhooks/${id}/deliveries`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { deliveries: Delivery[] }).deliveries;
    };
    return { token, cookie, endpoint, deliveries };
  }

  /** Every way to ping `id`: the API's URLs, and the ping forms of the list page and of the endpoint's page. */
  function pings(who: { token: string }, id: number, list: FormSession, page: FormSession) {
    const sends: (() => Promise<Response>)[] = [];
    // The id with a leading zero names the same endpoint, and must not be another budget.
    for (const url of [...urlVariants(`/api/Webhooks/${id}/ping`, false), `/api/Webhooks/0${id}/ping`])
      sends.push(() => postJson(app.base, url, {}, { clientIp: anyIp(), token: who.token }));
    for (const endpointId of [String(id), `0${id}`])
      for (const url of urlVariants("/portal/settings/webhooks", true))
        sends.push(() => postForm(app.base, url, list, { intent: "ping", endpointId }, anyIp()));
    for (const url of [...urlVariants(`/portal/settings/webhooks/${id}`, true), `/portal/settings/webhooks/0${id}`])
      sends.push(() => postForm(app.base, url, page, { intent: "ping" }, anyIp()));
    return sends;
  }

  const pad = (sends: (() => Promise<Response>)[], atLeast: number) => {
    const kinds = sends.length;
    while (sends.length < atLeast) sends.push(sends[sends.length % kinds] as () => Promise<Response>);
    return sends;
  };

  const all = async (sends: (() => Promise<Response>)[]) =>
    Promise.all(
      sends.map(async (send) => {
        const res = await send();
        await res.arrayBuffer();
        return res.status;
      }),
    );

  it("the rules are the documented budgets", () => {
    const rules = RATE_RULES as Record<string, RateRule>;
    expect(rules.webhookSendEndpoint).toEqual({ points: ENDPOINT_PER_HOUR, durationSeconds: 3600, per: "account" });
    expect(rules.webhookSendCompany).toEqual({ points: COMPANY_PER_HOUR, durationSeconds: 3600, per: "account" });
  });

  it("ping: an endpoint's budget holds across the API's URLs and both pages' URLs, sent all at once; nothing more is sent; another endpoint keeps its own", async () => {
    const alpha = await owner("ping.limits@example.com");
    const id = await alpha.endpoint("/ping-one");
    const list = await openForm(app.base, "/portal/settings/webhooks", alpha.cookie);
    const page = await openForm(app.base, `/portal/settings/webhooks/${id}`, alpha.cookie);
    const statuses = await all(pad(pings(alpha, id, list, page), ENDPOINT_BUDGET * 2 + 2));
    expect(statuses.filter(made).length, statuses.join(",")).toBe(ENDPOINT_BUDGET);
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(statuses.length - ENDPOINT_BUDGET);
    // What was made: one event and one delivery per ping that got through, and the receiver called that often.
    expect((await alpha.deliveries(id)).filter((d) => d.eventType === "ping")).toHaveLength(ENDPOINT_BUDGET);
    await expect.poll(() => received.get("/ping-one") ?? 0, { timeout: 30_000 }).toBe(ENDPOINT_BUDGET);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(received.get("/ping-one")).toBe(ENDPOINT_BUDGET);
    // The budget is the endpoint's: another endpoint of the company is pinged.
    const other = await alpha.endpoint("/ping-two");
    expect((await postJson(app.base, `/api/Webhooks/${other}/ping`, {}, { token: alpha.token })).status).toBe(202);
    // A limited answer is the usual problem+json with Retry-After.
    const limited = await postJson(app.base, `/api/Webhooks/${id}/ping`, {}, { token: alpha.token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("re-send: shares the endpoint's budget with ping, across the API's URLs and the page's URLs, sent all at once", async () => {
    const beta = await owner("resend.limits@example.com");
    const id = await beta.endpoint("/resend-one");
    // The delivery to re-send: a ping's, which spends one of the endpoint's budget.
    const ping = await postJson(app.base, `/api/Webhooks/${id}/ping`, {}, { token: beta.token });
    expect(ping.status).toBe(202);
    const { deliveryId } = (await ping.json()) as { deliveryId: number };
    await expect.poll(() => received.get("/resend-one") ?? 0, { timeout: 30_000 }).toBe(1);
    const page = await openForm(app.base, `/portal/settings/webhooks/${id}`, beta.cookie);
    const sends: (() => Promise<Response>)[] = [];
    for (const url of urlVariants(`/api/Webhooks/${id}/deliveries/${deliveryId}/resend`, false))
      sends.push(() => postJson(app.base, url, {}, { clientIp: anyIp(), token: beta.token }));
    for (const url of urlVariants(`/portal/settings/webhooks/${id}`, true))
      sends.push(() => postForm(app.base, url, page, { intent: "resend", deliveryId: String(deliveryId) }, anyIp()));
    const statuses = await all(pad(sends, ENDPOINT_BUDGET * 2 + 2));
    expect(statuses.filter(made).length, statuses.join(",")).toBe(ENDPOINT_BUDGET - 1);
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(statuses.length - ENDPOINT_BUDGET + 1);
    // Re-sends make no new delivery, and the endpoint is called at most once per re-send that got through.
    expect(await beta.deliveries(id)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(received.get("/resend-one")).toBeLessThanOrEqual(ENDPOINT_BUDGET);
    // Spent for this endpoint: a ping is refused too.
    expect((await postJson(app.base, `/api/Webhooks/${id}/ping`, {}, { token: beta.token })).status).toBe(429);
  }, 120_000);

  it("a company's budget holds across all of its endpoints, sent all at once; another company keeps its own", async () => {
    const gamma = await owner("company.limits@example.com");
    // More endpoints than the company's budget covers at the endpoint's budget each.
    const count = Math.floor(COMPANY_BUDGET / ENDPOINT_BUDGET) + 1;
    const ids: number[] = [];
    for (let n = 0; n < count; n++) ids.push(await gamma.endpoint(`/company-${n}`));
    const list = await openForm(app.base, "/portal/settings/webhooks", gamma.cookie);
    const sends: (() => Promise<Response>)[] = [];
    for (const [n, id] of ids.entries()) {
      const page = await openForm(app.base, `/portal/settings/webhooks/${id}`, gamma.cookie);
      const each = pings(gamma, id, list, page);
      // Twice the endpoint's budget each, a different slice of the URLs for each endpoint.
      const from = (n * ENDPOINT_BUDGET * 2) % (each.length - ENDPOINT_BUDGET * 2);
      sends.push(...each.slice(from, from + ENDPOINT_BUDGET * 2));
    }
    const statuses = await all(sends);
    expect(statuses.filter(made).length, statuses.join(",")).toBe(COMPANY_BUDGET);
    expect(statuses.filter((s) => s === 429).length, statuses.join(",")).toBe(statuses.length - COMPANY_BUDGET);
    let pinged = 0;
    for (const id of ids) {
      const n = (await gamma.deliveries(id)).length;
      expect(n).toBeLessThanOrEqual(ENDPOINT_BUDGET);
      pinged += n;
    }
    expect(pinged).toBe(COMPANY_BUDGET);
    // Another company's endpoint is pinged: its budget is its own.
    const delta = await owner("other.company.limits@example.com");
    const theirs = await delta.endpoint("/other-company");
    expect((await postJson(app.base, `/api/Webhooks/${theirs}/ping`, {}, { token: delta.token })).status).toBe(202);
  }, 180_000);
});
