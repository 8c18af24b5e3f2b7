// GET /metrics from outside, as a Prometheus server scrapes it: the real process (server.ts on the
// production build) on PostgreSQL, one process and then two workers under the supervisor. The
// answer is read with a Prometheus text-format parser from npm, not with our own code
// (docs/decisions/0033-metrics-for-operators.md). Checked: the token (none, a wrong one: 401 with
// WWW-Authenticate and no figures), the families operators alert on with sane values, route labels
// that are patterns and never raw ids, and with two workers one scrape covering both.
import { request } from "node:http";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { type AppProcess, startApp, until } from "../support/app-process.ts";
import { createPostgresDatabase, postgresAdminUrl } from "../support/db.ts";

/** What an operator sets as METRICS_TOKEN and gives their Prometheus server (docs/OPERATIONS.md "Metrics"). */
const TOKEN = "metrics-test-token-0123456789abcdefghijklmnop";

let app: AppProcess | undefined;
let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === "fail" && app) console.error(`app output:\n${app.output().slice(-4000)}`);
  await app?.kill("SIGKILL");
  app = undefined;
  await database?.drop();
  database = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request on a connection of its own (no keep-alive): node:cluster hands each new connection
 * to the next worker in turn, so a run of these is spread over the workers.
 */
function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const scrape = (base: string, token = TOKEN) => call(base, "GET", "/metrics", { authorization: `Bearer ${token}` });

type Families = ReturnType<typeof parsePrometheusTextFormat>;

