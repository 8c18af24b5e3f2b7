// HTTP load benchmark: throughput and p50 / p99 latency of the real server
// under load (50 connections, 10 s per target; wrk where installed, else autocannon:
// scripts/bench/load-generator.ts), on PGlite (a data directory, as by default) and on a PostgreSQL
// server, with a bare Node HTTP server answering the same bytes as `/` as the ceiling, and the
// app's peak resident memory (VmHWM of its process). Needs `npm run build` (run first if missing).
// Targets: every public page as an anonymous visitor (scripts/bench/public-pages.ts), the
// signed-in Dashboard and My Team, the API's team list, and the framework floor.
//
// The floor (target `floor`, /bench-floor): the same React Router build and the same portal frame
// (root layout, portal header and navigation, footer) around the Dashboard's own components, fed
// with constants shaped and sized like what the Dashboard's loader returns for the manager made
// below: no session, no API call, no database (app/features/bench/: a layout route and its page,
// each with a loader, as /portal/dashboard is matched). Each
// signed-in page's server CPU per request is reported as a ratio to the floor's, measured in the
// same process in the same run the same way, because absolute milliseconds move by a third
// between days on a shared 2-core machine (docs/BENCHMARKS.md, "Reading the numbers").
// The floor route is kept out of production at build time: app/routes.ts adds it only when
// REWARDS_BENCH_FLOOR=1, which scripts/bench/build-floor.ts sets to build React Router's build
// into build-bench/build (react-router.config.ts), and `npm run build` clears (scripts/build.ts),
// so build/ never has it and the running server reads no variable for it. A run with the floor
// among its targets runs the shipped server bundle (build/server.js) in build-bench/ as its working
// directory, for every target, so the floor and the signed-in pages share one process and one
// build (the shipped one plus the floor's routes); build-bench/ is rebuilt when missing or older
// than build/. The floor is requested with the manager's cookies but a session cookie whose
// signature is not the app's: the edge takes the signed-in path (a nonce, the page streamed and
// compressed whole once, server/http/app.ts) while the session middleware finds no session
// without asking the database (app/lib/session.server.ts), so no CSRF token is made either.
//
// Workers: the signed-in pages (and the floor) on PostgreSQL with 2 (and 4) HTTP workers; their
// requests/s ÷ one worker's is divided by the same ratio of the ceiling served by two processes
// (node:cluster sharing one port, as the app's workers do: server/cluster.ts) ÷ one, so a
// machine whose load generator takes a core of two does not count against the app.
//
//   node scripts/bench/http-load.ts [--duration 10] [--connections 50] [--databases pglite,postgres]
//                                   [--targets landing,help,verify,dashboard,api-users,floor,…] [--profile]
//                                   [--node-flags=--max-semi-space-size=8] [--workers 2,4]
//
// How it runs, per database:
// - `node build/server.js` (the bundled server.ts) as a separate process (the process harness, tests/support/app-process.ts:
//   production build, LOG_LEVEL=warn, rate limits ×1e6, SMTP to a small SMTP server in this
//   process), so its memory can be read from /proc.
// - The signed-in program manager is made over HTTP as a person would: register, the code from
//   the email the SMTP server received, verify, company details, the onboarding video marked
//   watched, 40 team members (bulk upload), then the web login form (CSRF cookie + token, honeypot),
//   and a password reset request: the verify and reset pages load with its real link values.
// - Every request sends `accept-encoding: gzip, deflate, br, zstd` like a browser, so the app
//   compresses what it would compress for a browser and the figures include that work; the
//   ceiling answers the compressed bytes of `/` with the same content-type and content-encoding.
// - Each target is warmed up (2 s) before its measured run; the load generator, the app and the
//   ceiling each run in their own process (autocannon, the fallback, in this one).
// --profile starts the app with `--cpu-prof` (profiles in bench-results/profiles/) for digging.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type IncomingHttpHeaders, request } from "node:http";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import type { RewardHistoryPage } from "../../modules/identity/schema.ts";
import { SESSION_COOKIE_NAMES } from "../../modules/identity/session-cookie.ts";
import {
  type AppProcess,
  CARD,
  ensureProductionBuild,
  launchApp,
  ok,
  orderOverHttp,
  PRODUCTION_NODE_FLAGS,
  signUpOverHttp,
  until,
  verificationCodes,
  waitUntilReady,
} from "../../tests/support/app-process.ts";
import { freePort } from "../../tests/support/net.ts";
import { findPostgresBinaries, type PostgresServer, startPostgres } from "../../tests/support/postgres-server.ts";
import { createSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import { BENCH_BUILD_ROOT, ensureFloorBuild } from "./build-floor.ts";
import { LOAD_GENERATOR, type LoadGeneratorName, type LoadResult, runLoad } from "./load-generator.ts";
import {
  type AccountLinks,
  PUBLIC_PAGE_IDS,
  PUBLIC_PAGES,
  type PublicPageId,
  publicPageShown,
  publicPageUrl,
} from "./public-pages.ts";

export type TargetId =
  | PublicPageId
  | "dashboard"
  | "my-team"
  | "reward-my-team"
  | "settings"
  | "delivery"
  | "api-users"
  | "floor";
export type DatabaseKind = "pglite" | "postgres";

interface Target {
  label: string;
  /** As the report shows it. */
  path: string;
  /** floor: the manager's cookies with a session cookie the app did not sign (see the header). */
  auth: "none" | "cookie" | "bearer" | "floor";
  /** The address requested, when the manager's link values or release go in it. */
  url?: (manager: Pick<SignedInManager, "links" | "releaseId">) => string;
}

// The public pages without cookies, as a first visit; the verify and reset pages with the link values.
const PUBLIC_TARGETS = Object.fromEntries(
  PUBLIC_PAGE_IDS.map((id): [PublicPageId, Target] => [
    id,
    {
      label: PUBLIC_PAGES[id].label,
      path: publicPageShown(id),
      auth: "none",
      url: (manager) => publicPageUrl(id, manager.links),
    },
  ]),
) as Record<PublicPageId, Target>;

export const TARGETS: Record<TargetId, Target> = {
  ...PUBLIC_TARGETS,
  dashboard: { label: "Dashboard (signed in)", path: "/portal/dashboard", auth: "cookie" },
  "my-team": { label: "My Team (signed in)", path: "/portal/my-team", auth: "cookie" },
  "reward-my-team": { label: "Reward My Team (signed in)", path: "/portal/reward-my-team", auth: "cookie" },
  settings: { label: "Settings (signed in)", path: "/portal/settings", auth: "cookie" },
  delivery: {
    label: "A release's delivery page (signed in)",
    path: "/portal/rewards/{releaseId}",
    auth: "cookie",
    url: (manager) => `/portal/rewards/${manager.releaseId}`,
  },
  "api-users": { label: "API team list (bearer)", path: "/api/Users?pageNumber=1&pageSize=8", auth: "bearer" },
  floor: { label: "Floor: portal frame + Dashboard from constants", path: "/bench-floor", auth: "floor" },
};
export const TARGET_IDS = Object.keys(TARGETS) as TargetId[];
const isPublic = (target: string): boolean => Object.hasOwn(PUBLIC_PAGES, target);

/** What a browser sends; the app compresses for it (gzip), so the benchmark does too. */
export const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING ?? "gzip, deflate, br, zstd";
export const TEAM_MEMBERS = 40;
const WARM_UP_SECONDS = 2;

export interface LoadFigures {
  target: TargetId | "ceiling";
  label: string;
  path: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** CPU time the server process spent per completed request (user + system), in ms. */
  cpuMsPerRequest: number;
  /** Bytes per response on the wire (headers and body, as sent). */
  bytesPerResponse: number;
  /** requests/s ÷ the ceiling's requests/s. */
  ratioToCeiling: number;
  /**
   * A signed-in page's cpuMsPerRequest ÷ the floor's in the same run (the same database run, or
   * the same number of workers), to two decimals; null for other targets, or without the floor.
   */
  cpuRatioToFloor: number | null;
}

export interface DatabaseRun {
  database: DatabaseKind;
  /** e.g. "PGlite (data directory)" or "postgres (PostgreSQL) 17.6". */
  description: string;
  targets: LoadFigures[];
  /** The app process's peak resident memory under the load (VmHWM reset after the set-up), in MB. */
  peakRssMb: number;
  /** True when the peak could not be reset (then peakRssMb covers the start too). */
  peakIncludesStart: boolean;
  /** Its peak over the start and the set-up (migrations; PGlite's initdb for a new directory), in MB. */
  startPeakRssMb: number;
  /** Its resident memory right after the last target, in MB. */
  rssAfterMb: number;
}

export interface HttpFigures {
  /** What made the load (wrk where installed). */
  loadGenerator: LoadGeneratorName;
  connections: number;
  durationSeconds: number;
  acceptEncoding: string;
  /** Flags given to the app's node (none: as `node build/server.js` runs it). */
  nodeFlags: string[];
  ceiling: LoadFigures;
  /**
   * The ceiling served by two processes (node:cluster on one port, as the app's workers), measured
   * right after `ceiling`; its CPU is both processes' and the primary's. Absent without a worker run.
   */
  ceilingTwoProcesses?: LoadFigures;
  /** Compressed size of `/` as the ceiling answers it. */
  landingBytes: number;
  runs: DatabaseRun[];
  /** Databases asked for but not measured (no PostgreSQL binaries on the machine). */
  skipped: DatabaseKind[];
  /** The signed-in pages on PostgreSQL by number of workers (1 is the PostgreSQL run's). */
  workerRuns: WorkersRun[];
  /** Two workers against one, for each page of the worker runs (empty without a 2-worker run). */
  workerScaling: WorkerScaling[];
  /** Where React Router's build came from: build-bench/ (with the floor route) or build/. */
  buildDirectory: string;
}

/** Two workers against one on PostgreSQL, for one page, normalised by the ceiling's two processes against one. */
export interface WorkerScaling {
  target: LoadFigures["target"];
  path: string;
  /** The app's requests/s with two workers ÷ with one. */
  appSpeedup: number;
  /** The ceiling's requests/s with two processes ÷ with one (the same for every page). */
  ceilingSpeedup: number;
  /** appSpeedup ÷ ceilingSpeedup: 1 is scaling as well as a bare server does on this machine. */
  normalisedSpeedup: number;
  /** CPU per request with two workers ÷ with one (the whole process tree's). */
  cpuRatio: number;
}

export interface HttpOptions {
  durationSeconds?: number;
  connections?: number;
  databases?: DatabaseKind[];
  targets?: TargetId[];
  /** Start the app with --cpu-prof (profiles in bench-results/profiles/). */
  profile?: boolean;
  /** Flags for the app's `node`; unset: the production flags (package.json config.node_flags). */
  nodeFlags?: string[];
  /**
   * On PostgreSQL, also run the signed-in pages with these WEB_CONCURRENCY values above 1 (the
   * single-process run is the 1); default 2, and 4 where the machine has the cores.
   */
  workers?: number[];
  log?: (line: string) => void;
}

/** The signed-in pages at one WEB_CONCURRENCY on PostgreSQL. */
export interface WorkersRun {
  workers: number;
  targets: LoadFigures[];
  /** The largest peak resident memory (VmHWM) of one worker under the load, in MB. */
  peakWorkerRssMb: number;
}

/**
 * publicRatio: each public page's requests/s at least this share of the ceiling's. The signed-in
 * pages' CPU and the workers' scaling are ratios measured in the same run (see the header):
 * they replace the absolute targets of 2 ms (PostgreSQL) and 4 ms (PGlite) of CPU per request
 * and 1.7× one worker's requests/s with two, which moved with the machine's day.
 */
export const HTTP_TARGETS = {
  publicRatio: 0.4,
  signedInP99Ms: 100,
  /** Server CPU per signed-in page ÷ the floor's, in the same run. */
  signedInCpuToFloor: { postgres: 1.5, pglite: 2 } satisfies Record<DatabaseKind, number>,
  /** Peak resident memory under the load: each worker on PostgreSQL, the one PGlite process. */
  memoryMb: { postgres: 200, pglite: 400 } satisfies Record<DatabaseKind, number>,
  /** Two workers' requests/s ÷ one's, divided by the ceiling's two processes ÷ one: at least this. */
  twoWorkerNormalisedSpeedup: 0.9,
  /** CPU per request with two workers ÷ with one: at most this. */
  twoWorkerCpuRatio: 1.1,
} as const;

// --- processes ----------------------------------------------------------------------------------

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * `node build/server.js` on the production build, its output on this terminal; in `cwd` (the
 * floor's build-bench/, scripts/bench/build-floor.ts) it serves the React Router build there.
 */
export async function startApp(
  databaseUrl: string,
  smtpUrl: string,
  profile: boolean,
  nodeFlags: string[],
  workers = 1,
  cwd?: string,
  /** Sees the app's output (then piped, not inherited): the soak counts the errors it logs. */
  onOutput?: (chunk: Buffer) => void,
): Promise<AppProcess> {
  // Absolute: the app's working directory may be build-bench/.
  const profileDir = resolve("bench-results", "profiles");
  if (profile) mkdirSync(profileDir, { recursive: true });
  const flags = [...nodeFlags, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])];
  const port = await freePort();
  return launchApp(
    {
      PORT: String(port),
      APP_URL: `http://localhost:${port}`,
      DATABASE_URL: databaseUrl,
      RATE_LIMIT_FACTOR: "1000000",
      SMTP_URL: smtpUrl,
      STRIPE_SECRET_KEY: "",
      RECAPTCHA_V3_SITE_KEY: "",
      RECAPTCHA_V3_SECRET_KEY: "",
      RECAPTCHA_V2_SITE_KEY: "",
      RECAPTCHA_V2_SECRET_KEY: "",
      WEB_CONCURRENCY: String(workers),
    },
    {
      production: true,
      inheritEnv: true,
      nodeFlags: flags,
      ...(onOutput ? { onOutput } : { output: "inherit" }),
      ...(cwd ? { cwd } : {}),
    },
  );
}

