// The reward expiry job (modules/lots/service.server.ts) on a timer in every process: forfeits what expired
// and queues the 30-day reminders. Every run is exactly once across processes by its own row
// locks, so no process needs to be the leader; the interval (EXPIRY_JOB_INTERVAL_MINUTES, hourly
// by default) only bounds how late after its expiry a lot is forfeited or its reminder queued.
// Balances and redemptions never count an expired lot, whenever the job runs.

import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import { type JobObserver, type JobSpec, type PeriodicJob, startPeriodicJob } from "../../server/jobs/engine.ts";
import type { Logger } from "../../server/logger.ts";
import { type ExpirySummary, runExpiryJob } from "./service.server.ts";

export interface ExpiryJobServices {
  db: Db;
  config: Pick<Config, "CATALOGUE_URL" | "SUPPORT_EMAIL" | "EXPIRY_JOB_INTERVAL_MINUTES">;
  logger: Logger;
  now: () => Date;
  /** Reminders were queued: the mail worker sends them now rather than at its next poll. */
  onEmailQueued?: () => void;
  /** Told each pass's duration and outcome (server/metrics.ts). */
  metrics?: JobObserver;
}

/** The expiry job as a job of the engine (server/jobs/engine.ts), every EXPIRY_JOB_INTERVAL_MINUTES. */
export function expiryJob(s: ExpiryJobServices): JobSpec<ExpirySummary> {
  return {
    name: "expiry job",
    intervalMs: s.config.EXPIRY_JOB_INTERVAL_MINUTES * 60_000,
    pass: async (isStopped) => {
      const summary = await runExpiryJob(s.db, { now: s.now(), config: s.config, isStopped });
      if (summary.remindedLots > 0) s.onEmailQueued?.();
      if (summary.forfeitedLots + summary.remindedLots > 0) s.logger.info({ ...summary }, "expiry job pass");
      return summary;
    },
  };
}

/** The job on its own timer (tests; server/main.ts registers expiryJob with the engine). */
export function startExpiryJob(s: ExpiryJobServices, autoStart = true): PeriodicJob<ExpirySummary> {
  return startPeriodicJob({ ...expiryJob(s), logger: s.logger, autoStart, metrics: s.metrics });
}
