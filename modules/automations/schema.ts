// Automations (ADR 0035): birthday and work-anniversary rewards that send themselves at 9:00 in
// each member's own time zone. The date math (a member's occasion in a year, its 9:00 as an
// instant, 29 February in common years), the forms' and the API's schemas, and the answers.
// Pure code only: the browser bundle imports this folder.
import * as z from "zod/mini";
import { type AustralianState, memberTimeZone } from "../../core/member-dates.ts";
import { formatDollars, MAX_REWARD_DOLLARS } from "../../core/money.ts";
import { REWARD_DETAILS, rewardMessageField, rewardNameField } from "../reward-drafts/schema.ts";
import { wallClockAt, wallClockToInstant } from "../scheduled-sends/schema.ts";

export const AUTOMATION_OCCASIONS = ["birthday", "anniversary"] as const;
export type AutomationOccasion = (typeof AUTOMATION_OCCASIONS)[number];

export const OCCASION_LABELS: Record<AutomationOccasion, string> = {
  birthday: "Birthday",
  anniversary: "Work anniversary",
};

/** Rewards go out at this hour of the member's local day. */
export const SEND_HOUR = 9;

/**
 * A run sends what fell due this long ago and was not sent (the processes were down, the balance
 * was short and has been topped up): a missed morning is caught up once, by the next run.
 */
export const CATCH_UP_MS = 3 * 24 * 60 * 60_000;

/** The preview looks this far ahead. */
export const PREVIEW_DAYS = 30;

export const AUTOMATION_DETAILS = {
  notFound: "The requested resource was not found.",
  ownersOnly: "Only an Owner can change automations.",
  perYearBirthday: "“Per year of service” applies to work anniversaries only.",
  occasion: "Choose Birthday or Work anniversary.",
  amountRequired: "Enter an amount of at least 1 Reward Dollar.",
  budgetNotWhole: "The automation budget must be a whole number of dollars, such as 500.",
  budgetTooLarge: "The automation budget must be at most $999,999.",
} as const;

export const AUTOMATION_PLACEHOLDERS = "{firstName} and {years}";

