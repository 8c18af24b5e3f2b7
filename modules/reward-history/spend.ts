// The dashboard's spend picture: Reward Dollars released per month over the last 12 months (in
// Sydney's calendar), and the totals of the same months. Pure code: the API answers it, the
// dashboard draws it.
import { dateFormat } from "../../core/dates.ts";

/** How many calendar months the picture covers, the current one included. */
export const SPEND_MONTHS = 12;

/** GET /api/Dashboard's spend picture: oldest month first; cents. */
export interface SpendSummary {
  months: Array<{ month: string; releasedCents: number }>;
  totals: { releasedCents: number; serviceFeeCents: number; gstCents: number; recipientsReached: number };
}

const monthNames = dateFormat("shortMonthYear", "UTC");
const shortMonthNames = dateFormat("shortMonth", "UTC");

// Intl's formatting is slow next to the rest of a dashboard render, and a month's label never
// changes: each one is formatted once per process.
const labels = new Map<string, string>();

/** "2026-11" → "Nov 2026" (or "Nov" when `short`). */
export function monthLabel(month: string, short = false): string {
  const key = short ? `${month}s` : month;
  let label = labels.get(key);
  if (label === undefined) {
    const [y, m] = month.split("-").map(Number) as [number, number];
    label = (short ? shortMonthNames : monthNames).format(new Date(Date.UTC(y, m - 1, 1)));
    if (labels.size < 10_000) labels.set(key, label);
  }
  return label;
}

/** The `count` calendar months ending with the one `yearMonth` ("YYYY-MM") is in, oldest first. */
export function monthsEndingWith(yearMonth: string, count = SPEND_MONTHS): string[] {
  const [y, m] = yearMonth.split("-").map(Number) as [number, number];
  return Array.from({ length: count }, (_, i) => {
    const index = y * 12 + (m - 1) - (count - 1 - i);
    return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, "0")}`;
  });
}
