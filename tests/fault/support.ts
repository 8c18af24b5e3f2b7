// A PostgreSQL server of the fault test's own that can be stopped and started again on the same
// port and data. The application process and the HTTP helpers are the shared process harness
// (tests/support/app-process.ts).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { checkMoney, formatFinding } from "../../modules/money-check/service.server.ts";
import { openDatabase } from "../../server/db/client.ts";
import { sleep } from "../support/app-process.ts";
import { freePort } from "../support/net.ts";
import { findPostgresBinaries } from "../support/postgres-server.ts";

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

/**
 * The operator's money reconciliation (`npm run check:money`, modules/money-check/service.server.ts) on a
 * fault test's database once its app has stopped: one line per finding, none when it reconciles.
 */
export async function moneyFindings(databaseUrl: string): Promise<string[]> {
  const database = await openDatabase(databaseUrl, 1);
  try {
    return (await checkMoney(database.db, { now: new Date() })).findings.map(formatFinding);
  } finally {
    await database.close();
  }
}
