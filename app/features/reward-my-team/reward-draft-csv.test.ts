// The bulk reward CSV (docs/requirements.md §S3, §S5): the team reader plus 'Reward Amount', with a real
// amount check, and rows the API's bulk schema accepts as they are.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingHeadingMessage } from "../../../core/csv.ts";
import { bulkRewardSchema } from "../../../modules/reward-drafts/schema.ts";
import { pageHref, totalsLine } from "./reward-draft.ts";
import { REWARD_CSV_HEADINGS, readRewardCsv } from "./reward-draft-csv.ts";

const HEADER = "First Name,Last Name,Email Address,Reward Amount";

describe("readRewardCsv", () => {
  it("reads the four headings and whole-dollar amounts ($ and thousands commas tolerated; blank is 0)", () => {
    const text = `\uFEFF${HEADER}\r\nJane,Citizen,jane@example.com,50\r\nJohn,Smith,john@example.com,"$1,000"\r\nAmy,Lee,amy@example.com,\r\nBo,Ng,bo@example.com,10.00\r\n`;
    const result = readRewardCsv(text);
    expect(result).toEqual({
      ok: true,
      rows: [
        { firstName: "Jane", lastName: "Citizen", email: "jane@example.com", value: 50 },
        { firstName: "John", lastName: "Smith", email: "john@example.com", value: 1000 },
        { firstName: "Amy", lastName: "Lee", email: "amy@example.com", value: 0 },
        { firstName: "Bo", lastName: "Ng", email: "bo@example.com", value: 10 },
      ],
    });
    if (result.ok) expect(bulkRewardSchema.safeParse({ rewards: result.rows }).success).toBe(true);
  });

  it("names each missing heading, the fourth included", () => {
    expect(readRewardCsv("First Name,Last Name,Email Address\r\nA,B,a@example.com\r\n")).toEqual({
      ok: false,
      errors: [missingHeadingMessage("Reward Amount")],
    });
    expect(REWARD_CSV_HEADINGS).toEqual(["First Name", "Last Name", "Email Address", "Reward Amount"]);
  });

  it("gives 'Row N: Wrong Reward Amount' for anything but a whole number from 0 to 10,000", () => {
    for (const cell of ["12.5", "-1", "10001", "abc", "1e3", "0x10"]) {
      const result = readRewardCsv(`${HEADER}\r\nJane,Citizen,jane@example.com,${cell}\r\n`);
      expect(result, cell).toEqual({ ok: false, errors: ["Row 1: Wrong Reward Amount"] });
    }
    const result = readRewardCsv(`${HEADER}\r\nJane,Citizen,jane@example.com,10000\r\n`);
    expect(result.ok && result.rows[0]?.value).toBe(10000);
  });

  it("lists the team import's row messages with the amount's", () => {
    const result = readRewardCsv(`${HEADER}\r\nJane,Citizen,jane@example.com,5\r\n,Smith,not-an-email,2.5\r\n`);
    expect(result).toEqual({
      ok: false,
      errors: [
        "Row 2: First Name is missing or incorrect",
        "Row 2: Email is missing or incorrect",
        "Row 2: Wrong Reward Amount",
      ],
    });
  });

  it("reads back any whole amount from 0 to 10,000 as written", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (value) => {
        const result = readRewardCsv(`${HEADER}\nA,B,a@example.com,${value}\n`);
        return result.ok && result.rows[0]?.value === value;
      }),
    );
  });
});

describe("page helpers", () => {
  it("writes the totals line exactly, with one dollar sign", () => {
    expect(totalsLine({ totalRecipients: 5000, totalRewardsCents: 12_750_000 })).toBe(
      "Total Recipients: 5,000 | Total Reward Dollars (ex GST): $127,500.00",
    );
    expect(totalsLine({ totalRecipients: 0, totalRewardsCents: 0 })).toBe(
      "Total Recipients: 0 | Total Reward Dollars (ex GST): $0.00",
    );
  });

  it("keeps the query but not the dialog or upload in page links", () => {
    expect(pageHref(1, "?q=jan&page=3&dialog=add&upload=x")).toBe("/portal/reward-my-team?q=jan");
    expect(pageHref(2, "")).toBe("/portal/reward-my-team?page=2");
  });
});