/** Resets a process's VmHWM to its current resident size (Linux: "5" to /proc/<pid>/clear_refs). */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** User + system CPU time of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The process and its children (a cluster's workers), by scanning /proc for their parent. */
export function processTree(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return [pid, ...children];
}

/** User + system CPU time of a process and its children so far, in ms. */
function treeCpuMsOf(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + cpuMsOf(p), 0);
}

/** VmHWM and VmRSS of a process, in MB (Linux /proc). */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { peakMb: Math.round(kb("VmHWM") / 1024), rssMb: Math.round(kb("VmRSS") / 1024) };
}

/**
 * A bare Node HTTP server answering `body` with `headers` to every request, in its own process;
 * with `processes` above 1, that many node:cluster workers sharing the port under a primary, as
 * the app's workers do (server/cluster.ts), so the two scale on the same mechanism.
 */
async function startCeiling(
  body: Buffer,
  headers: Record<string, string>,
  processes = 1,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const file = join(tmpdir(), `rewards-ceiling-${process.pid}-${processes}.json`);
  writeFileSync(file, JSON.stringify({ body: body.toString("base64"), headers }));
  const script = `
    import cluster from "node:cluster";
    import { createServer } from "node:http";
    import { readFileSync } from "node:fs";
    const processes = ${processes};
    if (processes > 1 && cluster.isPrimary) {
      let listening = 0;
      for (let i = 0; i < processes; i++) cluster.fork();
      cluster.on("listening", () => { if (++listening === processes) console.log("ready"); });
      process.on("SIGTERM", () => {
        for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
        process.exit(0);
      });
    } else {
      const spec = JSON.parse(readFileSync(process.env.CEILING_FILE, "utf8"));
      const body = Buffer.from(spec.body, "base64");
      const headers = { ...spec.headers, "content-length": String(body.length) };
      const server = createServer((req, res) => { res.writeHead(200, headers); res.end(body); });
      server.keepAliveTimeout = 65000;
      server.listen(${port}, "127.0.0.1", () => { if (processes === 1) console.log("ready"); });
      process.on("SIGTERM", () => process.exit(0));
    }
  `;
  // A file, not `node -e`: node:cluster forks its workers from the main script's path.
  const scriptFile = join(tmpdir(), `rewards-ceiling-${process.pid}-${processes}.mjs`);
  writeFileSync(scriptFile, script);
  const child = spawn(process.execPath, [scriptFile], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, CEILING_FILE: file },
  });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the ceiling server exited with status ${code}`)));
    child.stdout?.once("data", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid ?? 0,
    stop: async () => {
      await stopProcess(child);
      rmSync(file, { force: true });
      rmSync(scriptFile, { force: true });
    },
  };
}

// --- the signed-in manager, over HTTP ------------------------------------------------------------

class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(name: string) {
    return this.cookies.has(name);
  }
}

const PASSWORD = "Bench#2024-load-run";

async function api(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Response> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** The hidden and visible inputs of the first form posting to `action` in `html`. */
function formInputs(html: string): Map<string, string> {
  const inputs = new Map<string, string>();
  for (const tag of html.match(/<input\b[^>]*>/g) ?? []) {
    const name = /\bname="([^"]*)"/.exec(tag)?.[1];
    if (!name) continue;
    const value = /\bvalue="([^"]*)"/.exec(tag)?.[1] ?? "";
    inputs.set(
      name,
      value
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&#x27;|&#39;/g, "'"),
    );
  }
  return inputs;
}

export interface SignedInManager {
  email: string;
  accessToken: string;
  /** The Cookie header of the manager's browser after the web login (session and CSRF cookies). */
  cookie: string;
  /** The verify link's values from the sign-up, the reset link's from a reset request. */
  links: AccountLinks;
  /** The release of the one order the manager paid (its delivery page is a target). */
  releaseId: number;
}

export async function signInManagerOverHttp(base: string, smtp: TestSmtpServer): Promise<SignedInManager> {
  // Unique across set-ups that sign up at once against one SMTP server (the soak).
  const email = `bench.manager.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  let registered: { userId: string; requestToken: string } | undefined;
  const { accessToken: token } = await signUpOverHttp(base, email, verificationCodes(smtp), {
    // Keeps Register's answer: the verify page's link carries its userId and requestToken.
    call: async (step, method, path, body, bearer) => {
      const answer = await ok(base, method, path, body, bearer);
      if (step === "Register") registered = answer as typeof registered;
      return answer;
    },
    as: {
      firstName: "Bench",
      lastName: "Manager",
      companyName: "Bench Pty Ltd",
      password: PASSWORD,
      captchaToken: "bench",
      company: { name: "Bench Pty Ltd", ABN: "51 824 753 556", size: "11-50", industry: "Retail" },
    },
  });
  await api(base, "POST", "/api/Identity/onboarding-video-watched", {}, token);
  const users = Array.from({ length: TEAM_MEMBERS }, (_, i) => ({
    firstName: `Member${i + 1}`,
    lastName: `Surname ${i + 1}`,
    email: `member.${i + 1}.${Date.now()}@example.com`,
  }));
  await api(base, "POST", "/api/Users/create-user-bulk-upload", { users }, token);
  // One paid order, released: the Dashboard then shows a history row and a month of spend, and
  // the release has a delivery page. Paid with the simulated card processor (no STRIPE_SECRET_KEY).
  const { intent } = await orderOverHttp(base, token, [50, 25, 10], "Bench thank-you");
  await ok(
    base,
    "POST",
    "/api/StripePayment/confirm-simulated-payment",
    { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
    token,
  );
  await ok(base, "POST", "/api/StripePayment/check-payment-intent", { paymentIntent: intent.paymentIntentId }, token);
  let releaseId: number | null = null;
  await until(
    async () => {
      const page = await ok<RewardHistoryPage>(
        base,
        "GET",
        "/api/RewardHistory?pageNumber=1&pageSize=20",
        undefined,
        token,
      );
      releaseId = page.items[0]?.rewardReleaseId ?? null;
      return releaseId !== null;
    },
    30_000,
    "the bench order released",
  );

  // The web login, as a browser without JavaScript does it.
  const jar = new CookieJar();
  const page = await fetch(`${base}/corporate/login`);
  jar.take(page);
  const inputs = formInputs(await page.text());
  const emailField = [...inputs.keys()].find((n) => /email|user/i.test(n));
  const passwordField = [...inputs.keys()].find((n) => /password/i.test(n));
  if (!emailField || !passwordField)
    throw new Error(`no email/password inputs on the login page: ${[...inputs.keys()]}`);
  inputs.set(emailField, email);
  inputs.set(passwordField, PASSWORD);
  const posted = await fetch(`${base}/corporate/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: base },
    body: new URLSearchParams([...inputs]).toString(),
  });
  jar.take(posted);
  if (posted.status !== 302 && posted.status !== 303) {
    throw new Error(`the web login answered ${posted.status}: ${(await posted.text()).slice(0, 300)}`);
  }
  const cookie = jar.header();
  const check = await fetch(`${base}/portal/my-team`, { headers: { cookie }, redirect: "manual" });
  const html = await check.text();
  if (check.status !== 200 || !html.includes("Member1")) {
    throw new Error(`My Team as the bench manager answered ${check.status} without its members`);
  }
  if (!registered) throw new Error("Register answered no userId / requestToken");
  // Only completing a reset changes the password: requesting one leaves the login above valid.
  const passwordResetToken = await resetTokenOverHttp(base, smtp, email);
  if (releaseId === null) throw new Error("the bench order was not released");
  return {
    email,
    accessToken: token,
    cookie,
    links: { userId: registered.userId, requestToken: registered.requestToken, passwordResetToken },
    releaseId,
  };
}

/** Asks for a password reset and reads the token from the link in the email `smtp` receives. */
async function resetTokenOverHttp(base: string, smtp: TestSmtpServer, email: string): Promise<string> {
  await api(base, "POST", "/api/Identity/ResetPasswordRequest", { email });
  let token: string | undefined;
  await until(
    () => {
      token = smtp.messages
        .filter((m) => m.to.includes(email))
        .map((m) => m.text && /\/corporate\/forgot-password\?passwordResetToken=([^\s&"<>]+)/.exec(m.text)?.[1])
        .find(Boolean);
      return Boolean(token);
    },
    30_000,
    `the password reset email to ${email}`,
  );
  return decodeURIComponent(token as string);
}

/**
 * The floor's Cookie header: the manager's, with the session cookie's value replaced by one the
 * app did not sign. The edge sees a session cookie and renders the page as for a signed-in
 * visitor (server/http/app.ts); the session middleware's signature check refuses it before any
 * database read (verifiedSessionId, app/lib/session.server.ts), so the request has no session.
 */
export function floorCookie(managerCookie: string): string {
  let replaced = false;
  const pairs = managerCookie.split("; ").map((pair) => {
    const name = pair.slice(0, pair.indexOf("="));
    if (!(SESSION_COOKIE_NAMES as readonly string[]).includes(name)) return pair;
    replaced = true;
    return `${name}=bench-floor.not-signed-by-the-app`;
  });
  if (!replaced) throw new Error(`no session cookie (${SESSION_COOKIE_NAMES.join(" or ")}) in the manager's cookies`);
  return pairs.join("; ");
}

/** Headers of a request to `t` as the manager (or as the floor's visitor). */
export function headersFor(
  t: Target,
  manager: Pick<SignedInManager, "cookie" | "accessToken">,
): Record<string, string> {
  const headers: Record<string, string> = { "accept-encoding": ACCEPT_ENCODING };
  if (t.auth === "cookie") headers.cookie = manager.cookie;
  if (t.auth === "floor") headers.cookie = floorCookie(manager.cookie);
  if (t.auth === "bearer") headers.authorization = `Bearer ${manager.accessToken}`;
  return headers;
}

/**
 * Refuses a floor page that is not what it stands for: a 200 with the portal frame (the header's
 * greeting, the navigation, the footer) and the Dashboard's sections, setting no cookie.
 */
async function checkFloor(base: string, manager: Pick<SignedInManager, "cookie" | "accessToken">): Promise<void> {
  const res = await fetch(base + TARGETS.floor.path, {
    headers: headersFor(TARGETS.floor, manager),
    redirect: "manual",
  });
  const html = await res.text();
  const missing = ["Welcome", "Bench", "My Team", "Reward My Team", "Your Reward Spend", "Most Recent Reward History"]
    .filter((text) => !html.includes(text))
    .concat(res.headers.getSetCookie().length ? ["(it sets a cookie)"] : []);
  if (res.status !== 200 || missing.length)
    throw new Error(
      `${TARGETS.floor.path} answered ${res.status} without ${missing.join(", ")}: is build-bench/ the floor's build?`,
    );
}

// --- load ----------------------------------------------------------------------------------------

function load(url: string, headers: Record<string, string>, connections: number, durationSeconds: number) {
  return runLoad({ url, headers, connections, durationSeconds });
}

/** A short run at full load (JIT, caches), then one request that waits for the server to catch up. */
async function warmUp(url: string, headers: Record<string, string>, connections: number) {
  await load(url, headers, connections, WARM_UP_SECONDS);
  await (await fetch(url, { headers })).arrayBuffer();
}

function figures(
  target: LoadFigures["target"],
  label: string,
  path: string,
  result: LoadResult,
  ceilingRps: number,
  cpuMs: number,
): LoadFigures {
  const completed = result.requests;
  const rps = Math.round((completed / result.durationSeconds) * 10) / 10;
  return {
    target,
    label,
    path,
    requestsPerSecond: rps,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    maxMs: result.maxMs,
    requests: completed,
    errors: result.errors,
    cpuMsPerRequest: completed ? Math.round((cpuMs / completed) * 100) / 100 : 0,
    non2xx: result.non2xx,
    bytesPerResponse: completed ? Math.round(result.bytes / completed) : 0,
    ratioToCeiling: ceilingRps ? Math.round((rps / ceilingRps) * 1000) / 1000 : 0,
    cpuRatioToFloor: null,
  };
}

/**
 * Sets each signed-in page's CPU ratio to the floor's among `targets`: the floor stands for them
 * (a public page comes from the page cache, the API answers JSON), so the others stay null.
 */
function setFloorRatios(targets: LoadFigures[]): void {
  const floor = targets.find((t) => t.target === "floor");
  if (!floor || floor.cpuMsPerRequest <= 0) return;
  for (const t of targets)
    if (SIGNED_IN.has(t.target))
      t.cpuRatioToFloor = Math.round((t.cpuMsPerRequest / floor.cpuMsPerRequest) * 100) / 100;
}

/** A PostgreSQL server of the machine's binaries, started for a benchmark, with one empty database `name`. */
export async function postgresDatabase(
  name = "bench_http",
): Promise<{ url: string; description: string; stop(): Promise<void> }> {
  const binDir = findPostgresBinaries();
  if (!binDir) throw new Error("no PostgreSQL binaries (install Debian's `postgresql` package or set POSTGRES_BIN)");
  const server: PostgresServer = await startPostgres(binDir);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), description: server.version, stop: () => server.stop() };
}

