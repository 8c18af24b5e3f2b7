// `npm run db:backup -- FILE`: a consistent copy of the embedded database (the PGlite directory
// DATABASE_URL names, unset: ./data/db) as one file, taken with the app stopped; it refuses while
// the app runs on it. On PostgreSQL use pg_dump. docs/OPERATIONS.md "Backup and restore"; server/db/backup.ts.
import { ConfigError, loadConfig } from "../server/config.ts";
import { BackupRefused, backupDatabase } from "../server/db/backup.ts";

const [file, ...rest] = process.argv.slice(2);
if (!file || rest.length > 0 || file.startsWith("-")) {
  console.error("Usage: npm run db:backup -- FILE (the file to write the backup to)");
  process.exit(1);
}
try {
  // DATABASE_URL alone, parsed as the app parses it: the rest of the app's settings (mail, payments)
  // play no part here, and one missing for a deployment must not stand in the way of a backup.
  const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL });
  const bytes = await backupDatabase(config.DATABASE_URL, file);
  console.log(`Backed up ${config.DATABASE_URL} to ${file} (${(bytes / 1e6).toFixed(1)} MB).`);
} catch (error) {
  if (!(error instanceof BackupRefused || error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
