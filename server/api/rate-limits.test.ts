// The PostgreSQL store of the rate limits against a real server: the library writes the table our
// migrations made (not one of its own), its expiry is what the sweep reads, and a spent budget is
// refused. The budget shared by several processes is tested from outside in
// tests/security/rate-limits.test.ts.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, openTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { createRateLimits, RATE_RULES, RateLimitedError, sweepExpiredRateLimits } from "./rate-limits.ts";

const postgres = databases.find((d) => d.kind === "postgres");
const block = postgres?.skipped ? describe.skip : describe;

block(`rate limits on PostgreSQL${postgres?.skipped ? ` (skipped: ${postgres.skipped})` : ""}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase("postgres");
  });
  afterAll(async () => {
    await database?.close();
  });

  const counters = async () =>
    (
      (await database.db.execute(sql`select key, points, expire from rate_limit_counters order by key`)) as unknown as {
        rows: Array<{ key: string; points: number; expire: string }>;
      }
    ).rows;

  it("counts in the migrations' table, with the expiry in epoch milliseconds, and refuses past the budget", async () => {
    if (!database.pool) throw new Error("a PostgreSQL database has a pool");
    const limits = createRateLimits(1, { kind: "postgres", pool: database.pool });
    const before = Date.now();
    for (let i = 0; i < RATE_RULES.waitlist.points; i++) await limits.perAccount("waitlist", "203.0.113.9");
    await expect(limits.perAccount("waitlist", "203.0.113.9")).rejects.toBeInstanceOf(RateLimitedError);

    const [row] = await counters();
    expect(row?.key).toBe("waitlist:203.0.113.9");
    expect(row?.points).toBe(RATE_RULES.waitlist.points + 1);
    const expire = Number(row?.expire);
    expect(expire).toBeGreaterThanOrEqual(before + RATE_RULES.waitlist.durationSeconds * 1000);
    expect(expire).toBeLessThanOrEqual(Date.now() + RATE_RULES.waitlist.durationSeconds * 1000);
  });

  it("sweeps the counters that expired before the given time, and only those", async () => {
    const [row] = await counters();
    const expire = Number(row?.expire);
    await sweepExpiredRateLimits(database.db, new Date(expire));
    expect(await counters()).toHaveLength(1);
    await sweepExpiredRateLimits(database.db, new Date(expire + 1));
    expect(await counters()).toHaveLength(0);
  });
});

describe("rate-limit refusals are told by rule (the operators' figure, server/metrics.ts)", () => {
  it("names the rule of each refusal, and only of refusals", async () => {
    const refused: string[] = [];
    const limits = createRateLimits(1, { kind: "memory" }, (rule) => refused.push(rule));
    const budget = RATE_RULES.registerEmail.points;
    for (let i = 0; i < budget; i++) await limits.perAccount("registerEmail", "sam@example.com");
    expect(refused).toEqual([]);
    await expect(limits.perAccount("registerEmail", "SAM@example.com")).rejects.toBeInstanceOf(RateLimitedError);
    await expect(limits.perAccount("registerEmail", "sam@example.com")).rejects.toBeInstanceOf(RateLimitedError);
    expect(refused).toEqual(["registerEmail", "registerEmail"]);
  });
});
