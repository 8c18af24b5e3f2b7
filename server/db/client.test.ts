// The database client on both engines: migrations, ping, and the settings the process keeps.
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeEachDatabase } from "../../tests/support/db.ts";
import { resolveSessionSecret } from "../secret.ts";

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
