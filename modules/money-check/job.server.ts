// The money reconciliation (modules/money-check/service.server.ts, also `npm run check:money`) once an hour
// for the whole deployment: every process runs this timer, and a claim decides which one checks.
// The claim is the engine's claimPeriodRun (server/jobs/engine.ts): one conditional UPDATE of an
// app_settings row (the last run's time), the same row-lock reasoning as the expiry job's (ADR 0027 §3). So N processes check once an hour between them, not N times.
//
// Each finding is logged at error level with its rule and ids, so an operator's alerting on the
// log catches it; a clean pass logs one info line. The check only reads (one read-only snapshot).

import type { Db } from "../../server/db/client.ts";
import {
  claimPeriodRun,
  type JobObserver,
  type JobSpec,
  type PeriodicJob,
  startPeriodicJob,
} from "../../server/jobs/engine.ts";
import type { Logger } from "../../server/logger.ts";
import { checkMoney, formatFinding, type MoneyCheckResult, reconcilesLine } from "./service.server.ts";

export const MONEY_CHECK_INTERVAL_MS = 60 * 60_000;
/** The app_settings row holding the last run's time (ISO 8601). */
export const MONEY_CHECK_CLAIM_KEY = "money_check.last_run";
// A claim needs the last run to be at least this old: a little under the interval, so processes
// whose timers drift apart still check about hourly rather than skipping every other hour.
const CLAIM_AGE_MS = MONEY_CHECK_INTERVAL_MS - 5 * 60_000;

export interface MoneyCheckJobServices {
  db: Db;
  logger: Logger;
  now: () => Date;
  intervalMs?: number;
  /** Told each pass's duration and outcome (server/metrics.ts). */
  metrics?: JobObserver;
}

/** One pass: null when another process (or this one, lately) has checked within the hour. */
export function moneyCheckJob(s: MoneyCheckJobServices): JobSpec<MoneyCheckResult | null> {
  return {
    name: "money check",
    intervalMs: s.intervalMs ?? MONEY_CHECK_INTERVAL_MS,
    pass: async () => {
      const now = s.now();
      if (!(await claimRun(s.db, now))) return null;
      const result = await checkMoney(s.db, { now });
      for (const finding of result.findings) {
        s.logger.error(
          { rule: finding.rule, companyId: finding.companyId, orderId: finding.orderId, userId: finding.userId },
          `money check: ${formatFinding(finding)}`,
        );
      }
      if (result.findings.length === 0) s.logger.info(reconcilesLine(result));
      return result;
    },
  };
}

/** The job on its own timer (tests; server/main.ts registers moneyCheckJob with the engine). */
export function startMoneyCheckJob(s: MoneyCheckJobServices, autoStart = true): PeriodicJob<MoneyCheckResult | null> {
  return startPeriodicJob({ ...moneyCheckJob(s), logger: s.logger, autoStart, metrics: s.metrics });
}

/**
 * Takes this hour's run (claimPeriodRun of server/jobs/engine.ts). The first process ever to ask
 * records its time and does not run: a new deployment (or a test's fresh database) is checked an
 * hour after it starts, not while it boots.
 */
export function claimRun(db: Db, now: Date): Promise<boolean> {
  return claimPeriodRun(db, MONEY_CHECK_CLAIM_KEY, now, CLAIM_AGE_MS);
}
