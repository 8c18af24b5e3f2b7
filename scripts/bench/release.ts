// Release benchmark: releasing a paid order of 1,000 recipients, on a fresh in-memory
// PGlite database, through the real path: the draft frozen into an order by the payments domain,
// the simulated processor's payment marked succeeded, then the check call's release (new
// recipient accounts with hashed passwords, ledger credits, 1,001 emails queued, history row,
// draft emptied, in one transaction). Target: under 3 s on this machine.
//
//   node scripts/bench/release.ts [--recipients 1000]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { chargesFor } from "../../core/money.ts";
import { registerProgramManager } from "../../modules/identity/service.server.ts";
import { checkOrderPayment, createOrderPayment, type PaymentServices } from "../../modules/orders/service.server.ts";
import { loadConfig } from "../../server/config.ts";
import { openDatabase } from "../../server/db/client.ts";
import {
  companies,
  emailOutbox,
  rewardDraftLines,
  rewardDrafts,
  simulatedPayments,
  users,
} from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";

export interface ReleaseFigures {
  recipients: number;
  /** The check call end to end: retrieve the payment, password hashing, the release transaction. */
  releaseMs: number;
  /** CPU time of the whole process (all threads) during the release: less sensitive to a busy machine. */
  cpuMs: number;
  emails: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Releases an order of `recipients` recipients; answers the time of the release in ms. */
export async function benchRelease(recipients = 1000): Promise<ReleaseFigures> {
  const config = loadConfig({ DATABASE_URL: "memory://", LOG_LEVEL: "silent" });
  const database = await openDatabase("memory://");
  try {
    await database.migrate();
    const db = database.db;
    const now = new Date();
    const registered = await registerProgramManager(
      db,
      {
        firstName: "Bench",
        lastName: "Manager",
        email: "bench.manager@example.com",
        companyName: "Bench Pty Ltd",
        password: "Bench#2024-release",
      },
      now,
    );
    if (registered.status !== "created") throw new Error("could not register the bench manager");
    const [manager] = await db
      .select({ id: users.id, companyId: users.companyId })
      .from(users)
      .where(eq(users.publicId, registered.userId));
    if (!manager) throw new Error("the bench manager is missing");
    const caller = { companyId: manager.companyId, userId: manager.id };
    // Paying needs the company's details (ABN) first, as onboarding gives them.
    await db
      .update(companies)
      .set({ abn: "51824753556", detailsUpdatedAt: new Date() })
      .where(eq(companies.id, caller.companyId));

    const memberIds: number[] = [];
    for (let i = 0; i < recipients; i += 1000) {
      const rows = await db
        .insert(users)
        .values(
          Array.from({ length: Math.min(1000, recipients - i) }, (_, j) => ({
            companyId: caller.companyId,
            firstName: `Member${i + j}`,
            lastName: `Person${i + j}`,
            email: `member.${i + j}@example.com`,
            role: "member" as const,
          })),
        )
        .returning({ id: users.id });
      memberIds.push(...rows.map((r) => r.id));
    }
    const [draft] = await db
      .insert(rewardDrafts)
      .values({ companyId: caller.companyId, userId: caller.userId, name: "Bench Reward", version: 1 })
      .returning();
    if (!draft) throw new Error("no draft");
    const amounts = memberIds.map((_, i) => 1 + (i % 500));
    for (let i = 0; i < memberIds.length; i += 1000) {
      await db.insert(rewardDraftLines).values(
        memberIds.slice(i, i + 1000).map((userId, j) => ({
          draftId: draft.id,
          companyId: caller.companyId,
          userId,
          amountDollars: amounts[i + j] ?? 1,
        })),
      );
    }

    const services: PaymentServices = {
      db,
      payments: simulatedProcessor(db),
      logger: createLogger("silent"),
      now: () => new Date(),
      release: { config },
    };
    const order = await createOrderPayment(services, caller, { amountCents: chargesFor(amounts).totalCents });
    await db
      .update(simulatedPayments)
      .set({ status: "succeeded" })
      .where(eq(simulatedPayments.id, order.paymentIntentId));
    const before = await db.$count(emailOutbox);

    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const answer = await checkOrderPayment(services, caller, order.paymentIntentId);
    const t1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (answer.status !== "succeeded") throw new Error(`the release answered ${JSON.stringify(answer)}`);
    const emails = (await db.$count(emailOutbox)) - before;
    if (emails !== recipients + 1) throw new Error(`expected ${recipients + 1} emails, found ${emails}`);
    return { recipients, releaseMs: round(t1 - t0), cpuMs: round((cpu.user + cpu.system) / 1000), emails };
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { recipients: { type: "string", default: "1000" } } });
  const figures = await benchRelease(Number(values.recipients));
  const target = 3000;
  console.log(
    `release of an order of ${figures.recipients} recipients (PGlite, in memory): ${figures.releaseMs} ms (CPU ${figures.cpuMs} ms), ${figures.emails} emails queued (target < ${target} ms: ${figures.releaseMs < target ? "met" : "MISSED"})`,
  );
}
