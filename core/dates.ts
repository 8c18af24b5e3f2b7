// The portal's clock and its date formats, in one place for the pages, the API, the emails, the
// invoices and the CSV files: the customers are Australian businesses, so every date the portal
// shows is read on Sydney's clock unless a member's own zone is asked
// for (automations, core/member-dates.ts). Pure code, also in the browser: each format is built
// once, when first used (a formatter costs more to build than to use; docs/BENCHMARKS.md).

/** The portal's time zone. */
export const PORTAL_TIME_ZONE = "Australia/Sydney";

/** "24 Nov 2026, 5:48 pm AEDT": the day, the time and the zone's abbreviation (two styles below). */
const DAY_TIME_ZONE = {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
} as const satisfies Intl.DateTimeFormatOptions;

const STYLES = {
  /** "22 May 2028": the emails, the invoices. */
  longDate: { locale: "en-AU", options: { day: "numeric", month: "long", year: "numeric" } },
  /** "24 May 2028" (short month names: "25 Nov 2026"): tables. */
  shortDate: { locale: "en-AU", options: { day: "numeric", month: "short", year: "numeric" } },
  /** "25 Nov 2026, 8:23 am": the settings pages. */
  dateTime: {
    locale: "en-AU",
    options: { day: "numeric", month: "short", year: "numeric", hour: "numeric", minute: "2-digit" },
  },
  /** "24 Nov 2026, 5:48 pm AEDT": the sessions list. */
  dateTimeZone: { locale: "en-AU", options: DAY_TIME_ZONE },
  /** "24 Nov 2026, 5:48 pm" as the medium date style writes it: approvals, a release's emails. */
  mediumDateTime: { locale: "en-AU", options: { dateStyle: "medium", timeStyle: "short" } },
  /** The same with seconds: the dev mailbox. */
  mediumDateTimeSeconds: { locale: "en-AU", options: { dateStyle: "medium", timeStyle: "medium" } },
  /** "24/11/2026, 5:52:01 pm AEDT": the audit trail. */
  auditTime: { locale: "en-AU", options: { dateStyle: "short", timeStyle: "long" } },
  /** "2026-11-25": a day in file names (CSV exports). */
  isoDay: { locale: "en-CA", options: {} },
  /** "2026-11" in parts (year, month): a calendar month's key. */
  isoMonthParts: { locale: "en-CA", options: { year: "numeric", month: "2-digit" } },
  /** "Sat, 20 June 2026, 9:00 am AWST": an instant on a zone's clock with its abbreviation. */
  zonedTime: { locale: "en-AU", options: { weekday: "short", ...DAY_TIME_ZONE } },
  /** The wall-clock digits of an instant in a zone, for arithmetic (modules/scheduled-sends/schema.ts). */
  wallClockParts: {
    locale: "en-US",
    options: {
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    },
  },
  /** "November 2026" of a month held as its first day in UTC (budgets). */
  monthYear: { locale: "en-AU", options: { month: "long", year: "numeric" } },
  /** "Nov 2026" likewise (the spend picture). */
  shortMonthYear: { locale: "en-AU", options: { month: "short", year: "numeric" } },
  /** "Nov" likewise. */
  shortMonth: { locale: "en-AU", options: { month: "short" } },
} as const satisfies Record<string, { locale: string; options: Intl.DateTimeFormatOptions }>;

export type DateStyle = keyof typeof STYLES;

const built = new Map<string, Intl.DateTimeFormat>();

/**
 * The formatter of `style` on `timeZone`'s clock (the portal's unless told; "UTC" for calendar
 * months held as UTC dates), built once.
 */
export function dateFormat(style: DateStyle, timeZone: string = PORTAL_TIME_ZONE): Intl.DateTimeFormat {
  const key = `${style}|${timeZone}`;
  let format = built.get(key);
  if (!format) {
    const { locale, options } = STYLES[style];
    format = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    built.set(key, format);
  }
  return format;
}

/** An instant written in `style` on the portal's clock. */
export function formatDate(instant: Date | string | number, style: DateStyle): string {
  return dateFormat(style).format(new Date(instant));
}

/** A date held as UTC midnight (a calendar month or day) written in `style`, its digits as they are. */
export function formatUtcDate(date: Date | string | number, style: DateStyle): string {
  return dateFormat(style, "UTC").format(new Date(date));
}
