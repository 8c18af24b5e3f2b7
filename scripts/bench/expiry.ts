// Expiry benchmark: the daily reward expiry job (modules/lots/service.server.ts) over 100,000 open lots,
// on a fresh in-memory PGlite database, every one of them due at once (the worst day: half
// expired, forfeited with a ledger entry each; half expiring within 30 days, each reminded with
// an email queued in the outbox). A second run finds nothing left (exactly once). Target: under
// 10 s on this machine.
//
//   node scripts/bench/expiry.ts [--lots 100000]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { runExpiryJob } from "../../modules/lots/service.server.ts";
import { loadConfig } from "../../server/config.ts";
import { openDatabase } from "../../server/db/client.ts";
import { companies, emailOutbox, rewardLedger } from "../../server/db/schema.ts";

export const EXPIRY_TARGET_MS = 10_000;

export interface ExpiryFigures {
  lots: number;
  forfeited: number;
  reminded: number;
  /** The whole job: forfeiture, then the reminders. */
  jobMs: number;
  /** CPU time of the whole process (all threads) during the job. */
  cpuMs: number;
  /** The next run, with nothing left to do. */
  repeatMs: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export async function benchExpiry(lots = 100_000): Promise<ExpiryFigures> {
  const config = loadConfig({ DATABASE_URL: "memory://", LOG_LEVEL: "silent" });
  const database = await openDatabase("memory://");
  try {
    await database.migrate();
    const db = database.db;
    const now = new Date();
    const [company] = await db.insert(companies).values({ name: "Bench Pty Ltd" }).returning({ id: companies.id });
    if (!company) throw new Error("no company");
    // One member and one lot each (with its credit): even members' lots expired yesterday, odd
    // members' expire within the next 30 days.
    await db.execute(sql`
      insert into users (company_id, first_name, last_name, email, role)
      select ${company.id}, 'Member', 'Number ' || g, 'member.' || g || '@example.com', 'member'
      from generate_series(1, ${lots}) g`);
    await db.execute(sql`
      insert into reward_lots (company_id, user_id, amount_cents, remaining_cents, issued_at, expires_at)
      select company_id, id, 5000, 5000 - (id % 7) * 100, ${now.toISOString()}::timestamptz - interval '18 months',
        ${now.toISOString()}::timestamptz + case when id % 2 = 0 then interval '-1 day' else (1 + id % 29) * interval '1 day' end
      from users where company_id = ${company.id}`);
    await db.execute(sql`
      insert into reward_ledger (company_id, user_id, kind, amount_cents, lot_id)
      select company_id, user_id, 'credit', amount_cents, id from reward_lots`);

    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const summary = await runExpiryJob(db, { now, config });
    const t1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    const again = await runExpiryJob(db, { now, config });
    const t2 = performance.now();

    const forfeits = await db.$count(rewardLedger, sql`${rewardLedger.kind} = 'forfeit'`);
    const emails = await db.$count(emailOutbox);
    if (forfeits !== summary.forfeitedLots || emails !== summary.remindedLots) {
      throw new Error(
        `expected ${summary.forfeitedLots} forfeits and ${summary.remindedLots} emails, found ${forfeits} and ${emails}`,
      );
    }
    if (summary.forfeitedLots + summary.remindedLots !== lots)
      throw new Error(`not every lot was due: ${JSON.stringify(summary)}`);
    if (again.forfeitedLots + again.remindedLots !== 0)
      throw new Error(`a second run did more: ${JSON.stringify(again)}`);
    return {
      lots,
      forfeited: summary.forfeitedLots,
      reminded: summary.remindedLots,
      jobMs: round(t1 - t0),
      cpuMs: round((cpu.user + cpu.system) / 1000),
      repeatMs: round(t2 - t1),
    };
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { lots: { type: "string", default: "100000" } } });
  const f = await benchExpiry(Number(values.lots));
  console.log(
    `expiry job over ${f.lots} lots (PGlite, in memory; ${f.forfeited} forfeited, ${f.reminded} reminded): ${f.jobMs} ms (CPU ${f.cpuMs} ms); the next run ${f.repeatMs} ms (target < ${EXPIRY_TARGET_MS} ms: ${f.jobMs < EXPIRY_TARGET_MS ? "met" : "MISSED"})`,
  );
}
