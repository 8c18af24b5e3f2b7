// Applies migrations without starting the server. Never run it against a PGlite data directory
// that a running server has open (only one process may open it).
import { loadConfig } from "../server/config.ts";
import { openDatabase } from "../server/db/client.ts";

const config = loadConfig();
const database = await openDatabase(config.DATABASE_URL);
await database.migrate();
await database.close();
console.log(`migrations applied (${database.kind})`);
