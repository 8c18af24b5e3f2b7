// The bulk reward CSV (docs/requirements.md §S3 'First Name, Last Name, Email Address, Reward Amount', §S5 reward
// bulk CSV, whose amount check SPEC calls ineffective; here it is real): the team import's reader
// (core/csv.ts) with a fourth column whose cell must be a whole number from 0 to 10,000 ('Row N: Wrong Reward Amount').
// Used in the browser (loaded only when a file is picked: it brings csv-parse) and on the server
// (the streamed import, modules/imports/service.server.ts).
import { type CsvColumn, PERSON_CSV_COLUMNS, readCsv } from "../../core/csv.ts";
import { MAX_DRAFT_RECIPIENTS } from "../../core/limits.ts";
import { csvRewardAmount, REWARD_DETAILS } from "./schema.ts";

export type RewardCsvKey = "firstName" | "lastName" | "email" | "value";

/** A checked row, as bulk-upload-reward takes it. */
export interface RewardCsvRow {
  firstName: string;
  lastName: string;
  email: string;
  value: number;
}

export const REWARD_CSV_COLUMNS = [
  ...PERSON_CSV_COLUMNS,
  {
    heading: "Reward Amount",
    key: "value",
    check: (value: string) => csvRewardAmount(value) !== null,
    message: REWARD_DETAILS.csvWrongAmount,
  },
] as const satisfies readonly CsvColumn<RewardCsvKey>[];

export const REWARD_CSV_HEADINGS = REWARD_CSV_COLUMNS.map((column) => column.heading);

/** The downloadable template (portal/reward-my-team/template.csv): the four headings. */
export const REWARD_CSV_TEMPLATE = `${REWARD_CSV_HEADINGS.join(",")}\r\n`;
export const REWARD_CSV_TEMPLATE_FILE_NAME = "reward-recipients-template.csv";

export type RewardCsvResult = { ok: true; rows: RewardCsvRow[] } | { ok: false; errors: string[] };

/** Reads the text of a bulk reward file: the rows, or the heading and 'Row N:' messages. */
export function readRewardCsv(text: string): RewardCsvResult {
  const result = readCsv(text, { columns: REWARD_CSV_COLUMNS, maxRows: MAX_DRAFT_RECIPIENTS });
  if (!result.ok) return result;
  return {
    ok: true,
    rows: result.rows.map((row) => ({
      firstName: row.firstName,
      lastName: row.lastName,
      email: row.email,
      value: csvRewardAmount(row.value) ?? 0,
    })),
  };
}
