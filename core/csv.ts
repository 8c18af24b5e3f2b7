// The CSV reader of the bulk uploads (docs/requirements.md §S3 CSV columns, §S5 team CSV upload and reward bulk
// CSV, §D7 upload caps). One reader for the browser (the file is checked before it is
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
import { csvStartDateProblem, readCsvBirthday, readCsvStartDate, readCsvState } from "./member-dates.ts";

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
  /** The row message for this value, when one value's fault needs its own words (else `message`). */
  messageFor?: (value: string) => string | undefined;
  /** A column a file may leave out (its cells read as blank): files written before it still import. */
  optional?: boolean;
}

export interface CsvOptions<Key extends string> {
  columns: readonly CsvColumn<Key>[];
  /** The most data rows a file may hold (default MAX_IMPORT_ROWS). */
  maxRows?: number;
}

export type CsvResult<Key extends string> = { ok: true; rows: Record<Key, string>[] } | { ok: false; errors: string[] };

// ─── Messages (docs/requirements.md §S5 word for word where SPEC gives them) ───

/** docs/requirements.md §S5: one per missing column. */
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

/** Whether a file name is a .csv file (docs/requirements.md §S5: only .csv files). */
export function isCsvFileName(name: string): boolean {
  return /\.csv$/i.test(name.trim());
}

// ─── The team import (docs/requirements.md §S3 CSV columns, §S5 team CSV upload) ───

export type TeamCsvKey = "firstName" | "lastName" | "email" | "birthday" | "startDate" | "state";
export type TeamCsvRow = Record<TeamCsvKey, string>;

// A NUL cannot be stored in a text column (PostgreSQL refuses it): such a name is incorrect.
const nameCheck = (value: string) => value.length > 0 && value.length <= LIMITS.name && !value.includes("\u0000");
export const emailCheck = (value: string) => value.length <= LIMITS.email && EMAIL_PATTERN.test(value);

/** Who is rewarded: the three columns of every team and reward file (docs/requirements.md §S3). */
export const PERSON_CSV_COLUMNS = [
  { heading: "First Name", key: "firstName", check: nameCheck, message: "First Name is missing or incorrect" },
  { heading: "Last Name", key: "lastName", check: nameCheck, message: "Last Name is missing or incorrect" },
  { heading: "Email Address", key: "email", check: emailCheck, message: "Email is missing or incorrect" },
] as const satisfies readonly CsvColumn<"firstName" | "lastName" | "email">[];

/**
 * The team file's optional details (core/member-dates.ts reads each cell): a file without these
 * headings imports as before, and a blank cell is no value.
 */
export const MEMBER_DETAIL_CSV_COLUMNS = [
  {
    heading: "Birthday",
    key: "birthday",
    optional: true,
    check: (value: string) => readCsvBirthday(value) !== null,
    message: "Birthday is incorrect; write the day and month, e.g. 31/12",
  },
  {
    heading: "Start Date",
    key: "startDate",
    optional: true,
    check: (value: string) => readCsvStartDate(value) !== null,
    message: "Start Date is incorrect; write a date, e.g. 31/12/2020",
    messageFor: (value: string) =>
      csvStartDateProblem(value) === "tooOld" ? "Start Date can be at most 80 years ago" : undefined,
  },
  {
    heading: "State",
    key: "state",
    optional: true,
    check: (value: string) => readCsvState(value) !== null,
    message: "State is incorrect; write NSW, VIC, QLD, SA, WA, TAS, NT or ACT",
  },
] as const satisfies readonly CsvColumn<"birthday" | "startDate" | "state">[];

export const TEAM_CSV_COLUMNS = [
  ...PERSON_CSV_COLUMNS,
  ...MEMBER_DETAIL_CSV_COLUMNS,
] as const satisfies readonly CsvColumn<TeamCsvKey>[];

/** The downloadable template: every heading, the optional ones last (docs/requirements.md §S2 My Team). */
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

/** csv-parse's options for every reader (the whole text in the browser, a stream on the server). */
export const CSV_PARSE_OPTIONS = {
  bom: true,
  trim: true,
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: true,
} as const;

/** The message for an error csv-parse threw (sync) or emitted (stream). */
export function parseFailureMessage(error: unknown): string {
  const details = (error ?? {}) as { code?: unknown; lines?: unknown };
  const problem = typeof details.code === "string" ? PARSE_PROBLEMS[details.code] : undefined;
  const line = typeof details.lines === "number" && details.lines > 0 ? details.lines : undefined;
  return unreadableMessage(problem, line);
}

