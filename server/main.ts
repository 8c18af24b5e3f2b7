// Builds the whole process from configuration: database, migrations, catalogue, mail worker,
// captcha, the provider API and the web app. server.ts calls it; tests call it too.
import type { ServerBuild } from "react-router";
import type { WebServices } from "../app/context.ts";
import { type AutomationRunSummary, runAutomations } from "../modules/automations/service.server.ts";
import { seedCatalogue } from "../modules/catalogue/service.server.ts";
import { type ImportWorker, importJob } from "../modules/imports/service.server.ts";
import { expiryJob as expiryJobOf } from "../modules/lots/expiry-job.server.ts";
import type { ExpirySummary } from "../modules/lots/service.server.ts";
import { moneyCheckJob } from "../modules/money-check/job.server.ts";
import type { MoneyCheckResult } from "../modules/money-check/service.server.ts";
import { type Reconciler, type ReconcilerOptions, reconcilerJob } from "../modules/orders/reconciler.server.ts";
import type { PaymentServices } from "../modules/orders/service.server.ts";
import { type DueSummary, releaseDueOrders } from "../modules/scheduled-sends/service.server.ts";
import { emitRewardEmailEvents } from "../modules/webhooks/events.server.ts";
import { type WebhookPruneSummary, webhookPruneJob } from "../modules/webhooks/prune.server.ts";
import { type WebhookWorker, webhookDeliveryJob } from "../modules/webhooks/worker.server.ts";
import { createApi } from "./api/index.ts";
import { type RateLimitStore, sweepExpiredRateLimits } from "./api/rate-limits.ts";
import { type Captcha, captchaOff } from "./captcha/port.ts";
import { recaptcha } from "./captcha/recaptcha.ts";
import type { WorkerCount } from "./cluster.ts";
import { type Config, isLoopbackAddress } from "./config.ts";
import { type Database, openDatabase } from "./db/client.ts";
import { createServerApp } from "./http/app.ts";
import { createFormGuards } from "./http/form-guards.ts";
import { type Fetch, withPageCache } from "./http/page-cache.ts";
import { pathOfUrl, routeLabeler } from "./http/route-label.ts";
import { createJobEngine, type PeriodicJob } from "./jobs/engine.ts";
import type { Logger } from "./logger.ts";
import { listRecentEmails } from "./mail/outbox.ts";
import type { MailTransport } from "./mail/port.ts";
import { devMailboxTransport, smtpTransport } from "./mail/transports.ts";
import { type MailWorker, mailJob } from "./mail/worker.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { paymentsFor } from "./payments/index.ts";
import type { Payments } from "./payments/port.ts";
import { resolveSessionSecret } from "./secret.ts";
import { sweepExpiredSessions, webSessionStore } from "./web-sessions.ts";

/** How often a process deletes expired rate-limit counters on PostgreSQL (any process may). */
const RATE_LIMIT_SWEEP_MS = 10 * 60_000;

export interface AppOptions {
  config: Config;
  logger: Logger;
  build: ServerBuild | (() => Promise<ServerBuild>);
  mode: "production" | "development";
  /** Tests may run the worker by hand. */
  startWorker?: boolean;
  mailTransport?: MailTransport;
  captcha?: Captcha;
  /** Tests may bring their own card processor. */
  payments?: Payments;
  trustProxy?: number;
  /** Test seam (fault tests): called after each line of a release, inside its transaction. */
  onReleaseLine?: (index: number) => void | Promise<void>;
  /** In a cluster worker: how many workers are listening, for /readyz (server/cluster.ts). */
  workerCount?: () => WorkerCount | undefined;
  /** In a cluster worker: every worker's figures for GET /metrics, aggregated by the primary (server/cluster.ts). */
  metricsFromPrimary?: () => Promise<string>;
  /** The payment reconciler: false leaves it to the test (runOnce by hand); timings for tests. */
  reconciler?: false | Pick<ReconcilerOptions, "intervalMs" | "minAgeMs" | "maxAgeMs" | "batchSize">;
  /** The scheduled-send job's timer: false leaves it to the test (scheduler.runOnce by hand). */
  scheduler?: boolean;
  /** The automations job's timer (ADR 0035): false leaves it to the test (automations.runOnce by hand). */
  automations?: boolean;
  /** The reward expiry job's timer: false leaves it to the test (expiryJob.runOnce by hand). */
  expiryJob?: boolean;
  /** The hourly money reconciliation's timer: false leaves it to the test (moneyCheck.runOnce by hand). */
  moneyCheck?: boolean;
  /** The webhook delivery worker's timer: false leaves it to the test (webhookWorker.runOnce by hand). */
  webhookWorker?: boolean;
  /** The webhook history's hourly prune: false leaves it to the test (webhookPrune.runOnce by hand). */
  webhookPrune?: boolean;
}

