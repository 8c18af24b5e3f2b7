// The browser-side check of CsvUploadPane: the type and the size before the file is read, then
// the feature's reader and preview (the messages the server gives for the same file, core/csv.ts).
import { describe, expect, it } from "vitest";
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, readTeamCsv, unreadableMessage } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { checkCsvFile } from "./csv-upload-pane.tsx";

const preview = <Row>(fileName: string, rows: Row[]) => ({ fileName, count: rows.length, sample: rows.slice(0, 2) });

function counted() {
  const reader = {
    reads: 0,
    read: async (text: string) => {
      reader.reads++;
      return readTeamCsv(text);
    },
  };
  return reader;
}

const HEADINGS = "First Name,Last Name,Email Address\r\n";

describe("checkCsvFile", () => {
  it("refuses a file whose name is not .csv, without reading it", async () => {
    const reader = counted();
    const result = await checkCsvFile(new File([HEADINGS], "team.txt"), reader.read, preview);
    expect(result).toEqual({ phase: "errors", errors: [INVALID_FILE_TYPE_MESSAGE] });
    expect(reader.reads).toBe(0);
  });

  it("refuses a file over the size cap, without reading it", async () => {
    const reader = counted();
    const big = new File([HEADINGS, "x".repeat(MAX_UPLOAD_BYTES)], "team.csv");
    expect(await checkCsvFile(big, reader.read, preview)).toEqual({
      phase: "errors",
      errors: [FILE_TOO_LARGE_MESSAGE],
    });
    expect(reader.reads).toBe(0);
  });

  it("says a file that cannot be read is unreadable", async () => {
    const broken = new File([HEADINGS], "team.csv");
    broken.text = () => Promise.reject(new Error("gone"));
    expect(await checkCsvFile(broken, counted().read, preview)).toEqual({
      phase: "errors",
      errors: [unreadableMessage()],
    });
  });

  it("lists the reader's messages", async () => {
    const text = "First Name,Surname,Email Address\r\nA,B,a@example.com\r\n";
    const result = await checkCsvFile(new File([text], "team.csv"), counted().read, preview);
    expect(result.phase).toBe("errors");
    expect(result.phase === "errors" && result.errors[0]).toContain("Last Name");
  });

  it("previews the rows: the file's name, how many, the first few", async () => {
    const rows = ["A,B,a@example.com", "C,D,c@example.com", "E,F,e@example.com"];
    const result = await checkCsvFile(
      new File([`${HEADINGS}${rows.join("\r\n")}\r\n`], "t.CSV"),
      counted().read,
      preview,
    );
    expect(result).toEqual({
      phase: "ready",
      preview: {
        fileName: "t.CSV",
        count: 3,
        sample: [
          // A file without the optional detail columns reads them as blank (core/csv.ts).
          { firstName: "A", lastName: "B", email: "a@example.com", birthday: "", startDate: "", state: "" },
          { firstName: "C", lastName: "D", email: "c@example.com", birthday: "", startDate: "", state: "" },
        ],
      },
    });
  });
});
