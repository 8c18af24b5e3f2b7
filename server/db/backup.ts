// Backup and restore of the embedded database (a PGlite data directory), for `npm run db:backup`
// and `npm run db:restore` (scripts/db-backup.ts, scripts/db-restore.ts). A PGlite user has one
// folder of data and no pg_dump: a backup is PGlite's own tarball of that folder (`dumpDataDir()`),
// and a restore loads one (`loadDataDir`). Both refuse while the app runs on the folder: only one
// process may open it (server/db/directory-lock.ts, ADR 0012), so the one consistent copy is taken
// with the app stopped (the amendment to ADR 0012). On PostgreSQL, pg_dump and pg_restore do this.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { isPostgresUrl, pgliteDirectory } from "../config.ts";
import { DatabaseInUseError, type DirectoryLock, LOCK_FILE, lockDirectory } from "./directory-lock.ts";

/** A refusal with a one-line message for the operator; nothing was changed. */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupRefused";
  }
}

type Command = "backup" | "restore";

/** The data directory DATABASE_URL names, or a refusal on PostgreSQL and `memory://`. */
function dataDirectory(databaseUrl: string, command: Command): { dir: string; shown: string } {
  if (isPostgresUrl(databaseUrl)) {
    throw new BackupRefused(
      `DATABASE_URL is a PostgreSQL server: npm run db:${command} is for the embedded database; use PostgreSQL's ${command === "backup" ? "pg_dump (e.g. pg_dump -Fc -f FILE $DATABASE_URL)" : "pg_restore (e.g. pg_restore --clean --if-exists -d $DATABASE_URL FILE)"} instead.`,
    );
  }
  if (databaseUrl === "memory://") {
    throw new BackupRefused(
      `DATABASE_URL is memory://, an in-memory database that ends with its process: there is no folder to ${command === "backup" ? "back up" : "restore into"}. Set DATABASE_URL to the data directory (unset: ./data/db).`,
    );
  }
  const shown = pgliteDirectory(databaseUrl);
  return { dir: resolve(shown), shown };
}

/** Takes the directory lock, or refuses naming what to do: the app has the directory open. */
function lockOrRefuse(dir: string, shown: string, command: Command): DirectoryLock {
  try {
    return lockDirectory(dir, shown);
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    const holder = error.holderPid ? ` (pid ${error.holderPid})` : "";
    throw new BackupRefused(
      `The database ${shown} is in use by a running app${holder}: stop the app first, then run npm run db:${command} again.`,
    );
  }
}

/** Writes a consistent copy of the data directory to `file`; answers its size in bytes. */
export async function backupDatabase(databaseUrl: string, file: string): Promise<number> {
  const { dir, shown } = dataDirectory(databaseUrl, "backup");
  // Without PG_VERSION PGlite would create a new, empty database here: refuse instead.
  if (!existsSync(join(dir, "PG_VERSION"))) {
    throw new BackupRefused(`There is no database at ${shown} to back up (start the app once to create it).`);
  }
  const lock = lockOrRefuse(dir, shown, "backup");
  let tarball: Buffer;
  try {
    const client = await PGlite.create(dir);
    try {
      // Every committed change written into the data files, not only the WAL, before the copy.
      await client.exec("CHECKPOINT");
      tarball = Buffer.from(await (await client.dumpDataDir("gzip")).arrayBuffer());
    } finally {
      await client.close();
    }
  } finally {
    lock.release();
  }
  // Written beside the target and renamed over it: a failed backup never leaves half a file.
  const partial = `${file}.partial-${process.pid}`;
  try {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(partial, tarball);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new BackupRefused(`Cannot write ${file}: ${(error as Error).message.replace(/, (open|rename) .*$/, "")}`);
  }
  return tarball.length;
}

/**
 * Restores `file` into the data directory: refuses while the app runs on it, and refuses to
 * replace a database there unless `force`. The backup is loaded into a new folder and checked
 * first, so a bad file changes nothing; the migrations of a newer release run when the app
 * starts on it, as on every start.
 */
export async function restoreDatabase(databaseUrl: string, file: string, force: boolean): Promise<void> {
  const { dir, shown } = dataDirectory(databaseUrl, "restore");
  const tar = readBackup(file);
  const existed = existsSync(dir);
  if (existed && !statSync(dir).isDirectory()) {
    throw new BackupRefused(`DATABASE_URL names ${shown}, which is a file, not a database folder.`);
  }
  if (!existed) mkdirSync(dir, { recursive: true });
  const lock = lockOrRefuse(dir, shown, "restore");
  let staging: string | undefined;
  try {
    const current = readdirSync(dir).filter((name) => name !== LOCK_FILE);
    if (current.length > 0 && !force) {
      throw new BackupRefused(
        `${shown} is not empty: restoring would replace the database there. Pass --force to replace it, or set DATABASE_URL to a new folder.`,
      );
    }
    // Inside the target, so moving the files in is a rename even when the folder is a mount of
    // its own (a Docker volume); its name starts with a dot and is gone once the restore ends.
    staging = mkdtempSync(join(dir, ".restore-"));
    const client = await PGlite.create(staging, { loadDataDir: new Blob([new Uint8Array(tar)]) }).catch(() => {
      throw new BackupRefused(`${file} is not a database backup this version of the app can load.`);
    });
    try {
      // Every start of the app records its migrations here (ADR 0005): another PostgreSQL data
      // directory is not this app's database.
      await client.query("select 1 from drizzle.__drizzle_migrations limit 1").catch(() => {
        throw new BackupRefused(`${file} is a PostgreSQL data directory but not a backup of this app's database.`);
      });
    } finally {
      await client.close();
    }
    // The lock file stays: this process holds it until the new files are all in place.
    for (const name of current) rmSync(join(dir, name), { recursive: true, force: true });
    for (const name of readdirSync(staging)) {
      if (name !== LOCK_FILE) renameSync(join(staging, name), join(dir, name));
    }
  } catch (error) {
    if (!existed) {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
    }
    throw error;
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}

/** The backup's tar (uncompressed), or a refusal when the file cannot be read or is not one. */
function readBackup(file: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    // Node's message without its ", open '<path>'" tail: the path is named already.
    throw new BackupRefused(`Cannot read ${file}: ${(error as Error).message.replace(/, open .*$/, "")}`);
  }
  const notABackup = new BackupRefused(`${file} is not a backup made by npm run db:backup.`);
  let tar = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      tar = gunzipSync(bytes);
    } catch {
      throw notABackup;
    }
  }
  if (!holdsDataDirectory(tar)) throw notABackup;
  return tar;
}

/** The tar holds a PostgreSQL data directory: a PG_VERSION file at its top (POSIX ustar headers). */
function holdsDataDirectory(tar: Buffer): boolean {
  const field = (header: Buffer, at: number, length: number) =>
    header.toString("latin1", at, at + length).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (!header.toString("latin1", 257, 262).startsWith("ustar")) return false;
    const prefix = field(header, 345, 155);
    const name = `${prefix ? `${prefix}/` : ""}${field(header, 0, 100)}`.replace(/^\.?\/+/, "");
    if (name === "PG_VERSION") return true;
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0) return false;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return false;
}