export interface RunningApp {
  app: ReturnType<typeof createServerApp>;
  /**
   * What the HTTP listener calls: the edge, behind the process's shared HTTP cache in production
   * (server/http/page-cache.ts). Development has no cache: each request sees the latest build.
   */
  fetch: Fetch;
  database: Database;
  mailWorker: MailWorker;
  importWorker: ImportWorker;
  reconciler: Reconciler;
  scheduler: PeriodicJob<DueSummary>;
  /** Birthday and work-anniversary rewards at 9:00 in each member's time zone (modules/automations/service.server.ts). */
  automations: PeriodicJob<AutomationRunSummary>;
  /** Forfeiture at expiry and the 30-day reminders (modules/lots/expiry-job.server.ts). */
  expiryJob: PeriodicJob<ExpirySummary>;
  /** The money reconciliation, hourly across processes (modules/money-check/job.server.ts). */
  moneyCheck: PeriodicJob<MoneyCheckResult | null>;
  /** Signed webhook deliveries with retries (modules/webhooks/worker.server.ts). */
  webhookWorker: WebhookWorker;
  /** Webhook deliveries and events older than 30 days deleted, hourly (modules/webhooks/prune.server.ts). */
  webhookPrune: PeriodicJob<WebhookPruneSummary>;
  api: ReturnType<typeof createApi>;
  /** The figures of GET /metrics (server/metrics.ts, ADR 0033). */
  metrics: Metrics;
  close(): Promise<void>;
}

