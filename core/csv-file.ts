// CSV files the portal hands out (the audit trail, the reward history): RFC 4180, with every cell
// neutralised against spreadsheet formulas, a byte-order mark so Excel reads UTF-8 names, and
// CRLF line ends. Pure, so the domain writes the files and the API names their download headers
// without either importing the other's layer (docs/decisions/0030-imports-run-one-way.md).

/**
 * A spreadsheet cell that cannot run: text starting with = + - @ or a tab or carriage return is
 * taken as a formula by Excel and friends (CSV injection, OWASP), so it gets a leading apostrophe;
 * then RFC 4180 quoting.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The file: a heading row, then the rows, every cell through csvCell. */
export function csvFile(headings: readonly string[], rows: Iterable<readonly string[]>): string {
  const lines = [headings.map(csvCell).join(",")];
  for (const row of rows) lines.push(row.map(csvCell).join(","));
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

/** The headers of a CSV download named `fileName`. */
export function csvHeaders(fileName: string): Record<string, string> {
  return {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${fileName}"`,
    "cache-control": "private, no-store",
  };
}
