// Fault test: a graceful stop (SIGTERM, as a rolling restart sends) lets every request handler
// finish before the database pool closes, even a handler whose client has already hung up (a
// load balancer's timeout, a closed tab). Such a client closes its connection, so the HTTP
// server's close() completes while the handler is still in the database; closing the pool then
// failed those handlers with "Cannot use a pool after calling end on the pool" (seen at the end
// of every benchmark run). And clients that keep their connections open and keep asking (a load
// generator, a proxy's pool): every request the process took is answered without a 5xx, the
// connections are closed after their answer, and the pool closes only after the last handler.
// Through the real process (server.ts on the production build) on PostgreSQL, and the load test
// also on PGlite and with two workers.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AppProcess, signUpOverHttp, sleep, startApp, verificationCodes } from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type OwnPostgres, ownPostgres, postgresBinaries } from "./support.ts";

let app: AppProcess | undefined;
let postgres: OwnPostgres | undefined;
let smtp: TestSmtpServer | undefined;
let dataDirectory: string | undefined;
afterEach(async () => {
  await app?.kill("SIGKILL");
  await postgres?.remove();
  await smtp?.stop();
  if (dataDirectory) rmSync(dataDirectory, { recursive: true, force: true });
  app = postgres = smtp = dataDirectory = undefined;
});

/** A GET whose client hangs up after `hangUpAfterMs`, answered or not. */
function getThenHangUp(url: string, headers: Record<string, string>, hangUpAfterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { headers, agent: false }, (res) => res.resume());
    req.on("error", () => resolve());
    req.on("close", () => resolve());
    req.end();
    setTimeout(() => req.destroy(), hangUpAfterMs);
  });
}

it.skipIf(!postgresBinaries)(
  "SIGTERM waits for the handlers of clients that hung up before closing the database",
  { timeout: 120_000 },
  async () => {
    postgres = await ownPostgres();
    smtp = await createSmtpServer();
    app = await startApp({ DATABASE_URL: postgres.url, SMTP_URL: smtp.url }, { production: true });
    const { accessToken } = await signUpOverHttp(app.base, "shutdown.manager@example.com", verificationCodes(smtp));
    const headers = { authorization: `Bearer ${accessToken}` };
    expect((await fetch(`${app.base}/api/Users?pageNumber=1&pageSize=8`, { headers })).status).toBe(200);

    // More requests than one process answers in the time before the hang-up: most handlers are
    // still queued for the database when their clients leave and the stop begins.
    const clients = Array.from({ length: 1000 }, () =>
      getThenHangUp(`${app?.base}/api/Users?pageNumber=1&pageSize=8`, headers, 150),
    );
    await sleep(160);
    await app.kill("SIGTERM");
    await Promise.all(clients);

    expect((await app.exited).code).toBe(0);
    expect(app.output()).not.toMatch(/Cannot use a pool after calling end/);
    expect(app.output()).not.toMatch(/"level":50/);
  },
);

/** A keep-alive GET on `agent`: its status, or 0 when the connection was refused or reset. */
function keptAliveGet(url: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

// The same stop on each way the app runs: PGlite on a data directory (the default, one process),
// PostgreSQL with one process, and PostgreSQL with two HTTP workers behind the primary
// (server/cluster.ts), whose SIGTERM reaches each worker while the load is on.
const SET_UPS = [
  { name: "PGlite (a data directory, the default)", database: "pglite", workers: 1 },
  { name: "PostgreSQL, one process", database: "postgres", workers: 1 },
  { name: "PostgreSQL, two workers", database: "postgres", workers: 2 },
] as const;

describe.each(SET_UPS)("$name", ({ database, workers }) => {
  it.skipIf(database === "postgres" && !postgresBinaries)(
    "SIGTERM under keep-alive load: every request taken is answered without a 5xx, and the pool closes after the last one",
    { timeout: 120_000 },
    async () => {
      let databaseUrl: string;
      if (database === "postgres") {
        postgres = await ownPostgres();
        databaseUrl = postgres.url;
      } else {
        dataDirectory = mkdtempSync(join(tmpdir(), "shutdown-pglite-"));
        databaseUrl = join(dataDirectory, "db");
      }
      smtp = await createSmtpServer();
      app = await startApp(
        { DATABASE_URL: databaseUrl, SMTP_URL: smtp.url, WEB_CONCURRENCY: String(workers) },
        { production: true },
      );
      const { accessToken } = await signUpOverHttp(
        app.base,
        `keepalive.${database}.${workers}@example.com`,
        verificationCodes(smtp),
      );
      const headers = { authorization: `Bearer ${accessToken}` };
      const url = `${app.base}/api/Users?pageNumber=1&pageSize=8`;
      const agent = new Agent({ keepAlive: true, maxSockets: 50 });

      // 50 connections asking without a pause, as a load generator does, until the process is gone.
      const statuses: number[] = [];
      let stopping = false;
      const loop = async () => {
        for (;;) {
          const status = await keptAliveGet(url, headers, agent);
          if (status === 0 && stopping) return;
          statuses.push(status);
        }
      };
      const loops = Array.from({ length: 50 }, loop);
      await sleep(1500);
      stopping = true;
      await app.kill("SIGTERM");
      await Promise.all(loops);
      agent.destroy();

      expect(statuses.length).toBeGreaterThan(50);
      // A reset (0) before the stop began, or any 5xx, is a request lost.
      expect(statuses.filter((s) => s === 0 || s >= 500)).toEqual([]);
      expect((await app.exited).code).toBe(0);
      expect(app.output()).not.toMatch(/Cannot use a pool after calling end/);
      expect(app.output()).not.toMatch(/"level":50/);
    },
  );
});
