// Database harness: an opened, migrated `Database` (server/db/client.ts) on PGlite `memory://`
// or on a fresh database of the PostgreSQL server the global setup started. Database tests run
// on both: `describe.each(databases)` or `describeEachDatabase(...)`.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { type Database, type Db, openDatabase } from "../../server/db/client.ts";
import "./provided.ts";

export type DatabaseKind = "pglite" | "postgres";

export interface TestDatabase extends Database {
  /** The DATABASE_URL that opens this database (`memory://` for PGlite: a new, empty one). */
  url: string;
}

const provided = inject("postgres");
const seedPath = inject("pgliteSeed");
let seed: Blob | undefined;
/** The global setup's migrated PGlite data directory, read once per test file. */
function pgliteSeed(): Blob | undefined {
  if (!seedPath) return undefined;
  seed ??= new Blob([readFileSync(seedPath)]);
  return seed;
}

export interface DatabaseCase {
  kind: DatabaseKind;
  /** Why this variant is skipped on this machine, if it is. */
  skipped?: string;
}

export const databases: DatabaseCase[] = [
  { kind: "pglite" },
  { kind: "postgres", skipped: "skipped" in provided ? provided.skipped : undefined },
];

export const postgresAdminUrl: string | undefined = "url" in provided ? provided.url : undefined;

/** A PostgreSQL database of its own on the test server; dropped again by `drop()`. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!postgresAdminUrl) throw new Error("no PostgreSQL server in this run (see the global setup's message)");
  const name = `test_${process.pid}_${randomBytes(6).toString("hex")}`;
  await withAdmin(async (client) => {
    await client.query(`create database "${name}"`);
    // A test that waits on a lock or a statement that never ends fails with PostgreSQL's own
    // error naming the statement, instead of timing out in silence, and its abandoned
    // transaction is ended so the next test's TRUNCATE is not held behind it. The slowest legitimate
    // statement (a 50,000-row draft upload in modules/reward-drafts/reward-my-team.test.ts) takes seconds.
    await client.query(
      `alter database "${name}" set statement_timeout = '90s'; ` +
        `alter database "${name}" set lock_timeout = '60s'; ` +
        `alter database "${name}" set idle_in_transaction_session_timeout = '120s'`,
    );
  });
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withAdmin((client) => client.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Opens and migrates a fresh database of the given kind. Close it when done. */
export async function openTestDatabase(kind: DatabaseKind = "pglite"): Promise<TestDatabase> {
  if (kind === "pglite") {
    // From the migrated copy when the global setup made one (then migrate() finds nothing to do).
    const database = await openDatabase("memory://", undefined, { memorySeed: pgliteSeed() });
    await database.migrate();
    return { ...database, url: "memory://" };
  }
  const created = await createPostgresDatabase();
  let database: Database | undefined;
  try {
    database = await openDatabase(created.url);
    await database.migrate();
  } catch (error) {
    await database?.close().catch(() => {});
    await created.drop();
    throw error;
  }
  const opened = database;
  let closed = false;
  return {
    ...opened,
    url: created.url,
    async close() {
      if (closed) return;
      closed = true;
      await opened.close();
      await created.drop();
    },
  };
}

/** Empties every application table (not the migrations journal) and restarts the id sequences. */
export async function truncateAll(db: Db): Promise<void> {
  const rows = (await db.execute(
    sql`select tablename from pg_tables where schemaname = 'public' order by tablename`,
  )) as unknown as { rows?: Array<{ tablename: string }> } | Array<{ tablename: string }>;
  const list = Array.isArray(rows) ? rows : (rows.rows ?? []);
  if (list.length === 0) return;
  const names = list.map((r) => `"public"."${r.tablename}"`).join(", ");
  await db.execute(sql.raw(`truncate table ${names} restart identity cascade`));
}

/**
 * One `describe` block per database kind, sharing one migrated database per block (opened in
 * beforeAll, closed in afterAll). A kind this machine cannot run is a visible skip.
 */
export function describeEachDatabase(
  title: string,
  body: (ctx: { kind: DatabaseKind; database: () => TestDatabase }) => void,
) {
  for (const { kind, skipped } of databases) {
    const block = skipped ? describe.skip : describe;
    block(`${title} [${kind}]${skipped ? ` (skipped: ${skipped})` : ""}`, () => {
      let current: TestDatabase | undefined;
      beforeAll(async () => {
        current = await openTestDatabase(kind);
      });
      afterAll(async () => {
        await current?.close();
      });
      body({
        kind,
        database: () => {
          if (!current) throw new Error("the test database is not open yet (use it inside hooks or tests)");
          return current;
        },
      });
    });
  }
}
