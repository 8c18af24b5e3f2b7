// Helpers of the fault tests: the application as a child process (tests/fault/app-process.ts)
// that can be killed and started again on the same database, a PostgreSQL server of the test's
// own that can be stopped and started again on the same port and data, and small HTTP helpers.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort } from "../support/net.ts";
import { findPostgresBinaries } from "../support/postgres-server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const entry = fileURLToPath(new URL("./app-process.ts", import.meta.url));
const serverEntry = fileURLToPath(new URL("../../server.ts", import.meta.url));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface AppProcess {
  base: string;
  child: ChildProcess;
  /** stderr + stdout so far (the last 20 kB). */
  output(): string;
  /** Resolves when a line matching `pattern` appears on stderr (or has appeared). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the application on `databaseUrl` on a free port; resolves once /readyz answers 200.
 * `production: true` runs the real process entry (server.ts) on the real `npm run build`
 * instead of the test entry with its tiny build.
 */
export async function startApp(
  env: Record<string, string>,
  options: { production?: boolean } = {},
): Promise<AppProcess> {
  const app = await launchApp(env, options);
  await waitUntilReady(app);
  return app;
}

/**
 * Starts the application as startApp does but returns at once, ready or not: for a start that is
 * expected to fail (await `exited`), or several started together (then `waitUntilReady` each).
 */
export async function launchApp(
  env: Record<string, string>,
  options: { production?: boolean } = {},
): Promise<AppProcess> {
  const port = env.PORT ?? String(await freePort());
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [options.production ? serverEntry : entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: port,
      APP_URL: base,
      LOG_LEVEL: "warn",
      RATE_LIMIT_FACTOR: "1000",
      SESSION_SECRET: "fault-test-session-secret-0123456789abcdef",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
    for (const l of listeners) l();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const global = new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`);
      const test = () => {
        let last: RegExpExecArray | null = null;
        for (let m = global.exec(out); m; m = global.exec(out)) last = m;
        global.lastIndex = 0;
        if (last) {
          done();
          resolve(last);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${out.slice(-3000)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(test);
      };
      listeners.add(test);
      test();
    });
  const app: AppProcess = {
    base,
    child,
    output: () => out,
    waitFor,
    exited,
    async kill(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
  return app;
}

/** Resolves once the app's /readyz answers 200; throws (and kills it) if it exits or takes 60 s. */
export async function waitUntilReady(app: AppProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (app.child.exitCode !== null) throw new Error(`the app exited (${app.child.exitCode}):\n${app.output()}`);
    try {
      if ((await fetch(`${app.base}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await app.kill("SIGKILL");
      throw new Error(`the app did not get ready within 60 s:\n${app.output()}`);
    }
    await sleep(100);
  }
}

/** A JSON call to the API; answers the status and the parsed body. */
export async function api<T = unknown>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed as T };
}

/** Calls the API and insists on `expected`. */
export async function ok<T = unknown>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  expected = 200,
): Promise<T> {
  const res = await api<T>(base, method, path, body, token);
  if (res.status !== expected) {
    throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  }
  return res.body;
}

export const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };

/**
 * A verified manager with company details, over HTTP; the code comes from `codeOf(email)`
 * (the SMTP server's received mail).
 */
export async function signUpOverHttp(base: string, email: string, codeOf: (email: string) => Promise<string>) {
  const reg = await ok<{ userId: string; requestToken: string }>(base, "POST", "/api/Register", {
    firstName: "Fault",
    lastName: "Tester",
    email,
    companyName: "Fault Co Pty Ltd",
    password: "Fault#Test-2026-pass",
    captchaToken: "x",
    isCaptchaV3: true,
  });
  const code = await codeOf(email);
  const { accessToken } = await ok<{ accessToken: string }>(base, "POST", "/api/Identity/VerifyEmail", {
    userId: reg.userId,
    requestToken: reg.requestToken,
    verificationCode: code,
  });
  await ok(
    base,
    "PUT",
    "/api/Companies/",
    { name: "Fault Co Pty Ltd", ABN: "53004085616", size: "11-50", industry: "Retail" },
    accessToken,
  );
  return { userId: reg.userId, accessToken };
}

/** Waits until `condition` holds, polling every `everyMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ─── A PostgreSQL server of the test's own, which it may stop and start again ───

export interface OwnPostgres {
  /** Connection URL of the database `rewards` on it. */
  url: string;
  adminUrl: string;
  start(): Promise<void>;
  /** Fast shutdown (SIGINT): connections are closed, the server is gone until start(). */
  stop(): Promise<void>;
  remove(): Promise<void>;
}

export const postgresBinaries = findPostgresBinaries();

function identity(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
      if (uid !== 0) return { uid, gid };
    } catch {
      // no such user
    }
  }
  throw new Error("running as root without a `postgres` or `nobody` user");
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinaries;
  if (!bin) throw new Error("no PostgreSQL binaries");
  const who = identity();
  const dir = mkdtempSync(join(tmpdir(), "rewards-fault-pg-"));
  if (who) chownSync(dir, who.uid, who.gid);
  const data = join(dir, "data");
  const opts = { cwd: dir, env: { ...process.env, LC_ALL: "C", LANG: "C" }, ...(who ?? {}) };
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"],
    { ...opts, stdio: "ignore" },
  );
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => child?.kill("SIGKILL");
  process.once("exit", killOnExit);

  const handle: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/rewards`,
    adminUrl,
    async start() {
      const c = spawn(
        join(bin, "postgres"),
        ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
        { ...opts, stdio: "ignore" },
      );
      child = c;
      exited = new Promise((resolve) => c.once("exit", () => resolve()));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const client = new pg.Client({ connectionString: adminUrl });
        try {
          await client.connect();
          await client.query("select 1");
          await client.end();
          return;
        } catch {
          await client.end().catch(() => {});
          if (c.exitCode !== null || Date.now() > deadline) throw new Error("postgres did not start");
          await sleep(100);
        }
      }
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      c.kill("SIGINT");
      await exited;
    },
    async remove() {
      await handle.stop();
      process.off("exit", killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query("create database rewards");
  await admin.end();
  return handle;
}
