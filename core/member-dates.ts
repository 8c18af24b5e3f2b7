// A team member's optional dates and place of work: birthday (day and month, never a year),
// start date, and the Australian state or territory whose time zone their day runs on.
// Pure code only: the browser bundle imports this folder.

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
export const DEFAULT_MEMBER_TIME_ZONE = "Australia/Sydney";

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
