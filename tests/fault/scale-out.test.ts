// Fault test: scale-out. Three app processes (the real server.ts on the production build, one
// HTTP worker each) share ONE PostgreSQL database and run the load script's journey
// (tests/support/load-journey.ts) for 60 s, the managers spread over them round-robin, while one
// process is killed with SIGKILL in the middle of the draft→payment loop and started again on
// the same port. The clients fail over as a load balancer would (a call that gets no answer goes
// to the next process; the dead one is left out until its /readyz answers again), relying on
// the processes being stateless and interchangeable: the same bearer token works on each.
//
// Afterwards every paid order is released exactly once (orders paid = releases, one ledger
// credit per order line), every outbox row is sent and reaches the SMTP server under its own
// Message-ID, the outbox is drained, the database agrees with what the clients did, and no call
// failed except those to the killed process between its kill and its restart.
//
// Each process sends mail under its own envelope sender (MAIL_FROM), so the SMTP server knows
// which process delivered what: a message the killed process had delivered but not yet marked
// sent is sent again once its claim's lease runs out (server/mail/worker.ts; at-least-once, under
// the same Message-ID). Those copies, and only those, are counted and reported, not failed.
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { type AppProcess, launchApp, sleep, startApp, until, waitUntilReady } from "../support/app-process.ts";
import {
  type CallFailure,
  clientChecks,
  databaseChecks,
  LoadClients,
  ServerLog,
  type SmtpCapture,
  startSmtpCapture,
  waitForMail,
} from "../support/load-journey.ts";
import { type OwnPostgres, ownPostgres, postgresBinaries } from "./support.ts";

const PROCESSES = 3;
/** Eight managers per process: enough to keep two cores busy without the load script's 200. */
const MANAGERS = 24;
const DURATION_S = 60;

let apps: AppProcess[] = [];
let postgres: OwnPostgres | undefined;
let smtp: SmtpCapture | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === "fail") {
    for (const app of apps) {
      console.error(
        `app ${app.base} exit: ${app.child.exitCode} ${app.child.signalCode}\n${app.output().slice(-3000)}`,
      );
    }
  }
  await Promise.all(apps.map((app) => app.kill("SIGKILL")));
  apps = [];
  await smtp?.close();
  await postgres?.remove();
});

/** The envelope sender of process `i`'s `incarnation` (1: first start, 2: after the restart). */
const senderOf = (i: number, incarnation: number) => `no-reply+p${i + 1}.${incarnation}@rewards.localhost`;

const outboxIdOf = (messageId: string) => Number(/^<outbox-(\d+)@/.exec(messageId)?.[1] ?? Number.NaN);

