// Fault tests: one writer. Several application processes (tests/support/app-entry.ts) on one
// database: on PostgreSQL they start together and apply the migrations once (advisory lock,
// server/db/client.ts); on a PGlite data directory only the first may open it, a second stops at
// once with a clear message, and a SIGKILLed holder leaves no stale lock behind
// (server/db/directory-lock.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { LOCK_FILE } from "../../server/db/directory-lock.ts";
import { type AppProcess, api, launchApp, startApp, waitUntilReady } from "../support/app-process.ts";
import { createPostgresDatabase, postgresAdminUrl } from "../support/db.ts";

const migrationFiles = readdirSync(fileURLToPath(new URL("../../server/db/migrations", import.meta.url))).filter((f) =>
  f.endsWith(".sql"),
);

const apps: AppProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async (context) => {
  if (context.task.result?.state === "fail") {
    for (const app of apps) {
      console.error(
        `app ${app.child.pid} exit: ${app.child.exitCode} ${app.child.signalCode}\n${app.output().slice(-3000)}`,
      );
    }
  }
  for (const app of apps.splice(0)) await app.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** What a healthy start prints at LOG_LEVEL=warn: nothing at error level, no stack trace. */
function expectNoError(app: AppProcess) {
  expect(app.output()).not.toMatch(/error|"level":(50|60)|\n\s+at /i);
}

it.skipIf(!postgresAdminUrl)(
  "two processes starting together on one fresh PostgreSQL database both come up; migrations applied once",
  { timeout: 120_000 },
  async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    // Launched in the same moment: both reach their migrations while the database is still empty.
    const [a, b] = await Promise.all([
      launchApp({ DATABASE_URL: database.url }),
      launchApp({ DATABASE_URL: database.url }),
    ]);
    apps.push(a, b);
    await Promise.all([waitUntilReady(a), waitUntilReady(b)]);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ hash: string }>("select hash from drizzle.__drizzle_migrations");
      expect(rows).toHaveLength(migrationFiles.length);
      expect(new Set(rows.map((r) => r.hash)).size).toBe(migrationFiles.length);
      // The advisory lock was released: no instance keeps it after its start. pg_locks covers the
      // whole server, where other test files hold locks of their own databases at the same time.
      const held = await client.query(
        "select 1 from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())",
      );
      expect(held.rows).toEqual([]);
    } finally {
      await client.end();
    }
    for (const app of [a, b]) {
      expect((await fetch(`${app.base}/readyz`)).status).toBe(200);
      expectNoError(app);
    }
  },
);

it("a second process on one PGlite directory refuses to start; after the holder is SIGKILLed a new one starts", {
  timeout: 120_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "rewards-one-writer-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, "db");

  const first = await startApp({ DATABASE_URL: dataDir });
  apps.push(first);

  const second = await launchApp({ DATABASE_URL: dataDir });
  apps.push(second);
  const { code } = await second.exited;
  expect(code).not.toBe(0);
  expect(code).not.toBeNull();
  expect(second.output()).toContain(
    `The database directory ${dataDir} is in use by another process (pid ${first.child.pid}). ` +
      "Stop it first, or set DATABASE_URL to a PostgreSQL server to run several processes.",
  );
  expect(second.output()).not.toMatch(/\n\s+at /); // the message, not a stack trace

  // The first keeps serving, reads and writes alike.
  expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
  const registered = await api(first.base, "POST", "/api/Register", {
    firstName: "Only",
    lastName: "Writer",
    email: "only.writer@example.com",
    companyName: "One Writer Pty Ltd",
    password: "One#Writer-2026-pass",
    captchaToken: "x",
    isCaptchaV3: true,
  });
  expect(registered.status).toBe(200);
  expectNoError(first);

  // Killed without any chance to clean up: the kernel drops its lock with it.
  await first.kill("SIGKILL");
  const third = await startApp({ DATABASE_URL: dataDir });
  apps.push(third);
  expect((await fetch(`${third.base}/readyz`)).status).toBe(200);
  expect(readFileSync(join(dataDir, LOCK_FILE), "utf8").trim()).toBe(String(third.child.pid));
  expectNoError(third);
});
