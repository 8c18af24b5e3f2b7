// Load script: N simulated program managers drive the whole
// journey over HTTP against the provider API of the production server, for D seconds, then the
// database, the SMTP server and the clients' own records are checked against each other.
//
//   npm run load -- [--managers 200] [--duration 60] [--database pglite-dir|memory|postgres]
//                   [--write docs/LOAD.md | --no-write]
//
// Each manager: Register → VerifyEmail with the 6-digit code read from the email the SMTP server
// received → PUT /api/Companies/ → add members (create-user, create-user-bulk-upload) → then in a
// loop until the time is up: a draft (create-reward-search for existing members, create-reward-user
// for a new one, update-reward), update-reward-name, create-payment-intent, confirm-simulated-payment
// with the card 4242, check-payment-intent, get-reward-history.
//
// Checks at the end (the server stopped, the database opened by this script; `memory` can only
// be checked over HTTP and SMTP, so its database checks are skipped):
//   no 5xx; every payment released exactly once (orders paid = releases = history rows each
//   manager saw; one ledger credit per order line); every email delivered once (SMTP Message-IDs
//   = outbox rows sent, none twice, the outbox drained); row counts = what the clients did.
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import { chargesFor } from "../core/money.ts";
import { openDatabase } from "../server/db/client.ts";
import { ensureProductionBuild, signUpOverHttp, sleep, startApp } from "../tests/support/app-process.ts";
import { freePort } from "../tests/support/net.ts";
import { findPostgresBinaries, startPostgres } from "../tests/support/postgres-server.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

const { values: args } = parseArgs({
  options: {
    managers: { type: "string", default: "200" },
    duration: { type: "string", default: "60" },
    database: { type: "string", default: "pglite-dir" },
    write: { type: "string", default: "docs/LOAD.md" },
    "no-write": { type: "boolean", default: false },
    /** Keep the server's whole log (at info level) in this file, to look into a run. */
    "server-log": { type: "string" },
    /** Internal: run only the SMTP server, reporting to the parent over IPC. */
    "smtp-child": { type: "boolean", default: false },
  },
});
const MANAGERS = Number(args.managers);
const DURATION_S = Number(args.duration);
const DATABASE = args.database as "memory" | "pglite-dir" | "postgres";
if (!["memory", "pglite-dir", "postgres"].includes(DATABASE)) throw new Error("--database memory|pglite-dir|postgres");
if (!(MANAGERS > 0 && DURATION_S > 0)) throw new Error("--managers and --duration must be positive");

const PASSWORD = "Load#Test-2026-pass";
const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Load Manager" };
const runId = Date.now().toString(36);
const loadAtStart = loadavg();
const startedAt = new Date();

// ─── The SMTP server: keeps only what the checks need (Message-ID, recipient, a code) ───

interface Received {
  messageId: string;
  to: string[];
}
const received: Received[] = [];
const codeWaiters = new Map<string, (code: string) => void>();
const codes = new Map<string, string>();

function onMessage(messageId: string, to: string[], code: string | undefined) {
  received.push({ messageId, to });
  if (code) {
    for (const address of to) {
      const key = address.toLowerCase();
      codes.set(key, code);
      codeWaiters.get(key)?.(code);
    }
  }
}

/**
 * The SMTP server runs in a child process of its own (this file with --smtp-child): in the load
 * generator's process its replies waited behind hundreds of busy clients (~0.6 s a message), so
 * the mail worker's throughput measured the load generator, not the application.
 */
async function startSmtp(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--smtp-child"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the SMTP child exited (${code})`)));
    child.on("message", (m: { port?: number; messageId?: string; to?: string[]; code?: string }) => {
      if (m.port) resolve(m.port);
      else if (m.messageId && m.to) onMessage(m.messageId, m.to, m.code);
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function smtpChild(): Promise<void> {
  const port = await freePort();
  const server = new SMTPServer({
    logger: false,
    closeTimeout: 200,
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    size: 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const head = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/))).replace(/\r?\n[ \t]+/g, " ");
        const messageId = /^message-id:\s*(.+)$/im.exec(head)?.[1]?.trim() ?? "(none)";
        const code = /Verification code: (\d{6})\b/.exec(raw.replace(/=\r?\n/g, ""))?.[1];
        // Acknowledged only once the parent has the message: a delivered email is a counted one.
        process.send?.({ messageId, to: session.envelope.rcptTo.map((r) => r.address), code }, () => callback());
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  process.send?.({ port });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
  process.on("disconnect", () => process.exit(0));
}

function codeFor(email: string, timeoutMs = 60_000): Promise<string> {
  const key = email.toLowerCase();
  const known = codes.get(key);
  if (known) return Promise.resolve(known);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      codeWaiters.delete(key);
      reject(new Error(`no verification email to ${email} within ${timeoutMs} ms`));
    }, timeoutMs);
    codeWaiters.set(key, (code) => {
      clearTimeout(timer);
      codeWaiters.delete(key);
      resolve(code);
    });
  });
}

