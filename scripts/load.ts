// Load script: N simulated program managers drive the whole journey over HTTP against the
// provider API of the production server, for D seconds, then the database, the SMTP server and
// the clients' own records are checked against each other.
//
//   npm run load -- [--managers 200] [--duration 60] [--database pglite-dir|memory|postgres]
//                   [--processes 1] [--write docs/LOAD.md | --no-write]
//
// The journey, the SMTP server and the checks are tests/support/load-journey.ts (the scale-out
// fault test, tests/fault/scale-out.test.ts, runs the same ones). With `--processes N` (PostgreSQL
// only: a PGlite database belongs to one process) N app processes serve one database, each on its
// own port with one HTTP worker (WEB_CONCURRENCY=1, the harness's default), and manager i calls
// process i mod N.
//
// Checks at the end (the servers stopped, the database opened by this script; `memory` can only
// be checked over HTTP and SMTP, so its database checks are skipped):
//   no 5xx; every payment released exactly once (orders paid = releases = history rows each
//   manager saw; one ledger credit per order line); every email delivered once (SMTP Message-IDs
//   = outbox rows sent, none twice, the outbox drained); row counts = what the clients did.
//
// docs/LOAD.md keeps one section per setup (database × processes): a run replaces its own
// setup's section, keeps the others, and the table at the top sets them side by side.
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { type AppProcess, ensureProductionBuild, launchApp, waitUntilReady } from "../tests/support/app-process.ts";
import {
  type Check,
  CODE_WAIT,
  clientChecks,
  databaseChecks,
  LoadClients,
  ServerLog,
  startSmtpCapture,
  waitForMail,
} from "../tests/support/load-journey.ts";
import { findPostgresBinaries, startPostgres } from "../tests/support/postgres-server.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

const { values: args } = parseArgs({
  options: {
    managers: { type: "string", default: "200" },
    duration: { type: "string", default: "60" },
    database: { type: "string", default: "pglite-dir" },
    processes: { type: "string", default: "1" },
    write: { type: "string", default: "docs/LOAD.md" },
    "no-write": { type: "boolean", default: false },
    /** Keep the server's whole log (at info level) in this file (`.1`, `.2`… per process with several). */
    "server-log": { type: "string" },
  },
});
const MANAGERS = Number(args.managers);
const DURATION_S = Number(args.duration);
const PROCESSES = Number(args.processes);
const DATABASE = args.database as "memory" | "pglite-dir" | "postgres";
if (!["memory", "pglite-dir", "postgres"].includes(DATABASE)) throw new Error("--database memory|pglite-dir|postgres");
if (!(MANAGERS > 0 && DURATION_S > 0)) throw new Error("--managers and --duration must be positive");
if (!(Number.isInteger(PROCESSES) && PROCESSES >= 1)) throw new Error("--processes must be a whole number, 1 or more");
if (PROCESSES > 1 && DATABASE !== "postgres") {
  // docs/OPERATIONS.md "Running for real": a PGlite directory takes one process (a second one stops at
  // start), and each memory:// process would have a database of its own.
  console.error(
    `load: --processes ${PROCESSES} needs --database postgres. A PGlite database (--database ${DATABASE}) belongs to one process; use --processes 1, or --database postgres for several processes on one database.`,
  );
  process.exit(2);
}

const runId = Date.now().toString(36);
const loadAtStart = loadavg();
const startedAt = new Date();

// ─── The database and the server processes ───

interface DatabaseSetup {
  url: string;
  /** Where the checks connect after the servers stopped; undefined for memory://. */
  checkUrl?: string;
  cleanup(): Promise<void>;
}

