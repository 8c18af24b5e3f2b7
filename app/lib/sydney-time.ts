// How the settings pages show an instant: on Sydney's clock, as the rest of the portal dates
// things (the customers are Australian businesses), e.g. "25 Nov 2026, 8:23 am".
const dateTime = new Intl.DateTimeFormat("en-AU", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZone: "Australia/Sydney",
});

export function formatSydneyDateTime(instant: string | Date): string {
  return dateTime.format(new Date(instant));
}