export async function createApplication(options: AppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  // First: a cluster worker answers the primary's requests for its figures from here on, and a
  // scrape while it opens the database would otherwise wait for it (server/cluster.ts).
  const metrics = createMetrics({ logger, clusterScrape: options.metricsFromPrimary });
  const database = await openDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  metrics.watchDatabase(database);
  await database.migrate();
  await seedCatalogue(database.db, config.CATALOGUE_URL);
  await sweepExpiredSessions(database.db);
  const { secret, generated } = await resolveSessionSecret(database.db, config.SESSION_SECRET);
  if (generated) logger.warn("SESSION_SECRET is not set: using a generated secret kept in the database");

  // Every loop of the process is a job of one engine (server/jobs/engine.ts, ADR 0040), each
  // module's job registered here and all stopped together by close().
  const jobs = createJobEngine({ logger, metrics });
  const transport =
    options.mailTransport ??
    (config.SMTP_URL ? smtpTransport(config.SMTP_URL, config.APP_URL) : devMailboxTransport(logger));
  const mailWorker: MailWorker = jobs.register(
    // A recipient's reward email makes its webhook event when it is sent or given up (ADR 0045).
    mailJob({ db: database.db, transport, from: config.MAIL_FROM, logger, onSettled: emitRewardEmailEvents }),
    options.startWorker ?? true,
  );

  // Every process applies queued CSV imports (claimed with SKIP LOCKED, so never twice).
  const importWorker: ImportWorker = jobs.register(importJob({ db: database.db, logger }));

  const captcha =
    options.captcha ??
    (config.captchaEnabled
      ? recaptcha({
          verifyUrl: config.RECAPTCHA_VERIFY_URL,
          v3Secret: config.RECAPTCHA_V3_SECRET_KEY ?? "",
          v2Secret: config.RECAPTCHA_V2_SECRET_KEY ?? "",
          logger,
        })
      : captchaOff);

  const payments = options.payments ?? paymentsFor(config, database.db);
  const paymentServices: PaymentServices = {
    db: database.db,
    payments,
    logger,
    now: () => new Date(),
    onEmailQueued: () => mailWorker.nudge(),
    release: { config, onReleaseLine: options.onReleaseLine },
  };
  const reconciler: Reconciler = jobs.register(
    reconcilerJob({
      ...(options.reconciler || {}),
      services: paymentServices,
      advisoryLocks: database.kind === "postgres",
    }),
    options.reconciler !== false,
  );
  // Every process releases scheduled rewards as they come due (exactly once: modules/scheduled-sends/service.server.ts).
  const scheduler = jobs.register<DueSummary>(
    {
      name: "scheduler",
      intervalMs: config.SCHEDULER_INTERVAL_SECONDS * 1000,
      pass: (isStopped) =>
        releaseDueOrders(
          paymentServices,
          { advisoryLocks: database.kind === "postgres", concurrency: database.kind === "postgres" ? 2 : 1 },
          isStopped,
        ),
    },
    options.scheduler ?? true,
  );
  // Every process runs the automations: exactly once per member, occasion and year (modules/automations/service.server.ts).
  const automations = jobs.register<AutomationRunSummary>(
    {
      name: "automations",
      intervalMs: config.SCHEDULER_INTERVAL_SECONDS * 1000,
      pass: (isStopped) => runAutomations({ ...paymentServices, appUrl: config.APP_URL }, isStopped),
    },
    options.automations ?? true,
  );
  // Every process runs the expiry job too: each run is exactly once by its row locks (modules/lots/service.server.ts).
  const expiryJob = jobs.register(
    expiryJobOf({ db: database.db, config, logger, now: () => new Date(), onEmailQueued: () => mailWorker.nudge() }),
    options.expiryJob ?? true,
  );
  // Every process runs the money check's timer; one process an hour checks (modules/money-check/job.server.ts).
  const moneyCheck = jobs.register(
    moneyCheckJob({ db: database.db, logger, now: () => new Date() }),
    options.moneyCheck ?? true,
  );
  // Every process sends due webhook deliveries: each is claimed with SKIP LOCKED and a lease.
  const webhookWorker: WebhookWorker = jobs.register(
    webhookDeliveryJob({ db: database.db, config, logger }),
    options.webhookWorker ?? true,
  );
  // Every process prunes webhook history older than 30 days (idempotent deletes: modules/webhooks/prune.server.ts).
  const webhookPrune = jobs.register(
    webhookPruneJob({ db: database.db, logger, now: () => new Date() }),
    options.webhookPrune ?? true,
  );
  // docs/requirements.md §D7's budgets hold across every process on PostgreSQL; PGlite is one process.
  const rateLimitStore: RateLimitStore = database.pool ? { kind: "postgres", pool: database.pool } : { kind: "memory" };
  // PostgreSQL keeps the counters in a table, so any process may sweep the expired ones.
  if (database.kind === "postgres") {
    jobs.register({
      name: "rate-limit sweep",
      intervalMs: RATE_LIMIT_SWEEP_MS,
      firstDelayMs: RATE_LIMIT_SWEEP_MS,
      observed: false,
      pass: () =>
        sweepExpiredRateLimits(database.db, new Date()).catch((error: unknown) =>
          logger.warn({ err: error }, "rate limits: sweeping expired counters failed"),
        ),
    });
  }
  const api = createApi({
    db: database.db,
    config,
    logger,
    captcha,
    payments,
    rateLimitStore,
    onEmailQueued: () => mailWorker.nudge(),
    onImportQueued: () => importWorker.nudge(),
    onWebhookQueued: () => webhookWorker.nudge(),
    onReleaseLine: options.onReleaseLine,
    onRateLimited: (rule) => metrics.rateLimitRefused(rule),
  });

  const web: WebServices = {
    config: {
      appUrl: config.APP_URL,
      isHttps: config.isHttps,
      catalogueUrl: config.CATALOGUE_URL,
      voucherUrl: config.VOUCHER_URL,
      companyProfileUrl: config.COMPANY_PROFILE_URL,
      onboardingVideoUrl: config.ONBOARDING_VIDEO_URL,
      howItWorksVideoUrl: config.HOW_IT_WORKS_VIDEO_URL,
      captcha: {
        enabled: config.captchaEnabled,
        v3SiteKey: config.RECAPTCHA_V3_SITE_KEY,
        v2SiteKey: config.RECAPTCHA_V2_SITE_KEY,
      },
      supportEmail: config.SUPPORT_EMAIL,
      payments: {
        kind: config.payments,
        ...(config.payments === "stripe" ? { publishableKey: config.STRIPE_PUBLISHABLE_KEY } : {}),
      },
      demoMode: config.DEMO_MODE,
    },
    secret,
    formGuards: createFormGuards(secret, config.isHttps),
    apiFetch: async (request, bindings) => api.fetch(request, bindings),
    logger,
    sessionStore: webSessionStore(database.db, secret),
    devMailbox: config.SMTP_URL
      ? undefined
      : {
          isOpenTo: (clientIp) => config.DEMO_MODE || isLoopbackAddress(clientIp),
          async list() {
            const rows = await listRecentEmails(database.db, 100);
            return rows.map((r) => ({
              id: r.id,
              to: r.toAddress,
              subject: r.subject,
              text: r.text,
              html: r.html,
              status: r.status,
              createdAt: r.createdAt.toISOString(),
            }));
          },
        },
  };

  const app = createServerApp({
    config,
    logger,
    api,
    web,
    build: options.build,
    mode: options.mode,
    ready: async () => {
      await database.ping();
      const workers = options.workerCount?.();
      return workers ? { workers } : {};
    },
    trustProxy: options.trustProxy,
    scrapeMetrics: () => metrics.scrape(),
  });

  // Every answer is counted, the page cache's hits too, by its route's pattern (./http/route-label.ts);
  // the time is to the answer's headers. A hit stays an answer given without awaiting anything.
  const edgeFetch = options.mode === "production" ? withPageCache(app.fetch, { logger }) : app.fetch;
  const labelRoute = routeLabeler(
    api.routes.map((route) => route.path),
    typeof options.build === "function" ? undefined : options.build.routes,
  );
  const fetch: Fetch = (request, env) => {
    const started = performance.now();
    const observe = (response: Response) => {
      const seconds = (performance.now() - started) / 1000;
      metrics.observeRequest(labelRoute(pathOfUrl(request.url)), request.method, response.status, seconds);
      return response;
    };
    const answer = edgeFetch(request, env);
    return answer instanceof Promise ? answer.then(observe) : observe(answer);
  };

  return {
    app,
    fetch,
    metrics,
    database,
    mailWorker,
    importWorker,
    reconciler,
    scheduler,
    automations,
    expiryJob,
    moneyCheck,
    webhookWorker,
    webhookPrune,
    api,
    async close() {
      await jobs.stop();
      await database.close();
    },
  };
}
