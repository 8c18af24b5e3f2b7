// Figures for operators at GET /metrics, in the Prometheus text format, made with prom-client
// (docs/decisions/0033-metrics-for-operators.md). One registry per application: the default
// process figures (event-loop lag, heap, RSS, GC), HTTP requests by route pattern and status, the
// database pool, the mail outbox, webhook deliveries, the periodic jobs and rate-limit refusals.
//
// The outbox and webhook figures are read from the database when scraped (one small aggregate
// query each), so they are the database's, not this process's: every worker of a cluster reads
// the same numbers, and the cluster's aggregation takes the largest instead of adding them up.
// Counters, histograms and the pool's gauges are each process's own and are added up.
import cluster from "node:cluster";
import { count, inArray, min, sql } from "drizzle-orm";
import {
  AggregatorRegistry,
  type CollectFunction,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type PrometheusContentType,
  Registry,
} from "prom-client";
import type { Database } from "./db/client.ts";
import { emailOutbox, webhookDeliveries } from "./db/schema.ts";
import type { Logger } from "./logger.ts";

/** Seconds; from a cheap page served from memory to a slow upload. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds; a job pass ranges from a quiet look for due rows to a large expiry run. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export interface Metrics {
  registry: Registry;
  /** One answered request: `route` is a pattern (server/http/route-label.ts), never a raw path. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** A rate limit refused a call (server/api/rate-limits.ts), by the rule's name. */
  rateLimitRefused(rule: string): void;
  /** One pass of a periodic job (server/jobs/engine.ts). */
  observeJob(job: string, seconds: number, succeeded: boolean): void;
  /** The pool, outbox and webhook gauges read this database when scraped. */
  watchDatabase(database: Database): void;
  /** The text one scrape answers: this process's figures, or every worker's (see scrape in createMetrics). */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  logger: Logger;
  /**
   * In a cluster worker: every worker's figures, aggregated by the primary
   * (server/cluster.ts askPrimaryForMetrics). Unset: this process's own registry.
   */
  clusterScrape?: () => Promise<string>;
}

/** The label of a job: its name in snake case ("expiry job" → "expiry_job"). */
export function jobLabel(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_");
}