// ─── The database and the server process ───

interface DatabaseSetup {
  url: string;
  /** Where the checks connect after the server stopped; undefined for memory://. */
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

/** Warning lines of the server log by message, and the first line of each. */
const warnings = new Map<string, number>();
const firstWarnings: string[] = [];

interface ServerProcess {
  base: string;
  logTail(): string;
  problems: string[];
  stop(): Promise<void>;
}

async function startServer(databaseUrl: string, smtpUrl: string): Promise<ServerProcess> {
  ensureProductionBuild();
  const problems: string[] = [];
  const logFile = args["server-log"] ? createWriteStream(args["server-log"]) : undefined;
  const collect = (chunk: Buffer) => {
    logFile?.write(chunk);
    for (const line of chunk.toString().split("\n")) {
      if (/"level":(50|60)|"level":"(error|fatal)"/.test(line)) problems.push(line.slice(0, 500));
      else if (/"level":(40)|"level":"warn"/.test(line)) {
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 120);
        warnings.set(msg, (warnings.get(msg) ?? 0) + 1);
        if (warnings.get(msg) === 1) firstWarnings.push(line.slice(0, 500));
      }
    }
  };
  const app = await startApp(
    {
      DATABASE_URL: databaseUrl,
      SMTP_URL: smtpUrl,
      RATE_LIMIT_FACTOR: "100000",
      LOG_LEVEL: args["server-log"] ? "info" : "warn",
    },
    { production: true, inheritEnv: true, onOutput: collect, readyWithinMs: 120_000 },
  );
  return {
    base: app.base,
    problems,
    logTail: () => app.output().slice(-8000),
    stop: () => app.stop(30_000),
  };
}

// ─── The clients ───

interface CallStats {
  ms: number[];
  statuses: Map<number, number>;
}
const stats = new Map<string, CallStats>();
let fiveXx = 0;
const errors: string[] = [];
let base = "";

