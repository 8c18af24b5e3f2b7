// The periodic-job runner tells each pass's duration and outcome to the operators' figures
// (server/metrics.ts: rewards_job_duration_seconds, rewards_job_last_success_timestamp_seconds).
import { expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { startPeriodicJob } from "./periodic.ts";

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
