// One writer per PGlite data directory. PGlite runs PostgreSQL inside this process and, unlike a
// PostgreSQL server, nothing stops a second process from opening the same files: two at once
// lost a committed row. So the directory is locked before PGlite
// opens it, with an exclusive kernel lock on a file inside it (fs-native-extensions: an
// open-file-description lock on Linux, flock on macOS, LockFileEx on Windows;
// docs/decisions/0012-one-writer-directory-lock-and-migration-lock.md). The kernel drops the lock when the holder closes
// the file or dies in any way (SIGKILL, a crash, power loss), so a stale lock cannot block the
// next start and there is no pid to check against reuse. The file also holds the holder's pid,
// only to name it in the message.
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

interface NativeLocks {
  /** An exclusive, non-blocking lock on the whole file: false when another holder has it. */
  tryLock(fd: number): boolean;
}
let native: NativeLocks | undefined;
// Loaded on first use, so a process on PostgreSQL or `memory://` never loads the native addon.
// The package is CommonJS without type declarations; tryLock is its documented API.
const nativeLocks = (): NativeLocks => {
  native ??= createRequire(import.meta.url)("fs-native-extensions") as NativeLocks;
  return native;
};

export const LOCK_FILE = "rewards-portal.lock";

export class DatabaseInUseError extends Error {
  readonly directory: string;
  readonly holderPid: number | undefined;
  constructor(directory: string, holderPid: number | undefined) {
    super(
      `The database directory ${directory} is in use by another process${holderPid ? ` (pid ${holderPid})` : ""}. ` +
        "Stop it first, or set DATABASE_URL to a PostgreSQL server to run several processes.",
    );
    this.name = "DatabaseInUseError";
    this.directory = directory;
    this.holderPid = holderPid;
  }
}

export interface DirectoryLock {
  /** Releases the lock (idempotent); the file stays, unlocked, for the next process. */
  release(): void;
}

/**
 * Takes the lock on `dir` (which must exist) or throws DatabaseInUseError at once: waiting would
 * only hide a second process that should not be there. `shown` names the directory in the message
 * the way the operator wrote it (DATABASE_URL).
 */
export function lockDirectory(dir: string, shown: string = dir): DirectoryLock {
  const path = join(dir, LOCK_FILE);
  // Never truncated or removed before the lock is held: the holder's pid stays readable, and a
  // removed file would let a third process lock a new file while the holder keeps the old one.
  const fd = openSync(path, "a+");
  let locked: boolean;
  try {
    locked = nativeLocks().tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!locked) {
    closeSync(fd);
    throw new DatabaseInUseError(shown, readPid(path));
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      closeSync(fd);
    },
  };
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
