// The load journey, shared by the load script (scripts/load.ts) and the scale-out fault test
// (tests/fault/scale-out.test.ts): a real SMTP server capturing what the app sends (in a child
// process of its own), the simulated program managers driving the whole journey over HTTP
// against one or several app processes, and the end-of-run checks that compare the database,
// the SMTP server's Message-IDs and the clients' own records.
//
// Each manager: Register → VerifyEmail with the 6-digit code read from the email the SMTP server
// received → PUT /api/Companies/ → add members (create-user, create-user-bulk-upload) → then in a
// loop until the time is up: a draft (create-reward-search for existing members, create-reward-user
// for a new one, update-reward), update-reward-name, create-payment-intent, confirm-simulated-payment
// with the card 4242, check-payment-intent, get-reward-history.
//
// Managers are spread over the app processes round-robin (manager i → process i mod N), as a load
// balancer would. With `failover` the clients behave like a load balancer with passive health
// checks: a call that fails with a connection error or a 5xx is sent again to the next process,
// and a process that dropped a connection is left out until its /readyz answers 200 again. Every
// step of the draft→payment loop may be sent twice, so the clients' records stay exact: adding a
// member already in the draft changes nothing and amounts and names are set
// (modules/reward-drafts/service.server.ts); create-payment-intent reuses the pending order of an unchanged
// draft, a paid payment confirmed again answers succeeded, and an order is released once
// (modules/orders/service.server.ts, docs/requirements.md §D5). Sign-up and the first members are not safe to send twice
// (a second Register of the address is refused), so a fault belongs in the loop (`allInLoop`).
// Every failed attempt is kept in `failures` for the caller to judge. Without `failover` the
// first failure ends that manager's journey.
//
// Run as `node tests/support/load-journey.ts --smtp-child` it is the SMTP server's child process.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { chargesFor } from "../../core/money.ts";
import { checkMoney, formatFinding, reconcilesLine } from "../../modules/money-check/service.server.ts";
import { openDatabase } from "../../server/db/client.ts";
import { signUpOverHttp, sleep } from "./app-process.ts";
import { freePort } from "./net.ts";

const thisFile = fileURLToPath(import.meta.url);

const PASSWORD = "Load#Test-2026-pass";
const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Load Manager" };

// ─── The SMTP server: keeps only what the checks need (Message-ID, envelope, a code) ───

export interface Received {
  messageId: string;
  /** The envelope sender (MAIL FROM): tells which process sent it when each has its own MAIL_FROM. */
  from: string;
  to: string[];
  /** Date.now() when this process got it from the SMTP child. */
  at: number;
}

