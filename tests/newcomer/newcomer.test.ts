// The newcomer's first hour, as the README tells it: a clone of the repository at HEAD, `npm install`,
// then `npm start` in a shell that exports nothing but PATH and HOME (no NODE_ENV, no DATABASE_URL:
// the embedded default ./data/db inside the clone), and everything checked from outside over HTTP,
// as a browser with JavaScript off would see it (browser.ts):
//   - every public page answers 200 with its SPEC heading, an unknown path the error page;
//   - a program manager signs up, reads the code from the dev mailbox, verifies, adds company
//     details, opens the dashboard, My Team and Reward My Team, and adds a member;
//   - SIGTERM and `npm start` again: no rebuild, ready within 10 s, the same manager signs in and
//     finds the company and the team (kept on disk);
//   - `npm run db:migrate` on that data is a no-op; `npm run dev` serves /;
//   - `npm run db:backup`, `npm run db:restore` into a new folder, a start on it, and a sign-in.
// It tests what is committed (the clone), so commit before running it. The app listens on the
// README's port, 3000: the test fails at once, naming the port, if something else has it.
// One clone and one install serve the whole file (CI's time, .ci/run); each start is the README's.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Browser, headingOf } from "../support/browser.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const BASE = "http://localhost:3000";

/**
 * The newcomer's own shell: PATH and HOME and nothing else. npm puts this project's
 * node_modules/.bin on the PATH of the test run; a newcomer's PATH has none of it, so their `npm`
 * runs on the machine's own Node until `npm install` brings the pinned one.
 */
const PATH = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => !dir.includes("node_modules"))
  .join(delimiter);
const shell = { PATH, HOME: process.env.HOME ?? tmpdir() };

const SPEC_HEADINGS: Record<string, string> = {
  "/": "Reward your people instantly",
  "/help": "Help Centre - FAQs, Terms and Contact us.",
  "/not-ready-yet": "Not Ready?",
  "/policies/terms-and-conditions": "Terms and Conditions",
  "/policies/privacy-policy": "Privacy Policy",
  "/corporate/sign-up": "Sign Up",
  "/corporate/login": "Login",
  "/corporate/forgot-password-request": "Forgot Password",
  "/error": "Error",
};

const MANAGER = {
  firstName: "Nia",
  lastName: "Newcomer",
  email: "nia.newcomer@example.com",
  companyName: "Newcomer Rewards Pty Ltd",
  password: "Newcomer#2026-pass",
};
const MEMBER = { firstName: "Theo", lastName: "Teammate", email: "theo.teammate@example.com" };

let clone: string;

interface Started {
  child: ChildProcess;
  output: () => string;
  readyInMs: number;
}

/** `npm <args>` in the clone on the newcomer's shell (plus `env`), in its own process group. */
function launch(args: string[], env: Record<string, string> = {}) {
  const child = spawn("npm", args, { cwd: clone, env: { ...shell, ...env }, detached: true });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  });
  return { child, output: () => out };
}

