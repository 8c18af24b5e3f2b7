// The reward expiry job (modules/lots/service.server.ts) on a timer in every process: forfeits what expired
// and queues the 30-day reminders. Every run is exactly once across processes by its own row
// locks, so no process needs to be the leader; the interval (EXPIRY_JOB_INTERVAL_MINUTES, hourly
// by default) only bounds how late after its expiry a lot is forfeited or its reminder queued.
// Balances and redemptions never count an expired lot, whenever the job runs.

import { type ExpirySummary, runExpiryJob } from "../../modules/lots/service.server.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { type JobObserver, type PeriodicJob, startPeriodicJob } from "./periodic.ts";

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

export function startExpiryJob(s: ExpiryJobServices, autoStart = true): PeriodicJob<ExpirySummary> {
  return startPeriodicJob({
    name: "expiry job",
    intervalMs: s.config.EXPIRY_JOB_INTERVAL_MINUTES * 60_000,
    logger: s.logger,
    autoStart,
    metrics: s.metrics,
    pass: async (isStopped) => {
      const summary = await runExpiryJob(s.db, { now: s.now(), config: s.config, isStopped });
      if (summary.remindedLots > 0) s.onEmailQueued?.();
      if (summary.forfeitedLots + summary.remindedLots > 0) s.logger.info({ ...summary }, "expiry job pass");
      return summary;
    },
  });
}
