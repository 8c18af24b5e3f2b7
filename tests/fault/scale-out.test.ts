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
// which process delivered what. The mail worker (server/mail/worker.ts) marks each message sent as
// soon as the SMTP server has accepted it, so the only messages a kill can leave delivered but not
// marked are those whose acceptance and mark straddle it: accepted while the mark statement was on
// its way (marks coalesce, one statement in flight per process). Another process sends those again
// once the dead one's lease runs out (30 s at most), under the same Message-ID. Read right after the
// kill, they are the rows still `sending` that the SMTP server had already received from the killed
// process: "marks in flight". Only copies of those are excused, each at most once, and the test
// fails if there are more of them than one batch (a process works one claimed batch at a time and
// flushes its marks before claiming the next). The report gives the copies, the marks in flight and
// how long before the kill the SMTP server had accepted them.
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { MAIL_WORKER_DEFAULTS } from "../../server/mail/worker.ts";
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

    // What was claimed in the outbox and not marked sent at the kill: the dead process's rows
    // among these stay so until their lease runs out (the live processes' batches are here too).
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
      // The killed process's claims wait for their lease (at most 30 s after its last renewal)
      // before another process sends them.
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
    // Marks in flight at the kill: accepted from the killed process, still `sending` right after.
    const inFlight = mail.received.filter((m) => m.from === killedSender && stillSending.has(outboxIdOf(m.messageId)));
    const mayArriveTwice = new Set(inFlight.map((m) => m.messageId));
    const acceptedBeforeKillMs = inFlight.map((m) => killedAt - m.at);
    // In flight on the killed process when it died, or sent to it before it answered again.
    const excused = (f: CallFailure) => f.base === killed.base && f.endedAt >= killedAt && f.startedAt <= restartedAt;
    const copies = mail.received.length - new Set(mail.received.map((m) => m.messageId)).size;
    const batch = MAIL_WORKER_DEFAULTS.batchSize;
    const checks = [
      ...clientChecks(clients, logs, excused),
      ...(await databaseChecks(pgServer.url, expected, mail.received, { mayArriveTwice })),
      {
        name: "copies only of the killed process's marks in flight, at most one batch of them",
        ok: copies <= mayArriveTwice.size && mayArriveTwice.size <= batch,
        detail: `${copies} copies; ${mayArriveTwice.size} marks in flight at the kill (at most ${batch}, one batch)`,
      },
    ];

    const excusedFailures = clients.failures.filter(excused);
    const answered = targets.map((base) => clients.answeredAt.get(base) ?? []);
    console.info(
      [
        `scale-out: ${PROCESSES} processes, ${MANAGERS} managers, ${DURATION_S} s; process ${victim + 1} (${killed.base}) killed ${((killedAt - runStart) / 1000).toFixed(1)} s into the run, answering again ${((restartedAt - killedAt) / 1000).toFixed(1)} s later`,
        `calls: ${clients.totalCalls()}; answered per process: ${answered.map((a) => a.length).join(" / ")}; by the restarted process: ${answered[victim]?.filter((t) => t > restartedAt).length}`,
        `failed calls excused (to the killed process while it was down): ${excusedFailures.length} (${excusedFailures.filter((f) => f.status === 0).length} connection errors, ${excusedFailures.filter((f) => f.status >= 500).length} 5xx; steps: ${[...new Set(excusedFailures.map((f) => f.step))].join(", ")}); others: ${clients.failures.length - excusedFailures.length}`,
        `payments: ${expected.paid} (${expected.lines} lines); emails: ${expected.emails} expected, ${mail.received.length} received, ${copies} sent again after the kill; outbox drained ${drainS.toFixed(1)} s after the clients stopped`,
        `marks in flight on the killed process: ${mayArriveTwice.size} (accepted by the SMTP server and not yet marked sent${acceptedBeforeKillMs.length ? `; the earliest reached the test ${Math.max(...acceptedBeforeKillMs)} ms before the kill` : ""}); rows sending right after the kill, all processes: ${stillSending.size}`,
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
