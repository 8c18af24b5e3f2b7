// The one reading of an id (core/fields.ts parseId): what the routes, the API's path params and the
// posted ids take, and what they refuse.
import { describe, expect, it } from "vitest";
import { MAX_ID, parseId } from "./fields.ts";

describe("parseId", () => {
  it("takes 1 to 15 digits naming a positive whole number", () => {
    expect(parseId("1")).toBe(1);
    expect(parseId("123")).toBe(123);
    expect(parseId("007")).toBe(7);
    expect(parseId(String(MAX_ID))).toBe(MAX_ID);
  });

  it("refuses anything else", () => {
    for (const text of [
      "",
      "0",
      "000",
      "-1",
      "+1",
      "1e3",
      "0x10",
      " 7",
      "7 ",
      "7.0",
      "1_000",
      "١٢",
      "1000000000000000",
    ]) {
      expect(parseId(text), text).toBeNull();
    }
    for (const value of [undefined, null, 7, new File([], "7")]) expect(parseId(value)).toBeNull();
  });
});
