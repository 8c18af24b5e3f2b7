// Opens the database named by DATABASE_URL: a PostgreSQL server for postgres:// URLs,
// embedded PGlite otherwise (`memory://` for an in-memory database, or a data directory path).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { DEFAULT_POOL_SIZE, isPostgresUrl, pgliteDirectory } from "../config.ts";
import { type DirectoryLock, lockDirectory } from "./directory-lock.ts";
import * as schema from "./schema.ts";

export { DatabaseInUseError } from "./directory-lock.ts";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The handle inside `db.transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either: for reads and writes that may run alone or inside a caller's transaction. */
export type Conn = Db | Tx;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** node-postgres's pool under `db`, on PostgreSQL: for a library that speaks to it directly. */
  pool?: pg.Pool;
  /**
   * Applies pending migrations; safe to call on every start, and from several processes at once
   * on PostgreSQL (they take turns under an advisory lock, so each migration runs once).
   */
  migrate(): Promise<void>;
  /** A cheap round trip, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

// The advisory lock key of migrations: any fixed bigint, the same in every process and release.
// Advisory locks are per database, so instances of other databases on one server never wait.
const MIGRATION_LOCK_KEY = 7_146_823_519_370_112_601n;

export interface OpenOptions {
  /**
   * A `memory://` database starts as a copy of this PGlite data directory (a `dumpDataDir`
   * tarball) instead of an empty one: the test harness's migrated copy, which saves each test
   * file PGlite's initdb (tests/support/db.ts).
   */
  memorySeed?: Blob;
}

export async function openDatabase(
  databaseUrl: string,
  poolSize = DEFAULT_POOL_SIZE,
  { memorySeed }: OpenOptions = {},
): Promise<Database> {
  if (isPostgresUrl(databaseUrl)) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
    // A dropped connection must not crash the process; the pool reconnects on the next query.
    // The pool's "error" covers idle clients only: a client checked out when the server goes
    // away (a restart, an administrator's termination) emits "error" on itself, and with no
    // listener that is an uncaught exception that kills the process (tests/fault/
    // postgres-restart.test.ts). The query in flight still fails, and the pool drops the client.
    pool.on("error", () => {});
    pool.on("connect", (client) => {
      client.on("error", () => {});
    });
    const db = drizzlePg({ client: pool, schema }) as unknown as Db;
    return {
      db,
      kind: "postgres",
      pool,
      migrate: () => migratePostgres(pool),
      ping: async () => {
        await db.execute(sql`select 1`);
      },
      close: () => pool.end(),
    };
  }

  // PostgreSQL's default 128 MB of shared buffers is resident memory inside PGlite's WebAssembly
  // heap; its data files are in this process's memory or page cache anyway, so 16 MB is plenty
  // and saves about 280 MB of resident memory (scripts/bench/http-load.ts measures it).
  const options = { startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"] };
  let client: PGlite;
  // `memory://` is this process's own database: nothing to share, nothing to lock.
  let lock: DirectoryLock | undefined;
  if (databaseUrl === "memory://") {
    client = new PGlite(memorySeed ? { ...options, loadDataDir: memorySeed } : options);
  } else {
    const shown = pgliteDirectory(databaseUrl);
    const dir = resolve(shown);
    mkdirSync(dir, { recursive: true });
    // Before PGlite touches a file: a second process stops here (DatabaseInUseError).
    lock = lockDirectory(dir, shown);
    client = new PGlite(dir, options);
  }
  try {
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const pgliteDb = drizzlePglite({ client, schema });
  const db = pgliteDb as unknown as Db;
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(pgliteDb, { migrationsFolder }),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: async () => {
      try {
        await client.close();
      } finally {
        // After PGlite has flushed and closed its files; process exit releases it too (the kernel).
        lock?.release();
      }
    },
  };
}

/**
 * Migrations on PostgreSQL, one instance at a time: instances starting together would otherwise
 * each see the same pending migrations and run them at once (a failed start, or worse, a
 * migration applied twice). The session-level advisory lock is held on one dedicated connection,
 * which also runs the migrations; PostgreSQL drops it by itself if that connection or the process
 * dies, so a crashed instance never blocks the others. Whoever comes second finds the work done.
 */
async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
    try {
      await migratePg(drizzlePg({ client, schema }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]);
    }
  } catch (error) {
    // A connection in an unknown state (the unlock may not have run) is not given back to the pool.
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}
