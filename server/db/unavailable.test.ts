import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./unavailable.ts";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a refused connection", withCode("ECONNREFUSED")],
    ["PostgreSQL shutting down (57P01)", withCode("57P01", "terminating connection due to administrator command")],
    ["PostgreSQL starting up (57P03)", withCode("57P03", "the database system is starting up")],
    ["a connection failure (08006)", withCode("08006")],
    ["pg's terminated connection", new Error("Connection terminated unexpectedly")],
    ["a driver error wrapped by drizzle", new Error("Failed query: select 1", { cause: withCode("ECONNRESET") })],
  ])("%s → true", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a unique violation (23505)", withCode("23505", "duplicate key value")],
    ["a syntax error (42601)", withCode("42601")],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["not an error", "boom"],
    ["nothing", undefined],
  ])("%s → false", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
