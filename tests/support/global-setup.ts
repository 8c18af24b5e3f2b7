// Vitest global setup: one PostgreSQL server for the whole run, so the database tests run on
// PGlite and on a real PostgreSQL server (docs/requirements.md §D4). Test files each create a fresh database
// on it (tests/support/db.ts).
//
//   TEST_POSTGRES_URL=postgres://…  use that server instead of starting one (needs CREATE DATABASE)
//   POSTGRES_BIN=/path/to/bin        where initdb and postgres live (else /usr/lib/postgresql/*/bin, PATH)
//   TEST_POSTGRES=off                skip the PostgreSQL variants locally (refused when CI=true)
// It also builds the web app when its sources are newer than the build (scripts/build-if-needed.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../server/db/client.ts";
import { findPostgresBinaries, type PostgresServer, startPostgres } from "./postgres-server.ts";
import "./provided.ts";

const isCI = /^(1|true)$/i.test(process.env.CI ?? "");

export default async function setup(project: TestProject) {
  // The security tests drive the real process entry on the production build (tests/security/http.ts).
  // NODE_ENV is "test" under vitest; `npm run build` makes the production build whatever it holds
  // (scripts/build.ts, ADR 0024).
  execFileSync(process.execPath, ["scripts/build-if-needed.ts"], { stdio: "inherit" });
  const removeSeed = await provideSeed(project);
  const stopPostgres = await providePostgres(project);
  return async () => {
    await stopPostgres?.();
    removeSeed();
  };
}

/**
 * PGlite's initdb takes seconds and each test file opens its own databases: they start instead as
 * copies of one migrated data directory, made here once (`openDatabase`'s `memorySeed`).
 */
async function provideSeed(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "rewards-pglite-seed-"));
  const database = await openDatabase("memory://");
  try {
    await database.migrate();
    const client = (database.db as unknown as { $client: PGlite }).$client;
    const file = join(dir, "seed.tar");
    writeFileSync(file, Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer()));
    project.provide("pgliteSeed", file);
  } finally {
    await database.close();
  }
  return () => rmSync(dir, { recursive: true, force: true });
}

async function providePostgres(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.TEST_POSTGRES_URL?.trim();
  if (external) {
    project.provide("postgres", { url: external, version: "external server" });
    console.info(`[db] PostgreSQL variants use TEST_POSTGRES_URL`);
    return;
  }

  const skip = (reason: string): undefined => {
    if (isCI) {
      throw new Error(`CI=true: the database tests must run on PostgreSQL too, but ${reason}.`);
    }
    console.warn(`\n[db] ${reason}: the PostgreSQL variants of the database tests are SKIPPED (PGlite only).\n`);
    project.provide("postgres", { skipped: reason });
    return undefined;
  };

  if (process.env.TEST_POSTGRES === "off") return skip("TEST_POSTGRES=off");
  const binDir = findPostgresBinaries();
  if (!binDir) {
    return skip(
      "no PostgreSQL binaries (initdb, postgres) under /usr/lib/postgresql/*/bin, POSTGRES_BIN or PATH; install Debian's `postgresql` package",
    );
  }

  const started = performance.now();
  // Binaries present but the server does not start: a broken setup fails the run, never hides.
  const server: PostgresServer = await startPostgres(binDir);
  console.info(`[db] ${server.version} started for the tests in ${Math.round(performance.now() - started)} ms`);
  project.provide("postgres", { url: server.adminUrl, version: server.version });
  return () => server.stop();
}