function parseRecords(text: string): { ok: true; records: string[][] } | { ok: false; message: string } {
  try {
    return { ok: true, records: parse(text, CSV_PARSE_OPTIONS) };
  } catch (error) {
    return { ok: false, message: parseFailureMessage(error) };
  }
}

/**
 * The checks of a reader, one record at a time, so a file can be read whole (readCsv) or as a
 * stream (the server's import, modules/imports/service.server.ts) with the same rules and messages.
 * Feed it every record csv-parse gives, in order: the first non-blank one is the heading line.
 */
export class CsvRowChecker<Key extends string> {
  readonly maxRows: number;
  /** Data rows seen so far (blank lines are not rows). */
  rowCount = 0;
  /** The heading messages once the heading line lacks a column (the file is refused as a whole). */
  headingErrors: string[] | null = null;
  private readonly columns: readonly CsvColumn<Key>[];
  private positions: Map<string, number> | null = null;
  private readonly errors: string[] = [];
  private unlisted = 0;

  constructor(options: CsvOptions<Key>) {
    this.columns = options.columns;
    this.maxRows = options.maxRows ?? MAX_IMPORT_ROWS;
  }

  /**
   * One record: null for the heading line, a blank line, a heading-less file or a row past the
   * limit (only counted); otherwise the row's trimmed values (a row with problems too: they are
   * collected for `result`).
   */
  add(raw: unknown[]): Record<Key, string> | null {
    // Lines of spaces or of empty cells (",,,") are blank lines too.
    const record = raw.map((cell) => (typeof cell === "string" ? cell.trim() : ""));
    if (!record.some((cell) => cell !== "")) return null;
    if (this.headingErrors) return null;
    if (!this.positions) {
      const positions = new Map<string, number>();
      record.forEach((heading, index) => {
        const key = normaliseHeading(heading);
        if (!positions.has(key)) positions.set(key, index);
      });
      const missing = this.columns.filter(
        (column) => !column.optional && !positions.has(normaliseHeading(column.heading)),
      );
      if (missing.length > 0) this.headingErrors = missing.map((column) => missingHeadingMessage(column.heading));
      else this.positions = positions;
      return null;
    }
    this.rowCount++;
    if (this.rowCount > this.maxRows) return null;
    const row = {} as Record<Key, string>;
    for (const column of this.columns) {
      const value = record[this.positions.get(normaliseHeading(column.heading)) ?? -1] ?? "";
      row[column.key] = value;
      if (!column.check(value))
        this.problem(
          rowMessage(
            this.rowCount,
            column.messageFor?.(value) ?? column.message ?? `${column.heading} is missing or incorrect`,
          ),
        );
    }
    return row;
  }

  /** A problem found beyond the column checks (e.g. a repeated address), listed like theirs. */
  problem(message: string): void {
    if (this.errors.length < CSV_MAX_ERRORS) this.errors.push(message);
    else this.unlisted++;
  }

  /** Whether the file is refused so far (headings, a row problem, or too many rows). */
  get failed(): boolean {
    return this.headingErrors !== null || this.errors.length > 0 || this.rowCount > this.maxRows;
  }

  /** After the last record: the file's messages, or none when every row passed. */
  result(): string[] {
    if (this.headingErrors) return this.headingErrors;
    // A file that never had a heading line has no column headings at all.
    if (!this.positions)
      return this.columns.filter((column) => !column.optional).map((column) => missingHeadingMessage(column.heading));
    if (this.rowCount === 0) return [NO_ROWS_MESSAGE];
    if (this.rowCount > this.maxRows) return [tooManyRowsMessage(this.rowCount, this.maxRows)];
    return this.unlisted > 0 ? [...this.errors, moreErrorsMessage(this.unlisted)] : [...this.errors];
  }
}

/**
 * Reads `text` as a CSV file whose first non-empty line holds the headings of `columns` (in any
 * order, among others). Answers the rows (one object per data line, values trimmed) or the
 * messages: the missing headings, else the per-row problems ("Row N: …"), the row limit, or why
 * the file could not be read. Never throws.
 */
export function readCsv<Key extends string>(text: string, options: CsvOptions<Key>): CsvResult<Key> {
  const parsed = parseRecords(typeof text === "string" ? text : "");
  if (!parsed.ok) return { ok: false, errors: [parsed.message] };
  const checker = new CsvRowChecker(options);
  const rows: Record<Key, string>[] = [];
  for (const record of parsed.records) {
    const row = checker.add(record);
    if (row) rows.push(row);
  }
  const errors = checker.result();
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rows };
}
