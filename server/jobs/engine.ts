// The job engine: the one home of background work in every process (docs/decisions/0040-one-job-engine.md).
//   - The loop: a job is a name, an interval and a pass. One pass at a time; a failed pass is
//     logged and the next one goes on; a pending timer never keeps the process alive; nudge()
//     asks for a pass now without ever postponing a sooner one. server/main.ts registers every
//     job of every module with one engine (createJobEngine) and stops them together.
//   - The claims that make an item done once across processes sharing a PostgreSQL database:
//     claimDue (rows taken with FOR UPDATE SKIP LOCKED, for queues), withAdvisoryClaim (a
//     transaction-scoped advisory lock, for items whose slow work must not run twice at once) and
//     claimPeriodRun (one conditional UPDATE of an app_settings row, for once an interval across
//     processes). Exactly-once is still each job's own guard; a claim saves doing the slow part twice.
//   - Retries: one backoff (backoffMs), its jittered next attempt within a give-up time
//     (nextAttemptAfter), and the retry-or-give-up decision of a queue's failed attempt (retryOrGiveUp).
// The platform: it imports only server/db, the logger and the metrics, never a module.
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db, Tx } from "../db/client.ts";
import { rowsOf } from "../db/sql.ts";
import type { Logger } from "../logger.ts";

// ─── The loop ───

export interface PeriodicJob<T> {
  /** One pass; a call while a pass runs joins it (or, for a "queue" job, runs after it). */
  runOnce(): Promise<T>;
  /** A pass soon (something was queued), rather than at the next tick; errors are logged. */
  nudge(): void;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

/** Where a job reports each pass (server/metrics.ts observeJob; ADR 0033). */
export interface JobObserver {
  observeJob(job: string, seconds: number, succeeded: boolean): void;
}

export interface JobSpec<T> {
  name: string;
  intervalMs: number;
  pass: (isStopped: () => boolean) => Promise<T>;
  /**
   * What runOnce does while a pass runs. "join" (default): it answers that pass. "queue": it waits
   * for it, then runs its own, so whatever was queued before the call is seen (the mail outbox).
   */
  overlap?: "join" | "queue";
  /** false: the pass is not reported to the metrics (the mail and import workers never were). */
  observed?: boolean;
  /** How a failed pass of the timer is logged; default: a warning "<name>: pass failed". */
  onPassError?: (error: unknown) => void;
  /** The timer's first pass after this long; default 0 (at start). */
  firstDelayMs?: number;
  /** After the timer is stopped and the last pass is over (the mail transport's pool closes). */
  onStop?: () => Promise<void>;
}

export function startPeriodicJob<T>(
  options: JobSpec<T> & {
    logger: Logger;
    /** false: no timer (tests call runOnce by hand; a nudge runs one pass). */
    autoStart?: boolean;
    /** Told each pass's duration and outcome, by the job's name. */
    metrics?: JobObserver;
  },
): PeriodicJob<T> {
  const looping = options.autoStart ?? true;
  const metrics = options.observed === false ? undefined : options.metrics;
  let running: Promise<T> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let timerDue = Number.POSITIVE_INFINITY;
  let stopped = false;

  function observedPass(): Promise<T> {
    const started = performance.now();
    const observe = (succeeded: boolean) =>
      metrics?.observeJob(options.name, (performance.now() - started) / 1000, succeeded);
    return options
      .pass(() => stopped)
      .then(
        (result) => {
          observe(true);
          return result;
        },
        (error: unknown) => {
          observe(false);
          throw error;
        },
      );
  }

  function runOnce(): Promise<T> {
    if (options.overlap === "queue") {
      const next = chain.then(observedPass, observedPass);
      chain = next.catch(() => undefined);
      return next;
    }
    if (!running) {
      const pass = observedPass().finally(() => {
        running = undefined;
      });
      running = pass;
      chain = pass.catch(() => undefined);
    }
    return running;
  }

  const logFailure =
    options.onPassError ??
    ((error: unknown) => options.logger.warn({ err: String(error) }, `${options.name}: pass failed`));

  // A later request never postpones a sooner one (a nudge is not cancelled by the end of a pass).
  function schedule(delayMs: number) {
    if (stopped) return;
    const due = Date.now() + delayMs;
    if (timer && due >= timerDue) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = undefined;
      timerDue = Number.POSITIVE_INFINITY;
      runOnce()
        .catch(logFailure)
        .finally(() => {
          if (looping) schedule(options.intervalMs);
        });
    }, delayMs);
    timer.unref();
  }

  if (looping) schedule(options.firstDelayMs ?? 0);

  return {
    runOnce,
    nudge: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await chain;
      await options.onStop?.();
    },
  };
}

/** The registry of a process's jobs: each registered by name, all stopped together. */
export interface JobEngine {
  register<T>(spec: JobSpec<T>, autoStart?: boolean): PeriodicJob<T>;
  /** The names registered, in order. */
  readonly names: readonly string[];
  /**
   * Stops every job, the last registered first, and waits for their passes: the mail worker,
   * registered first, outlives the jobs whose passes queue mail.
   */
  stop(): Promise<void>;
}

