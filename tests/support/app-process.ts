// The process harness: the application as a child process on a free port, waited for until
// /readyz answers, a verified manager signed up over HTTP, and small HTTP helpers. The fault and
// security tests (tests/fault, tests/security), the benchmark (scripts/bench.ts,
// scripts/bench/http-load.ts) and the load script (scripts/load.ts) all start the app this way.
//
// Two entries: the test entry (tests/support/app-entry.ts, the tiny test build, no
// `npm run build` needed) or, with `production: true`, the real process entry (server.ts) on the
// real build. Tests start it on a clean environment (PATH and HOME only); the scripts with
// `inheritEnv` pass their own environment on, so an operator's settings reach the app.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chargesFor } from "../../core/money.ts";
import { freePort } from "./net.ts";
import type { TestSmtpServer } from "./smtp.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const testEntry = fileURLToPath(new URL("./app-entry.ts", import.meta.url));
/** The production entry: server.ts bundled by `npm run build` (ADR 0024). */
const serverEntry = join(root, "build/server.js");
/** The node flags of a production process, from the one place they are set (package.json config.node_flags). */
export const PRODUCTION_NODE_FLAGS: string[] = (
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { config?: { node_flags?: string } }).config
    ?.node_flags ?? ""
)
  .split(" ")
  .filter(Boolean);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface AppProcess {
  base: string;
  child: ChildProcess;
  /** stderr + stdout so far (the last 20 kB); empty with `output: "inherit"`. */
  output(): string;
  /** Resolves when a line matching `pattern` appears on stderr (or has appeared). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` and waits for the exit, however long it takes. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL if the process is still there after `graceMs`; resolves on its exit. */
  stop(graceMs?: number): Promise<void>;
}

export interface LaunchOptions {
  /** The real process entry (server.ts) on the real `npm run build` instead of the test entry. */
  production?: boolean;
  /** Flags for the app's `node`, before the entry (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /** Start from this process's environment instead of PATH and HOME alone (the scripts). */
  inheritEnv?: boolean;
  /** "pipe" (default) keeps the output for output() and waitFor; "inherit" shares this terminal. */
  output?: "pipe" | "inherit";
  /** Each chunk of the piped output as it arrives (the load script scans the log with it). */
  onOutput?: (chunk: Buffer) => void;
  /**
   * The working directory (default: the project's root). The production entry loads React
   * Router's build and the client files from build/ under it (server.ts): the benchmark runs the
   * shipped server bundle on its own build this way (scripts/bench/build-floor.ts).
   */
  cwd?: string;
}

/**
 * Starts the application on a free port (or `env.PORT`); resolves once /readyz answers 200.
 * `env` goes over the defaults (loopback host, `APP_URL` = the base, LOG_LEVEL=warn, rate limits
 * ×1,000, a fixed session secret).
 */
export async function startApp(
  env: Record<string, string>,
  options: LaunchOptions & { readyWithinMs?: number } = {},
): Promise<AppProcess> {
  const app = await launchApp(env, options);
  await waitUntilReady(app, options.readyWithinMs);
  return app;
}

/**
 * Starts the application as startApp does but returns at once, ready or not: for a start that is
 * expected to fail (await `exited`), or several started together (then `waitUntilReady` each).
 */
