// The CSV reader of the bulk uploads (SPEC §3 CSV columns, §5 team CSV upload and reward bulk
// CSV, DESIGN.md §7 upload caps). One reader for the browser (the file is checked before it is
// sent), the server (the upload without JavaScript, and the server's own check of every upload)
// and the reward bulk upload (a fourth column, 'Reward Amount').
//
// What it accepts (what spreadsheets write): a UTF-8 byte-order mark, CRLF or LF line ends,
// quoted fields holding commas, quotes ("") and line breaks, stray quotes inside unquoted values,
// extra columns, headings in any order, headings with surrounding spaces or in another letter
// case ("first name" counts as "First Name"), empty and whitespace-only lines anywhere (skipped:
// rows are numbered from 1 after the heading line, counting only the lines that hold data), and
// rows with fewer cells than the heading line (the missing cells are blank). Values are trimmed.
//
// It never throws: a file it cannot read (e.g. a quote that is never closed) gives one clear
// message. Browser-safe: no zod and no Node built-ins (csv-parse's browser build carries its own
// Buffer); the limits and the email pattern are the schemas' own (core/limits.ts).
import { parse } from "csv-parse/browser/esm/sync";
import { EMAIL_PATTERN, LIMITS, MAX_IMPORT_ROWS, MAX_UPLOAD_BYTES } from "./limits.ts";

/** The most messages a reader lists; the rest are counted in one last message. */
export const CSV_MAX_ERRORS = 100;

export interface CsvColumn<Key extends string> {
  /** The heading as the template writes it, e.g. "Email Address". */
  heading: string;
  /** The property of a row object that receives the (trimmed) value. */
  key: Key;
  /** Whether a trimmed value is acceptable. */
  check: (value: string) => boolean;
  /** The row message after "Row N: " when `check` fails (default "<heading> is missing or incorrect"). */
  message?: string;
}

export interface CsvOptions<Key extends string> {
  columns: readonly CsvColumn<Key>[];
  /** The most data rows a file may hold (default MAX_IMPORT_ROWS). */
  maxRows?: number;
}

export type CsvResult<Key extends string> = { ok: true; rows: Record<Key, string>[] } | { ok: false; errors: string[] };

// ─── Messages (SPEC §5 word for word where SPEC gives them) ───

/** SPEC §5: one per missing column. */
export function missingHeadingMessage(heading: string): string {
  return `${heading}: Column heading is missing or incorrect; please update to "${heading}".`;
}

export function rowMessage(row: number, message: string): string {
  return `Row ${row}: ${message}`;
}

export function tooManyRowsMessage(count: number, maxRows: number): string {
  return `The file has ${count.toLocaleString("en-AU")} rows; a file can hold at most ${maxRows.toLocaleString("en-AU")} rows. Please split it into smaller files.`;
}

export const NO_ROWS_MESSAGE = "The file has no rows below the column headings.";
export const INVALID_FILE_TYPE_MESSAGE = "Invalid file type; please upload a CSV file.";
export const FILE_TOO_LARGE_MESSAGE = `The file is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB; please split it into smaller files.`;

export function moreErrorsMessage(count: number): string {
  return `…and ${count.toLocaleString("en-AU")} more ${count === 1 ? "problem" : "problems"} in the file.`;
}

const PARSE_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: "a quoted value is never closed",
  CSV_INVALID_CLOSING_QUOTE: "a closing quote is followed by other characters",
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: "the rows have different numbers of columns",
  CSV_MAX_RECORD_SIZE: "a row is too long",
};

export function unreadableMessage(problem?: string, line?: number): string {
  const where = line ? ` (line ${line})` : "";
  return `The file could not be read as CSV: ${problem ?? "it is not a valid CSV file"}${where}. Please check the file and try again.`;
}

/** Whether a file name is a .csv file (SPEC §5: only .csv files). */
export function isCsvFileName(name: string): boolean {
  return /\.csv$/i.test(name.trim());
}

// ─── The team import (SPEC §3 CSV columns, §5 team CSV upload) ───

export type TeamCsvKey = "firstName" | "lastName" | "email";
export type TeamCsvRow = Record<TeamCsvKey, string>;