export async function benchHttp(options: HttpOptions = {}): Promise<HttpFigures> {
  const duration = options.durationSeconds ?? 10;
  const connections = options.connections ?? 50;
  const databases = options.databases ?? ["pglite", "postgres"];
  const targetIds = options.targets ?? TARGET_IDS;
  const unknown = targetIds.filter((id) => !Object.hasOwn(TARGETS, id));
  if (unknown.length) throw new Error(`unknown targets ${unknown.join(", ")}; known: ${TARGET_IDS.join(", ")}`);
  const log = options.log ?? ((line: string) => console.log(line));
  ensureProductionBuild();
  // The floor is only in the benchmark's own build: then every target runs on it (see the header).
  const withFloor = targetIds.includes("floor");
  if (withFloor) ensureFloorBuild();
  const appCwd = withFloor ? BENCH_BUILD_ROOT : undefined;

  const smtp = await createSmtpServer();
  const runs: DatabaseRun[] = [];
  const workerRuns: WorkersRun[] = [];
  const workerCounts = (options.workers ?? (availableParallelism() >= 4 ? [2, 4] : [2])).filter((w) => w > 1);
  const skipped: DatabaseKind[] = [];
  let ceiling: LoadFigures | undefined;
  let ceilingTwoProcesses: LoadFigures | undefined;
  const measureTwoProcesses =
    workerCounts.includes(2) && databases.includes("postgres") && findPostgresBinaries() !== undefined;
  let landingBytes = 0;
  try {
    for (const kind of databases) {
      if (kind === "postgres" && !findPostgresBinaries()) {
        log("  PostgreSQL skipped: no binaries (install Debian's `postgresql` package or set POSTGRES_BIN)");
        skipped.push("postgres");
        continue;
      }
      const pgServer = kind === "postgres" ? await postgresDatabase() : undefined;
      // PGlite as the app runs by default: on a data directory (memory:// keeps every table file
      // in the JavaScript heap as well, which is not what a deployment measures).
      const pgliteDir = kind === "pglite" ? mkdtempSync(join(tmpdir(), "rewards-bench-pglite-")) : undefined;
      const app = await startApp(
        pgServer?.url ?? (pgliteDir as string),
        smtp.url,
        options.profile ?? false,
        options.nodeFlags ?? PRODUCTION_NODE_FLAGS,
        1,
        appCwd,
      );
      const base = app.base;
      try {
        await waitUntilReady(app, 180_000);
        const manager = await signInManagerOverHttp(base, smtp);
        const urlOf = (t: Target) => base + (t.url ? t.url(manager) : t.path);
        // A redirect (e.g. a link value the loader refuses) would measure the wrong page.
        for (const id of targetIds.filter(isPublic)) {
          const res = await fetch(urlOf(TARGETS[id]), { redirect: "manual" });
          await res.arrayBuffer();
          if (res.status !== 200)
            throw new Error(`${TARGETS[id].path} answered ${res.status} ${res.headers.get("location") ?? ""}`);
        }
        if (withFloor) await checkFloor(base, manager);
        const pid = app.child.pid;
        if (!pid) throw new Error("no pid for the app process");
        const started = memoryOf(pid);
        log(`  ${kind} app memory after start and set-up: peak ${started.peakMb} MB, ${started.rssMb} MB now`);
        // The start (PGlite's initdb) has its own peak: measure the load's from here.
        const peakReset = resetPeak(pid);

        if (!ceiling) {
          // The ceiling: the exact bytes `/` answers a browser, from a bare Node server.
          const raw = await rawGet(`${base}/`, { "accept-encoding": ACCEPT_ENCODING });
          if (raw.status !== 200) throw new Error(`/ answered ${raw.status}`);
          landingBytes = raw.body.length;
          const encoding = raw.headers["content-encoding"];
          const headers: Record<string, string> = {
            "content-type": String(raw.headers["content-type"] ?? "text/html"),
          };
          if (typeof encoding === "string") headers["content-encoding"] = encoding;
          // One process, then (for the workers' scaling) two on one port, one right after the other.
          for (const processes of measureTwoProcesses ? [1, 2] : [1]) {
            const server = await startCeiling(raw.body, headers, processes);
            try {
              await warmUp(server.url, { "accept-encoding": ACCEPT_ENCODING }, connections);
              const cpu0 = treeCpuMsOf(server.pid);
              const result = await load(server.url, { "accept-encoding": ACCEPT_ENCODING }, connections, duration);
              const cpu = treeCpuMsOf(server.pid) - cpu0;
              const label =
                processes === 1
                  ? "Ceiling: bare node:http, the bytes of /"
                  : `Ceiling: bare node:http, ${processes} processes (node:cluster), the bytes of /`;
              const f = figures("ceiling", label, "/", result, ceiling?.requestsPerSecond ?? 0, cpu);
              if (processes === 1) {
                f.ratioToCeiling = 1;
                ceiling = f;
              } else ceilingTwoProcesses = f;
              log(
                `  ceiling ×${processes}: ${f.requestsPerSecond} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, CPU ${f.cpuMsPerRequest} ms/request (${landingBytes} bytes, ${encoding ?? "identity"})`,
              );
            } finally {
              await server.stop();
            }
          }
        }
        if (!ceiling) throw new Error("the ceiling was not measured");

        // Every target warmed up once before any is measured, so the first one measured does not
        // pay for the compiler's first passes over code they all share (the same page read up to a
        // seventh cheaper when measured a second time in one run).
        for (const id of targetIds) await warmUp(urlOf(TARGETS[id]), headersFor(TARGETS[id], manager), connections);
        const targets: LoadFigures[] = [];
        for (const id of targetIds) {
          const t = TARGETS[id];
          const headers = headersFor(t, manager);
          await warmUp(urlOf(t), headers, connections);
          const cpu0 = cpuMsOf(pid);
          const result = await load(urlOf(t), headers, connections, duration);
          const f = figures(id, t.label, t.path, result, ceiling.requestsPerSecond, cpuMsOf(pid) - cpu0);
          targets.push(f);
          const m = memoryOf(pid);
          log(
            `  ${kind} ${t.path}: ${f.requestsPerSecond} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, CPU ${f.cpuMsPerRequest} ms/request, errors ${f.errors}, non-2xx ${f.non2xx}, ${Math.round(f.ratioToCeiling * 100)} % of the ceiling (app peak ${m.peakMb} MB, now ${m.rssMb} MB)`,
          );
        }
        setFloorRatios(targets);
        for (const t of targets)
          if (t.cpuRatioToFloor !== null) log(`  ${kind} ${t.path}: CPU ${t.cpuRatioToFloor}× the floor's`);
        // Let the requests the load generator left in flight finish before the server stops.
        await (await fetch(`${base}/readyz`)).arrayBuffer();
        await new Promise((r) => setTimeout(r, 500));
        const memory = memoryOf(pid);
        log(`  ${kind} app memory: peak ${memory.peakMb} MB, ${memory.rssMb} MB after the load`);
        if (kind === "postgres" && pgServer) {
          const signedIn = targets.filter((t) => IN_WORKER_RUNS.has(t.target));
          workerRuns.push({ workers: 1, targets: signedIn, peakWorkerRssMb: memory.peakMb });
          await app.stop();
          for (const workers of workerCounts) {
            workerRuns.push(
              await benchWorkers(
                workers,
                pgServer.url,
                smtp.url,
                manager,
                ceiling,
                targetIds,
                appCwd,
                options,
                connections,
                duration,
                log,
              ),
            );
          }
        }
        runs.push({
          database: kind,
          description: kind === "pglite" ? "PGlite (data directory)" : (pgServer?.description ?? "PostgreSQL"),
          targets,
          peakRssMb: memory.peakMb,
          peakIncludesStart: !peakReset,
          startPeakRssMb: started.peakMb,
          rssAfterMb: memory.rssMb,
        });
      } finally {
        await app.stop();
        await pgServer?.stop();
        if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
      }
    }
  } finally {
    await smtp.stop();
  }
  if (!ceiling) throw new Error("no database run: nothing measured");
  const figuresSoFar = { ceiling, ceilingTwoProcesses, workerRuns };
  return {
    ...(ceilingTwoProcesses ? { ceilingTwoProcesses } : {}),
    workerScaling: workerScalingOf(figuresSoFar),
    buildDirectory: withFloor ? "build-bench/build" : "build",
    loadGenerator: LOAD_GENERATOR,
    connections,
    durationSeconds: duration,
    acceptEncoding: ACCEPT_ENCODING,
    nodeFlags: options.nodeFlags ?? PRODUCTION_NODE_FLAGS,
    ceiling,
    landingBytes,
    runs,
    skipped,
    workerRuns,
  };
}

