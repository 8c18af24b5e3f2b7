// Automations read members' own time zones through modules/scheduled-sends/schema.ts's wall clock; these values
// were produced by automations' own copy of it before the two shared one, and must not move.
import { describe, expect, it } from "vitest";
import { formatZonedTime } from "../scheduled-sends/schema.ts";
import { localDate, zonedInstant } from "./schema.ts";

describe("automations' dates in a member's time zone", () => {
  it("finds 9:00 on a date, across Sydney's daylight-saving changes and in Perth", () => {
    expect(zonedInstant(2026, 10, 4, 9, "Australia/Sydney").toISOString()).toBe("2026-10-03T22:00:00.000Z");
    expect(zonedInstant(2026, 4, 5, 9, "Australia/Sydney").toISOString()).toBe("2026-04-04T23:00:00.000Z");
    expect(zonedInstant(2026, 6, 20, 9, "Australia/Perth").toISOString()).toBe("2026-06-20T01:00:00.000Z");
  });

  it("reads the calendar date on the zone's clock", () => {
    const instant = new Date("2026-06-19T23:30:00Z");
    expect(localDate(instant, "Australia/Sydney")).toEqual({ year: 2026, month: 6, day: 20 });
    expect(localDate(instant, "Australia/Perth")).toEqual({ year: 2026, month: 6, day: 20 });
  });

  it("shows an instant on the zone's clock with its abbreviation", () => {
    expect(formatZonedTime("2026-06-20T01:00:00Z", "Australia/Perth")).toBe("Sat, 20 June 2026, 9:00 am AWST");
    expect(formatZonedTime("2026-10-03T22:00:00Z", "Australia/Sydney")).toBe("Sun, 4 Oct 2026, 9:00 am AEDT");
  });
});
