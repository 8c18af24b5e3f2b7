// Scheduler benchmark: 1,000 paid orders scheduled for the same minute, released by the scheduler
// when that minute comes, on a fresh database (in-memory PGlite, or the PostgreSQL server of
// --database-url): two passes run at once, as two processes would, and each order must be
// released exactly once (one release row, one ledger credit per recipient, one email per
// recipient). Target: under 30 s on this machine.
//
//   node scripts/bench/scheduler.ts [--orders 1000] [--recipients 2] [--postgres]
// (--postgres: a server of the machine's PostgreSQL binaries, started for the run).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { registerProgramManager } from "../../modules/identity/service.server.ts";
import type { PaymentServices } from "../../modules/orders/service.server.ts";
import { releaseDueOrders } from "../../modules/scheduled-sends/service.server.ts";
import { loadConfig } from "../../server/config.ts";
import { openDatabase } from "../../server/db/client.ts";
import { emailOutbox, orderLines, orders, rewardLedger, rewardReleases, users } from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { postgresDatabase } from "./http-load.ts";

export const SCHEDULER_TARGET_MS = 30_000;

export interface SchedulerFigures {
  orders: number;
  recipients: number;
  database: "pglite" | "postgres";
  /** Both passes, from the due minute to the last release committed. */
  releaseMs: number;
  released: number;
  emails: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export async function benchScheduler(
  options: { orders?: number; recipientsPerOrder?: number; databaseUrl?: string } = {},
): Promise<SchedulerFigures> {
  const orderCount = options.orders ?? 1000;
  const perOrder = options.recipientsPerOrder ?? 2;
  const url = options.databaseUrl ?? "memory://";
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent" });
  const database = await openDatabase(url, 10);
  try {
    await database.migrate();
    const db = database.db;
    const due = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60 * 60_000);
    const registered = await registerProgramManager(
      db,
      {
        firstName: "Bench",
        lastName: "Scheduler",
        email: `bench.scheduler.${Date.now()}@example.com`,
        companyName: "Scheduled Pty Ltd",
        password: "Bench#2024-scheduler",
      },
      new Date(),
    );
    if (registered.status !== "created") throw new Error("could not register the bench manager");
    const [manager] = await db
      .select({ id: users.id, companyId: users.companyId })
      .from(users)
      .where(eq(users.publicId, registered.userId));
    if (!manager) throw new Error("the bench manager is missing");

    // The members, then 1,000 orders paid an hour ago for the same minute, each with its lines.
    const memberIds: number[] = [];
    const total = orderCount * perOrder;
    for (let i = 0; i < total; i += 1000) {
      const rows = await db
        .insert(users)
        .values(
          Array.from({ length: Math.min(1000, total - i) }, (_, j) => ({
            companyId: manager.companyId,
            firstName: `Member${i + j}`,
            lastName: `Scheduled${i + j}`,
            email: `scheduled.${i + j}.${manager.companyId}@example.com`,
            role: "member" as const,
          })),
        )
        .returning({ id: users.id });
      memberIds.push(...rows.map((r) => r.id));
    }
    const paidAt = new Date(due.getTime() - 60 * 60_000);
    for (let i = 0; i < orderCount; i += 500) {
      const batch = Array.from({ length: Math.min(500, orderCount - i) }, (_, j) => i + j);
      const made = await db
        .insert(orders)
        .values(
          batch.map((n) => ({
            companyId: manager.companyId,
            placedBy: manager.id,
            draftId: 0,
            draftVersion: n,
            rewardName: `Scheduled ${n}`,
            sendAt: due,
            rewardsCents: perOrder * 2000,
            serviceFeeCents: perOrder * 200,
            gstCents: perOrder * 20,
            totalCents: perOrder * 2220,
            status: "scheduled" as const,
            processor: "simulated" as const,
            invoiceNumber: `INV-S${String(n).padStart(6, "0")}`,
            paidAt,
            createdAt: paidAt,
          })),
        )
        .returning({ id: orders.id });
      await db.insert(orderLines).values(
        made.flatMap((o, j) =>
          Array.from({ length: perOrder }, (_, k) => {
            const userId = memberIds[(i + j) * perOrder + k] as number;
            return {
              orderId: o.id,
              companyId: manager.companyId,
              userId,
              firstName: "Member",
              lastName: `Scheduled${userId}`,
              email: `scheduled.${userId}@example.com`,
              amountCents: 2000,
            };
          }),
        ),
      );
    }

    const services: PaymentServices = {
      db,
      payments: simulatedProcessor(db),
      logger: createLogger("silent"),
      now: () => new Date(due.getTime() + 1_000),
      release: { config },
    };
    const postgres = database.kind === "postgres";
    const pass = { advisoryLocks: postgres, concurrency: postgres ? 2 : 1 };
    const t0 = performance.now();
    const [a, b] = await Promise.all([releaseDueOrders(services, pass), releaseDueOrders(services, pass)]);
    const t1 = performance.now();

    const released = await db.$count(rewardReleases);
    const distinct = await db
      .select({ n: sql<number>`count(distinct ${rewardReleases.orderId})`.mapWith(Number) })
      .from(rewardReleases);
    const credits = await db.$count(rewardLedger, eq(rewardLedger.kind, "credit"));
    const emails = await db.$count(emailOutbox, sql`${emailOutbox.orderId} is not null`);
    const again = await releaseDueOrders(services, pass);
    if (a.released + b.released !== orderCount || released !== orderCount || distinct[0]?.n !== orderCount) {
      throw new Error(`expected ${orderCount} releases, found ${released} (passes ${a.released} + ${b.released})`);
    }
    if (credits !== total || emails !== total || again.released !== 0) {
      throw new Error(`not exactly once: ${credits} credits, ${emails} emails, ${again.released} released again`);
    }
    return {
      orders: orderCount,
      recipients: total,
      database: database.kind,
      releaseMs: round(t1 - t0),
      released,
      emails,
    };
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      orders: { type: "string", default: "1000" },
      recipients: { type: "string", default: "2" },
      postgres: { type: "boolean", default: false },
    },
  });
  const server = values.postgres ? await postgresDatabase("bench_scheduler") : undefined;
  const figures = await benchScheduler({
    orders: Number(values.orders),
    recipientsPerOrder: Number(values.recipients),
    databaseUrl: server?.url,
  }).finally(() => server?.stop());
  console.log(
    `scheduler: ${figures.orders} orders due at the same minute (${figures.recipients} recipients, ${figures.database}), two passes at once: ${figures.releaseMs} ms, each released once, ${figures.emails} reward emails (target < ${SCHEDULER_TARGET_MS} ms: ${figures.releaseMs < SCHEDULER_TARGET_MS ? "met" : "MISSED"})`,
  );
}