export function createMetrics(options: MetricsOptions): Metrics {
  // A cluster worker's registry answers the primary's requests for its figures (prom-client's
  // AggregatorRegistry listens for them once one is made in the worker).
  const registry: Registry = cluster.isWorker ? new AggregatorRegistry<PrometheusContentType>() : new Registry();
  if (cluster.isWorker) AggregatorRegistry.setRegistries([registry]);
  collectDefaultMetrics({ register: registry });

  const labelNames = ["route", "method", "status"] as const;
  const requests = new Counter({
    name: "rewards_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status.",
    labelNames,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: "rewards_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's headers, by route pattern, method and status.",
    labelNames,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "rewards_rate_limit_refusals_total",
    help: "Calls refused by a rate limit (docs/requirements.md §D7), by the rule's name in RATE_RULES.",
    labelNames: ["rule"] as const,
    registers: [registry],
  });
  const jobSeconds = new Histogram({
    name: "rewards_job_duration_seconds",
    help: "Duration of one pass of a periodic job, by job and outcome (success or failure).",
    labelNames: ["job", "outcome"] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const jobLastSuccess = new Gauge({
    name: "rewards_job_last_success_timestamp_seconds",
    help: "Unix time of a periodic job's last pass that succeeded (the latest of any worker).",
    labelNames: ["job"] as const,
    aggregator: "max",
    registers: [registry],
  });

  let database: Database | undefined;
  const fromDatabase = (name: string, help: string, collect: CollectFunction<Gauge>) =>
    new Gauge({ name, help, aggregator: "max", registers: [registry], collect });

  const pool = () => database?.pool;
  new Gauge({
    name: "rewards_db_pool_connections_in_use",
    help: "PostgreSQL connections of this process's pool checked out by a query (0 on PGlite: one connection in process).",
    registers: [registry],
    collect() {
      const p = pool();
      this.set(p ? p.totalCount - p.idleCount : 0);
    },
  });
  new Gauge({
    name: "rewards_db_pool_connections_idle",
    help: "PostgreSQL connections of this process's pool open and idle (0 on PGlite).",
    registers: [registry],
    collect() {
      this.set(pool()?.idleCount ?? 0);
    },
  });
  new Gauge({
    name: "rewards_db_pool_waiting_requests",
    help: "Queries waiting for a connection of this process's pool (0 on PGlite).",
    registers: [registry],
    collect() {
      this.set(pool()?.waitingCount ?? 0);
    },
  });
  new Gauge({
    name: "rewards_db_pool_connections_max",
    help: "The most connections this process's pool opens (DATABASE_POOL_SIZE; 0 on PGlite).",
    registers: [registry],
    collect() {
      this.set(pool()?.options.max ?? 0);
    },
  });

  /**
   * One read of the database per scrape for the outbox and the webhook figures, shared by their
   * gauges (prom-client collects them one after another within the same scrape).
   */
  let reading: { at: number; figures: Promise<DatabaseFigures | undefined> } | undefined;
  const figures = (): Promise<DatabaseFigures | undefined> => {
    const now = Date.now();
    if (!reading || now - reading.at > 1_000) {
      const db = database;
      reading = {
        at: now,
        figures: db
          ? readDatabaseFigures(db, new Date(now)).catch((error: unknown) => {
              options.logger.warn(
                { err: error instanceof Error ? error.message : String(error) },
                "metrics: reading the database failed",
              );
              return undefined;
            })
          : Promise.resolve(undefined),
      };
    }
    return reading.figures;
  };
  const gaugeOf = (pick: (f: DatabaseFigures) => number): CollectFunction<Gauge> =>
    async function (this: Gauge) {
      const f = await figures();
      // A failed read leaves the last figures standing; the warning above says why.
      if (f) this.set(pick(f));
    };
  fromDatabase(
    "rewards_mail_outbox_messages",
    "Emails in the outbox not yet sent (pending or being sent).",
    gaugeOf((f) => f.outboxWaiting),
  );
  fromDatabase(
    "rewards_mail_outbox_oldest_age_seconds",
    "Age of the oldest email in the outbox not yet sent (0 when none waits).",
    gaugeOf((f) => f.outboxOldestAgeSeconds),
  );
  fromDatabase(
    "rewards_webhook_deliveries_due",
    "Webhook deliveries pending whose next attempt is due now.",
    gaugeOf((f) => f.webhooksDue),
  );
  fromDatabase(
    "rewards_webhook_deliveries_failing",
    "Webhook deliveries still being retried after at least one failed attempt.",
    gaugeOf((f) => f.webhooksFailing),
  );
  fromDatabase(
    "rewards_webhook_deliveries_given_up",
    "Webhook deliveries given up after 72 hours of retries, kept for 30 days.",
    gaugeOf((f) => f.webhooksGivenUp),
  );

  return {
    registry,
    observeRequest(route, method, status, seconds) {
      const labels = { route, method: METHODS.has(method) ? method : "other", status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    rateLimitRefused(rule) {
      refusals.inc({ rule });
    },
    observeJob(job, seconds, succeeded) {
      const name = jobLabel(job);
      jobSeconds.observe({ job: name, outcome: succeeded ? "success" : "failure" }, seconds);
      if (succeeded) jobLastSuccess.set({ job: name }, Date.now() / 1000);
    },
    watchDatabase(db) {
      database = db;
    },
    async scrape() {
      const body = options.clusterScrape ? await options.clusterScrape() : await registry.metrics();
      return { contentType: registry.contentType, body };
    },
  };
}

interface DatabaseFigures {
  outboxWaiting: number;
  outboxOldestAgeSeconds: number;
  webhooksDue: number;
  webhooksFailing: number;
  webhooksGivenUp: number;
}

/** Two aggregate queries on indexed columns (email_outbox_due_idx, webhook_deliveries_due_idx). */
async function readDatabaseFigures(database: Database, now: Date): Promise<DatabaseFigures> {
  const [outbox] = await database.db
    .select({ waiting: count(), oldest: min(emailOutbox.createdAt) })
    .from(emailOutbox)
    .where(inArray(emailOutbox.status, ["pending", "sending"]));
  const [webhooks] = await database.db
    .select({
      due: sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'pending' and ${webhookDeliveries.nextAttemptAt} <= ${now})`.mapWith(
        Number,
      ),
      failing:
        sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'pending' and ${webhookDeliveries.attempts} > 0)`.mapWith(
          Number,
        ),
      givenUp: sql<number>`count(*) filter (where ${webhookDeliveries.status} = 'failed')`.mapWith(Number),
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.status, ["pending", "failed"]));
  const oldest = outbox?.oldest ? new Date(outbox.oldest) : undefined;
  return {
    outboxWaiting: outbox?.waiting ?? 0,
    outboxOldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
    webhooksDue: webhooks?.due ?? 0,
    webhooksFailing: webhooks?.failing ?? 0,
    webhooksGivenUp: webhooks?.givenUp ?? 0,
  };
}
