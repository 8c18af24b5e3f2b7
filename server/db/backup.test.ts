// Backup and restore of the embedded database through the real scripts (scripts/db-backup.ts,
// scripts/db-restore.ts, server/db/backup.ts), each a child process with PATH, HOME and
// DATABASE_URL alone: a company with its team, a paid and released order and its history
// survives a backup and a restore into a new folder, and the app starts on it and signs its
// manager in; both refuse while the app runs (the one-writer lock of ADR 0012), a restore
// refuses to replace a database without --force and replaces it with it, and a missing or bad
// file, a PostgreSQL or memory:// DATABASE_URL are one-line refusals that change nothing.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppProcess,
  api,
  CARD,
  ok,
  orderOverHttp,
  REGISTRANT,
  signUpOverHttp,
  startApp,
  verificationCodes,
} from "../../tests/support/app-process.ts";
import { createSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import { openDatabase } from "./client.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run db:<command> -- …args` (viaNpm, as an operator types it) or the script under node. */
function run(command: "backup" | "restore", databaseUrl: string, args: string[], viaNpm = false): Promise<Run> {
  const [file, argv] = viaNpm
    ? ["npm", ["run", "--silent", `db:${command}`, "--", ...args]]
    : [process.execPath, [join(root, `scripts/db-${command}.ts`), ...args]];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl };
  return new Promise((resolve) => {
    execFile(file, argv, { cwd: root, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A refusal: exit code 1 and one line on stderr that matches `message`. */
function expectRefusal(result: Run, message: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr.trim()).toMatch(message);
}

let dir: string;
let smtp: TestSmtpServer;
const apps: AppProcess[] = [];
const start = async (databaseUrl: string) => {
  const app = await startApp({ DATABASE_URL: databaseUrl, SMTP_URL: smtp.url });
  apps.push(app);
  return app;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rewards-backup-"));
  smtp = await createSmtpServer();
});
afterAll(async () => {
  for (const app of apps) await app.kill("SIGKILL");
  await smtp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const who = {
  ...REGISTRANT,
  firstName: "Bea",
  lastName: "Backup",
  companyName: "Backup Co Pty Ltd",
  company: { ...REGISTRANT.company, name: "Backup Co Pty Ltd" },
};
const email = "bea.backup@example.com";

/** What the manager sees of the company: its details, its team, its reward history. */
async function companyView(base: string, token: string) {
  const company = await ok<{ name: string; ABN: string }>(base, "GET", "/api/Companies", undefined, token);
  const team = await ok<{ items: { email: string; balanceCents: number }[]; totalCount: number }>(
    base,
    "GET",
    "/api/Users?pageNumber=1&pageSize=50",
    undefined,
    token,
  );
  const history = await ok<{ items: { rewardName: string; state: string; amount: number }[] }>(
    base,
    "GET",
    "/api/RewardHistory?pageNumber=1&pageSize=10",
    undefined,
    token,
  );
  return {
    company: { name: company.name, ABN: company.ABN },
    team: team.items
      .map((m) => ({ email: m.email, balanceCents: m.balanceCents }))
      .sort((a, b) => a.email.localeCompare(b.email)),
    history: history.items.map((h) => ({ rewardName: h.rewardName, state: h.state, amount: h.amount })),
  };
}

async function signIn(base: string): Promise<string> {
  const res = await ok<{ accessToken: string }>(base, "POST", "/api/Identity/login", {
    userName: email,
    password: who.password,
    captchaToken: "",
    isCaptchaV3: true,
  });
  return res.accessToken;
}

describe("npm run db:backup and db:restore on the embedded database", () => {
  it("round-trip a company, its team and history into a new folder; refuse while the app runs, and to replace without --force", {
    // About 30 s of CPU (two app starts, six script runs); room for a machine shared with other runs.
    timeout: 180_000,
  }, async () => {
    const original = join(dir, "original");
    const backup = join(dir, "backup.tgz");
    const app = await start(original);
    const { accessToken } = await signUpOverHttp(app.base, email, verificationCodes(smtp), { as: who });
    const { intent } = await orderOverHttp(app.base, accessToken, [25, 40], "Backup Thanks");
    await ok(
      app.base,
      "POST",
      "/api/StripePayment/confirm-simulated-payment",
      { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
      accessToken,
    );
    const before = await companyView(app.base, accessToken);
    expect(before.company.name).toBe("Backup Co Pty Ltd");
    expect(before.team).toHaveLength(2);
    expect(before.history).toEqual([{ rewardName: "Backup Thanks", state: "released", amount: expect.anything() }]);

    // While the app runs: both refuse, naming what to do; no file is written.
    expectRefusal(
      await run("backup", original, [backup]),
      new RegExp(`The database ${original} is in use by a running app \\(pid ${app.child.pid}\\): stop the app first`),
    );
    expect(existsSync(backup)).toBe(false);
    await app.stop();

    // Stopped: the backup, through npm as an operator runs it.
    const backedUp = await run("backup", original, [backup], true);
    expect(backedUp).toMatchObject({ code: 0, stderr: "" });
    expect(backedUp.stdout).toMatch(new RegExp(`^Backed up ${original} to ${backup} \\(\\d+\\.\\d MB\\)\\.\\n$`));

    // The original folder holds a database: no restore over it without --force.
    expectRefusal(
      await run("restore", original, [backup]),
      new RegExp(`${original} is not empty: restoring would replace the database there. Pass --force`),
    );

    // Into a new folder, then the app starts on it (its migrations run) and the manager signs in.
    const copy = join(dir, "copy");
    const restored = await run("restore", copy, [backup], true);
    expect(restored).toMatchObject({ code: 0, stderr: "" });
    expect(restored.stdout).toBe(`Restored ${backup} into ${copy}. Start the app on it: npm start.\n`);
    expect(readdirSync(copy).filter((name) => name.startsWith(".restore-"))).toEqual([]);
    const second = await start(copy);
    expect(await companyView(second.base, await signIn(second.base))).toEqual(before);

    // A restore refuses while the app runs on the folder, even with --force.
    expectRefusal(
      await run("restore", copy, [backup, "--force"]),
      new RegExp(`The database ${copy} is in use by a running app \\(pid ${second.child.pid}\\): stop the app first`),
    );
    // A change made after the backup, which --force then replaces.
    const later = await api(second.base, "POST", "/api/Register", {
      firstName: "Later",
      lastName: "Signup",
      email: "later.signup@example.com",
      companyName: "Later Pty Ltd",
      password: who.password,
      captchaToken: "x",
      isCaptchaV3: true,
    });
    expect(later.status).toBe(200);
    await second.stop();

    const forced = await run("restore", copy, [backup, "--force"]);
    expect(forced).toMatchObject({ code: 0, stderr: "" });
    // The later sign-up is gone with the database it was in; the backup's manager is back.
    const database = await openDatabase(copy);
    try {
      const { rows } = (await database.db.execute(sql`select email from users order by email`)) as unknown as {
        rows: { email: string }[];
      };
      expect(rows.map((r) => r.email)).toContain(email);
      expect(rows.map((r) => r.email)).not.toContain("later.signup@example.com");
    } finally {
      await database.close();
    }
  });

  it("a missing FILE, an unreadable or bad file, PostgreSQL and memory:// are one-line refusals that change nothing", {
    timeout: 60_000,
  }, async () => {
    const target = join(dir, "untouched");
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a backup\n");

    expectRefusal(await run("backup", target, []), /^Usage: npm run db:backup -- FILE/);
    expectRefusal(await run("restore", target, []), /^Usage: npm run db:restore -- FILE \[--force\]/);
    expectRefusal(await run("restore", target, ["--force"]), /^Usage: npm run db:restore/);
    expectRefusal(await run("restore", target, [join(dir, "missing.tgz")]), /^Cannot read .*missing\.tgz: ENOENT/);
    expectRefusal(await run("restore", target, [dir, "--force"]), /^Cannot read /);
    expectRefusal(await run("restore", target, [text]), /notes\.txt is not a backup made by npm run db:backup\.$/);
    expectRefusal(
      await run("backup", target, [join(dir, "nothing.tgz")]),
      /^There is no database at .*untouched to back up/,
    );
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(dir, "nothing.tgz"))).toBe(false);

    const postgres = "postgres://rewards@127.0.0.1:5432/rewards";
    expectRefusal(await run("backup", postgres, [text]), /PostgreSQL server.*pg_dump/);
    expectRefusal(await run("restore", postgres, [text]), /PostgreSQL server.*pg_restore/);
    expectRefusal(await run("backup", "memory://", [text]), /memory:\/\/.*no folder to back up/);
    expectRefusal(await run("restore", "memory://", [text]), /memory:\/\/.*no folder to restore into/);
    expect(existsSync(target)).toBe(false);
  });
});