function family(families: Families, name: string) {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric family ${name}`);
  return found;
}

/** Every sample named `name` whose labels include `labels` (an untyped series may come in several runs). */
function samples(families: Families, name: string, labels: Record<string, string> = {}) {
  family(families, name);
  return families
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .filter((m) => Object.entries(labels).every(([key, wanted]) => m.labels?.[key] === wanted));
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  return samples(families, name, labels).reduce((total, m) => total + Number(m.value ?? 0), 0);
}

async function expectRefused(base: string, headers: Record<string, string>) {
  const res = await call(base, "GET", "/metrics", headers);
  expect(res.status).toBe(401);
  expect(String(res.headers["www-authenticate"])).toMatch(/^Bearer\b/);
  expect(res.headers["cache-control"]).toBe("no-store");
  expect(res.body).not.toMatch(/rewards_|process_|nodejs_/);
}

describe.skipIf(!postgresAdminUrl)("GET /metrics on the real process, on PostgreSQL", () => {
  it("one process: refused without the token, then every family with sane values and route patterns", {
    timeout: 60_000,
  }, async () => {
    database = await createPostgresDatabase();
    const { url } = database;
    const startedAt = Date.now() / 1000;
    app = await startApp(
      {
        DATABASE_URL: url,
        METRICS_TOKEN: TOKEN,
        // An operator may lower the limits too (docs/OPERATIONS.md "Configuration"); here it makes the second
        // login from this address in five minutes a refusal (the login budget becomes 1).
        RATE_LIMIT_FACTOR: "0.04",
      },
      { production: true },
    );
    const base = app.base;

    await expectRefused(base, {});
    await expectRefused(base, { authorization: `Bearer ${TOKEN}x` });
    await expectRefused(base, { authorization: "Bearer short" });
    await expectRefused(base, { authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString("base64")}` });

    // A page, a page with an id in its path, a call without a bearer token, an unknown API
    // section, and two logins with a wrong password (the second refused by the login limit).
    expect((await call(base, "GET", "/")).status).toBe(200);
    expect((await call(base, "GET", "/portal/approvals/987654")).status).toBe(302);
    expect((await call(base, "GET", "/api/Users/MyDetails")).status).toBe(401);
    expect((await call(base, "GET", "/api/NoSuchSection/123456")).status).toBe(404);
    const login = JSON.stringify({
      userName: "nobody@example.com",
      password: "Wrong#Password-2026",
      captchaToken: "x",
      isCaptchaV3: true,
    });
    const json = { "content-type": "application/json" };
    const first = await call(base, "POST", "/api/Identity/login", json, login);
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).not.toBe(429);
    expect((await call(base, "POST", "/api/Identity/login", json, login)).status).toBe(429);

    const res = await scrape(base);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers["cache-control"]).toBe("no-store");
    const families = parsePrometheusTextFormat(res.body);

    // Requests by route pattern and status; the ids in the paths never reach a label.
    expect(family(families, "rewards_http_requests_total").type).toBe("COUNTER");
    expect(family(families, "rewards_http_request_duration_seconds").type).toBe("HISTOGRAM");
    const requests = (labels: Record<string, string>) => value(families, "rewards_http_requests_total", labels);
    expect(requests({ route: "/", method: "GET", status: "200" })).toBe(1);
    expect(requests({ route: "/portal/approvals/:orderId", status: "302" })).toBe(1);
    expect(requests({ route: "/api/Users", status: "401" })).toBe(1);
    expect(requests({ route: "/api/other", status: "404" })).toBe(1);
    expect(requests({ route: "/api/Identity", method: "POST", status: "429" })).toBe(1);
    expect(requests({ route: "/metrics", status: "401" })).toBe(4);
    const routes = new Set(
      family(families, "rewards_http_requests_total").metrics.map((m) => m.labels?.route ?? "(none)"),
    );
    for (const route of routes) {
      expect(route, "a pattern, not a raw path").toMatch(/^(other|\/[A-Za-z0-9/:*_-]*)$/);
      expect(route, "no id in a label").not.toMatch(/\d{3,}/);
    }
    // The parser folds a histogram's labelled series into one (parse-prometheus-text-format 1.1
    // keeps labels and _sum/_count only for a histogram without labels): its series are read as
    // plain samples from the same text with the family typed untyped (each label set's run of
    // _bucket, _sum and _count lines then reads as families of those names).
    const series = parsePrometheusTextFormat(res.body.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"));
    const page = { route: "/", method: "GET", status: "200" };
    const pageCount = value(series, "rewards_http_request_duration_seconds_count", page);
    expect(pageCount).toBe(1);
    const pageSeconds = value(series, "rewards_http_request_duration_seconds_sum", page);
    expect(pageSeconds).toBeGreaterThan(0);
    expect(pageSeconds).toBeLessThan(30);
    const buckets = samples(series, "rewards_http_request_duration_seconds_bucket", page)
      .map((m) => ({
        le: Number(m.labels?.le === "+Inf" ? Number.POSITIVE_INFINITY : m.labels?.le),
        n: Number(m.value),
      }))
      .sort((a, b) => a.le - b.le);
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets.at(-1)).toEqual({ le: Number.POSITIVE_INFINITY, n: pageCount });
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]?.n).toBeGreaterThanOrEqual(buckets[i - 1]?.n ?? 0);

    // The process: event-loop lag, heap and RSS (prom-client's default figures).
    expect(value(families, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(value(families, "nodejs_heap_size_used_bytes")).toBeGreaterThan(10e6);
    expect(value(families, "process_resident_memory_bytes")).toBeGreaterThan(
      value(families, "nodejs_heap_size_used_bytes"),
    );

    // The database pool (DATABASE_POOL_SIZE unset: 10), the outbox and the webhook deliveries.
    expect(value(families, "rewards_db_pool_connections_max")).toBe(10);
    const open =
      value(families, "rewards_db_pool_connections_in_use") + value(families, "rewards_db_pool_connections_idle");
    expect(open).toBeGreaterThanOrEqual(1);
    expect(open).toBeLessThanOrEqual(10);
    expect(value(families, "rewards_db_pool_waiting_requests")).toBe(0);
    expect(value(families, "rewards_mail_outbox_messages")).toBeGreaterThanOrEqual(0);
    expect(value(families, "rewards_mail_outbox_oldest_age_seconds")).toBeGreaterThanOrEqual(0);
    for (const name of ["due", "failing", "given_up"]) {
      expect(value(families, `rewards_webhook_deliveries_${name}`), name).toBe(0);
    }

    // The scheduler and the expiry job ran a pass at start, and it succeeded.
    expect(family(families, "rewards_job_duration_seconds").type).toBe("HISTOGRAM");
    for (const job of ["scheduler", "expiry_job"]) {
      const last = value(families, "rewards_job_last_success_timestamp_seconds", { job });
      expect(last, job).toBeGreaterThanOrEqual(Math.floor(startedAt));
      expect(last, job).toBeLessThanOrEqual(Date.now() / 1000);
      const passes = value(series, "rewards_job_duration_seconds_count", { job, outcome: "success" });
      expect(passes, job).toBeGreaterThanOrEqual(1);
    }

    // The refused login, by the rule that refused it (RATE_RULES in server/api/rate-limits.ts).
    expect(value(families, "rewards_rate_limit_refusals_total", { rule: "login" })).toBe(1);
  });

  it("two workers: one scrape, through either worker, covers the requests both served", {
    timeout: 60_000,
  }, async () => {
    database = await createPostgresDatabase();
    const { url } = database;
    app = await startApp({ DATABASE_URL: url, METRICS_TOKEN: TOKEN, WEB_CONCURRENCY: "2" }, { production: true });
    const base = app.base;
    await until(
      async () => {
        const res = await call(base, "GET", "/readyz");
        return (JSON.parse(res.body) as { workers?: { listening: number } }).workers?.listening === 2;
      },
      30_000,
      "two workers listening",
    );
    await expectRefused(base, {});
    await expectRefused(base, { authorization: "Bearer wrong-token" });

    // Forty requests, each on a new connection: node:cluster deals them out to the two workers in turn.
    for (let i = 0; i < 40; i++) expect((await call(base, "GET", "/healthz")).status).toBe(200);

    // Each scrape is a new connection too, so they reach both workers; each answers for the node.
    for (let i = 0; i < 4; i++) {
      const res = await scrape(base);
      expect(res.status).toBe(200);
      const families = parsePrometheusTextFormat(res.body);
      // Whichever worker served each of them, the count covers all forty.
      expect(value(families, "rewards_http_requests_total", { route: "/healthz", status: "200" })).toBe(40);
      // Each worker has its own pool of 10: the node's figure is their sum.
      expect(value(families, "rewards_db_pool_connections_max")).toBe(20);
      // Read from the one database by each worker: the node's figure is that number, not twice it.
      expect(value(families, "rewards_webhook_deliveries_due")).toBe(0);
      expect(value(families, "rewards_job_last_success_timestamp_seconds", { job: "scheduler" })).toBeGreaterThan(0);
      expect(value(families, "process_resident_memory_bytes")).toBeGreaterThan(0);
    }
  });
});
