// Automations benchmark (ADR 0035): 10,000 team members with birthdays spread over the year and
// over the eight states and territories, one birthday automation, on a fresh database (in-memory
// PGlite, or the PostgreSQL server of --postgres). One day's run: two passes at once (as two
// processes would) a day after the automation was made, each due reward sent exactly once (one
// automation_rewards row, one reward email each); then a pass with nothing due (what every
// process pays each SCHEDULER_INTERVAL_SECONDS). Target: the day's run under 5 s on PGlite.
//
//   node scripts/bench/automations.ts [--members 10000] [--postgres | --database-url URL]
// (--database-url: a PGlite directory or PostgreSQL database of your own, kept afterwards, e.g. for
// `DATABASE_URL=… npm run check:money`).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { AUSTRALIAN_STATES } from "../../core/member-dates.ts";
import { type AutomationServices, runAutomations } from "../../modules/automations/service.server.ts";
import { moveBalance } from "../../modules/balance/service.server.ts";
import { registerProgramManager } from "../../modules/identity/service.server.ts";
import { loadConfig } from "../../server/config.ts";
import { openDatabase } from "../../server/db/client.ts";
import {
  automationRewards,
  automations,
  balanceTopUps,
  companies,
  emailOutbox,
  users,
} from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { postgresDatabase } from "./http-load.ts";

export const AUTOMATIONS_TARGET_MS = 5_000;

export interface AutomationsFigures {
  members: number;
  database: "pglite" | "postgres";
  /** Rewards the day's run sent. */
  rewards: number;
  /** Both passes at once, from the start to the last release committed. */
  dayRunMs: number;
  /** A pass with nothing due. */
  idlePassMs: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const DAY_MS = 24 * 60 * 60_000;

export async function benchAutomations(
  options: { members?: number; databaseUrl?: string } = {},
): Promise<AutomationsFigures> {
  const count = options.members ?? 10_000;
  const url = options.databaseUrl ?? "memory://";
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent" });
  const database = await openDatabase(url, 10);
  try {
    await database.migrate();
    const db = database.db;
    const made = new Date("2027-03-14T12:00:00Z");
    const registered = await registerProgramManager(
      db,
      {
        firstName: "Bench",
        lastName: "Automations",
        email: `bench.automations.${Date.now()}@example.com`,
        companyName: "Birthdays Pty Ltd",
        password: "Bench#2024-automations",
      },
      made,
    );
    if (registered.status !== "created") throw new Error("could not register the bench manager");
    const [owner] = await db
      .select({ id: users.id, companyId: users.companyId })
      .from(users)
      .where(eq(users.publicId, registered.userId));
    if (!owner) throw new Error("the bench manager is missing");
    // The company's details, and a paid top-up that covers every birthday of the year (so the
    // money check reconciles the database afterwards: `npm run check:money`).
    await db
      .update(companies)
      .set({ abn: "53004085616", detailsUpdatedAt: made })
      .where(eq(companies.id, owner.companyId));
    await db.transaction(async (tx) => {
      const amountCents = count * 2220;
      const [topUp] = await tx
        .insert(balanceTopUps)
        .values({
          companyId: owner.companyId,
          requestedBy: owner.id,
          amountCents,
          status: "paid",
          processor: "simulated",
          paymentIntentId: `pi_sim_bench_${Date.now()}`,
          createdAt: made,
          paidAt: made,
        })
        .returning({ id: balanceTopUps.id });
      if (!topUp) throw new Error("no top-up row");
      await moveBalance(tx, owner.companyId, { kind: "top_up", topUpId: topUp.id, amountCents });
    });

    // Birthdays spread over a leap year's 366 days, states in turn.
    for (let i = 0; i < count; i += 1000) {
      await db.insert(users).values(
        Array.from({ length: Math.min(1000, count - i) }, (_, j) => {
          const n = i + j;
          const day = new Date(Date.UTC(2028, 0, 1) + (n % 366) * DAY_MS);
          return {
            companyId: owner.companyId,
            firstName: `Member${n}`,
            lastName: `Birthday${n}`,
            email: `birthday.${n}.${owner.companyId}@example.com`,
            role: "member" as const,
            birthDay: day.getUTCDate(),
            birthMonth: day.getUTCMonth() + 1,
            state: AUSTRALIAN_STATES[n % AUSTRALIAN_STATES.length],
          };
        }),
      );
    }
    await db.insert(automations).values({
      companyId: owner.companyId,
      occasion: "birthday",
      amountCents: 2000,
      rewardName: "Happy Birthday",
      messageTemplate: "Happy birthday, {firstName}!",
      createdBy: owner.id,
      createdAt: made,
      updatedAt: made,
    });

    const dayLater = new Date(made.getTime() + DAY_MS);
    const services: AutomationServices = {
      db,
      payments: simulatedProcessor(db),
      logger: createLogger("silent"),
      now: () => dayLater,
      release: { config },
      appUrl: config.APP_URL,
    };
    const t0 = performance.now();
    const [a, b] = await Promise.all([runAutomations(services), runAutomations(services)]);
    const t1 = performance.now();
    const again = await runAutomations(services);
    const t2 = performance.now();

    const rows = await db.$count(automationRewards);
    const emails = await db.$count(emailOutbox, sql`${emailOutbox.recipientUserId} is not null`);
    if (a.errors + b.errors > 0) throw new Error(`errors in the day's run: ${a.errors + b.errors}`);
    if (a.rewards + b.rewards !== rows || emails !== rows || again.rewards !== 0 || rows === 0) {
      throw new Error(
        `not exactly once: ${a.rewards} + ${b.rewards} sent, ${rows} rows, ${emails} emails, ${again.rewards} again`,
      );
    }
    return {
      members: count,
      database: database.kind,
      rewards: rows,
      dayRunMs: round(t1 - t0),
      idlePassMs: round(t2 - t1),
    };
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      members: { type: "string", default: "10000" },
      postgres: { type: "boolean", default: false },
      "database-url": { type: "string" },
    },
  });
  const server = values.postgres ? await postgresDatabase("bench_automations") : undefined;
  const figures = await benchAutomations({
    members: Number(values.members),
    databaseUrl: server?.url ?? values["database-url"],
  }).finally(() => server?.stop());
  console.log(
    `automations: ${figures.members} members with birthdays over the year (${figures.database}), one day's run with two passes at once: ${figures.dayRunMs} ms for ${figures.rewards} rewards, each sent once; a pass with nothing due: ${figures.idlePassMs} ms (target < ${AUTOMATIONS_TARGET_MS} ms: ${figures.dayRunMs < AUTOMATIONS_TARGET_MS ? "met" : "MISSED"})`,
  );
}
