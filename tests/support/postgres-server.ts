// A throwaway PostgreSQL server for the test run: initdb into a temporary folder, start
// `postgres` on a free loopback port, and remove everything at the end. Used by the vitest
// global setup (tests/support/global-setup.ts); test files then create their own database on it.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";
import { freePort } from "./net.ts";

export interface PostgresServer {
  /** Maintenance URL (database `postgres`, superuser `postgres`, trust auth on loopback). */
  adminUrl: string;
  version: string;
  stop(): Promise<void>;
}

/** The folder holding initdb and postgres: $POSTGRES_BIN, else /usr/lib/postgresql/<newest>/bin, else PATH. */
export function findPostgresBinaries(): string | undefined {
  const has = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));
  // An explicit POSTGRES_BIN is the only place looked at (so a run can also prove the "absent" path).
  if (process.env.POSTGRES_BIN) return has(process.env.POSTGRES_BIN) ? process.env.POSTGRES_BIN : undefined;
  const debianRoot = "/usr/lib/postgresql";
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const dir = join(debianRoot, v, "bin");
      if (has(dir)) return dir;
    }
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && has(dir)) return dir;
  }
  return undefined;
}

/** PostgreSQL refuses to run as root: then run it as `postgres` (or `nobody`) with a folder it owns. */
function serverIdentity(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
      if (Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0) return { uid, gid, name };
    } catch {
      // no such user; try the next one
    }
  }
  throw new Error("running as root, and there is no `postgres` or `nobody` user to run PostgreSQL as");
}

export async function startPostgres(binDir: string): Promise<PostgresServer> {
  const identity = serverIdentity();
  const root = mkdtempSync(join(tmpdir(), "rewards-pg-"));
  if (identity) chownSync(root, identity.uid, identity.gid);
  const dataDir = join(root, "data");
  const spawnAs = { cwd: root, ...(identity ? { uid: identity.uid, gid: identity.gid } : {}) };
  const env = { ...process.env, LC_ALL: "C", LANG: "C" };

  const cleanup = () => rmSync(root, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  try {
    await run(
      join(binDir, "initdb"),
      ["-D", dataDir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"],
      { ...spawnAs, env },
    );
    const version = (await run(join(binDir, "postgres"), ["--version"], { ...spawnAs, env })).trim();
    const port = await freePort();
    child = spawn(
      join(binDir, "postgres"),
      [
        "-D",
        dataDir,
        "-p",
        String(port),
        "-k",
        root,
        "-c",
        "listen_addresses=127.0.0.1",
        // Throwaway data: durability settings off for speed.
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=200",
      ],
      { ...spawnAs, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitUntilAccepting(adminUrl, exited, () => stderr);

    const server = child;
    const killOnExit = () => server.kill("SIGKILL");
    process.once("exit", killOnExit);
    return {
      adminUrl,
      version,
      async stop() {
        process.off("exit", killOnExit);
        if (server.exitCode === null && server.signalCode === null) {
          server.kill("SIGINT"); // fast shutdown
          const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
          await exited;
          clearTimeout(timer);
        }
        cleanup();
      },
    };
  } catch (error) {
    child?.kill("SIGKILL");
    cleanup();
    throw error;
  }
}

async function waitUntilAccepting(url: string, exited: Promise<number | null>, stderr: () => string): Promise<void> {
  let done = false;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
    done = true;
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (done) throw new Error(`postgres exited with code ${exitCode} before accepting connections:\n${stderr()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`postgres did not accept connections within 30 s:\n${stderr()}`);
}

function run(
  file: string,
  args: string[],
  options: { cwd: string; uid?: number; gid?: number; env: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${file} ${args.join(" ")} exited with ${code}:\n${err || out}`));
    });
  });
}
