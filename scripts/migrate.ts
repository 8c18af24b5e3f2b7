// Applies migrations without starting the server. On a PGlite data directory that a running
// server has open it refuses with a clear message (only one process may open it; the directory
// lock of server/db/client.ts); on PostgreSQL it takes turns with starting instances under the
// migrations' advisory lock, so running it beside them is safe.
import { loadConfig } from "../server/config.ts";
import { DatabaseInUseError, openDatabase } from "../server/db/client.ts";

const config = loadConfig();
let database: Awaited<ReturnType<typeof openDatabase>>;
try {
  database = await openDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
} catch (error) {
  if (error instanceof DatabaseInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
try {
  await database.migrate();
} finally {
  await database.close();
}
console.log(`migrations applied (${database.kind})`);