/**
 * The signed-in pages with `workers` HTTP workers on the PostgreSQL database the single-process
 * run used (the manager's session is in it): requests/s, latency, CPU of the whole process tree.
 */
async function benchWorkers(
  workers: number,
  databaseUrl: string,
  smtpUrl: string,
  manager: Pick<SignedInManager, "cookie" | "accessToken">,
  ceiling: LoadFigures,
  targetIds: readonly TargetId[],
  appCwd: string | undefined,
  options: HttpOptions,
  connections: number,
  duration: number,
  log: (line: string) => void,
): Promise<WorkersRun> {
  const app = await startApp(databaseUrl, smtpUrl, false, options.nodeFlags ?? PRODUCTION_NODE_FLAGS, workers, appCwd);
  try {
    await waitUntilReady(app, 180_000);
    // Ready once every worker listens (/readyz names them).
    await until(
      async () => {
        const body = (await (await fetch(`${app.base}/readyz`)).json()) as { workers?: { listening: number } };
        return body.workers?.listening === workers;
      },
      60_000,
      `${workers} workers listening`,
    );
    const pid = app.child.pid;
    if (!pid) throw new Error("no pid for the app process");
    for (const worker of processTree(pid).slice(1)) resetPeak(worker);
    const measured = targetIds.filter((t) => IN_WORKER_RUNS.has(t));
    // Each warmed up once before any is measured, as in the single-process run.
    for (const id of measured) await warmUp(app.base + TARGETS[id].path, headersFor(TARGETS[id], manager), connections);
    const targets: LoadFigures[] = [];
    // The signed-in pages and the floor, as the single-process run measured them.
    for (const id of measured) {
      const t = TARGETS[id];
      const headers = headersFor(t, manager);
      await warmUp(app.base + t.path, headers, connections);
      const cpu0 = treeCpuMsOf(pid);
      const result = await load(app.base + t.path, headers, connections, duration);
      const f = figures(id, t.label, t.path, result, ceiling.requestsPerSecond, treeCpuMsOf(pid) - cpu0);
      targets.push(f);
      log(
        `  postgres ×${workers} workers ${t.path}: ${f.requestsPerSecond} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, CPU ${f.cpuMsPerRequest} ms/request, non-2xx ${f.non2xx}`,
      );
    }
    setFloorRatios(targets);
    const peakWorkerRssMb = Math.max(
      ...processTree(pid)
        .slice(1)
        .map((w) => memoryOf(w).peakMb),
    );
    return { workers, targets, peakWorkerRssMb };
  } finally {
    await app.stop();
  }
}