/** The calendar date in `timeZone` at `instant`. */
export function localDate(instant: Date, timeZone: string): { year: number; month: number; day: number } {
  const wall = new Date(wallClockAt(instant.getTime(), timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/**
 * The instant of a wall-clock hour on a date in `timeZone` (modules/scheduled-sends/schema.ts reads the offset).
 * Australia changes at 2:00–3:00, so 9:00 always exists and is never doubled.
 */
export function zonedInstant(year: number, month: number, day: number, hour: number, timeZone: string): Date {
  return wallClockToInstant(Date.UTC(year, month - 1, day, hour), timeZone);
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** The day a date of the year falls on in `year`: 29 February is 28 February in a common year. */
export function celebratedDay(year: number, month: number, day: number): number {
  return month === 2 && day === 29 && !isLeapYear(year) ? 28 : day;
}

/** The member's dates an automation reads. */
export interface MemberDates {
  birthDay: number | null;
  birthMonth: number | null;
  /** "YYYY-MM-DD" */
  startDate: string | null;
  state: AustralianState | null;
}

export interface Occasion {
  occasion: AutomationOccasion;
  /** The year of the occasion (the member's local calendar year). */
  year: number;
  /** Years of service (anniversaries; 0 for birthdays). */
  years: number;
  /** 9:00 on the day in the member's time zone. */
  dueAt: Date;
  timeZone: string;
}

/** The member's occasion of this kind in `year`, or null (no date kept, or no anniversary yet). */
export function occasionIn(member: MemberDates, occasion: AutomationOccasion, year: number): Occasion | null {
  const timeZone = memberTimeZone(member.state);
  if (occasion === "birthday") {
    if (member.birthDay === null || member.birthMonth === null) return null;
    const day = celebratedDay(year, member.birthMonth, member.birthDay);
    return {
      occasion,
      year,
      years: 0,
      dueAt: zonedInstant(year, member.birthMonth, day, SEND_HOUR, timeZone),
      timeZone,
    };
  }
  if (!member.startDate) return null;
  const [startYear, month, startDay] = member.startDate.split("-").map(Number) as [number, number, number];
  const years = year - startYear;
  if (years < 1) return null;
  const day = celebratedDay(year, month, startDay);
  return { occasion, year, years, dueAt: zonedInstant(year, month, day, SEND_HOUR, timeZone), timeZone };
}

/**
 * The member's occasions whose 9:00 is in (from, to]: the local years around the window are
 * looked at (a window spans at most two calendar years for any sensible length).
 */
export function occasionsBetween(member: MemberDates, occasion: AutomationOccasion, from: Date, to: Date): Occasion[] {
  const timeZone = memberTimeZone(member.state);
  const first = localDate(from, timeZone).year;
  const last = localDate(to, timeZone).year;
  const found: Occasion[] = [];
  for (let year = first; year <= last; year++) {
    const o = occasionIn(member, occasion, year);
    if (o && o.dueAt.getTime() > from.getTime() && o.dueAt.getTime() <= to.getTime()) found.push(o);
  }
  return found;
}

/** The reward for one occasion in cents: the amount, or the amount per year of service. */
export function rewardCentsFor(automation: { amountCents: number; perYear: boolean }, o: Occasion): number {
  return o.occasion === "anniversary" && automation.perYear ? automation.amountCents * o.years : automation.amountCents;
}

/** The template with {firstName} and {years} filled in (unknown braces are left as written). */
export function renderAutomationMessage(template: string, values: { firstName: string; years: number }): string {
  return template.replaceAll("{firstName}", values.firstName).replaceAll("{years}", String(values.years));
}

const occasionField = z.enum(AUTOMATION_OCCASIONS, { error: AUTOMATION_DETAILS.occasion });

/**
 * A flag: a boolean, false when left out. The page's checkbox posts "on" or nothing, which the
 * form parser (conform) turns into true or nothing before this schema reads it.
 */
const flagField = z.pipe(
  z.optional(z.boolean()),
  z.transform((value) => value === true),
);

/** Whole Reward Dollars, 1 to 10,000 (a reward's range, modules/reward-drafts/schema.ts). */
const amountField = z
  .number({ error: AUTOMATION_DETAILS.amountRequired })
  .check(
    z.int(REWARD_DETAILS.amountFraction),
    z.minimum(1, AUTOMATION_DETAILS.amountRequired),
    z.maximum(MAX_REWARD_DOLLARS, REWARD_DETAILS.amountTooLarge),
  );

/**
 * POST /Automations/create-automation and PUT /Automations/:id/update-automation: the whole
 * automation.
 */
export const automationSchema = z
  .object({
    occasion: occasionField,
    amount: amountField,
    perYear: flagField,
    rewardName: rewardNameField,
    message: rewardMessageField,
    enabled: flagField,
  })
  .check(
    z.refine((v) => !(v.perYear && v.occasion === "birthday"), {
      message: AUTOMATION_DETAILS.perYearBirthday,
      path: ["perYear"],
    }),
  );
export type AutomationRequest = z.input<typeof automationSchema>;
export type AutomationInput = z.output<typeof automationSchema>;

/** PUT /Automations/:id/set-automation-enabled: on or off (on again clears a pause). */
export const automationEnabledSchema = z.object({ enabled: flagField });

/** Whole dollars a Sydney month, or null (the form's blank field: left out) for none: answers cents or null. */
const budgetField = z.pipe(
  z.optional(
    z.nullable(
      z
        .number({ error: AUTOMATION_DETAILS.budgetNotWhole })
        .check(
          z.int(AUTOMATION_DETAILS.budgetNotWhole),
          z.minimum(0, AUTOMATION_DETAILS.budgetNotWhole),
          z.maximum(999_999, AUTOMATION_DETAILS.budgetTooLarge),
        ),
    ),
  ),
  z.transform((dollars): number | null => (dollars === undefined || dollars === null ? null : dollars * 100)),
);

/** PUT /Automations/update-automation-budget: { budget: whole dollars | null }. */
export const automationBudgetSchema = z.object({ budget: budgetField });

/** The page's forms: one per intent. */
export const automationsFormSchema = z.discriminatedUnion("intent", [
  z.extend(z.object({ intent: z.literal("create-automation") }), automationSchema.shape),
  z.extend(
    z.object({ intent: z.literal("update-automation"), automationId: z.coerce.number() }),
    automationSchema.shape,
  ),
  z.object({ intent: z.literal("set-automation-enabled"), automationId: z.coerce.number(), enabled: flagField }),
  z.object({ intent: z.literal("update-automation-budget"), budget: budgetField }),
]);

export interface AutomationView {
  automationId: number;
  occasion: AutomationOccasion;
  amountCents: number;
  perYear: boolean;
  rewardName: string;
  message: string;
  enabled: boolean;
  /** ISO 8601: when a short balance paused it; null when not paused. */
  pausedAt: string | null;
  createdBy: { userId: number; name: string };
}

export interface PreviewEntry {
  automationId: number;
  userId: number;
  firstName: string;
  lastName: string;
  occasion: AutomationOccasion;
  years: number;
  amountCents: number;
  /** ISO 8601 instant: 9:00 in the member's time zone. */
  sendAt: string;
  timeZone: string;
}

/**
 * An occasion an automation skipped and paid nothing for, with the reason the page shows (a
 * reward over $10,000, a member no longer active, an automation whose maker is no longer an
 * Owner: ADR 0035 amendment). Recorded once; the next year's occasion is judged anew.
 */
export interface SkippedOccasion {
  automationId: number;
  userId: number;
  firstName: string;
  lastName: string;
  occasion: AutomationOccasion;
  year: number;
  /** ISO 8601 instant: the occasion's 9:00. */
  dueAt: string;
  reason: string;
}

/** How many skipped occasions the page lists (the newest first). */
export const SKIPPED_SHOWN = 50;

/** GET /Automations: the company's automations, the budget, and the next 30 days. */
export interface AutomationsAnswer {
  /** The newest skipped occasions (at most SKIPPED_SHOWN). */
  skipped: SkippedOccasion[];
  automations: AutomationView[];
  budgetCents: number | null;
  /** This Sydney month's automation orders so far (charged or waiting for approval), in cents. */
  monthSpentCents: number;
  balanceCents: number;
  preview: {
    entries: PreviewEntry[];
    rewardsCents: number;
    /** What the balance will be charged: rewards, service fee and GST, order by order. */
    totalCents: number;
  };
}

/** "$50", or "$10 per year of service": what an automation sends. */
export function automationAmountLabel(a: { occasion: AutomationOccasion; amountCents: number; perYear: boolean }) {
  const dollars = formatDollars(a.amountCents, { wholeDollars: true });
  return a.occasion === "anniversary" && a.perYear ? `${dollars} per year of service` : dollars;
}