export interface SmtpCapture {
  url: string;
  received: Received[];
  /** The verification code in the email to `email`, as soon as it arrives. */
  codeFor(email: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * The SMTP server runs in a child process of its own: in the load generator's process its
 * replies waited behind hundreds of busy clients (~0.6 s a message), so the mail worker's
 * throughput measured the load generator, not the application.
 */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const received: Received[] = [];
  const codeWaiters = new Map<string, (code: string) => void>();
  const codes = new Map<string, string>();
  const child = spawn(process.execPath, [thisFile, "--smtp-child"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const port = await new Promise<number>((done, fail) => {
    child.once("exit", (code) => fail(new Error(`the SMTP child exited (${code})`)));
    child.on("message", (m: { port?: number; messageId?: string; from?: string; to?: string[]; code?: string }) => {
      if (m.port) done(m.port);
      else if (m.messageId && m.to) {
        received.push({ messageId: m.messageId, from: m.from ?? "", to: m.to, at: Date.now() });
        if (m.code) {
          for (const address of m.to) {
            const key = address.toLowerCase();
            codes.set(key, m.code);
            codeWaiters.get(key)?.(m.code);
          }
        }
      }
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    codeFor(email, timeoutMs = 60_000) {
      const key = email.toLowerCase();
      const known = codes.get(key);
      if (known) return Promise.resolve(known);
      return new Promise((done, fail) => {
        const timer = setTimeout(() => {
          codeWaiters.delete(key);
          fail(new Error(`no verification email to ${email} within ${timeoutMs} ms`));
        }, timeoutMs);
        codeWaiters.set(key, (code) => {
          clearTimeout(timer);
          codeWaiters.delete(key);
          done(code);
        });
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
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
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        // Acknowledged only once the parent has the message: a delivered email is a counted one.
        process.send?.({ messageId, from, to: session.envelope.rcptTo.map((r) => r.address), code }, () => callback());
      });
    },
  });
  await new Promise<void>((done, fail) => {
    server.server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done());
  });
  // A client that vanishes mid-transaction (a process SIGKILLed between MAIL FROM and the end of
  // DATA: tests/fault/scale-out.test.ts) makes smtp-server emit "error"; unheard, it would crash
  // this server and every later message would wait for a retry that cannot succeed. That message
  // was not accepted: nothing to record.
  server.on("error", () => {});
  process.send?.({ port });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
  process.on("disconnect", () => process.exit(0));
}

/**
 * Waits until every expected email has reached the SMTP server (distinct Message-IDs) and nothing
 * more arrives for `quietMs`; with `undelivered` (outbox rows still pending or being sent, read
 * from the database), also until the outbox is empty. Answers how long it waited, in seconds.
 */
export async function waitForMail(
  capture: SmtpCapture,
  expected: number,
  options: { timeoutMs?: number; quietMs?: number; undelivered?: () => Promise<number> } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const quietMs = options.quietMs ?? 3000;
  const start = performance.now();
  let last = -1;
  let quietSince = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (capture.received.length !== last) {
      last = capture.received.length;
      quietSince = performance.now();
    }
    if (
      new Set(capture.received.map((m) => m.messageId)).size >= expected &&
      performance.now() - quietSince > quietMs &&
      (!options.undelivered || (await options.undelivered()) === 0)
    ) {
      break;
    }
    await sleep(250);
  }
  return (performance.now() - start) / 1000;
}

// ─── The app processes' logs ───

/** Scans one app process's output (pino JSON lines) for error lines and counts its warnings. */
export class ServerLog {
  readonly problems: string[] = [];
  readonly warnings = new Map<string, number>();
  readonly firstWarnings: string[] = [];
  private partial = "";
  private readonly copy?: (chunk: Buffer) => void;

  constructor(copy?: (chunk: Buffer) => void) {
    this.copy = copy;
  }

  /** For launchApp's `onOutput`. */
  readonly collect = (chunk: Buffer) => {
    this.copy?.(chunk);
    const lines = (this.partial + chunk.toString()).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (/"level":(50|60)|"level":"(error|fatal)"/.test(line)) this.problems.push(line.slice(0, 500));
      else if (/"level":40|"level":"warn"/.test(line)) {
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? line.slice(0, 120);
        this.warnings.set(msg, (this.warnings.get(msg) ?? 0) + 1);
        if (this.warnings.get(msg) === 1) this.firstWarnings.push(line.slice(0, 500));
      }
    }
  };
}

// ─── The clients ───

export interface CallStats {
  ms: number[];
  statuses: Map<number, number>;
}

/** A call that got no answer (status 0: the connection failed) or a 5xx. */
export interface CallFailure {
  manager: number;
  step: string;
  base: string;
  status: number;
  /** Date.now() when the call was sent and when it failed. */
  startedAt: number;
  endedAt: number;
  message: string;
}

/** What each manager did, as the checks need it. */
export interface ManagerRecord {
  index: number;
  email: string;
  /** The process (index into the targets) this manager's calls go to first. */
  home: number;
  registered: boolean;
  verified: boolean;
  companyDetails: boolean;
  members: number;
  /** Signed up, members added: the draft→payment loop has begun. */
  inLoop: boolean;
  draftStarted: boolean;
  ordersCreated: Set<number>;
  paid: Map<number, { lines: number; rewardsCents: number }>;
  lastHistoryRows: number;
  historyMismatch: number;
  iterations: number;
}

/** What the database and the SMTP server must hold, from the clients' records. */
export interface Expectations {
  registered: number;
  members: number;
  drafts: number;
  orders: number;
  paid: number;
  lines: number;
  rewardsCents: number;
  emails: number;
}

export interface LoadClientsOptions {
  /** Base URLs of the app processes. */
  targets: string[];
  codeFor: (email: string) => Promise<string>;
  /** Makes this run's email addresses unique. */
  runId: string;
  /** Resend a call that failed with a connection error or a 5xx to the next process (see above). */
  failover?: boolean;
}

/** Attempts per call with failover: enough to get past one process that is down. */
const FAILOVER_ATTEMPTS = 6;
/** Timed beside the calls, but not an HTTP call: from the Register answer to the code's email arriving. */
export const CODE_WAIT = "(code email arrives)";
const FAILOVER_PAUSE_MS = 100;
const PROBE_EVERY_MS = 200;

export class LoadClients {
  readonly stats = new Map<string, CallStats>();
  readonly failures: CallFailure[] = [];
  /** Managers whose journey ended in an error, with the error. */
  readonly errors: string[] = [];
  readonly records: ManagerRecord[] = [];
  /** Per target: Date.now() of every answered call (any status), to show how the load spread. */
  readonly answeredAt = new Map<string, number[]>();
  fiveXx = 0;
  private readonly options: LoadClientsOptions;
  /** Targets that dropped a connection, until their /readyz answers 200 again. */
  private readonly down = new Set<string>();
  private stopped = false;

  constructor(options: LoadClientsOptions) {
    if (options.targets.length === 0) throw new Error("no targets");
    this.options = options;
    for (const base of options.targets) this.answeredAt.set(base, []);
  }

  /**
   * `managers` managers, started over the first second as people would, each looping until
   * `durationS` seconds after the start. Resolves when every one has finished.
   */
  async run(managers: number, durationS: number): Promise<{ elapsedS: number }> {
    const t0 = performance.now();
    const stopAt = Date.now() + durationS * 1000;
    try {
      await Promise.all(
        Array.from({ length: managers }, (_, i) => sleep((i * 1000) / managers).then(() => this.manager(i, stopAt))),
      );
    } finally {
      this.stopped = true;
    }
    return { elapsedS: (performance.now() - t0) / 1000 };
  }

  /** Every one of `managers` has signed up and added members (for a fault that must land in the loop). */
  allInLoop(managers: number): boolean {
    return this.records.length === managers && this.records.every((r) => r.inLoop);
  }

  expectations(): Expectations {
    const r = this.records;
    const expect: Expectations = {
      registered: r.filter((m) => m.registered).length,
      members: r.reduce((s, m) => s + m.members, 0),
      drafts: r.filter((m) => m.draftStarted).length,
      orders: r.reduce((s, m) => s + m.ordersCreated.size, 0),
      paid: r.reduce((s, m) => s + m.paid.size, 0),
      lines: r.reduce((s, m) => s + [...m.paid.values()].reduce((a, p) => a + p.lines, 0), 0),
      rewardsCents: r.reduce((s, m) => s + [...m.paid.values()].reduce((a, p) => a + p.rewardsCents, 0), 0),
      emails: 0,
    };
    // One verification code per manager; per payment one congratulation per line and the invoice.
    expect.emails = expect.registered + expect.lines + expect.paid;
    return expect;
  }

  /** HTTP calls made, failed attempts included (the waits for an email are not calls). */
  totalCalls(): number {
    return [...this.stats.entries()].reduce((s, [name, c]) => s + (name === CODE_WAIT ? 0 : c.ms.length), 0);
  }

  /** Records a timing under `name` (a call's step, or CODE_WAIT). */
  record(name: string, ms: number, status: number) {
    let s = this.stats.get(name);
    if (!s) {
      s = { ms: [], statuses: new Map() };
      this.stats.set(name, s);
    }
    s.ms.push(ms);
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
  }

  /** The first process from `first` on (round the ring) that is not down; `first` if all are. */
  private pick(first: number): string {
    const { targets } = this.options;
    for (let k = 0; k < targets.length; k++) {
      const base = targets[(first + k) % targets.length] as string;
      if (!this.down.has(base)) return base;
    }
    return targets[first % targets.length] as string;
  }

  private markDown(base: string) {
    if (this.down.has(base)) return;
    this.down.add(base);
    void (async () => {
      while (!this.stopped) {
        await sleep(PROBE_EVERY_MS);
        try {
          if ((await fetch(`${base}/readyz`)).ok) break;
        } catch {
          // still down
        }
      }
      this.down.delete(base);
    })();
  }

  private async call<T>(
    rec: ManagerRecord,
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
    const attempts = this.options.failover ? FAILOVER_ATTEMPTS : 1;
    for (let attempt = 1; ; attempt++) {
      // A failed attempt's next try goes to the next process (and past any that is down).
      const base = this.options.failover
        ? this.pick(rec.home + attempt - 1)
        : (this.options.targets[rec.home] as string);
      const startedAt = Date.now();
      const t0 = performance.now();
      let status: number;
      let text: string;
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        status = res.status;
        text = await res.text();
      } catch (error) {
        const message = `network error ${(error as Error).message}${(error as Error).cause ? ` (${String((error as Error).cause)})` : ""}`;
        this.record(name, performance.now() - t0, 0);
        this.failures.push({
          manager: rec.index,
          step: name,
          base,
          status: 0,
          startedAt,
          endedAt: Date.now(),
          message,
        });
        if (attempt < attempts) {
          this.markDown(base);
          await sleep(FAILOVER_PAUSE_MS);
          continue;
        }
        throw new Error(`${name}: ${message}`);
      }
      this.record(name, performance.now() - t0, status);
      this.answeredAt.get(base)?.push(Date.now());
      if (status >= 500) {
        this.fiveXx++;
        const message = `HTTP ${status} ${text.slice(0, 300)}`;
        this.failures.push({ manager: rec.index, step: name, base, status, startedAt, endedAt: Date.now(), message });
        if (attempt < attempts) {
          await sleep(FAILOVER_PAUSE_MS);
          continue;
        }
      }
      if (status !== expected) throw new Error(`${name}: HTTP ${status} ${text.slice(0, 300)}`);
      return (text ? JSON.parse(text) : undefined) as T;
    }
  }

  private async manager(i: number, stopAt: number): Promise<void> {
    const { runId } = this.options;
    const email = `load.${runId}.m${i}@example.com`;
    const rec: ManagerRecord = {
      index: i,
      email,
      home: i % this.options.targets.length,
      registered: false,
      verified: false,
      companyDetails: false,
      members: 0,
      inLoop: false,
      draftStarted: false,
      ordersCreated: new Set(),
      paid: new Map(),
      lastHistoryRows: 0,
      historyMismatch: 0,
      iterations: 0,
    };
    this.records.push(rec);
    try {
      // Register, VerifyEmail and Companies through `call`, so each is timed under its step's name.
      const { accessToken: token } = await signUpOverHttp(
        this.options.targets[rec.home] as string,
        email,
        async (address) => {
          // Asked for once Register has answered.
          rec.registered = true;
          const waitStart = performance.now();
          const code = await this.options.codeFor(address);
          // Not an HTTP call: how long the verification email took to reach the SMTP server.
          this.record(CODE_WAIT, performance.now() - waitStart, 200);
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
            const answer = await this.call(rec, step, method, path, body, stepToken);
            if (step === "VerifyEmail") rec.verified = true;
            return answer;
          },
        },
      );
      rec.companyDetails = true;

      const single = await this.call<{ id: number }>(
        rec,
        "create-user",
        "POST",
        "/api/Users/create-user",
        { firstName: "Single", lastName: `Member${i}`, email: `single.${i}.${runId}@example.com` },
        token,
      );
      rec.members++;
      const bulk = Array.from({ length: 5 }, (_, j) => ({
        firstName: "Bulk",
        lastName: `Member${j}`,
        email: `bulk.${i}.${j}.${runId}@example.com`,
      }));
      const bulkAnswer = await this.call<{ successfullyAdded: number }>(
        rec,
        "create-user-bulk-upload",
        "POST",
        "/api/Users/create-user-bulk-upload",
        { users: bulk },
        token,
      );
      rec.members += bulkAnswer.successfullyAdded;
      const team = await this.call<{ items: { id: number }[] }>(
        rec,
        "Users",
        "GET",
        "/api/Users?pageSize=50",
        undefined,
        token,
      );
      const memberIds = team.items.map((m) => m.id);
      if (!memberIds.includes(single.id)) throw new Error("the single member is missing from /api/Users");
      rec.inLoop = true;

      for (let round = 0; Date.now() < stopAt; round++) {
        // The draft: two existing members by search, one new member, one amount changed.
        const amounts = new Map<number, number>();
        const picks = [memberIds[round % memberIds.length], memberIds[(round + 1) % memberIds.length]] as number[];
        for (const userId of picks) {
          await this.call(
            rec,
            "create-reward-search",
            "POST",
            "/api/RewardMyTeam/create-reward-search",
            { userId },
            token,
          );
          rec.draftStarted = true;
          amounts.set(userId, 0);
        }
        // The member's address is this round's own, so one member exists however often it is sent.
        const added = await this.call<{ userId?: number; id?: number }>(
          rec,
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
          await this.call(rec, "update-reward", "PUT", "/api/RewardMyTeam/update-reward", { userId, value }, token);
          amounts.set(userId, value);
        }
        const rewardName = `Load reward ${i}-${round}`;
        await this.call(
          rec,
          "update-reward-name",
          "PUT",
          "/api/RewardMyTeam/update-reward-name",
          { name: rewardName },
          token,
        );
        const charges = chargesFor([...amounts.values()]);
        const intent = await this.call<{ paymentIntentId: string; clientSecret: string; orderId: number }>(
          rec,
          "create-payment-intent",
          "POST",
          "/api/StripePayment/create-payment-intent",
          { amount: Number(charges.totalCents), rewardName },
          token,
        );
        rec.ordersCreated.add(intent.orderId);
        const confirmed = await this.call<{ status: string }>(
          rec,
          "confirm-simulated-payment",
          "POST",
          "/api/StripePayment/confirm-simulated-payment",
          { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
          token,
        );
        if (confirmed.status !== "succeeded") throw new Error(`the card 4242 answered ${JSON.stringify(confirmed)}`);
        const checked = await this.call<{ status: string }>(
          rec,
          "check-payment-intent",
          "POST",
          "/api/StripePayment/check-payment-intent",
          { paymentIntent: intent.paymentIntentId },
          token,
        );
        if (checked.status !== "succeeded") throw new Error(`check-payment-intent answered ${JSON.stringify(checked)}`);
        rec.paid.set(intent.orderId, { lines: amounts.size, rewardsCents: Number(charges.rewardsCents) });
        const history = await this.call<unknown[]>(
          rec,
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
      this.errors.push(`manager ${i}: ${(error as Error).message}`);
    }
  }
}

// ─── Checks ───

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * What the clients saw: no failed call (unless `excused` accepts it: the fault test excuses the
 * calls to the process it killed, while that was down), no journey ended in an error, the reward
 * history always as long as the payments made, no error line in any app process's log.
 */
export function clientChecks(
  clients: LoadClients,
  logs: readonly ServerLog[],
  excused?: (failure: CallFailure) => boolean,
): Check[] {
  const excusedFailures = excused ? clients.failures.filter(excused) : [];
  const unexcused = excused ? clients.failures.filter((f) => !excused(f)) : clients.failures;
  const problems = logs.reduce((s, l) => s + l.problems.length, 0);
  const list: Check[] = [
    {
      name: excused
        ? "no 5xx answers and no failed connections, except those excused"
        : "no 5xx answers and no failed connections",
      ok: unexcused.length === 0,
      detail:
        `${unexcused.length} (${unexcused.filter((f) => f.status >= 500).length} 5xx)` +
        (excused
          ? `; excused: ${excusedFailures.length} (${excusedFailures.filter((f) => f.status === 0).length} connection errors, ${excusedFailures.filter((f) => f.status >= 500).length} 5xx)`
          : "") +
        (unexcused[0] ? `; first: ${unexcused[0].step} at ${unexcused[0].base}: ${unexcused[0].message}` : ""),
    },
    { name: "no client errors", ok: clients.errors.length === 0, detail: `${clients.errors.length}` },
    { name: "no error lines in the server log", ok: problems === 0, detail: `${problems}` },
    {
      name: "reward history rows = payments, each time a manager read it",
      ok: clients.records.every((r) => r.historyMismatch === 0 && r.lastHistoryRows === r.paid.size),
      detail: `${clients.records.filter((r) => r.historyMismatch > 0).length} managers saw a mismatch`,
    },
  ];
  return list;
}

/**
 * The database (opened after the app processes stopped, or while they run on PostgreSQL) against
 * the clients' records and the SMTP server: every paid order released once, one ledger credit per
 * order line, every outbox row sent and received once by Message-ID.
 *
 * `mayArriveTwice`: Message-IDs that may reach the SMTP server a second time. Delivery and the
 * outbox row's `sent` mark cannot be one transaction (server/mail/worker.ts), so a process killed
 * after the SMTP server accepted a message and before its row was marked leaves the row claimed;
 * when the claim's lease runs out another process sends it again, under the same Message-ID so a
 * receiver can drop the copy (server/mail/port.ts). Any other copy fails the check.
 */
export async function databaseChecks(
  checkUrl: string,
  expect: Expectations,
  received: readonly Received[],
  options: { mayArriveTwice?: ReadonlySet<string> } = {},
): Promise<Check[]> {
  const list: Check[] = [];
  const check = (name: string, ok: boolean, detail: string) => list.push({ name, ok, detail });
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
    const doubleReleases = await n(
      sql`select count(*) from (select order_id from reward_releases group by order_id having count(*) > 1) d`,
    );
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
    const sentIds = new Set((await q(sql`select id from email_outbox where status = 'sent'`)).map((r) => Number(r.id)));

    check("companies = managers registered", companies === expect.registered, `${companies} / ${expect.registered}`);
    check("program managers = registered", managers === expect.registered, `${managers} / ${expect.registered}`);
    check("team members = members the clients added", members === expect.members, `${members} / ${expect.members}`);
    check("reward drafts = managers who built one", drafts === expect.drafts, `${drafts} / ${expect.drafts}`);
    check("orders = create-payment-intent orders", orders === expect.orders, `${orders} / ${expect.orders}`);
    check(
      "orders paid = released = reward_releases = payments the clients completed",
      paid === expect.paid && released === expect.paid && releases === expect.paid && doubleReleases === 0,
      `paid ${paid}, released ${released}, releases ${releases} / ${expect.paid}, orders released twice ${doubleReleases}`,
    );
    check(
      "one ledger credit per order line of a paid order",
      credits === paidLines && paidLines === expect.lines && doubleCredits === 0,
      `credits ${credits}, lines ${paidLines} / ${expect.lines}, duplicates ${doubleCredits}`,
    );
    check(
      "ledger credits = released reward totals = what the clients paid for",
      creditCents === releaseCents && releaseCents === expect.rewardsCents,
      `${creditCents} / ${releaseCents} / ${expect.rewardsCents} cents`,
    );
    check("outbox drained (every row sent)", outboxSent === outboxTotal, `${outboxSent} sent of ${outboxTotal}`);

    const copies = new Map<string, number>();
    for (const m of received) copies.set(m.messageId, (copies.get(m.messageId) ?? 0) + 1);
    const receivedIds = new Set<number>();
    let foreign = 0;
    for (const messageId of copies.keys()) {
      const id = /^<outbox-(\d+)@/.exec(messageId)?.[1];
      if (id && sentIds.has(Number(id))) receivedIds.add(Number(id));
      else foreign++;
    }
    const missing = [...sentIds].filter((id) => !receivedIds.has(id)).length;
    const twice = [...copies.entries()].filter(([, c]) => c > 1);
    const allowed = options.mayArriveTwice ?? new Set<string>();
    const excused = twice.filter(([id, c]) => c === 2 && allowed.has(id)).length;
    const unexcused = twice.length - excused;
    check(
      "SMTP messages = outbox rows sent, each Message-ID once",
      copies.size === outboxSent && missing === 0 && foreign === 0 && unexcused === 0,
      `${received.length} received, ${copies.size} distinct, ${unexcused} twice, ${missing} sent rows not received, ${foreign} without a sent row / ${outboxSent} sent` +
        (options.mayArriveTwice
          ? `; sent again after the kill: ${excused} of the ${allowed.size} the killed process had delivered and not marked sent`
          : ""),
    );
    check(
      "emails = verification + (recipients + invoice) per payment",
      outboxTotal === expect.emails,
      `${outboxTotal} / ${expect.emails}`,
    );
    // The operator's reconciliation (npm run check:money) on the same database: no finding.
    const money = await checkMoney(database.db, { now: new Date() });
    check(
      "money reconciles (npm run check:money)",
      money.findings.length === 0,
      money.findings.length === 0 ? reconcilesLine(money) : money.findings.slice(0, 5).map(formatFinding).join("; "),
    );
  } finally {
    await database.close();
  }
  return list;
}

if (process.argv[1] && resolve(process.argv[1]) === thisFile && process.argv.includes("--smtp-child")) {
  await smtpChild();
}