it.skipIf(!postgresBinaries)(
  `${PROCESSES} processes on one PostgreSQL database, one killed with SIGKILL mid-run and restarted: every payment released once, every email delivered, no failed call but those to the killed process`,
  { timeout: 420_000 },
  async () => {
    const pgServer = await ownPostgres();
    postgres = pgServer;
    const mail = await startSmtpCapture();
    smtp = mail;
    const envOf = (i: number, incarnation: number) => ({
      DATABASE_URL: pgServer.url,
      SMTP_URL: mail.url,
      RATE_LIMIT_FACTOR: "100000",
      MAIL_FROM: `Reward Portal <${senderOf(i, incarnation)}>`,
    });
    const logs = Array.from({ length: PROCESSES }, () => new ServerLog());
    // Started together: the migrations are applied once, under PostgreSQL's advisory lock.
    for (const [i, log] of logs.entries()) {
      apps.push(await launchApp(envOf(i, 1), { production: true, onOutput: log.collect }));
    }
    await Promise.all(apps.map((app) => waitUntilReady(app, 120_000)));
    const targets = apps.map((app) => app.base);

    const clients = new LoadClients({
      targets,
      codeFor: (email) => mail.codeFor(email),
      runId: `scale${Date.now().toString(36)}`,
      failover: true,
    });
    const runStart = Date.now();
    const running = clients.run(MANAGERS, DURATION_S);

    // The kill lands in the draft→payment loop (every manager signed up and has a team), 15–30 s
    // into the run, on a process picked at random.
    await until(
      () => clients.allInLoop(MANAGERS) || clients.errors.length > 0,
      45_000,
      "every manager in the draft→payment loop",
    );
    expect(clients.errors).toEqual([]);
    const killAfterMs = 15_000 + Math.floor(Math.random() * 15_000);
    await sleep(Math.max(0, runStart + killAfterMs - Date.now()));
    const victim = Math.floor(Math.random() * PROCESSES);
    const killed = apps[victim] as AppProcess;
    const killedAt = Date.now();
    killed.child.kill("SIGKILL");
    expect((await killed.exited).signal).toBe("SIGKILL");

    // What the dead process had claimed in the outbox and not marked sent: nothing can change
    // these rows until their lease runs out.
    const admin = new pg.Client({ connectionString: pgServer.url });
    await admin.connect();
    let restartedAt: number;
    let drainS: number;
    const stillSending = new Set<number>();
    try {
      for (const row of (await admin.query<{ id: number }>("select id from email_outbox where status = 'sending'"))
        .rows) {
        stillSending.add(Number(row.id));
      }

      // Started again on the same port, as a supervisor would.
      const restartedLog = new ServerLog();
      logs.push(restartedLog);
      apps[victim] = await startApp(
        { ...envOf(victim, 2), PORT: new URL(killed.base).port },
        { production: true, onOutput: restartedLog.collect, readyWithinMs: 120_000 },
      );
      restartedAt = Date.now();

      await running;
      // The killed process's claims wait for their lease (a minute) before another process sends them.
      drainS = await waitForMail(mail, clients.expectations().emails, {
        timeoutMs: 180_000,
        undelivered: async () =>
          (
            await admin.query<{ n: number }>(
              "select count(*)::int as n from email_outbox where status in ('pending', 'sending')",
            )
          ).rows[0]?.n ?? -1,
      });
    } finally {
      await admin.end();
    }
    await Promise.all(apps.map((app) => app.stop(30_000)));

    const expected = clients.expectations();
    const killedSender = senderOf(victim, 1);
    const mayArriveTwice = new Set(
      mail.received
        .filter((m) => m.from === killedSender && stillSending.has(outboxIdOf(m.messageId)))
        .map((m) => m.messageId),
    );
    // In flight on the killed process when it died, or sent to it before it answered again.
    const excused = (f: CallFailure) => f.base === killed.base && f.endedAt >= killedAt && f.startedAt <= restartedAt;
    const checks = [
      ...clientChecks(clients, logs, excused),
      ...(await databaseChecks(pgServer.url, expected, mail.received, { mayArriveTwice })),
    ];

    const excusedFailures = clients.failures.filter(excused);
    const answered = targets.map((base) => clients.answeredAt.get(base) ?? []);
    const copies = mail.received.length - new Set(mail.received.map((m) => m.messageId)).size;
    console.info(
      [
        `scale-out: ${PROCESSES} processes, ${MANAGERS} managers, ${DURATION_S} s; process ${victim + 1} (${killed.base}) killed ${((killedAt - runStart) / 1000).toFixed(1)} s into the run, answering again ${((restartedAt - killedAt) / 1000).toFixed(1)} s later`,
        `calls: ${clients.totalCalls()}; answered per process: ${answered.map((a) => a.length).join(" / ")}; by the restarted process: ${answered[victim]?.filter((t) => t > restartedAt).length}`,
        `failed calls excused (to the killed process while it was down): ${excusedFailures.length} (${excusedFailures.filter((f) => f.status === 0).length} connection errors, ${excusedFailures.filter((f) => f.status >= 500).length} 5xx; steps: ${[...new Set(excusedFailures.map((f) => f.step))].join(", ")}); others: ${clients.failures.length - excusedFailures.length}`,
        `payments: ${expected.paid} (${expected.lines} lines); emails: ${expected.emails} expected, ${mail.received.length} received, ${copies} sent again after the kill (of ${mayArriveTwice.size} the killed process had delivered and not marked sent); outbox drained ${drainS.toFixed(1)} s after the clients stopped`,
        ...checks.map((c) => `${c.ok ? "PASS" : "FAIL"} ${c.name}: ${c.detail}`),
      ].join("\n"),
    );

    expect(checks.filter((c) => !c.ok)).toEqual([]);
    // The run did what it is about: payments throughout, the load on all three processes, the
    // kill under load (calls in flight failed), and the restarted process serving again.
    expect(expected.paid).toBeGreaterThan(MANAGERS);
    for (const a of answered) expect(a.length).toBeGreaterThan(100);
    expect(excusedFailures.length).toBeGreaterThan(0);
    expect(answered[victim]?.filter((t) => t > restartedAt).length).toBeGreaterThan(0);
  },
);
