// The CSV reader (core/csv.ts): docs/requirements.md §S5's messages, what spreadsheets write, the limits, and
// properties (fast-check): it never throws, every message is one of its kinds, and valid rows
// written with quoting in any column order, with or without BOM, CRLF or LF, read back the same.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { teamMemberSchema } from "../modules/team/schema.ts";
import {
  CSV_MAX_ERRORS,
  type CsvColumn,
  isCsvFileName,
  missingHeadingMessage,
  NO_ROWS_MESSAGE,
  PERSON_CSV_COLUMNS,
  readCsv,
  readTeamCsv,
  TEAM_CSV_TEMPLATE,
  type TeamCsvRow,
} from "./csv.ts";
import { EMAIL_PATTERN, MAX_IMPORT_ROWS } from "./limits.ts";

const HEADER = "First Name,Last Name,Email Address";
/** A file written before the optional detail columns reads them as blank. */
const NO_DETAILS = { birthday: "", startDate: "", state: "" };

describe("readTeamCsv", () => {
  it("reads the template's headings and rows, values trimmed", () => {
    const result = readTeamCsv(`${HEADER}\r\n Jane , Citizen ,jane@example.com\r\nJohn,Smith, john@example.com \r\n`);
    expect(result).toEqual({
      ok: true,
      rows: [
        { firstName: "Jane", lastName: "Citizen", email: "jane@example.com", ...NO_DETAILS },
        { firstName: "John", lastName: "Smith", email: "john@example.com", ...NO_DETAILS },
      ],
    });
  });

  it("copes with a BOM, CRLF, quotes, extra columns, another order, blank and trailing lines", () => {
    const text =
      '\uFEFFNotes, email address ,"Last Name",FIRST NAME\r\n' +
      '"likes ""cake"", and tea",a@example.com,"O\'Brien, Jr",Ann\r\n' +
      "\r\n   \r\n,,,\r\n" +
      'x,b@example.com,"Two\nLines",Bob\r\n\r\n\r\n';
    expect(readTeamCsv(text)).toEqual({
      ok: true,
      rows: [
        { firstName: "Ann", lastName: "O'Brien, Jr", email: "a@example.com", ...NO_DETAILS },
        { firstName: "Bob", lastName: "Two\nLines", email: "b@example.com", ...NO_DETAILS },
      ],
    });
  });

  it("accepts a stray quote inside an unquoted value", () => {
    const result = readTeamCsv(`${HEADER}\nAnn,O"Neil,a@example.com\n`);
    expect(result).toEqual({
      ok: true,
      rows: [{ firstName: "Ann", lastName: 'O"Neil', email: "a@example.com", ...NO_DETAILS }],
    });
  });

  it("lists each missing heading with docs/requirements.md §S5's message", () => {
    expect(readTeamCsv("First Name,Surname,Email\nA,B,a@example.com\n")).toEqual({
      ok: false,
      errors: [
        'Last Name: Column heading is missing or incorrect; please update to "Last Name".',
        'Email Address: Column heading is missing or incorrect; please update to "Email Address".',
      ],
    });
  });

  it("an empty file misses every heading", () => {
    for (const text of ["", "\uFEFF", "\r\n\r\n", "  \n"]) {
      expect(readTeamCsv(text)).toEqual({
        ok: false,
        errors: PERSON_CSV_COLUMNS.map((column) => missingHeadingMessage(column.heading)),
      });
    }
  });

  it("numbers rows from 1 after the heading line, skipping empty lines", () => {
    const text = `\n${HEADER}\n\nAnn,,ann@example.com\n \n,Bee,not-an-email\nCat,Dee,cat@example.com\n,,\n`;
    expect(readTeamCsv(text)).toEqual({
      ok: false,
      errors: [
        "Row 1: Last Name is missing or incorrect",
        "Row 2: First Name is missing or incorrect",
        "Row 2: Email is missing or incorrect",
      ],
    });
  });

  it("treats missing cells as blank and refuses names and emails the API would refuse", () => {
    const long = "x".repeat(65);
    const text = `${HEADER}\nAnn\n${long},B,b@example.com\nC,D,${"e".repeat(250)}@example.com\nE,F,g@h\n`;
    expect(readTeamCsv(text)).toEqual({
      ok: false,
      errors: [
        "Row 1: Last Name is missing or incorrect",
        "Row 1: Email is missing or incorrect",
        "Row 2: First Name is missing or incorrect",
        "Row 3: Email is missing or incorrect",
        "Row 4: Email is missing or incorrect",
      ],
    });
  });

  it("a heading line alone has no rows", () => {
    expect(readTeamCsv(`${HEADER}\r\n`)).toEqual({ ok: false, errors: [NO_ROWS_MESSAGE] });
  });

  it("refuses more than 50,000 rows with a clear message naming the limit", () => {
    const line = "A,B,a@example.com\n";
    expect(readTeamCsv(`${HEADER}\n${line.repeat(MAX_IMPORT_ROWS)}`).ok).toBe(true);
    expect(readTeamCsv(`${HEADER}\n${line.repeat(MAX_IMPORT_ROWS + 1)}`)).toEqual({
      ok: false,
      errors: ["The file has 50,001 rows; a file can hold at most 50,000 rows. Please split it into smaller files."],
    });
  });

  it("an unterminated quote gives one message, never a throw", () => {
    expect(readTeamCsv(`${HEADER}\nAnn,"Bee,a@example.com\n`)).toEqual({
      ok: false,
      errors: [
        "The file could not be read as CSV: a quoted value is never closed (line 2). Please check the file and try again.",
      ],
    });
  });

  it("lists at most 100 row messages and counts the rest", () => {
    const result = readTeamCsv(`${HEADER}\n${",,x\n".repeat(60)}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(CSV_MAX_ERRORS + 1);
    expect(result.errors.at(-1)).toBe("…and 80 more problems in the file.");
  });

  it("the template holds the three headings, then the optional details", () => {
    expect(TEAM_CSV_TEMPLATE).toBe("First Name,Last Name,Email Address,Birthday,Start Date,State\r\n");
    expect(readTeamCsv(TEAM_CSV_TEMPLATE)).toEqual({ ok: false, errors: [NO_ROWS_MESSAGE] });
  });

  it("reads the optional details as spreadsheets write them, and blank ones as none", () => {
    const text =
      `${HEADER},Birthday,Start Date,State\n` +
      "Ann,Lee,ann@example.com,29/02,03/01/2022,wa\n" +
      "Bob,Ng,bob@example.com,7/11/1990,2019-06-30,Western Australia\n" +
      "Cat,Oh,cat@example.com,,,\n";
    expect(readTeamCsv(text)).toEqual({
      ok: true,
      rows: [
        {
          firstName: "Ann",
          lastName: "Lee",
          email: "ann@example.com",
          birthday: "29/02",
          startDate: "03/01/2022",
          state: "wa",
        },
        {
          firstName: "Bob",
          lastName: "Ng",
          email: "bob@example.com",
          birthday: "7/11/1990",
          startDate: "2019-06-30",
          state: "Western Australia",
        },
        { firstName: "Cat", lastName: "Oh", email: "cat@example.com", ...NO_DETAILS },
      ],
    });
  });

  it("refuses a detail that is not one, naming the row and the column", () => {
    const text =
      `${HEADER},Birthday,Start Date,State\n` +
      "Ann,Lee,ann@example.com,31/04,,\n" +
      "Bob,Ng,bob@example.com,29/02/1991,,\n" +
      "Cat,Oh,cat@example.com,,31/02/2020,\n" +
      "Dan,Ma,dan@example.com,,,Perth\n";
    expect(readTeamCsv(text)).toEqual({
      ok: false,
      errors: [
        "Row 1: Birthday is incorrect; write the day and month, e.g. 31/12",
        "Row 2: Birthday is incorrect; write the day and month, e.g. 31/12",
        "Row 3: Start Date is incorrect; write a date, e.g. 31/12/2020",
        "Row 4: State is incorrect; write NSW, VIC, QLD, SA, WA, TAS, NT or ACT",
      ],
    });
  });

  it("knows .csv file names", () => {
    expect(isCsvFileName("team.csv")).toBe(true);
    expect(isCsvFileName("TEAM.CSV")).toBe(true);
    expect(isCsvFileName("team.xlsx")).toBe(false);
    expect(isCsvFileName("csv")).toBe(false);
  });
});

describe("readCsv with other columns (the reward upload's shape)", () => {
  const columns = [
    { heading: "First Name", key: "firstName", check: (v: string) => v !== "" },
    {
      heading: "Reward Amount",
      key: "value",
      check: (v: string) => v === "" || /^\d+$/.test(v),
      message: "Wrong Reward Amount",
    },
  ] as const satisfies readonly CsvColumn<"firstName" | "value">[];

  it("uses each column's own message", () => {
    expect(readCsv("reward amount,first name\nabc,Ann\n5,Bob\n", { columns })).toEqual({
      ok: false,
      errors: ["Row 1: Wrong Reward Amount"],
    });
    expect(readCsv("First Name,Reward Amount\nAnn,\n", { columns, maxRows: 1 })).toEqual({
      ok: true,
      rows: [{ firstName: "Ann", value: "" }],
    });
  });
});

describe("agreement with the API's rules (modules/team/schema.ts, zod)", () => {
  it("checks addresses with zod's own email pattern", () => {
    expect(EMAIL_PATTERN.source.replaceAll("\\-", "-")).toBe(z.regexes.email.source.replaceAll("\\-", "-"));
  });

  it("every row it accepts, the API's schema accepts", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string(), fc.string()), { maxLength: 5 }), (cells) => {
        const text = [HEADER, ...cells.map((row) => row.map(quote).join(","))].join("\n");
        const result = readTeamCsv(text);
        if (!result.ok) return;
        for (const row of result.rows) expect(teamMemberSchema.safeParse(row).success).toBe(true);
      }),
    );
  });
});

// ─── Properties ───

function quote(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

const KNOWN_MESSAGE = [
  /^Row [1-9]\d*: (First Name|Last Name|Email) is missing or incorrect$/,
  /^Row [1-9]\d*: (Birthday|Start Date|State) is incorrect; write .+$/,
  /^(First Name|Last Name|Email Address): Column heading is missing or incorrect; please update to "\1"\.$/,
  /^The file has [\d,]+ rows; a file can hold at most 50,000 rows\. Please split it into smaller files\.$/,
  /^The file could not be read as CSV: .+\. Please check the file and try again\.$/,
  /^…and [\d,]+ more problems? in the file\.$/,
];

function expectWellFormed(text: string) {
  const result = readTeamCsv(text);
  if (result.ok) {
    expect(result.rows.length).toBeGreaterThan(0);
    for (const row of result.rows)
      expect(Object.keys(row).sort()).toEqual(["birthday", "email", "firstName", "lastName", "startDate", "state"]);
  } else {
    expect(result.errors.length).toBeGreaterThan(0);
    for (const message of result.errors) {
      if (message === NO_ROWS_MESSAGE) continue;
      expect(
        KNOWN_MESSAGE.some((pattern) => pattern.test(message)),
        message,
      ).toBe(true);
    }
  }
}

const csvish = fc
  .array(
    fc.oneof(
      fc.constantFrom(",", '"', "\r\n", "\n", "\r", " ", "\uFEFF", '""', "First Name", "Last Name", "Email Address"),
      fc.constantFrom("a@example.com", "Ann", "x", "@", ".", "\t", "é"),
      fc.string({ maxLength: 5 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(""));

describe("properties", () => {
  it("any text: never throws, and answers rows or known messages", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), expectWellFormed), { numRuns: 500 });
  });

  it("CSV-like text with the right headings: never throws, and answers rows or known messages", () => {
    fc.assert(
      fc.property(csvish, fc.boolean(), (body, bom) => expectWellFormed(`${bom ? "\uFEFF" : ""}${HEADER}\n${body}`)),
      { numRuns: 500 },
    );
  });

  const word = fc.stringMatching(/^[A-Za-z][A-Za-z '",\r\n.-]{0,20}[A-Za-z]$/);
  const validRow: fc.Arbitrary<Pick<TeamCsvRow, "firstName" | "lastName" | "email">> = fc.record({
    firstName: word,
    lastName: word,
    email: fc
      .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,10}[a-z0-9]$/), fc.stringMatching(/^[a-z]{1,10}\.[a-z]{2,4}$/))
      .map(([local, domain]) => `${local}@${domain}`)
      .filter((email) => EMAIL_PATTERN.test(email)),
  });

  it("valid rows written with quoting read back the same, in any column order, BOM, CRLF or LF", () => {
    fc.assert(
      fc.property(
        fc.array(validRow, { minLength: 1, maxLength: 20 }),
        fc.shuffledSubarray(["First Name", "Last Name", "Email Address", "Notes"], { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom("\r\n", "\n"),
        fc.nat({ max: 3 }),
        fc.boolean(),
        (rows, headings, bom, eol, trailing, quoteAll) => {
          const keyOf: Record<string, "firstName" | "lastName" | "email" | undefined> = {
            "First Name": "firstName",
            "Last Name": "lastName",
            "Email Address": "email",
          };
          const cell = (value: string) => (quoteAll || /[",\r\n]/.test(value) ? quote(value) : value);
          const lines = [
            headings.map(cell).join(","),
            ...rows.map((row) =>
              headings
                .map((heading) => {
                  const key = keyOf[heading];
                  return cell(key ? row[key] : "a note, with a comma");
                })
                .join(","),
            ),
          ];
          const text = `${bom ? "\uFEFF" : ""}${lines.join(eol)}${eol.repeat(trailing)}`;
          // A file without the optional details reads them as blank.
          const withoutDetails = rows.map((row) => ({ ...row, birthday: "", startDate: "", state: "" }));
          expect(readTeamCsv(text)).toEqual({ ok: true, rows: withoutDetails });
        },
      ),
      { numRuns: 300 },
    );
  });
});
