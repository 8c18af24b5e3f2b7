// A team member's optional dates and place of work: birthday (day and month, never a year),
// start date, and the Australian state or territory whose time zone their day runs on.
// Pure code only: the browser bundle imports this folder.
import { PORTAL_TIME_ZONE } from "./dates.ts";

/** The eight states and territories, in the order the forms list them. */
export const AUSTRALIAN_STATES = ["NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT"] as const;
export type AustralianState = (typeof AUSTRALIAN_STATES)[number];

/** Each state's IANA time zone (daylight saving as the zone database has it; QLD, WA and NT keep none). */
export const STATE_TIME_ZONES: Record<AustralianState, string> = {
  NSW: "Australia/Sydney",
  VIC: "Australia/Melbourne",
  QLD: "Australia/Brisbane",
  SA: "Australia/Adelaide",
  WA: "Australia/Perth",
  TAS: "Australia/Hobart",
  NT: "Australia/Darwin",
  ACT: "Australia/Sydney",
};

/** The names the forms show. */
export const STATE_NAMES: Record<AustralianState, string> = {
  NSW: "New South Wales",
  VIC: "Victoria",
  QLD: "Queensland",
  SA: "South Australia",
  WA: "Western Australia",
  TAS: "Tasmania",
  NT: "Northern Territory",
  ACT: "Australian Capital Territory",
};

/** A member with no state is on Sydney's time, the company's reporting zone (DESIGN's Sydney months). */
export const DEFAULT_MEMBER_TIME_ZONE = PORTAL_TIME_ZONE;

export function memberTimeZone(state: AustralianState | null | undefined): string {
  return state ? STATE_TIME_ZONES[state] : DEFAULT_MEMBER_TIME_ZONE;
}

export function isAustralianState(value: string): value is AustralianState {
  return (AUSTRALIAN_STATES as readonly string[]).includes(value);
}

/** The last day of a month in a leap year: 29 February is a birthday that exists. */
export function lastDayOfMonthInLeapYear(month: number): number {
  return month === 2 ? 29 : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/** Whether day/month is a birthday that exists in some year (29 February does). */
export function isBirthday(day: number, month: number): boolean {
  return (
    Number.isInteger(day) &&
    Number.isInteger(month) &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= lastDayOfMonthInLeapYear(month)
  );
}

/** The earliest and latest start dates accepted (a typo like 0202 or 3024 is refused). */
export const EARLIEST_START_DATE = "1900-01-01";
export const LATEST_START_DATE = "2099-12-31";

/** Whether year-month-day exists on the calendar (29 February only in leap years). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A start date may be at most this many years back (a typo like 1926 for 2026 is refused, and a
 * "per year of service" reward stays within reason); a future one is allowed: people are added
 * before they start.
 */
export const MAX_START_DATE_YEARS_BACK = 80;

/** The earliest start date accepted on `today` (YYYY-MM-DD, the UTC calendar date 80 years back). */
export function earliestStartDateOn(today: Date): string {
  const y = today.getUTCFullYear() - MAX_START_DATE_YEARS_BACK;
  return `${String(y).padStart(4, "0")}-${pad(today.getUTCMonth() + 1)}-${pad(today.getUTCDate())}`;
}

/** Whether a start date (YYYY-MM-DD) is not more than 80 years before `today`. Not a date: true (another check says so). */
export function isStartDateRecent(value: string, today: Date = new Date()): boolean {
  return !/^\d{4}-\d{2}-\d{2}$/.test(value) || value >= earliestStartDateOn(today);
}

/** Whether `value` is a real calendar date written YYYY-MM-DD within the accepted range. */
export function isStartDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  return (
    isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) &&
    value >= EARLIEST_START_DATE &&
    value <= LATEST_START_DATE
  );
}

// ─── The CSV columns' values (core/csv.ts TEAM_CSV_COLUMNS): what spreadsheets write ───

/**
 * A birthday cell: "31/12" or "31/12/1990" (Australian day first; a year is read and dropped,
 * never kept) or "1990-12-31". Blank: none. Null when it is not a birthday.
 */
export function readCsvBirthday(value: string): { day: number; month: number } | "none" | null {
  const text = value.trim();
  if (text === "") return "none";
  const dayFirst = /^(\d{1,2})[/.-](\d{1,2})(?:[/.-](\d{4}))?$/.exec(text);
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const [day, month, year] = dayFirst
    ? [Number(dayFirst[1]), Number(dayFirst[2]), dayFirst[3] ? Number(dayFirst[3]) : undefined]
    : iso
      ? [Number(iso[3]), Number(iso[2]), Number(iso[1])]
      : [Number.NaN, Number.NaN, undefined];
  if (!isBirthday(day, month)) return null;
  // With a year the date must exist in it: 29/02/1991 is a typo, not a birthday.
  if (year !== undefined && !isCalendarDate(year, month, day)) return null;
  return { day, month };
}

/** A cell's date, day first ("31/12/2020") or ISO ("2020-12-31"), as "2020-12-31" ("" for neither); not yet checked. */
function csvDateText(text: string): string {
  const dayFirst = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  return dayFirst
    ? `${dayFirst[3]}-${pad(Number(dayFirst[2]))}-${pad(Number(dayFirst[1]))}`
    : iso
      ? `${iso[1]}-${pad(Number(iso[2]))}-${pad(Number(iso[3]))}`
      : "";
}

/** A start-date cell: "31/12/2020" (day first) or "2020-12-31". Blank: none. Null when it is not a date. */
export function readCsvStartDate(value: string): string | "none" | null {
  const text = value.trim();
  if (text === "") return "none";
  const date = csvDateText(text);
  return isStartDate(date) && isStartDateRecent(date) ? date : null;
}

/** A start-date cell's problem for its row message: too far back, or not a date; null when it reads. */
export function csvStartDateProblem(value: string): "tooOld" | "notDate" | null {
  if (readCsvStartDate(value) !== null) return null;
  const text = value.trim();
  const date = csvDateText(text);
  return isStartDate(date) && !isStartDateRecent(date) ? "tooOld" : "notDate";
}

/** A state cell: its code ("wa", "WA") or its name ("Western Australia"), in any letter case. Blank: none. */
export function readCsvState(value: string): AustralianState | "none" | null {
  const text = value.trim().replace(/\s+/g, " ").toUpperCase();
  if (text === "") return "none";
  if (isAustralianState(text)) return text;
  return AUSTRALIAN_STATES.find((state) => STATE_NAMES[state].toUpperCase() === text) ?? null;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
