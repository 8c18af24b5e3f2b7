import { describe, expect, it } from "vitest";
import { MAX_PAGE_NUMBER } from "../../core/paging.ts";
import { pageNumberOf } from "./paging.ts";

describe("pageNumberOf", () => {
  it.each([
    ["3", 3],
    [" 4 ", 4],
    ["9007199254740991", 9007199254740991],
  ])("%j is page %d", (value, page) => {
    expect(pageNumberOf(value)).toBe(page);
  });

  it.each([null, undefined, "", "abc", "0", "-1", "1.5", "9007199254740992", "Infinity"])("%j is page 1", (value) => {
    expect(pageNumberOf(value)).toBe(1);
  });

  it("is page 1 for a file", () => {
    expect(pageNumberOf(new File(["2"], "page.txt"))).toBe(1);
  });

  it("is page 1 above the given highest page", () => {
    expect(pageNumberOf(String(MAX_PAGE_NUMBER), MAX_PAGE_NUMBER)).toBe(MAX_PAGE_NUMBER);
    expect(pageNumberOf(String(MAX_PAGE_NUMBER + 1), MAX_PAGE_NUMBER)).toBe(1);
  });
});
