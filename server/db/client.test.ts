// The database client on both engines: migrations, ping, and the settings the process keeps.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createPostgresDatabase, describeEachDatabase, postgresAdminUrl } from "../../tests/support/db.ts";
import { resolveSessionSecret } from "../secret.ts";
import { type Database, DatabaseInUseError, openDatabase } from "./client.ts";

describeEachDatabase("database", ({ kind, database }) => {
  it("opens the engine it was asked for, migrated, and answers a ping", async () => {
    expect(database().kind).toBe(kind);
    await expect(database().ping()).resolves.toBeUndefined();
    const result = (await database().db.execute(
      sql`select tablename from pg_tables where schemaname = 'public'`,
    )) as unknown as { rows: Array<{ tablename: string }> };
    expect(result.rows.map((r) => r.tablename)).toEqual(
      expect.arrayContaining(["app_settings", "catalogue_items", "email_outbox", "help_requests", "waitlist_entries"]),
    );
  });

  it("applies migrations again without harm (they run on every start)", async () => {
    await database().migrate();
    await database().migrate();
    await database().ping();
  });

  it("generates the session secret once and keeps it; SESSION_SECRET wins when set", async () => {
    const { db } = database();
    const first = await resolveSessionSecret(db, undefined);
    const second = await resolveSessionSecret(db, undefined);
    expect(first.generated).toBe(true);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(second.secret).toBe(first.secret);
    expect(await resolveSessionSecret(db, "x".repeat(40))).toEqual({ secret: "x".repeat(40), generated: false });
  });
});

// One writer per PGlite directory (the directory lock of ./directory-lock.ts), in one process:
// the lock is per open file, so a second open in the same process is refused too.
describe("a PGlite data directory", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is opened by one Database at a time; close() lets the next one in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rewards-lock-"));
    dirs.push(dir);
    const url = join(dir, "db");
    const first = await openDatabase(url);
    try {
      const refused = await openDatabase(url).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DatabaseInUseError);
      expect((refused as Error).message).toBe(
        `The database directory ${url} is in use by another process (pid ${process.pid}). ` +
          "Stop it first, or set DATABASE_URL to a PostgreSQL server to run several processes.",
      );
      await first.migrate();
      await first.ping();
    } finally {
      await first.close();
    }
    const second = await openDatabase(url);
    try {
      await second.migrate();
      await second.ping();
    } finally {
      await second.close();
    }
  });

  it("memory:// takes no lock: each open is a database of its own", async () => {
    const a = await openDatabase("memory://");
    const b = await openDatabase("memory://");
    try {
      await Promise.all([a.ping(), b.ping()]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

const migrationFiles = readdirSync(fileURLToPath(new URL("./migrations", import.meta.url))).filter((f) =>
  f.endsWith(".sql"),
);

describe.skipIf(!postgresAdminUrl)("migrations on PostgreSQL", () => {
  it("run once when several instances start together (advisory lock)", { timeout: 60_000 }, async () => {
    const created = await createPostgresDatabase();
    const instances: Database[] = [];
    try {
      for (let i = 0; i < 4; i++) instances.push(await openDatabase(created.url));
      // All at once on a fresh database: without the lock each sees every migration pending and
      // runs it, and all but one fail (a table or drizzle's own journal schema already exists).
      const results = await Promise.allSettled(instances.map((d) => d.migrate()));
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      const [first, second] = instances as [Database, Database];
      const journal = (await first.db.execute(sql`select hash from drizzle.__drizzle_migrations`)) as unknown as {
        rows: Array<{ hash: string }>;
      };
      expect(journal.rows).toHaveLength(migrationFiles.length);
      // The lock is released afterwards: a later start migrates (nothing to do) without waiting.
      await second.migrate();
    } finally {
      await Promise.all(instances.map((d) => d.close()));
      await created.drop();
    }
  });
});