export function createJobEngine(options: { logger: Logger; metrics?: JobObserver }): JobEngine {
  const jobs: { name: string; job: PeriodicJob<unknown> }[] = [];
  return {
    register<T>(spec: JobSpec<T>, autoStart = true): PeriodicJob<T> {
      if (jobs.some((j) => j.name === spec.name)) throw new Error(`a job named "${spec.name}" is registered already`);
      const job = startPeriodicJob({ ...spec, logger: options.logger, metrics: options.metrics, autoStart });
      jobs.push({ name: spec.name, job });
      return job;
    },
    get names() {
      return jobs.map((j) => j.name);
    },
    async stop() {
      for (const { job } of [...jobs].reverse()) await job.stop();
    },
  };
}

// ─── Claims ───

/**
 * Takes up to `limit` due rows of a queue: selected `FOR UPDATE SKIP LOCKED` in one transaction,
 * so concurrent passes (in this process or another) take disjoint sets, and handed to `take` in
 * that same transaction (to write a lease, or to do the work itself, which then commits or rolls
 * back with the claim).
 */
export async function claimDue<Id, R>(
  db: Db,
  queue: { table: PgTable; id: PgColumn; due: SQL | undefined; orderBy: (PgColumn | SQL)[]; limit: number },
  take: (tx: Tx, ids: Id[]) => Promise<R[]>,
): Promise<R[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: queue.id })
      .from(queue.table)
      .where(queue.due)
      .orderBy(...queue.orderBy)
      .limit(queue.limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    return take(
      tx,
      due.map((d) => d.id as Id),
    );
  });
}

/**
 * A claim on one item that several processes sharing a PostgreSQL database may reach for at once
 * (an order to reconcile or to release at its time): a transaction-scoped advisory lock, tried
 * and not waited for, so a second process skips the item instead of doing the slow part
 * (processor calls, password hashing) twice. The claim holds no row lock, so the work's own
 * transaction is not blocked by it; exactly-once is still the work's own guard. Runs `work` only
 * while this process holds the claim on (namespace, id); null when another holds it.
 */
export async function withAdvisoryClaim<T>(
  db: Db,
  namespace: number,
  id: number,
  work: () => Promise<T>,
): Promise<T | null> {
  return db.transaction(async (tx) => {
    const result = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(${namespace}::int, (${id}::bigint % 2147483647)::int) as claimed`,
    )) as unknown as { rows: { claimed: boolean }[] };
    if (!result.rows[0]?.claimed) return null;
    return work();
  });
}

/**
 * Takes this interval's run of a job done once an interval across processes: one conditional
 * UPDATE of the app_settings row `key` (the last run's time). On PostgreSQL a second process
 * updating at the same moment waits on the row lock, and READ COMMITTED's re-check then finds the
 * time moved and updates nothing (the row-lock reasoning of ADR 0027 §3). The last run must be at
 * least `minAgeMs` old. The first process ever to ask records its time and does not run: a new
 * deployment (or a test's fresh database) runs the job an interval after it starts, not while it boots.
 */
export async function claimPeriodRun(db: Db, key: string, now: Date, minAgeMs: number): Promise<boolean> {
  const at = now.toISOString();
  const inserted = rowsOf(
    await db.execute(sql`
      insert into app_settings (key, value) values (${key}, ${at})
      on conflict (key) do nothing returning key`),
  );
  if (inserted.length > 0) return false;
  const before = new Date(now.getTime() - minAgeMs).toISOString();
  const claimed = rowsOf(
    await db.execute(sql`
      update app_settings set value = ${at}
      where key = ${key} and value::timestamptz <= ${before}::timestamptz
      returning key`),
  );
  return claimed.length > 0;
}

// ─── Retries ───

/** A backoff: `baseMs` after the first failed attempt, doubling each attempt, never above `maxMs`. */
export interface BackoffSchedule {
  baseMs: number;
  maxMs: number;
}

/**
 * The schedule of webhook deliveries and of refund retries (ADR 0045; ADR 0041 on refunds
 * retried with backoff): 30 s, 1 min, 2 min, … capped at 1 hour.
 */
export const STANDARD_BACKOFF: BackoffSchedule = { baseMs: 30_000, maxMs: 60 * 60_000 };

/** The wait after failed attempt number `attempt` (1, 2, …; 0 counts as 1), before any jitter. */
export function backoffMs(attempt: number, schedule: BackoffSchedule): number {
  return Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * When to try again after failed attempt number `attempts` at `at`: the backoff with ±10 % jitter,
 * but never after `giveUpAt`, so the last try falls at the give-up time itself rather than being
 * skipped because the backoff overshoots it.
 */
export function nextAttemptAfter(
  attempts: number,
  at: Date,
  giveUpAt: Date,
  random: () => number = Math.random,
  schedule: BackoffSchedule = STANDARD_BACKOFF,
): Date {
  const jitter = 0.9 + 0.2 * random();
  const wait = Math.round(backoffMs(attempts, schedule) * jitter);
  return new Date(Math.min(at.getTime() + wait, giveUpAt.getTime()));
}

/**
 * A queue's failed attempt (mail outbox, webhook deliveries): given up ("failed", its final state)
 * once an attempt is made at or after `giveUpAt`, so every item is tried for its whole window;
 * otherwise retried at `retryAt`.
 */
export function retryOrGiveUp(
  at: Date,
  giveUpAt: Date,
  retryAt: () => Date,
): { outcome: "failed" } | { outcome: "retry"; at: Date } {
  return at.getTime() >= giveUpAt.getTime() ? { outcome: "failed" } : { outcome: "retry", at: retryAt() };
}