async function prepareDatabase(): Promise<DatabaseSetup> {
  if (DATABASE === "memory") return { url: "memory://", cleanup: async () => {} };
  if (DATABASE === "pglite-dir") {
    const dir = mkdtempSync(join(tmpdir(), "rewards-load-"));
    return { url: dir, checkUrl: dir, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const bin = findPostgresBinaries();
  if (!bin) throw new Error("--database postgres: no PostgreSQL binaries found (POSTGRES_BIN or /usr/lib/postgresql)");
  const server = await startPostgres(bin);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("create database rewards_load");
  await admin.end();
  const url = new URL(server.adminUrl);
  url.pathname = "/rewards_load";
  return { url: url.toString(), checkUrl: url.toString(), cleanup: () => server.stop() };
}

/** N servers on one database, started together (PostgreSQL applies the migrations once, under a lock). */
async function startServers(databaseUrl: string, smtpUrl: string, logs: ServerLog[]): Promise<AppProcess[]> {
  ensureProductionBuild();
  const launched: AppProcess[] = [];
  try {
    for (const log of logs) {
      launched.push(
        await launchApp(
          {
            DATABASE_URL: databaseUrl,
            SMTP_URL: smtpUrl,
            RATE_LIMIT_FACTOR: "100000",
            LOG_LEVEL: args["server-log"] ? "info" : "warn",
          },
          { production: true, inheritEnv: true, onOutput: log.collect },
        ),
      );
    }
    await Promise.all(launched.map((app) => waitUntilReady(app, 120_000)));
    return launched;
  } catch (error) {
    await Promise.all(launched.map((app) => app.kill("SIGKILL")));
    throw error;
  }
}

function serverLogFile(i: number): ((chunk: Buffer) => void) | undefined {
  const path = args["server-log"];
  if (!path) return undefined;
  const file = createWriteStream(PROCESSES > 1 ? `${path}.${i + 1}` : path);
  return (chunk) => file.write(chunk);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));

// ─── docs/LOAD.md: one section per setup ───

/** What the side-by-side table shows of one run; kept in its section's opening marker. */
interface RunSummary {
  setup: string;
  title: string;
  command: string;
  startedAt: string;
  ok: boolean;
  managers: number;
  durationS: number;
  elapsedS: number;
  payments: number;
  requests: number;
  /** Requests each app process answered (absent in sections written before it was kept). */
  perProcess?: number[];
  fiveXx: number;
  clientErrors: number;
  emails: number;
  drainS: number;
  /** p50 and p95 in ms of the calls the table shows. */
  latency: Record<string, [number, number]>;
  loadAverage: string;
}

const SIDE_BY_SIDE_CALLS = [CODE_WAIT, "create-reward-search", "confirm-simulated-payment"];
const SECTION = /<!-- load-run (\S+) (\{.*?\}) -->\n[\s\S]*?<!-- \/load-run -->\n/g;

function setupTitle(database: string, processes: number) {
  return `\`${database}\`, ${processes} app process${processes === 1 ? "" : "es"}`;
}

function sideBySide(runs: RunSummary[]): string[] {
  const row = (label: string, cell: (r: RunSummary) => string) => `| ${label} | ${runs.map(cell).join(" | ")} |`;
  return [
    `| | ${runs.map((r) => r.title).join(" | ")} |`,
    `|---|${runs.map(() => "---:").join("|")}|`,
    row("run", (r) => `${r.startedAt.slice(0, 16).replace("T", " ")} UTC`),
    row("managers × duration", (r) => `${r.managers} × ${r.durationS} s`),
    row("payments (per s)", (r) => `${r.payments} (${(r.payments / r.elapsedS).toFixed(2)})`),
    row("requests per s", (r) => (r.requests / r.elapsedS).toFixed(1)),
    row("requests answered per process", (r) => r.perProcess?.join(" / ") ?? "–"),
    ...SIDE_BY_SIDE_CALLS.map((call) =>
      row(`${call} p50 / p95 ms`, (r) => {
        const l = r.latency[call];
        return l ? `${fmt(l[0])} / ${fmt(l[1])}` : "–";
      }),
    ),
    row("5xx / client errors", (r) => `${r.fiveXx} / ${r.clientErrors}`),
    row("emails (outbox drained after)", (r) => `${r.emails} (${r.drainS.toFixed(1)} s)`),
    row("load average at start", (r) => r.loadAverage),
    row("checks", (r) => (r.ok ? "all passed" : "**FAILED**")),
  ];
}

function writeReport(path: string, summary: RunSummary, body: string[]) {
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const sections = new Map<string, { summary: RunSummary; text: string }>();
  for (const m of previous.matchAll(SECTION)) {
    try {
      sections.set(m[1] as string, { summary: JSON.parse(m[2] as string) as RunSummary, text: m[0] });
    } catch {
      // A section whose marker no longer parses is dropped; this run writes its own.
    }
  }
  sections.set(summary.setup, {
    summary,
    text: [`<!-- load-run ${summary.setup} ${JSON.stringify(summary)} -->`, ...body, "<!-- /load-run -->", ""].join(
      "\n",
    ),
  });
  const ordered = [...sections.values()].sort((a, b) =>
    a.summary.setup.localeCompare(b.summary.setup, "en", { numeric: true }),
  );
  const doc = [
    "# Load",
    "",
    "Written by `scripts/load.ts`: simulated program managers drive the whole journey over",
    "HTTP against the provider API of the production server (`node server.ts`), with a real SMTP",
    "server receiving the mail: Register → VerifyEmail with the code from the received email →",
    "company details → members (single and bulk) → a draft (search, new member, amounts) → reward",
    "name → create-payment-intent → the simulated card 4242 → check-payment-intent → reward",
    "history, looping until the time is up. The checks compare the database (opened after the",
    "servers stopped), the SMTP server's Message-IDs and the clients' own records. With",
    "`--processes N` (PostgreSQL only) N app processes, each with one HTTP worker, share one",
    "database, and the managers are spread over them round-robin, as a load balancer would.",
    "",
    "Latencies are measured by the clients, all in one Node process on the same 2-core machine as",
    "the servers, PostgreSQL and the SMTP server (its own process): under saturation they include",
    'the load generator\'s own queueing. "(code email arrives)" is not an HTTP call: the time from',
    "the Register answer to the verification email reaching the SMTP server. The default run (200",
    "managers, 60 s) needs a quiet machine; on a shared, busy one use fewer managers. One app",
    "process runs its JavaScript on one core; several can use every core, which they share with",
    "PostgreSQL, the SMTP server and the load generator: on a 2-core machine the most they gain is",
    "what of the second core those leave free, and other work on a shared machine moves the",
    "difference (the load average at each run's start is in the table).",
    "",
    "One section per setup (database × app processes): a run replaces its own setup's section and",
    "keeps the others.",
    "",
    "## Side by side",
    "",
    ...sideBySide(ordered.map((s) => s.summary)),
    "",
    ...ordered.map((s) => s.text),
    "## Fault tests (inside `npm test`; alone: `npx vitest run tests/fault`)",
    "",
    "- `tests/fault/scale-out.test.ts`: three app processes (`server.ts` on the production build, one",
    "  HTTP worker each) on one PostgreSQL database run this journey (tests/support/load-journey.ts,",
    "  24 managers, 60 s) while one of them is killed with SIGKILL mid-run and started again on its",
    "  port; the clients fail over like a load balancer. Every paid order is released once, one credit",
    "  per line, every outbox row sent and received by Message-ID, and no call failed except those to",
    "  the killed process while it was down.",
    "- `tests/fault/release-kill.test.ts`: the server (a child process) is killed with SIGKILL at a random",
    "  line of a 1,000-recipient release (slowed by a test-only hook of `tests/support/app-entry.ts`), on",
    "  PostgreSQL and on a PGlite data directory: nothing of the release is in the database (no history",
    "  row, credit, account or email; the payment succeeded, the order pending); after a restart the check",
    "  call releases it whole, a second check changes nothing, every email reaches the SMTP server once.",
    "- `tests/fault/smtp-outage.test.ts`: the SMTP server down while a 300-recipient order is released, and",
    "  again in the middle of the delivery: the worker retries with backoff, every email arrives once.",
    "- `tests/fault/postgres-restart.test.ts`: PostgreSQL stopped and started again under 8 looping",
    "  clients: `/readyz` answers 503 meanwhile, `/healthz` 200, the process stays up, and the pool",
    "  reconnects by itself (same process, same access token).",
    "",
  ].join("\n");
  writeFileSync(path, doc);
}

// ─── Main ───

async function main(): Promise<number> {
  const db = await prepareDatabase();
  const smtp = await startSmtpCapture();
  const logs = Array.from({ length: PROCESSES }, (_, i) => new ServerLog(serverLogFile(i)));
  let servers: AppProcess[] = [];
  let exitCode = 0;
  try {
    servers = await startServers(db.url, smtp.url, logs);
    const targets = servers.map((s) => s.base);
    console.log(
      `load: ${MANAGERS} managers for ${DURATION_S} s against ${targets.join(", ")} (database ${DATABASE}, SMTP ${smtp.url}); load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    );
    const clients = new LoadClients({ targets, codeFor: (email) => smtp.codeFor(email), runId });
    const { elapsedS } = await clients.run(MANAGERS, DURATION_S);
    const expect = clients.expectations();

    // Wait for the outbox to drain: every expected email at the SMTP server, then a quiet moment.
    const drainS = await waitForMail(smtp, expect.emails);
    await Promise.all(servers.map((s) => s.stop(30_000)));

    const checks: Check[] = clientChecks(clients, logs);
    if (db.checkUrl) checks.push(...(await databaseChecks(db.checkUrl, expect, smtp.received)));
    else
      checks.push({
        name: "database checks",
        ok: true,
        detail: "skipped: memory:// is gone with the server (use pglite-dir or postgres)",
      });

    // ─── Report ───
    const allCalls = clients.totalCalls();
    const latency: Record<string, [number, number]> = {};
    const rows = [...clients.stats.entries()].map(([name, s]) => {
      const sorted = [...s.ms].sort((a, b) => a - b);
      if (SIDE_BY_SIDE_CALLS.includes(name)) {
        latency[name] = [Math.round(percentile(sorted, 50)), Math.round(percentile(sorted, 95))];
      }
      const statuses = [...s.statuses.entries()].map(([k, v]) => `${k}×${v}`).join(" ");
      return `| ${name} | ${sorted.length} | ${fmt(percentile(sorted, 50))} | ${fmt(percentile(sorted, 95))} | ${fmt(percentile(sorted, 99))} | ${fmt(sorted.at(-1) ?? 0)} | ${statuses} |`;
    });
    const loadAtEnd = loadavg();
    const perProcess = targets.map((base) => clients.answeredAt.get(base)?.length ?? 0);
    const summary = [
      `- Managers: ${MANAGERS}, duration ${DURATION_S} s (clients finished after ${elapsedS.toFixed(1)} s), database \`${DATABASE}\``,
      PROCESSES > 1
        ? `- App processes: ${PROCESSES}, one HTTP worker each; requests answered by each: ${perProcess.join(" / ")}`
        : "- App processes: 1, one HTTP worker",
      `- Journeys: ${expect.registered} registered, ${clients.records.filter((r) => r.verified).length} verified, ${clients.records.reduce((s, r) => s + r.iterations, 0)} draft→payment rounds, ${expect.paid} payments (${(expect.paid / elapsedS).toFixed(2)}/s), ${expect.lines} reward lines, ${expect.members} members added`,
      `- Requests: ${allCalls} in ${elapsedS.toFixed(1)} s = ${(allCalls / elapsedS).toFixed(1)} requests/s; 5xx: ${clients.fiveXx}; client errors: ${clients.errors.length}`,
      `- Emails: ${smtp.received.length} received by the SMTP server; outbox drained ${drainS.toFixed(1)} s after the clients stopped`,
      `- Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, at end ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")} (shared machine)`,
    ];
    const table = [
      "| call | count | p50 ms | p95 ms | p99 ms | max ms | statuses |",
      "|---|---:|---:|---:|---:|---:|---|",
      ...rows,
    ];
    const checkLines = checks.map((c) => `- ${c.ok ? "PASS" : "FAIL"} ${c.name}: ${c.detail}`);
    const command = `npm run load -- --managers ${MANAGERS} --duration ${DURATION_S} --database ${DATABASE} --processes ${PROCESSES}`;
    console.log(["", ...summary, "", ...table, "", ...checkLines].join("\n"));
    if (clients.errors.length > 0) console.log(`\nfirst client errors:\n${clients.errors.slice(0, 10).join("\n")}`);
    const warnings = new Map<string, number>();
    for (const log of logs) for (const [m, n] of log.warnings) warnings.set(m, (warnings.get(m) ?? 0) + n);
    if (warnings.size > 0)
      console.log(
        `\nserver warnings: ${[...warnings].map(([m, n]) => `${m} ×${n}`).join("; ")}\n${logs
          .flatMap((l) => l.firstWarnings)
          .slice(0, 5)
          .join("\n")}`,
      );
    const problems = logs.flatMap((l) => l.problems);
    if (problems.length > 0) console.log(`\nfirst server error lines:\n${problems.slice(0, 5).join("\n")}`);
    const ok = checks.every((c) => c.ok);
    if (!ok) exitCode = 1;

    if (!args["no-write"]) {
      const setup = `${DATABASE}-${PROCESSES}`;
      const title = setupTitle(DATABASE, PROCESSES);
      writeReport(
        resolve(root, args.write),
        {
          setup,
          title,
          command,
          startedAt: startedAt.toISOString(),
          ok,
          managers: MANAGERS,
          durationS: DURATION_S,
          // Three decimals: the table divides by it, and must match the section's own figures.
          elapsedS: Math.round(elapsedS * 1000) / 1000,
          payments: expect.paid,
          requests: allCalls,
          perProcess,
          fiveXx: clients.fiveXx,
          clientErrors: clients.errors.length,
          emails: smtp.received.length,
          drainS: Math.round(drainS * 10) / 10,
          latency,
          loadAverage: loadAtStart.map((l) => l.toFixed(2)).join(" "),
        },
        [
          `## ${title}`,
          "",
          `Run: ${startedAt.toISOString()} · command: \`${command}\` · result: ${ok ? "all checks passed" : "CHECKS FAILED"}`,
          "",
          ...summary,
          "",
          ...table,
          "",
          "Checks:",
          "",
          ...checkLines,
          "",
        ],
      );
      console.log(`\nwrote ${args.write} (section ${title})`);
    }
  } catch (error) {
    console.error(error);
    for (const server of servers) console.error(`server ${server.base} log tail:\n${server.output().slice(-8000)}`);
    exitCode = 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop(30_000).catch(() => {})));
    await smtp.close().catch(() => {});
    await db.cleanup().catch(() => {});
  }
  return exitCode;
}

process.exit(await main());
