// Fault test: WEB_CONCURRENCY workers under the supervisor (server/cluster.ts), through the real
// process (server.ts on the production build) on PostgreSQL. A worker killed with SIGKILL is
// replaced; meanwhile the other worker keeps answering and /readyz says a worker is missing; a
// session made on one worker is good on every other (sessions and secrets live in the database);
// SIGTERM stops the supervisor and every worker.
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { type AppProcess, signUpOverHttp, startApp, until, verificationCodes } from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type OwnPostgres, ownPostgres, postgresBinaries } from "./support.ts";

let app: AppProcess | undefined;
let postgres: OwnPostgres | undefined;
let smtp: TestSmtpServer | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === "fail" && app) console.error(`app output:\n${app.output().slice(-4000)}`);
  await app?.kill("SIGKILL");
  await postgres?.remove();
  await smtp?.stop();
});

/** The worker processes of the supervisor `pid` (its children, from /proc). */
function workersOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A GET that tries again once its connection is reset or unanswered for a second. A kept-alive
 * connection may belong to the worker just killed; and a connection the supervisor handed to that
 * worker as it died is never answered (node:cluster's round-robin keeps the primary's copy open
 * until the worker says it took it). A client's next connection goes to a live worker. The
 * timeout is short because the window in which /readyz says a worker is missing is short too.
 */
async function get(url: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { signal: AbortSignal.timeout(1_000) });
    } catch (error) {
      if (attempt >= 10) throw new Error(`GET ${url} failed ${attempt} times`, { cause: error });
    }
  }
}

/** Rejects, naming `what`, when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const readiness = async (base: string) => {
  const res = await get(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as { workers?: { listening: number; wanted: number } } };
};

it.skipIf(!postgresBinaries)(
  "replaces a worker that dies, keeps answering meanwhile, and stops every worker on SIGTERM",
  { timeout: 120_000 },
  async () => {
    postgres = await ownPostgres();
    smtp = await createSmtpServer();
    app = await startApp(
      { DATABASE_URL: postgres.url, SMTP_URL: smtp.url, WEB_CONCURRENCY: "2" },
      { production: true },
    );
    const base = app.base;
    const supervisor = app.child.pid as number;
    await until(async () => (await readiness(base)).body.workers?.listening === 2, 30_000, "two workers listening");
    expect(await readiness(base)).toEqual({
      status: 200,
      body: { status: "ready", workers: { listening: 2, wanted: 2 } },
    });
    const before = workersOf(supervisor);
    expect(before).toHaveLength(2);

    // A bearer token made through one worker works through whichever worker answers next.
    const { accessToken } = await signUpOverHttp(base, "workers.manager@example.com", verificationCodes(smtp));
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${base}/api/Users/MyDetails`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(res.status).toBe(200);
    }

    process.kill(before[0] as number, "SIGKILL");
    // The other worker answers at once, and says the node is short of a worker until it is back.
    await until(async () => (await readiness(base)).status === 503, 10_000, "/readyz to say a worker is missing");
    expect((await readiness(base)).body.workers).toEqual({ listening: 1, wanted: 2 });
    expect((await get(`${base}/healthz`)).status).toBe(200);
    await until(async () => (await readiness(base)).status === 200, 30_000, "the replacement worker");
    const after = workersOf(supervisor);
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
    expect(app.output()).toMatch(/worker died: starting another/);

    app.child.kill("SIGTERM");
    expect((await within(app.exited, 30_000, "the supervisor to exit on SIGTERM")).code).toBe(0);
    for (const pid of after) expect(() => process.kill(pid, 0), `worker ${pid} is gone`).toThrow();
  },
);
