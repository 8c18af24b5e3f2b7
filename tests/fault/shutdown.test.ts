// Fault test: a graceful stop (SIGTERM, as a rolling restart sends) lets every request handler
// finish before the database pool closes, even a handler whose client has already hung up (a
// load balancer's timeout, a closed tab). Such a client closes its connection, so the HTTP
// server's close() completes while the handler is still in the database; closing the pool then
// failed those handlers with "Cannot use a pool after calling end on the pool" (seen at the end
// of every benchmark run). Through the real process (server.ts on the production build) on
// PostgreSQL.
import { request } from "node:http";
import { afterEach, expect, it } from "vitest";
import { type AppProcess, signUpOverHttp, sleep, startApp, verificationCodes } from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type OwnPostgres, ownPostgres, postgresBinaries } from "./support.ts";

let app: AppProcess | undefined;
let postgres: OwnPostgres | undefined;
let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  await app?.kill("SIGKILL");
  await postgres?.remove();
  await smtp?.stop();
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