const nameCheck = (value: string) => value.length > 0 && value.length <= LIMITS.name;
export const emailCheck = (value: string) => value.length <= LIMITS.email && EMAIL_PATTERN.test(value);

export const TEAM_CSV_COLUMNS = [
  { heading: "First Name", key: "firstName", check: nameCheck, message: "First Name is missing or incorrect" },
  { heading: "Last Name", key: "lastName", check: nameCheck, message: "Last Name is missing or incorrect" },
  { heading: "Email Address", key: "email", check: emailCheck, message: "Email is missing or incorrect" },
] as const satisfies readonly CsvColumn<TeamCsvKey>[];

/** The downloadable template: the three headings (SPEC §2 My Team). */
export const TEAM_CSV_TEMPLATE = `${TEAM_CSV_COLUMNS.map((c) => c.heading).join(",")}\r\n`;
export const TEAM_CSV_TEMPLATE_FILE_NAME = "team-members-template.csv";

export function readTeamCsv(text: string): CsvResult<TeamCsvKey> {
  return readCsv(text, { columns: TEAM_CSV_COLUMNS, maxRows: MAX_IMPORT_ROWS });
}

// ─── The reader ───

function normaliseHeading(heading: string): string {
  return heading
    .replace(/^\uFEFF/, "")
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase();
}

function parseRecords(text: string): { ok: true; records: string[][] } | { ok: false; message: string } {
  try {
    const records = parse(text, {
      bom: true,
      trim: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    });
    return { ok: true, records };
  } catch (error) {
    const details = (error ?? {}) as { code?: unknown; lines?: unknown };
    const problem = typeof details.code === "string" ? PARSE_PROBLEMS[details.code] : undefined;
    const line = typeof details.lines === "number" && details.lines > 0 ? details.lines : undefined;
    return { ok: false, message: unreadableMessage(problem, line) };
  }
}

/**
 * Reads `text` as a CSV file whose first non-empty line holds the headings of `columns` (in any
 * order, among others). Answers the rows (one object per data line, values trimmed) or the
 * messages: the missing headings, else the per-row problems ("Row N: …"), the row limit, or why
 * the file could not be read. Never throws.
 */
export function readCsv<Key extends string>(text: string, options: CsvOptions<Key>): CsvResult<Key> {
  const maxRows = options.maxRows ?? MAX_IMPORT_ROWS;
  const parsed = parseRecords(typeof text === "string" ? text : "");
  if (!parsed.ok) return { ok: false, errors: [parsed.message] };
  // Lines of spaces or of empty cells (",,,") are blank lines too.
  const records = parsed.records
    .map((record) => record.map((cell) => (typeof cell === "string" ? cell.trim() : "")))
    .filter((record) => record.some((cell) => cell !== ""));

  const [header = [], ...data] = records;
  const positions = new Map<string, number>();
  header.forEach((heading, index) => {
    const key = normaliseHeading(heading);
    if (!positions.has(key)) positions.set(key, index);
  });
  const missing = options.columns.filter((column) => !positions.has(normaliseHeading(column.heading)));
  if (missing.length > 0) return { ok: false, errors: missing.map((column) => missingHeadingMessage(column.heading)) };

  if (data.length === 0) return { ok: false, errors: [NO_ROWS_MESSAGE] };
  if (data.length > maxRows) return { ok: false, errors: [tooManyRowsMessage(data.length, maxRows)] };

  const rows: Record<Key, string>[] = [];
  const errors: string[] = [];
  let unlisted = 0;
  data.forEach((record, index) => {
    const row = {} as Record<Key, string>;
    for (const column of options.columns) {
      const value = record[positions.get(normaliseHeading(column.heading)) ?? -1] ?? "";
      row[column.key] = value;
      if (!column.check(value)) {
        if (errors.length < CSV_MAX_ERRORS) {
          errors.push(rowMessage(index + 1, column.message ?? `${column.heading} is missing or incorrect`));
        } else {
          unlisted++;
        }
      }
    }
    rows.push(row);
  });
  if (unlisted > 0) errors.push(moreErrorsMessage(unlisted));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rows };
}
