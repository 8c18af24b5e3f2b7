// The money reconciliation (modules/money-check/service.server.ts, also `npm run check:money`) once an hour
// for the whole deployment: every process runs this timer, and a claim decides which one checks.
// The claim is one conditional UPDATE of an app_settings row (the last run's time): on
// PostgreSQL a second process updating at the same moment waits on the row lock, and READ
// COMMITTED's re-check then finds the time moved and updates nothing, the same row-lock reasoning
// as the expiry job's (ADR 0027 §3). So N processes check once an hour between them, not N times.
//
// Each finding is logged at error level with its rule and ids, so an operator's alerting on the
// log catches it; a clean pass logs one info line. The check only reads (one read-only snapshot).
import { sql } from "drizzle-orm";
import {
  checkMoney,
  formatFinding,
  type MoneyCheckResult,
  reconcilesLine,
} from "../../modules/money-check/service.server.ts";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/sql.ts";
import type { Logger } from "../logger.ts";
import { type JobObserver, type PeriodicJob, startPeriodicJob } from "./periodic.ts";

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
export function startMoneyCheckJob(s: MoneyCheckJobServices, autoStart = true): PeriodicJob<MoneyCheckResult | null> {
  return startPeriodicJob({
    name: "money check",
    intervalMs: s.intervalMs ?? MONEY_CHECK_INTERVAL_MS,
    logger: s.logger,
    autoStart,
    metrics: s.metrics,
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
  });
}

/**
 * Takes this hour's run. The first process ever to ask records its time and does not run: a new
 * deployment (or a test's fresh database) is checked an hour after it starts, not while it boots.
 */
export async function claimRun(db: Db, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const inserted = rowsOf(
    await db.execute(sql`
      insert into app_settings (key, value) values (${MONEY_CHECK_CLAIM_KEY}, ${at})
      on conflict (key) do nothing returning key`),
  );
  if (inserted.length > 0) return false;
  const before = new Date(now.getTime() - CLAIM_AGE_MS).toISOString();
  const claimed = rowsOf(
    await db.execute(sql`
      update app_settings set value = ${at}
      where key = ${MONEY_CHECK_CLAIM_KEY} and value::timestamptz <= ${before}::timestamptz
      returning key`),
  );
  return claimed.length > 0;
}