async function call<T>(
  name: string,
  method: string,
  path: string,
  body: unknown,
  token?: string,
  expected = 200,
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    record(name, performance.now() - t0, 0);
    throw new Error(`${name}: network error ${(error as Error).message}`);
  }
  const text = await res.text();
  record(name, performance.now() - t0, res.status);
  if (res.status >= 500) fiveXx++;
  if (res.status !== expected) throw new Error(`${name}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

function record(name: string, ms: number, status: number) {
  let s = stats.get(name);
  if (!s) {
    s = { ms: [], statuses: new Map() };
    stats.set(name, s);
  }
  s.ms.push(ms);
  s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
}

/** What each manager did, as the checks need it. */
interface ManagerRecord {
  email: string;
  registered: boolean;
  verified: boolean;
  companyDetails: boolean;
  members: number;
  draftStarted: boolean;
  ordersCreated: Set<number>;
  paid: Map<number, { lines: number; rewardsCents: number }>;
  lastHistoryRows: number;
  historyMismatch: number;
  iterations: number;
}
const records: ManagerRecord[] = [];

async function manager(i: number, stopAt: number): Promise<void> {
  const email = `load.${runId}.m${i}@example.com`;
  const rec: ManagerRecord = {
    email,
    registered: false,
    verified: false,
    companyDetails: false,
    members: 0,
    draftStarted: false,
    ordersCreated: new Set(),
    paid: new Map(),
    lastHistoryRows: 0,
    historyMismatch: 0,
    iterations: 0,
  };
  records.push(rec);
  try {
    // Register, VerifyEmail and Companies through `call`, so each is timed under its step's name.
    const { accessToken: token } = await signUpOverHttp(
      base,
      email,
      async (address) => {
        // Asked for once Register has answered.
        rec.registered = true;
        const waitStart = performance.now();
        const code = await codeFor(address);
        // Not an HTTP call: how long the verification email took to reach the SMTP server.
        record("(code email arrives)", performance.now() - waitStart, 200);
        return code;
      },
      {
        as: {
          firstName: "Load",
          lastName: `Manager${i}`,
          companyName: `Load Co ${i} Pty Ltd`,
          password: PASSWORD,
          captchaToken: "load",
          company: { name: `Load Co ${i} Pty Ltd`, ABN: "53004085616", size: "11-50", industry: "Retail" },
        },
        call: async (step, method, path, body, stepToken) => {
          const answer = await call(step, method, path, body, stepToken);
          if (step === "VerifyEmail") rec.verified = true;
          return answer;
        },
      },
    );
    rec.companyDetails = true;

    const single = await call<{ id: number }>(
      "create-user",
      "POST",
      "/api/Users/create-user",
      {
        firstName: "Single",
        lastName: `Member${i}`,
        email: `single.${i}.${runId}@example.com`,
      },
      token,
    );
    rec.members++;
    const bulk = Array.from({ length: 5 }, (_, j) => ({
      firstName: "Bulk",
      lastName: `Member${j}`,
      email: `bulk.${i}.${j}.${runId}@example.com`,
    }));
    const bulkAnswer = await call<{ successfullyAdded: number }>(
      "create-user-bulk-upload",
      "POST",
      "/api/Users/create-user-bulk-upload",
      { users: bulk },
      token,
    );
    rec.members += bulkAnswer.successfullyAdded;
    const team = await call<{ items: { id: number }[] }>("Users", "GET", "/api/Users?pageSize=50", undefined, token);
    const memberIds = team.items.map((m) => m.id);
    if (!memberIds.includes(single.id)) throw new Error("the single member is missing from /api/Users");

    for (let round = 0; Date.now() < stopAt; round++) {
      // The draft: two existing members by search, one new member, one amount changed.
      const amounts = new Map<number, number>();
      const picks = [memberIds[round % memberIds.length], memberIds[(round + 1) % memberIds.length]] as number[];
      for (const userId of picks) {
        await call("create-reward-search", "POST", "/api/RewardMyTeam/create-reward-search", { userId }, token);
        rec.draftStarted = true;
        amounts.set(userId, 0);
      }
      const added = await call<{ userId?: number; id?: number }>(
        "create-reward-user",
        "POST",
        "/api/RewardMyTeam/create-reward-user",
        {
          firstName: "Fresh",
          lastName: `Member${round}`,
          email: `fresh.${i}.${round}.${runId}@example.com`,
          value: 25,
        },
        token,
      );
      rec.members++;
      const addedId = added.userId ?? added.id;
      if (typeof addedId !== "number") throw new Error(`create-reward-user answered no id: ${JSON.stringify(added)}`);
      memberIds.push(addedId);
      amounts.set(addedId, 25);
      for (const [k, userId] of picks.entries()) {
        const value = 10 * (k + 1) + (round % 7);
        await call("update-reward", "PUT", "/api/RewardMyTeam/update-reward", { userId, value }, token);
        amounts.set(userId, value);
      }
      const rewardName = `Load reward ${i}-${round}`;
      await call("update-reward-name", "PUT", "/api/RewardMyTeam/update-reward-name", { name: rewardName }, token);
      const charges = chargesFor([...amounts.values()]);
      const intent = await call<{ paymentIntentId: string; clientSecret: string; orderId: number; amount: number }>(
        "create-payment-intent",
        "POST",
        "/api/StripePayment/create-payment-intent",
        { amount: Number(charges.totalCents), rewardName },
        token,
      );
      rec.ordersCreated.add(intent.orderId);
      const confirmed = await call<{ status: string }>(
        "confirm-simulated-payment",
        "POST",
        "/api/StripePayment/confirm-simulated-payment",
        { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
        token,
      );
      if (confirmed.status !== "succeeded") throw new Error(`the card 4242 answered ${JSON.stringify(confirmed)}`);
      const checked = await call<{ status: string }>(
        "check-payment-intent",
        "POST",
        "/api/StripePayment/check-payment-intent",
        { paymentIntent: intent.paymentIntentId },
        token,
      );
      if (checked.status !== "succeeded") throw new Error(`check-payment-intent answered ${JSON.stringify(checked)}`);
      rec.paid.set(intent.orderId, { lines: amounts.size, rewardsCents: Number(charges.rewardsCents) });
      const history = await call<unknown[]>(
        "get-reward-history",
        "GET",
        "/api/RewardHistory/get-reward-history",
        undefined,
        token,
      );
      rec.lastHistoryRows = history.length;
      if (history.length !== rec.paid.size) rec.historyMismatch++;
      rec.iterations++;
    }
  } catch (error) {
    errors.push(`manager ${i}: ${(error as Error).message}`);
  }
}

// ─── Checks ───

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

function check(list: Check[], name: string, ok: boolean, detail: string) {
  list.push({ name, ok, detail });
}

async function databaseChecks(checkUrl: string, list: Check[], expect: Expectations, received: Received[]) {
  const database = await openDatabase(checkUrl);
  try {
    const q = async (query: ReturnType<typeof sql>) => {
      const result = (await database.db.execute(query)) as unknown as { rows: Record<string, unknown>[] };
      return result.rows;
    };
    const n = async (query: ReturnType<typeof sql>) => Number(Object.values((await q(query))[0] ?? {})[0] ?? 0);

    const companies = await n(sql`select count(*) from companies`);
    const managers = await n(sql`select count(*) from users where role = 'program_manager'`);
    const members = await n(sql`select count(*) from users where role = 'member'`);
    const drafts = await n(sql`select count(*) from reward_drafts`);
    const orders = await n(sql`select count(*) from orders`);
    const paid = await n(sql`select count(*) from orders where status = 'paid'`);
    const released = await n(sql`select count(*) from orders where released_at is not null`);
    const releases = await n(sql`select count(*) from reward_releases`);
    const paidLines = await n(
      sql`select count(*) from order_lines l join orders o on o.id = l.order_id where o.status = 'paid'`,
    );
    const credits = await n(sql`select count(*) from reward_ledger where kind = 'credit'`);
    const doubleCredits = await n(
      sql`select count(*) from (select order_id, user_id from reward_ledger where kind = 'credit' group by order_id, user_id having count(*) > 1) d`,
    );
    const creditCents = await n(sql`select coalesce(sum(amount_cents), 0) from reward_ledger where kind = 'credit'`);
    const releaseCents = await n(sql`select coalesce(sum(amount_cents), 0) from reward_releases`);
    const outboxTotal = await n(sql`select count(*) from email_outbox`);
    const outboxSent = await n(sql`select count(*) from email_outbox where status = 'sent'`);
    const outboxIds = (await q(sql`select id from email_outbox where status = 'sent'`)).map((r) => Number(r.id));

    check(
      list,
      "companies = managers registered",
      companies === expect.registered,
      `${companies} / ${expect.registered}`,
    );
    check(list, "program managers = registered", managers === expect.registered, `${managers} / ${expect.registered}`);
    check(
      list,
      "team members = members the clients added",
      members === expect.members,
      `${members} / ${expect.members}`,
    );
    check(list, "reward drafts = managers who built one", drafts === expect.drafts, `${drafts} / ${expect.drafts}`);
    check(list, "orders = create-payment-intent orders", orders === expect.orders, `${orders} / ${expect.orders}`);
    check(
      list,
      "orders paid = released = reward_releases = payments the clients completed",
      paid === expect.paid && released === expect.paid && releases === expect.paid,
      `paid ${paid}, released ${released}, releases ${releases} / ${expect.paid}`,
    );
    check(
      list,
      "one ledger credit per order line of a paid order",
      credits === paidLines && paidLines === expect.lines && doubleCredits === 0,
      `credits ${credits}, lines ${paidLines} / ${expect.lines}, duplicates ${doubleCredits}`,
    );
    check(
      list,
      "ledger credits = released reward totals = what the clients paid for",
      creditCents === releaseCents && releaseCents === expect.rewardsCents,
      `${creditCents} / ${releaseCents} / ${expect.rewardsCents} cents`,
    );
    check(list, "outbox drained (every row sent)", outboxSent === outboxTotal, `${outboxSent} sent of ${outboxTotal}`);
    const byId = new Map<string, number>();
    for (const m of received) byId.set(m.messageId, (byId.get(m.messageId) ?? 0) + 1);
    const twice = [...byId.values()].filter((c) => c > 1).length;
    const missing = outboxIds.filter((id) => ![...byId.keys()].some((k) => k.startsWith(`<outbox-${id}@`))).length;
    check(
      list,
      "SMTP messages = outbox rows sent, each Message-ID once",
      received.length === outboxSent && byId.size === outboxSent && twice === 0 && missing === 0,
      `${received.length} received, ${byId.size} distinct, ${twice} twice, ${missing} sent rows not received / ${outboxSent} sent`,
    );
    check(
      list,
      "emails = verification + (recipients + invoice) per payment",
      outboxTotal === expect.emails,
      `${outboxTotal} / ${expect.emails}`,
    );
  } finally {
    await database.close();
  }
}

interface Expectations {
  registered: number;
  members: number;
  drafts: number;
  orders: number;
  paid: number;
  lines: number;
  rewardsCents: number;
  emails: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)));

// ─── Main ───

async function main(): Promise<number> {
  const db = await prepareDatabase();
  const smtp = await startSmtp();
  let server: ServerProcess | undefined;
  let exitCode = 0;
  try {
    server = await startServer(db.url, smtp.url);
    base = server.base;
    console.log(
      `load: ${MANAGERS} managers for ${DURATION_S} s against ${base} (database ${DATABASE}, SMTP ${smtp.url}); load average ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    );
    const t0 = performance.now();
    const stopAt = Date.now() + DURATION_S * 1000;
    // Managers start spread over the first second, as people would.
    await Promise.all(
      Array.from({ length: MANAGERS }, (_, i) => sleep((i * 1000) / MANAGERS).then(() => manager(i, stopAt))),
    );
    const elapsedS = (performance.now() - t0) / 1000;

    const expect: Expectations = {
      registered: records.filter((r) => r.registered).length,
      members: records.reduce((s, r) => s + r.members, 0),
      drafts: records.filter((r) => r.draftStarted).length,
      orders: records.reduce((s, r) => s + r.ordersCreated.size, 0),
      paid: records.reduce((s, r) => s + r.paid.size, 0),
      lines: records.reduce((s, r) => s + [...r.paid.values()].reduce((a, p) => a + p.lines, 0), 0),
      rewardsCents: records.reduce((s, r) => s + [...r.paid.values()].reduce((a, p) => a + p.rewardsCents, 0), 0),
      emails: 0,
    };
    expect.emails = expect.registered + expect.lines + expect.paid;

    // Wait for the outbox to drain: every expected email at the SMTP server, then a quiet moment.
    const drainStart = performance.now();
    let last = -1;
    let quietSince = performance.now();
    while (performance.now() - drainStart < 180_000) {
      if (received.length !== last) {
        last = received.length;
        quietSince = performance.now();
      }
      if (received.length >= expect.emails && performance.now() - quietSince > 3000) break;
      await sleep(250);
    }
    const drainS = (performance.now() - drainStart) / 1000;
    await server.stop();

    const checks: Check[] = [];
    check(checks, "no 5xx answers", fiveXx === 0, `${fiveXx}`);
    check(checks, "no client errors", errors.length === 0, `${errors.length}`);
    check(checks, "no error lines in the server log", server.problems.length === 0, `${server.problems.length}`);
    check(
      checks,
      "reward history rows = payments, each time a manager read it",
      records.every((r) => r.historyMismatch === 0 && r.lastHistoryRows === r.paid.size),
      `${records.filter((r) => r.historyMismatch > 0).length} managers saw a mismatch`,
    );
    if (db.checkUrl) await databaseChecks(db.checkUrl, checks, expect, received);
    else
      check(checks, "database checks", true, "skipped: memory:// is gone with the server (use pglite-dir or postgres)");

    // ─── Report ───
    const allCalls = [...stats.values()].reduce((s, c) => s + c.ms.length, 0);
    const rows = [...stats.entries()].map(([name, s]) => {
      const sorted = [...s.ms].sort((a, b) => a - b);
      const statuses = [...s.statuses.entries()].map(([k, v]) => `${k}×${v}`).join(" ");
      return `| ${name} | ${sorted.length} | ${fmt(percentile(sorted, 50))} | ${fmt(percentile(sorted, 95))} | ${fmt(percentile(sorted, 99))} | ${fmt(sorted.at(-1) ?? 0)} | ${statuses} |`;
    });
    const loadAtEnd = loadavg();
    const summary = [
      `- Managers: ${MANAGERS}, duration ${DURATION_S} s (clients finished after ${elapsedS.toFixed(1)} s), database \`${DATABASE}\``,
      `- Journeys: ${expect.registered} registered, ${records.filter((r) => r.verified).length} verified, ${records.reduce((s, r) => s + r.iterations, 0)} draft→payment rounds, ${expect.paid} payments (${(expect.paid / elapsedS).toFixed(2)}/s), ${expect.lines} reward lines, ${expect.members} members added`,
      `- Requests: ${allCalls} in ${elapsedS.toFixed(1)} s = ${(allCalls / elapsedS).toFixed(1)} requests/s; 5xx: ${fiveXx}; client errors: ${errors.length}`,
      `- Emails: ${received.length} received by the SMTP server; outbox drained ${drainS.toFixed(1)} s after the clients stopped`,
      `- Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, at end ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")} (shared machine)`,
    ];
    const table = [
      "| call | count | p50 ms | p95 ms | p99 ms | max ms | statuses |",
      "|---|---:|---:|---:|---:|---:|---|",
      ...rows,
    ];
    const checkLines = checks.map((c) => `- ${c.ok ? "PASS" : "FAIL"} ${c.name}: ${c.detail}`);
    const command = `npm run load -- --managers ${MANAGERS} --duration ${DURATION_S} --database ${DATABASE}`;
    console.log(["", ...summary, "", ...table, "", ...checkLines].join("\n"));
    if (errors.length > 0) console.log(`\nfirst client errors:\n${errors.slice(0, 10).join("\n")}`);
    if (firstWarnings.length > 0)
      console.log(
        `\nserver warnings: ${[...warnings].map(([m, n]) => `${m} ×${n}`).join("; ")}\n${firstWarnings.slice(0, 5).join("\n")}`,
      );
    if (server.problems.length > 0)
      console.log(`\nfirst server error lines:\n${server.problems.slice(0, 5).join("\n")}`);
    const ok = checks.every((c) => c.ok);
    if (!ok) exitCode = 1;

    if (!args["no-write"]) {
      const doc = [
        "# Load",
        "",
        "Written by `scripts/load.ts`: simulated program managers drive the whole journey over",
        "HTTP against the provider API of the production server (`node server.ts`), with a real SMTP",
        "server receiving the mail: Register → VerifyEmail with the code from the received email →",
        "company details → members (single and bulk) → a draft (search, new member, amounts) → reward",
        "name → create-payment-intent → the simulated card 4242 → check-payment-intent → reward",
        "history, looping until the time is up. The checks compare the database (opened after the",
        "server stopped), the SMTP server's Message-IDs and the clients' own records.",
        "",
        "Latencies are measured by the clients, all in one Node process on the same 2-core machine as",
        "the server and the SMTP server (its own process): under saturation they include the load",
        'generator\'s own queueing. "(code email arrives)" is not an HTTP call: the time from the',
        "Register answer to the verification email reaching the SMTP server. The default run (200",
        "managers, 60 s) needs a quiet machine; on a shared, busy one use fewer managers.",
        "",
        `Run: ${startedAt.toISOString()} · command: \`${command}\` · result: ${ok ? "all checks passed" : "CHECKS FAILED"}`,
        "",
        ...summary,
        "",
        ...table,
        "",
        "## Checks",
        "",
        ...checkLines,
        "",
        "## Fault tests (inside `npm test`; alone: `npx vitest run tests/fault`)",
        "",
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
      writeFileSync(join(root, args.write), doc);
      console.log(`\nwrote ${args.write}`);
    }
  } catch (error) {
    console.error(error);
    if (server) console.error(`server log tail:\n${server.logTail()}`);
    exitCode = 1;
  } finally {
    await server?.stop().catch(() => {});
    await smtp.close().catch(() => {});
    await db.cleanup().catch(() => {});
  }
  return exitCode;
}

if (args["smtp-child"]) await smtpChild();
else process.exit(await main());
