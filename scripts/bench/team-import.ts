// Bulk team import benchmark: 5,000 rows through the whole path a CSV upload takes,
// on a fresh in-memory PGlite database: parse (core/csv.ts, the reader the browser and the
// server use), validate (the API's zod schema), save (the real API handler, in process).
// Target: under 2 s in total on this machine.
//
//   node scripts/bench/team-import.ts [--rows 5000]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { readTeamCsv } from "../../core/csv.ts";
import { registerProgramManager } from "../../modules/identity/service.server.ts";
import { issueAccessToken } from "../../modules/identity/sign-in.server.ts";
import { type BulkTeamUploadResponse, bulkTeamUploadSchema, MAX_IMPORT_ROWS } from "../../modules/team/schema.ts";
import { createApi } from "../../server/api/index.ts";
import { captchaOff } from "../../server/captcha/port.ts";
import { type Config, loadConfig } from "../../server/config.ts";
import { type Database, openDatabase } from "../../server/db/client.ts";
import { createLogger } from "../../server/logger.ts";

export interface TeamImportFigures {
  rows: number;
  parseMs: number;
  validateMs: number;
  saveMs: number;
  totalMs: number;
}

/** A CSV file as a spreadsheet writes it: BOM, CRLF, the three headings, `rows` members. */
export function teamCsv(rows: number): string {
  const lines = ["\uFEFFFirst Name,Last Name,Email Address"];
  for (let i = 1; i <= rows; i++) lines.push(`Member${i},"Surname ${i}",member.${i}@example.com`);
  return `${lines.join("\r\n")}\r\n`;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The provider API on `database` and a bearer token of a newly registered program manager. */
export async function benchManagerApi(database: Database, config: Config) {
  const now = new Date();
  const registered = await registerProgramManager(
    database.db,
    {
      firstName: "Bench",
      lastName: "Manager",
      email: "bench.manager@example.com",
      companyName: "Bench Pty Ltd",
      password: "Bench#2024-import",
    },
    now,
  );
  if (registered.status !== "created") throw new Error("could not register the bench manager");
  const [manager] = await database.db.query.users.findMany({
    where: (u, { eq }) => eq(u.publicId, registered.userId),
    columns: { id: true, companyId: true },
  });
  if (!manager) throw new Error("the bench manager is missing");
  const token = await issueAccessToken(database.db, manager, now);
  const api = createApi({ db: database.db, config, logger: createLogger("silent"), captcha: captchaOff });
  return { api, token };
}

export async function benchTeamImport(rows = MAX_IMPORT_ROWS): Promise<TeamImportFigures> {
  const config = loadConfig({ DATABASE_URL: "memory://", LOG_LEVEL: "silent" });
  const database = await openDatabase("memory://");
  try {
    await database.migrate();
    const { api, token } = await benchManagerApi(database, config);
    const csv = teamCsv(rows);

    const t0 = performance.now();
    const read = readTeamCsv(csv);
    if (!read.ok) throw new Error(`the CSV did not parse: ${read.errors.slice(0, 3).join(" ")}`);
    const t1 = performance.now();
    const body = bulkTeamUploadSchema.parse({ users: read.rows });
    const t2 = performance.now();
    const res = await api.fetch(
      new Request("http://bench.local/api/Users/create-user-bulk-upload", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    );
    const answer = (await res.json()) as BulkTeamUploadResponse;
    const t3 = performance.now();
    if (res.status !== 200 || answer.successfullyAdded !== rows) {
      throw new Error(`the upload answered ${res.status}: ${JSON.stringify(answer)}`);
    }
    return {
      rows,
      parseMs: round(t1 - t0),
      validateMs: round(t2 - t1),
      saveMs: round(t3 - t2),
      totalMs: round(t3 - t0),
    };
  } finally {
    await database.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { rows: { type: "string", default: String(MAX_IMPORT_ROWS) } } });
  const figures = await benchTeamImport(Number(values.rows));
  const target = 2000;
  console.log(
    `team import of ${figures.rows} rows (PGlite, in memory): parse ${figures.parseMs} ms, validate ${figures.validateMs} ms, save ${figures.saveMs} ms, total ${figures.totalMs} ms (target < ${target} ms: ${figures.totalMs < target ? "met" : "MISSED"})`,
  );
}
