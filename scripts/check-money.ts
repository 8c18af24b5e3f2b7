// `npm run check:money`: the money reconciliation (modules/money-check/service.server.ts) against the
// database DATABASE_URL names (unset: ./data/db), parsed as the app parses it. It only reads. It
// prints one line per finding and exits 1, or prints "money reconciles: …" and exits 0. The app
// runs the same check hourly and logs each finding (modules/money-check/job.server.ts).
//
// A PGlite directory takes one process (ADR 0012): while the app runs on it this refuses with
// the directory lock's message, as `npm run db:migrate` does; on PostgreSQL it runs beside the app.
import { existsSync } from "node:fs";
import { checkMoney, formatFinding, reconcilesLine } from "../modules/money-check/service.server.ts";
import { ConfigError, isPostgresUrl, loadConfig } from "../server/config.ts";
import { DatabaseInUseError, openDatabase } from "../server/db/client.ts";

let url: string;
try {
  // DATABASE_URL alone: the app's other settings (mail, payments) play no part in a read-only check.
  url = loadConfig({ DATABASE_URL: process.env.DATABASE_URL }).DATABASE_URL;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
if (url === "memory://") {
  console.error("DATABASE_URL=memory:// is a new, empty database in this process: there is nothing to check.");
  process.exit(1);
}
// Opening a PGlite directory that is not there would create an empty database: a read-only check
// refuses instead (a mistyped path must not look like a clean ledger). The directory is the path,
// or a file:// URL's path, as server/db/client.ts reads it.
const directory = url.replace(/^file:\/\//, "");
if (!isPostgresUrl(url) && !existsSync(directory)) {
  console.error(`No database at ${directory} (DATABASE_URL): nothing to check.`);
  process.exit(1);
}

let database: Awaited<ReturnType<typeof openDatabase>>;
try {
  database = await openDatabase(url, 1);
} catch (error) {
  if (error instanceof DatabaseInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
let findings = 0;
try {
  const result = await checkMoney(database.db, { now: new Date() });
  findings = result.findings.length;
  for (const finding of result.findings) console.log(formatFinding(finding));
  if (findings === 0) console.log(reconcilesLine(result));
} finally {
  await database.close();
}
process.exit(findings === 0 ? 0 : 1);