/** GET without decoding the body (fetch would decompress it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

// --- report --------------------------------------------------------------------------------------

const SIGNED_IN: ReadonlySet<string> = new Set(["dashboard", "my-team", "reward-my-team", "settings", "delivery"]);
/** What the worker runs measure: the two busiest signed-in pages and their floor. */
const IN_WORKER_RUNS: ReadonlySet<string> = new Set(["dashboard", "my-team", "floor"]);

/** The CPU ratio verdict of a signed-in page, e.g. "CPU ≤ 1.5× the floor: met". */
function cpuVerdict(database: DatabaseKind, t: LoadFigures): string {
  const limit = HTTP_TARGETS.signedInCpuToFloor[database];
  if (t.cpuRatioToFloor === null) return `CPU ≤ ${limit}× the floor: floor not measured`;
  return `CPU ≤ ${limit}× the floor: ${t.cpuRatioToFloor <= limit ? "met" : "**missed**"}`;
}

/** The targets (docs/BENCHMARKS.md) this run missed, e.g. ["pglite /portal/dashboard p99 140 ms ≥ 100 ms"]. */
export function httpMisses(f: HttpFigures): string[] {
  const misses: string[] = f.skipped.map((d) => `${d} not measured (no server binaries)`);
  for (const run of f.runs) {
    for (const t of run.targets) {
      if (t.requests === 0) misses.push(`${run.database} ${t.path}: no request completed`);
      if (t.errors || t.non2xx) misses.push(`${run.database} ${t.path}: ${t.errors} errors, ${t.non2xx} non-2xx`);
      if (isPublic(t.target) && t.ratioToCeiling < HTTP_TARGETS.publicRatio)
        misses.push(`${run.database} ${t.path} at ${Math.round(t.ratioToCeiling * 100)} % of the ceiling (< 40 %)`);
      if (SIGNED_IN.has(t.target) && t.p99Ms >= HTTP_TARGETS.signedInP99Ms)
        misses.push(`${run.database} ${t.path} p99 ${t.p99Ms} ms (≥ 100 ms)`);
      const limit = HTTP_TARGETS.signedInCpuToFloor[run.database];
      if (SIGNED_IN.has(t.target) && t.cpuRatioToFloor !== null && t.cpuRatioToFloor > limit)
        misses.push(`${run.database} ${t.path} CPU ${t.cpuRatioToFloor}× the floor's per request (> ${limit}×)`);
    }
    const memoryTarget = HTTP_TARGETS.memoryMb[run.database];
    if (run.peakRssMb >= memoryTarget)
      misses.push(`${run.database} peak memory ${run.peakRssMb} MB (≥ ${memoryTarget} MB)`);
  }
  for (const run of f.workerRuns) {
    for (const t of run.targets) {
      if (SIGNED_IN.has(t.target) && t.p99Ms >= HTTP_TARGETS.signedInP99Ms)
        misses.push(`postgres ×${run.workers} ${t.path} p99 ${t.p99Ms} ms (≥ 100 ms)`);
    }
    if (run.workers > 1 && run.peakWorkerRssMb >= HTTP_TARGETS.memoryMb.postgres)
      misses.push(
        `postgres ×${run.workers} peak memory per worker ${run.peakWorkerRssMb} MB (≥ ${HTTP_TARGETS.memoryMb.postgres} MB)`,
      );
  }
  for (const s of f.workerScaling) {
    if (!SIGNED_IN.has(s.target)) continue;
    if (s.normalisedSpeedup < HTTP_TARGETS.twoWorkerNormalisedSpeedup)
      misses.push(
        `postgres ×2 ${s.path} at ${s.appSpeedup}× one worker, ${s.normalisedSpeedup} of the ceiling's ${s.ceilingSpeedup}× (< ${HTTP_TARGETS.twoWorkerNormalisedSpeedup})`,
      );
    if (s.cpuRatio > HTTP_TARGETS.twoWorkerCpuRatio)
      misses.push(
        `postgres ×2 ${s.path} CPU per request ${s.cpuRatio}× one worker's (> ${HTTP_TARGETS.twoWorkerCpuRatio}×)`,
      );
  }
  return misses;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * Two workers against one for each page measured in both runs: requests/s and CPU per request,
 * the requests/s ratio divided by the ceiling's two processes against one.
 */
export function workerScalingOf(
  f: Pick<HttpFigures, "ceiling" | "ceilingTwoProcesses" | "workerRuns">,
): WorkerScaling[] {
  const one = f.workerRuns.find((r) => r.workers === 1);
  const two = f.workerRuns.find((r) => r.workers === 2);
  const ceilingTwo = f.ceilingTwoProcesses;
  if (!one || !two || !ceilingTwo || f.ceiling.requestsPerSecond === 0) return [];
  const ceilingSpeedup = ceilingTwo.requestsPerSecond / f.ceiling.requestsPerSecond;
  const scaling: WorkerScaling[] = [];
  for (const t2 of two.targets) {
    const t1 = one.targets.find((t) => t.target === t2.target);
    if (!t1 || t1.requestsPerSecond === 0 || t1.cpuMsPerRequest === 0) continue;
    const appSpeedup = t2.requestsPerSecond / t1.requestsPerSecond;
    scaling.push({
      target: t2.target,
      path: t2.path,
      appSpeedup: round2(appSpeedup),
      ceilingSpeedup: round2(ceilingSpeedup),
      normalisedSpeedup: round2(appSpeedup / ceilingSpeedup),
      cpuRatio: round2(t2.cpuMsPerRequest / t1.cpuMsPerRequest),
    });
  }
  return scaling;
}

/** A worker run's requests/s for `target` over the single-process run's, to two decimals. */
function speedupOf(f: HttpFigures, workers: number, target: LoadFigures["target"]): number | undefined {
  const one = f.workerRuns.find((r) => r.workers === 1)?.targets.find((t) => t.target === target);
  const many = f.workerRuns.find((r) => r.workers === workers)?.targets.find((t) => t.target === target);
  if (!one || !many || one.requestsPerSecond === 0 || workers === 1) return undefined;
  return round2(many.requestsPerSecond / one.requestsPerSecond);
}

const n = (v: number) => v.toLocaleString("en-AU", { maximumFractionDigits: 1 });
const ratio = (v: number | null) => (v === null ? "" : `${v}×`);

/** The Markdown table of a run, for docs/BENCHMARKS.md. */
export function httpTable(f: HttpFigures): string {
  const lines = [
    "| database | target | requests/s | p50 | p99 | max | errors / non-2xx | server CPU per request | CPU ÷ the floor's | bytes per response | ratio to the ceiling | target |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    `| none | ${f.ceiling.label} | ${n(f.ceiling.requestsPerSecond)} | ${f.ceiling.p50Ms} ms | ${f.ceiling.p99Ms} ms | ${f.ceiling.maxMs} ms | ${f.ceiling.errors} / ${f.ceiling.non2xx} | ${f.ceiling.cpuMsPerRequest} ms | | ${n(f.ceiling.bytesPerResponse)} | 100 % | |`,
  ];
  for (const run of f.runs) {
    for (const t of run.targets) {
      let verdict = "";
      if (t.requests === 0) verdict = "**missed**: no request completed";
      else if (isPublic(t.target))
        verdict = `≥ 40 %: ${t.ratioToCeiling >= HTTP_TARGETS.publicRatio ? "met" : "**missed**"}`;
      else if (SIGNED_IN.has(t.target))
        verdict = `p99 < 100 ms: ${t.p99Ms < HTTP_TARGETS.signedInP99Ms ? "met" : "**missed**"}; ${cpuVerdict(run.database, t)}`;
      else if (t.target === "floor") verdict = "the floor (1×)";
      lines.push(
        `| ${run.description} | ${t.label} \`${t.path}\` | ${n(t.requestsPerSecond)} | ${t.p50Ms} ms | ${t.p99Ms} ms | ${t.maxMs} ms | ${t.errors} / ${t.non2xx} | ${t.cpuMsPerRequest} ms | ${ratio(t.cpuRatioToFloor)} | ${n(t.bytesPerResponse)} | ${Math.round(t.ratioToCeiling * 100)} % | ${verdict} |`,
      );
    }
  }
  lines.push(
    "",
    "| database | app peak resident memory under the load (VmHWM) | resident after the load | peak during the start and set-up | target (under the load) |",
    "|---|--:|--:|--:|---|",
  );
  for (const run of f.runs) {
    lines.push(
      `| ${run.description} | ${run.peakRssMb} MB${run.peakIncludesStart ? " (start included)" : ""} | ${run.rssAfterMb} MB | ${run.startPeakRssMb} MB | < ${HTTP_TARGETS.memoryMb[run.database]} MB: ${run.peakRssMb < HTTP_TARGETS.memoryMb[run.database] ? "met" : "**missed**"} |`,
    );
  }
  if (f.workerRuns.length) {
    const ceilingRow = (c: LoadFigures, processes: number) =>
      `| ${processes} | ${c.label} | ${n(c.requestsPerSecond)} | ${processes > 1 ? `${round2(c.requestsPerSecond / f.ceiling.requestsPerSecond)}×` : ""} | | ${c.p50Ms} ms | ${c.p99Ms} ms | ${c.cpuMsPerRequest} ms | | | | |`;
    lines.push(
      "",
      `Signed-in pages and the floor on PostgreSQL by number of HTTP workers (\`WEB_CONCURRENCY\`), ${f.connections} connections, beside the ceiling of this run as one process and as two; CPU is the whole process tree's. "÷ the ceiling's" is the app's two workers ÷ one divided by the ceiling's two processes ÷ one.`,
      "",
      "| workers | target | requests/s | × one worker | ÷ the ceiling's | p50 | p99 | server CPU per request | CPU × one worker's | CPU ÷ the floor's | peak memory per worker | target |",
      "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
      ceilingRow(f.ceiling, 1),
    );
    if (f.ceilingTwoProcesses) lines.push(ceilingRow(f.ceilingTwoProcesses, 2));
    for (const run of f.workerRuns) {
      for (const t of run.targets) {
        const speedup = speedupOf(f, run.workers, t.target);
        const scaling = run.workers === 2 ? f.workerScaling.find((s) => s.target === t.target) : undefined;
        const verdicts: string[] = [];
        if (SIGNED_IN.has(t.target)) {
          verdicts.push(`p99 < 100 ms: ${t.p99Ms < HTTP_TARGETS.signedInP99Ms ? "met" : "**missed**"}`);
          if (scaling) {
            verdicts.push(
              `÷ ceiling's ≥ ${HTTP_TARGETS.twoWorkerNormalisedSpeedup}: ${scaling.normalisedSpeedup >= HTTP_TARGETS.twoWorkerNormalisedSpeedup ? "met" : "**missed**"}`,
              `CPU ≤ ${HTTP_TARGETS.twoWorkerCpuRatio}× one worker's: ${scaling.cpuRatio <= HTTP_TARGETS.twoWorkerCpuRatio ? "met" : "**missed**"}`,
            );
          }
        }
        verdicts.push(
          `< ${HTTP_TARGETS.memoryMb.postgres} MB per worker: ${run.peakWorkerRssMb < HTTP_TARGETS.memoryMb.postgres ? "met" : "**missed**"}`,
        );
        lines.push(
          `| ${run.workers} | ${t.label} \`${t.path}\` | ${n(t.requestsPerSecond)} | ${speedup !== undefined ? `${speedup}×` : ""} | ${scaling ? scaling.normalisedSpeedup : ""} | ${t.p50Ms} ms | ${t.p99Ms} ms | ${t.cpuMsPerRequest} ms | ${scaling ? `${scaling.cpuRatio}×` : ""} | ${ratio(t.cpuRatioToFloor)} | ${run.peakWorkerRssMb} MB | ${verdicts.join("; ")} |`,
        );
      }
    }
  }
  if (f.skipped.length) lines.push("", `Not measured: ${f.skipped.join(", ")} (no server binaries on this machine).`);
  return lines.join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      connections: { type: "string", default: "50" },
      databases: { type: "string", default: "pglite,postgres" },
      targets: { type: "string", default: TARGET_IDS.join(",") },
      profile: { type: "boolean", default: false },
      "node-flags": { type: "string" },
      workers: { type: "string" },
      json: { type: "string" },
    },
  });
  const f = await benchHttp({
    durationSeconds: Number(values.duration),
    connections: Number(values.connections),
    databases: values.databases.split(",").map((d) => d.trim()) as DatabaseKind[],
    targets: values.targets.split(",").map((t) => t.trim()) as TargetId[],
    profile: values.profile,
    ...(values["node-flags"] !== undefined ? { nodeFlags: values["node-flags"].split(" ").filter(Boolean) } : {}),
    ...(values.workers ? { workers: values.workers.split(",").map(Number) } : {}),
  });
  console.log("");
  console.log(httpTable(f));
  if (values.json) writeFileSync(values.json, JSON.stringify(f, null, 2));
  const misses = httpMisses(f);
  console.log(misses.length ? `Missed: ${misses.join("; ")}` : "All HTTP targets met.");
}
