// Scheduled sends: a paid reward released at a chosen time instead of at once. Managers choose the
// time as Australia/Sydney wall-clock time (what a datetime-local field posts: "2026-12-01T09:00");
// the API and the database hold the instant (ISO 8601). Shared by the page, the API and the domain.
import * as z from "zod/mini";
import { dateFormat, PORTAL_TIME_ZONE } from "../../core/dates.ts";

/** The earliest a reward may be scheduled: 10 minutes ahead. */
export const SCHEDULE_MIN_AHEAD_MS = 10 * 60_000;
/** The latest: 90 days ahead. */
export const SCHEDULE_MAX_AHEAD_MS = 90 * 24 * 60 * 60_000;

export const SCHEDULE_DETAILS = {
  tooSoon: "Choose a time at least 10 minutes from now.",
  tooLate: "Choose a time no more than 90 days from now.",
  invalid: "Enter a date and time, such as 2026-12-01 09:00.",
  required: "Choose when to send the rewards.",
  notScheduled: "This reward is not waiting to be sent: it has been sent or cancelled already.",
  notFound: "The requested resource was not found.",
} as const;

/**
 * The wall-clock time in `timeZone` (Sydney unless told) at instant `t`, as the UTC milliseconds of
 * the same digits. Automations read members' own zones with it too (modules/automations/schema.ts).
 */
export function wallClockAt(t: number, timeZone: string = PORTAL_TIME_ZONE): number {
  const parts = Object.fromEntries(
    dateFormat("wallClockParts", timeZone)
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

/**
 * The instant of wall-clock time `wall` (UTC milliseconds of the same digits) in `timeZone`: the
 * offset read at a first guess, then again at the instant it gives (an offset that changed in
 * between, across a daylight-saving change near 2–3 am, is corrected).
 */
export function wallClockToInstant(wall: number, timeZone: string = PORTAL_TIME_ZONE): Date {
  const guess = wall - (wallClockAt(wall, timeZone) - wall);
  const offset = wallClockAt(guess, timeZone) - guess;
  return new Date(wall - offset);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/;

/**
 * The instant of a Sydney wall-clock time "YYYY-MM-DDTHH:MM" (or with a space); null when it is
 * not a real date and time. In the hour skipped when daylight saving starts, the time an hour on;
 * in the hour that repeats when it ends, the second of the two (standard time).
 */
export function sydneyWallTimeToInstant(local: string): Date | null {
  const m = LOCAL.exec(local.trim());
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  const check = new Date(wall);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || y < 2000) return null;
  return wallClockToInstant(wall);
}

/** "2026-12-01T09:00": an instant as a datetime-local field shows it in Sydney. */
export function sydneyWallTime(instant: Date | string): string {
  return new Date(wallClockAt(new Date(instant).getTime())).toISOString().slice(0, 16);
}

/** "Sat, 20 June 2026, 9:00 am AWST": an instant on a zone's clock, with the zone's abbreviation. */
export function formatZonedTime(instant: Date | string, timeZone: string): string {
  return dateFormat("zonedTime", timeZone).format(new Date(instant));
}

/** "Tue, 1 Dec 2026, 9:00 am AEDT": a send time as pages and emails show it, with its zone. */
export function formatSendTime(instant: Date | string): string {
  return formatZonedTime(instant, PORTAL_TIME_ZONE);
}

/** Why `sendAt` cannot be chosen at `now`, or null: 10 minutes to 90 days ahead. */
export function scheduleRefusal(sendAt: Date, now: Date): "send-too-soon" | "send-too-late" | null {
  const ahead = sendAt.getTime() - now.getTime();
  if (ahead < SCHEDULE_MIN_AHEAD_MS) return "send-too-soon";
  if (ahead > SCHEDULE_MAX_AHEAD_MS) return "send-too-late";
  return null;
}

/** The words of scheduleRefusal's answer, as the API says them (server/api/refusals.ts). */
export function scheduleProblem(sendAt: Date, now: Date): string | null {
  const refused = scheduleRefusal(sendAt, now);
  if (refused === null) return null;
  return refused === "send-too-soon" ? SCHEDULE_DETAILS.tooSoon : SCHEDULE_DETAILS.tooLate;
}

/** An instant as the API takes it: ISO 8601 with a zone ("2026-12-01T09:00:00+11:00" or "…Z"). */
export const instantField = z.iso.datetime({ offset: true, error: SCHEDULE_DETAILS.invalid });

/** PUT /RewardMyTeam/update-reward-schedule: { sendAt } an instant, or null to send at once. */
export const updateRewardScheduleSchema = z.object({ sendAt: z.nullable(instantField) });
export type UpdateRewardScheduleRequest = z.input<typeof updateRewardScheduleSchema>;

/** PUT /RewardOrders/:orderId/schedule: a new time for a scheduled order. */
export const rescheduleSchema = z.object({ sendAt: instantField });

/** A draft's or an order's schedule as the API answers it: null for "as soon as it is paid". */
export interface RewardSchedule {
  sendAt: string | null;
}

/** The history's states of a paid order (a scheduled one is paid, waiting for its time). */
export type RewardOrderState = "scheduled" | "released" | "cancelled";

export const ORDER_STATE_LABELS: Record<RewardOrderState, string> = {
  scheduled: "Scheduled",
  released: "Released",
  cancelled: "Cancelled",
};

/** A paid order's state in words: "Cancelled · Refunded" once the refund went through. */
export function historyStateLabel(e: { state: RewardOrderState; refunded: boolean }): string {
  const label = ORDER_STATE_LABELS[e.state];
  return e.state === "cancelled" && e.refunded ? `${label} · Refunded` : label;
}

/** GET /RewardOrders/:orderId: a paid order, scheduled, released or cancelled. */
export interface RewardOrderView {
  orderId: number;
  state: RewardOrderState;
  rewardName: string;
  /** ISO 8601: when it is (or was) to be sent; null for an order released at once. */
  sendAt: string | null;
  recipientCount: number;
  rewardsCents: number;
  serviceFeeCents: number;
  gstCents: number;
  totalCents: number;
  invoiceNumber: string | null;
  paidAt: string | null;
  releasedAt: string | null;
  /** The release's delivery page id once released. */
  rewardReleaseId: number | null;
  cancelledAt: string | null;
  /** The refund of a cancelled order, once the processor made it. */
  refundedAt: string | null;
  /**
   * When the refund of a cancelled order was given up on after 72 hours of retries (support was
   * emailed; the company is asked to contact support); null otherwise.
   */
  refundFailedAt: string | null;
  /**
   * Why a cancelled order was cancelled when no one cancelled it: the names of the members removed
   * from the team after it was paid, so it was refunded instead of released (docs/rules.md "When a
   * release may pay a member"); null otherwise.
   */
  cancelledForRemoved: string[] | null;
  /** How it was paid: by card, or from the prepaid balance (a system's key, or the portal: ADR 0044). */
  paidFrom: "card" | "balance";
}