/** Starts `npm <args>` and waits until the app on :3000 says it is ready. */
async function start(args: string[], env: Record<string, string> = {}, withinMs = 300_000): Promise<Started> {
  const started = performance.now();
  const { child, output } = launch(args, env);
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm ${args.join(" ")} exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${BASE}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`npm ${args.join(" ")} was not ready within ${withinMs / 1000} s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output, readyInMs: performance.now() - started };
}

/** SIGTERM to the process group, as a terminal's Ctrl-C reaches npm and the server under it. */
async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await exited;
  // The server under npm lets go of the port (and the data folder's lock) as it exits.
  for (let i = 0; i < 200 && (await listening()); i++) await new Promise((r) => setTimeout(r, 100));
}

function listening(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(3000, "localhost");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function npm(args: string[], env: Record<string, string> = {}) {
  return run("npm", args, { cwd: clone, env: { ...shell, ...env }, maxBuffer: 20_000_000 });
}

async function signIn(browser: Browser) {
  const login = await browser.open("/corporate/login");
  const landed = await browser.submit(login, "login-form", { userName: MANAGER.email, password: MANAGER.password });
  expect(new URL(landed.url).pathname, landed.html.slice(0, 400)).toBe("/portal/dashboard");
  return landed;
}

/** The company and the team the manager built are there. */
async function expectCompanyAndTeam(browser: Browser) {
  const company = await browser.open("/portal/settings/company");
  expect(company.status).toBe(200);
  expect(company.html).toContain(MANAGER.companyName);
  const team = await browser.open("/portal/my-team");
  expect(headingOf(team.html)).toBe("My Team");
  expect(team.html).toContain(MEMBER.email);
}

async function migrationsApplied(dataDir: string) {
  const db = new PGlite(dataDir);
  try {
    const { rows } = await db.query("select hash, created_at from drizzle.__drizzle_migrations order by id");
    return rows;
  } finally {
    await db.close();
  }
}

describe("a newcomer runs the README's commands on a fresh clone, with only PATH and HOME", () => {
  beforeAll(async () => {
    if (await listening()) {
      throw new Error("Something already listens on port 3000, where the README's `npm start` serves: stop it first.");
    }
    clone = mkdtempSync(join(tmpdir(), "rewards-newcomer-"));
    await run("git", ["clone", "--quiet", root, clone]);
    await npm(["install", "--no-audit", "--no-fund"]);
  }, 600_000);

  // The clone holds a whole install (Node 24 itself among it): removing it takes a while.
  afterAll(async () => {
    if (clone) await rm(clone, { recursive: true, force: true });
  }, 300_000);

  test("npm start builds and serves every page; a manager signs up and builds a team; a restart keeps it all", async () => {
    const first = await start(["start"]);
    try {
      expect(first.output()).toMatch(/Building the web app/);
      for (const [path, heading] of Object.entries(SPEC_HEADINGS)) {
        const page = await new Browser(BASE).open(path);
        expect(page.status, `${path}\n${first.output().slice(-2000)}`).toBe(200);
        expect(headingOf(page.html), path).toBe(heading);
      }
      const unknown = await new Browser(BASE).open("/no-such-page-for-a-newcomer");
      expect(unknown.status).toBe(404);
      expect(headingOf(unknown.html)).toBe("Error");
      expect(unknown.html).toContain("Sorry, an unexpected error has occurred.");

      const browser = new Browser(BASE);
      const signUp = await browser.open("/corporate/sign-up");
      const verify = await browser.submit(signUp, "sign-up-form", {
        ...MANAGER,
        confirmPassword: MANAGER.password,
      });
      expect(headingOf(verify.html)).toBe("Verify");
      // docs/OPERATIONS.md "Configuration": with no SMTP_URL a local run's emails are in the dev mailbox.
      const mailbox = await browser.open("/dev/mailbox");
      const code = /Verification code: (\d{6})/.exec(mailbox.html)?.[1];
      expect(code, "the verification email in /dev/mailbox").toBeDefined();
      const onboarding = await browser.submit(verify, "verify-form", { verificationCode: code as string });
      expect(onboarding.html).toContain('id="company-details-form"');
      const dashboard = await browser.submit(onboarding, "company-details-form", {
        ABN: "53004085616",
        size: "11-50",
        industry: "Retail",
      });
      expect(new URL(dashboard.url).pathname).toBe("/portal/dashboard");
      expect(headingOf(dashboard.html)).toBe("Dashboard");
      for (const [path, heading] of [
        ["/portal/my-team", "My Team"],
        ["/portal/reward-my-team", "Reward My Team"],
      ] as const) {
        const page = await browser.open(path);
        expect(page.status, path).toBe(200);
        expect(headingOf(page.html), path).toBe(heading);
      }
      const addDialog = await browser.open("/portal/my-team?dialog=add");
      const added = await browser.submit(addDialog, "team-add-form", MEMBER);
      expect(added.status).toBe(200);
      await expectCompanyAndTeam(browser);
    } finally {
      await stop(first.child);
    }

    const again = await start(["start"], {}, 60_000);
    try {
      console.info(
        `[newcomer] first npm start ready in ${Math.round(first.readyInMs)} ms (with the build), again in ${Math.round(again.readyInMs)} ms`,
      );
      expect(again.output()).not.toMatch(/Building|Bundling/);
      expect(again.readyInMs, "the second npm start, from the command to /readyz").toBeLessThan(10_000);
      const browser = new Browser(BASE);
      await signIn(browser);
      await expectCompanyAndTeam(browser);
    } finally {
      await stop(again.child);
    }
  }, 600_000);

  test("npm run db:migrate on the existing data changes nothing; npm run dev serves /", async () => {
    const dataDir = join(clone, "data/db");
    const before = await migrationsApplied(dataDir);
    expect(before.length).toBeGreaterThan(0);
    const { stdout } = await npm(["run", "db:migrate"]);
    expect(stdout).toMatch(/migrations applied/);
    expect(await migrationsApplied(dataDir)).toEqual(before);

    const dev = await start(["run", "dev"], {}, 120_000);
    try {
      const home = await new Browser(BASE).open("/");
      expect(home.status, dev.output().slice(-2000)).toBe(200);
      expect(headingOf(home.html)).toBe(SPEC_HEADINGS["/"]);
    } finally {
      await stop(dev.child);
    }
  }, 300_000);

  test("npm run db:backup, then db:restore into a new folder: the app starts on it and the manager signs in", async () => {
    const file = join(clone, "newcomer-backup.tar.gz");
    await npm(["run", "db:backup", "--", file]);
    expect(existsSync(file)).toBe(true);
    // DATABASE_URL is how a user points the app at another folder (docs/OPERATIONS.md "Configuration").
    const restored = { DATABASE_URL: join(clone, "restored/db") };
    await npm(["run", "db:restore", "--", file], restored);
    const app = await start(["start"], restored, 60_000);
    try {
      const browser = new Browser(BASE);
      await signIn(browser);
      await expectCompanyAndTeam(browser);
    } finally {
      await stop(app.child);
    }
  }, 300_000);
});