export async function launchApp(env: Record<string, string>, options: LaunchOptions = {}): Promise<AppProcess> {
  const port = env.PORT ?? String(await freePort());
  const base = `http://127.0.0.1:${port}`;
  const inherited = options.inheritEnv ? process.env : { PATH: process.env.PATH, HOME: process.env.HOME };
  // The production entry runs with the flags `npm start` and the Dockerfile give it (package.json config.node_flags).
  const flags = options.nodeFlags ?? (options.production ? PRODUCTION_NODE_FLAGS : []);
  const child = spawn(process.execPath, [...flags, options.production ? serverEntry : testEntry], {
    cwd: options.cwd ?? root,
    env: {
      // Only variables a user sets too (docs/OPERATIONS.md "Configuration"): the entry settles NODE_ENV itself
      // (ADR 0024), and a harness that set it would hide a start that breaks without it.
      ...inherited,
      HOST: "127.0.0.1",
      PORT: port,
      APP_URL: base,
      LOG_LEVEL: "warn",
      RATE_LIMIT_FACTOR: "1000",
      // One process unless a test asks for workers (the default on PostgreSQL is one per core).
      WEB_CONCURRENCY: "1",
      SESSION_SECRET: "app-process-session-secret-0123456789abcdef",
      ...env,
    },
    stdio: options.output === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    options.onOutput?.(chunk);
    out = (out + chunk.toString()).slice(-20_000);
    for (const l of listeners) l();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
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
  return {
    base,
    child,
    output: () => out,
    waitFor,
    exited,
    async kill(signal = "SIGTERM") {
      if (!running()) return;
      child.kill(signal);
      await exited;
    },
    async stop(graceMs = 15_000) {
      if (!running()) return;
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      child.kill("SIGTERM");
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves once the app's /readyz answers 200; throws (and kills it) if it exits or takes too long. */
export async function waitUntilReady(app: AppProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (app.child.exitCode !== null) throw new Error(`the app exited (${app.child.exitCode}):\n${app.output()}`);
    try {
      if ((await fetch(`${app.base}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await app.kill("SIGKILL");
      throw new Error(`the app did not get ready within ${timeoutMs / 1000} s:\n${app.output()}`);
    }
    await sleep(100);
  }
}

/** Runs `npm run build` when there is no production build yet (`production: true` needs one). */
export function ensureProductionBuild(): void {
  if (existsSync(join(root, "build/server/index.js")) && existsSync(serverEntry)) return;
  console.log("No production build: running `npm run build`…");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
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

/** Who signs up: the Register body's person and company, and the company details saved after. */
export interface Registrant {
  firstName: string;
  lastName: string;
  companyName: string;
  password: string;
  captchaToken: string;
  company: { name: string; ABN: string; size: string; industry: string };
}

export const REGISTRANT: Registrant = {
  firstName: "Fault",
  lastName: "Tester",
  companyName: "Fault Co Pty Ltd",
  password: "Fault#Test-2026-pass",
  captchaToken: "x",
  company: { name: "Fault Co Pty Ltd", ABN: "53004085616", size: "11-50", industry: "Retail" },
};

export type SignUpStep = "Register" | "VerifyEmail" | "Companies";

/**
 * A verified manager with company details, over HTTP; the code comes from `codeOf(email)`
 * (the SMTP server's received mail, e.g. `verificationCodes(smtp)`). `as` overrides who signs up;
 * `call` makes each request instead of `ok` (the load script times each step with it) and must
 * throw when the step fails.
 */
export async function signUpOverHttp(
  base: string,
  email: string,
  codeOf: (email: string) => Promise<string>,
  options: {
    as?: Partial<Registrant>;
    call?: (step: SignUpStep, method: string, path: string, body: unknown, token?: string) => Promise<unknown>;
  } = {},
): Promise<{ userId: string; accessToken: string }> {
  const who = { ...REGISTRANT, ...options.as };
  const call = options.call ?? ((_step, method, path, body, token) => ok(base, method, path, body, token));
  const reg = (await call("Register", "POST", "/api/Register", {
    firstName: who.firstName,
    lastName: who.lastName,
    email,
    companyName: who.companyName,
    password: who.password,
    captchaToken: who.captchaToken,
    isCaptchaV3: true,
  })) as { userId: string; requestToken: string };
  const code = await codeOf(email);
  const { accessToken } = (await call("VerifyEmail", "POST", "/api/Identity/VerifyEmail", {
    userId: reg.userId,
    requestToken: reg.requestToken,
    verificationCode: code,
  })) as { accessToken: string };
  await call("Companies", "PUT", "/api/Companies/", who.company, accessToken);
  return { userId: reg.userId, accessToken };
}

/** `codeOf` for signUpOverHttp: the code in the verification email `smtp` received for the address. */
/**
 * An order awaiting payment, over HTTP: `amounts` become new members of the manager's draft
 * (member.<i>@example.com, in one bulk call), the draft is named, and a payment is created for it.
 */
export async function orderOverHttp(base: string, token: string, amounts: readonly number[], rewardName: string) {
  const rewards = amounts.map((value, i) => ({
    firstName: "Member",
    lastName: `Number${i}`,
    email: `member.${i}@example.com`,
    value,
  }));
  await ok(base, "POST", "/api/RewardMyTeam/bulk-upload-reward", { rewards }, token);
  await ok(base, "PUT", "/api/RewardMyTeam/update-reward-name", { name: rewardName }, token);
  const charges = chargesFor(amounts);
  const intent = await ok<{ paymentIntentId: string; clientSecret: string; orderId: number }>(
    base,
    "POST",
    "/api/StripePayment/create-payment-intent",
    { amount: Number(charges.totalCents) },
    token,
  );
  return { intent, charges };
}

export function verificationCodes(smtp: TestSmtpServer, timeoutMs = 30_000): (email: string) => Promise<string> {
  return async (email) => {
    let code: string | undefined;
    await until(
      () => {
        code = smtp.messages
          .filter((m) => m.to.includes(email))
          .map((m) => m.text && /Verification code: (\d{6})\b/.exec(m.text)?.[1])
          .find(Boolean);
        return Boolean(code);
      },
      timeoutMs,
      `the verification email to ${email}`,
    );
    return code as string;
  };
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
