// Fault test: the PostgreSQL server restarted under load. The application (a child
// process, tests/support/app-entry.ts) keeps running while the database is gone: /healthz stays
// 200, /readyz answers 503, API calls fail cleanly (problem+json, no crash); once PostgreSQL is
// back the pool reconnects by itself and every call succeeds again, with the same access token.
import { afterEach, expect, it } from "vitest";
import {
  type AppProcess,
  api,
  ok,
  signUpOverHttp,
  sleep,
  startApp,
  until,
  verificationCodes,
} from "../support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { type OwnPostgres, ownPostgres, postgresBinaries } from "./support.ts";

let app: AppProcess | undefined;
let postgres: OwnPostgres | undefined;
let smtp: TestSmtpServer | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === "fail" && app) {
    console.error(`app exit: ${app.child.exitCode} ${app.child.signalCode}\napp output:\n${app.output().slice(-4000)}`);
  }
  await app?.kill("SIGKILL");
  await postgres?.remove();
  await smtp?.stop();
});

it.skipIf(!postgresBinaries)(
  "answers 503 on /readyz while PostgreSQL is down and recovers by itself",
  { timeout: 90_000 },
  async () => {
    postgres = await ownPostgres();
    smtp = await createSmtpServer();
    const mail = smtp;
    app = await startApp({ DATABASE_URL: postgres.url, SMTP_URL: smtp.url });
    const base = app.base;
    const { accessToken: token } = await signUpOverHttp(base, "restart.manager@example.com", verificationCodes(mail));

    // Load: 12 clients reading and writing in a loop, recording every status (many clients are
    // checked out of the pool when PostgreSQL goes: that used to crash the process).
    const statuses = new Map<number, number>();
    let running = true;
    let added = 0;
    const client = async (n: number) => {
      for (let i = 0; running; i++) {
        let status: number;
        try {
          if (i % 3 === 0) {
            const res = await api(
              base,
              "POST",
              "/api/Users/create-user",
              {
                firstName: "Load",
                lastName: `Client${n}`,
                email: `client.${n}.${i}@example.com`,
              },
              token,
            );
            status = res.status;
            if (status === 200) added++;
          } else {
            status = (await api(base, "GET", "/api/Users?pageSize=20", undefined, token)).status;
          }
        } catch {
          status = 0; // the connection itself failed
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        await sleep(5);
      }
    };
    const clients = Array.from({ length: 12 }, (_, n) => client(n));
    await sleep(1500);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);

    // PostgreSQL goes away (fast shutdown: every connection is closed by the server).
    await postgres.stop();
    await until(async () => (await api(base, "GET", "/readyz")).status === 503, 10_000, "/readyz to answer 503");
    const during = await api<{ status?: string; detail?: string }>(base, "GET", "/api/Users", undefined, token);
    expect(during.status).toBeGreaterThanOrEqual(500);
    expect(during.body.detail).toBeTruthy();
    expect((await api(base, "GET", "/healthz")).status).toBe(200);
    await sleep(2000);
    expect((await api(base, "GET", "/readyz")).status).toBe(503);
    expect(app.child.exitCode).toBeNull();

    // Back: the app recovers by itself (same process, same token).
    await postgres.start();
    await until(async () => (await api(base, "GET", "/readyz")).status === 200, 20_000, "/readyz to answer 200 again");
    const before = statuses.get(200) ?? 0;
    await sleep(1500);
    running = false;
    await Promise.all(clients);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(before);
    expect(statuses.get(0) ?? 0).toBe(0); // never a refused or dropped HTTP connection
    const team = await ok<{ totalCount: number }>(base, "GET", "/api/Users?pageSize=1", undefined, token);
    expect(team.totalCount).toBe(added);
    expect(app.child.exitCode).toBeNull();
    expect(app.child.signalCode).toBeNull();
    // Every answer was a success or a clean server-side refusal (no 4xx for a database outage).
    for (const status of statuses.keys()) expect([200, 500, 503]).toContain(status);
  },
);
