// Sydney wall-clock times and the scheduling window: the conversions a manager's chosen time goes
// through (the daylight-saving edges included) and the 10-minute / 90-day limits.
import { describe, expect, it } from "vitest";
import {
  formatSendTime,
  historyStateLabel,
  SCHEDULE_DETAILS,
  scheduleProblem,
  sydneyWallTime,
  sydneyWallTimeToInstant,
} from "./schema.ts";

describe("Sydney wall-clock times", () => {
  it("reads summer (AEDT, +11) and winter (AEST, +10) times, and shows them back the same", () => {
    expect(sydneyWallTimeToInstant("2026-12-01T09:00")?.toISOString()).toBe("2026-11-30T22:00:00.000Z");
    expect(sydneyWallTimeToInstant("2026-06-01 09:00")?.toISOString()).toBe("2026-05-31T23:00:00.000Z");
    expect(sydneyWallTime(new Date("2026-11-30T22:00:00.000Z"))).toBe("2026-12-01T09:00");
    expect(formatSendTime("2026-11-30T22:00:00.000Z")).toBe("Tue, 1 Dec 2026, 9:00 am AEDT");
  });

  it("moves a time in the skipped hour an hour on, and takes the standard-time one in the repeated hour", () => {
    // 4 Oct 2026: clocks go from 2:00 to 3:00 am.
    expect(sydneyWallTime(sydneyWallTimeToInstant("2026-10-04T02:30") as Date)).toBe("2026-10-04T03:30");
    // 5 Apr 2026: 2:00–3:00 am happens twice.
    expect(sydneyWallTimeToInstant("2026-04-05T02:30")?.toISOString()).toBe("2026-04-04T16:30:00.000Z");
  });

  it("refuses what is not a real date and time", () => {
    for (const text of ["2026-02-30T09:00", "2026-12-01T24:00", "2026-12-01T09:60", "tomorrow", "", "2026-12-01"]) {
      expect(sydneyWallTimeToInstant(text), text).toBeNull();
    }
  });
});

describe("the scheduling window", () => {
  const now = new Date("2026-11-24T00:00:00.000Z");
  const ahead = (ms: number) => new Date(now.getTime() + ms);

  it("takes 10 minutes to 90 days ahead, and nothing outside", () => {
    expect(scheduleProblem(ahead(10 * 60_000), now)).toBeNull();
    expect(scheduleProblem(ahead(90 * 24 * 3_600_000), now)).toBeNull();
    expect(scheduleProblem(ahead(10 * 60_000 - 1), now)).toBe(SCHEDULE_DETAILS.tooSoon);
    expect(scheduleProblem(ahead(-60_000), now)).toBe(SCHEDULE_DETAILS.tooSoon);
    expect(scheduleProblem(ahead(90 * 24 * 3_600_000 + 1), now)).toBe(SCHEDULE_DETAILS.tooLate);
  });

  it("words a cancelled order by whether its refund went through", () => {
    expect(historyStateLabel({ state: "cancelled", refunded: true })).toBe("Cancelled · Refunded");
    expect(historyStateLabel({ state: "cancelled", refunded: false })).toBe("Cancelled");
    expect(historyStateLabel({ state: "scheduled", refunded: false })).toBe("Scheduled");
  });
});
