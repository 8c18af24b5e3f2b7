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
import * as schema from "./schema.ts";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Applies pending migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** A cheap round trip, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openDatabase(databaseUrl: string): Promise<Database> {
  if (isPostgresUrl(databaseUrl)) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
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
      migrate: () => migratePg(drizzlePg({ client: pool, schema }), { migrationsFolder }),
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
  if (databaseUrl === "memory://") {
    client = new PGlite(options);
  } else {
    const dir = resolve(databaseUrl.replace(/^file:\/\//, ""));
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir, options);
  }
  await client.waitReady;
  const pgliteDb = drizzlePglite({ client, schema });
  const db = pgliteDb as unknown as Db;
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(pgliteDb, { migrationsFolder }),
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => client.close(),
  };
}
