// The dates the reward emails print, and the validity arithmetic the release shares with them.
// Here, beside the templates, because the emails are where Sydney's calendar is read.

const dateFormat = new Intl.DateTimeFormat("en-AU", {
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "Australia/Sydney",
});

/** A date as Australians read it, in Sydney's time zone: "22 May 2028". */
export function formatAuDate(date: Date): string {
  return dateFormat.format(date);
}

/** `date` plus whole calendar months (the day clamps to the month's end: 31 Aug + 18 → 28/29 Feb). */
export function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
