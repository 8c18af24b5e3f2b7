// The job engine (server/jobs/engine.ts): each pass's duration and outcome reach the operators'
// figures (server/metrics.ts: rewards_job_duration_seconds, rewards_job_last_success_timestamp_seconds),
// a registry stops its jobs together, and the one backoff gives what the two formulas it replaced gave.
import { expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { MAIL_BACKOFF } from "../mail/worker.ts";
import {
  backoffMs,
  createJobEngine,
  nextAttemptAfter,
  retryOrGiveUp,
  STANDARD_BACKOFF,
  startPeriodicJob,
} from "./engine.ts";

it("reports each pass by the job's name: a success, then a failure", async () => {
  const seen: Array<{ job: string; seconds: number; succeeded: boolean }> = [];
  let fail = false;
  const job = startPeriodicJob({
    name: "expiry job",
    intervalMs: 60_000,
    logger: createLogger("silent"),
    autoStart: false,
    metrics: { observeJob: (name, seconds, succeeded) => seen.push({ job: name, seconds, succeeded }) },
    pass: async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (fail) throw new Error("the database is away");
      return "done";
    },
  });
  expect(await job.runOnce()).toBe("done");
  fail = true;
  await expect(job.runOnce()).rejects.toThrow("the database is away");
  await job.stop();
  expect(seen.map(({ job, succeeded }) => ({ job, succeeded }))).toEqual([
    { job: "expiry job", succeeded: true },
    { job: "expiry job", succeeded: false },
  ]);
  for (const pass of seen) expect(pass.seconds).toBeGreaterThanOrEqual(0.015);
});

it("a join job answers the running pass; a queue job runs its own after it", async () => {
  let passes = 0;
  const slow = async () => {
    passes++;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return passes;
  };
  const logger = createLogger("silent");
  const join = startPeriodicJob({ name: "join", intervalMs: 60_000, logger, autoStart: false, pass: slow });
  expect(await Promise.all([join.runOnce(), join.runOnce()])).toEqual([1, 1]);
  passes = 0;
  const queue = startPeriodicJob({
    name: "queue",
    intervalMs: 60_000,
    logger,
    autoStart: false,
    overlap: "queue",
    pass: slow,
  });
  expect(await Promise.all([queue.runOnce(), queue.runOnce()])).toEqual([1, 2]);
  await join.stop();
  await queue.stop();
});

it("a registry starts its jobs, refuses a second job of one name and stops them all", async () => {
  const engine = createJobEngine({ logger: createLogger("silent") });
  let ran = 0;
  const job = engine.register({ name: "counter", intervalMs: 60_000, pass: async () => ++ran });
  expect(() => engine.register({ name: "counter", intervalMs: 1, pass: async () => 0 })).toThrow(/registered already/);
  engine.register({ name: "idle", intervalMs: 60_000, pass: async () => 0 }, false);
  expect(engine.names).toEqual(["counter", "idle"]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(ran).toBe(1);
  await engine.stop();
  job.nudge();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(ran).toBe(1);
});

// The two formulas the one backoff replaced, as they were written (server/mail/worker.ts backoffMs
// and the webhook worker's webhookBackoffMs): the same outputs for attempts 0 to 40.
const oldMailBackoffMs = (attempt: number) => Math.min(30 * 60_000, 5_000 * 2 ** Math.max(0, attempt - 1));
const oldWebhookBackoffMs = (attempt: number) => Math.min(60 * 60_000, 30_000 * 2 ** Math.max(0, attempt - 1));

it("the one backoff reproduces the mail outbox's and the webhook deliveries' formulas", () => {
  for (let attempt = 0; attempt <= 40; attempt++) {
    expect(backoffMs(attempt, MAIL_BACKOFF)).toBe(oldMailBackoffMs(attempt));
    expect(backoffMs(attempt, STANDARD_BACKOFF)).toBe(oldWebhookBackoffMs(attempt));
  }
  expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffMs(a, STANDARD_BACKOFF))).toEqual([
    30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000,
  ]);
});

it("the next attempt is the backoff with ±10 % jitter, never after the give-up time", () => {
  const at = new Date("2026-12-01T00:00:00Z");
  const far = new Date("2027-01-01T00:00:00Z");
  for (let attempt = 1; attempt <= 10; attempt++) {
    for (const r of [0, 0.5, 0.999]) {
      const old = new Date(
        Math.min(at.getTime() + Math.round(oldWebhookBackoffMs(attempt) * (0.9 + 0.2 * r)), far.getTime()),
      );
      expect(nextAttemptAfter(attempt, at, far, () => r)).toEqual(old);
    }
  }
  const soon = new Date(at.getTime() + 1_000);
  expect(nextAttemptAfter(5, at, soon, () => 0.5)).toEqual(soon);
});

it("a failed attempt at or after its give-up time is final; before it, a retry", () => {
  const giveUpAt = new Date("2026-12-01T00:00:00Z");
  const retryAt = new Date("2026-12-01T00:05:00Z");
  expect(retryOrGiveUp(giveUpAt, giveUpAt, () => retryAt)).toEqual({ outcome: "failed" });
  expect(retryOrGiveUp(new Date(giveUpAt.getTime() - 1), giveUpAt, () => retryAt)).toEqual({
    outcome: "retry",
    at: retryAt,
  });
});
