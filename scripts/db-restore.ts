// `npm run db:restore -- FILE [--force]`: loads a backup of npm run db:backup into the PGlite
// directory DATABASE_URL names (unset: ./data/db). It refuses while the app runs on it, and
// refuses to replace a database there without --force; a bad file changes nothing. The app's
// start then applies any newer migrations. On PostgreSQL use pg_restore. server/db/backup.ts.
import { ConfigError, loadConfig } from "../server/config.ts";
import { BackupRefused, restoreDatabase } from "../server/db/backup.ts";

const args = process.argv.slice(2);
const force = args.includes("--force");
const [file, ...rest] = args.filter((a) => a !== "--force");
if (!file || rest.length > 0 || file.startsWith("-")) {
  console.error("Usage: npm run db:restore -- FILE [--force] (--force replaces a database already there)");
  process.exit(1);
}
try {
  // DATABASE_URL alone, parsed as the app parses it: the rest of the app's settings (mail, payments)
  // play no part here, and one missing for a deployment must not stand in the way of a backup.
  const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL });
  await restoreDatabase(config.DATABASE_URL, file, force);
  console.log(`Restored ${file} into ${config.DATABASE_URL}. Start the app on it: npm start.`);
} catch (error) {
  if (!(error instanceof BackupRefused || error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
