// The team calls of docs/requirements.md §S7 (GET /Users, create-user, create-user-bulk-upload, PUT and DELETE
// /Users/{id}) and their rules (docs/requirements.md §S5, §S9). Shared by the provider API and the web forms.
// Pure code only: the browser bundle imports this folder.
import * as z from "zod/mini";
import { emailField, firstNameField, lastNameField } from "../../core/fields.ts";
import { MAX_IMPORT_ROWS } from "../../core/limits.ts";
import {
  AUSTRALIAN_STATES,
  type AustralianState,
  isBirthday,
  isStartDate,
  isStartDateRecent,
} from "../../core/member-dates.ts";

export { MAX_IMPORT_ROWS, MAX_UPLOAD_BYTES } from "../../core/limits.ts";

/** docs/requirements.md §S9: My Team shows 8 members a page; the API accepts 1 to 100. */
export const TEAM_PAGE_SIZE = 8;
export const MAX_PAGE_SIZE = 100;
/** docs/requirements.md §S9: the search text is used only when longer than 2 characters. */
export const SEARCH_MIN_LENGTH = 3;
/** The reward search's text (docs/requirements.md §S5): any text that is not blank, trimmed. Without NUL: PostgreSQL text holds none, so none can match; sent to the database it is an error. */
export function rewardSearchText(text: string | null | undefined): string {
  return (text ?? "").replaceAll("\0", "").trim();
}

/** My Team's search text as the API uses it: blank unless longer than 2 characters (docs/requirements.md §S5, §S9). */
export function effectiveSearch(text: string | null | undefined): string {
  const trimmed = rewardSearchText(text);
  return trimmed.length >= SEARCH_MIN_LENGTH ? trimmed : "";
}

export const MEMBER_DETAILS_MESSAGES = {
  birthDay: "Choose a day from 1 to 31.",
  birthMonth: "Choose a month from the list.",
  birthdayHalf: "Choose both the day and the month of the birthday, or neither.",
  birthdayNotInMonth: "That month has no such day; check the birthday.",
  startDate: "Enter the start date as a real date between 1900 and 2099.",
  startDateTooOld: "The start date can be at most 80 years ago.",
  state: "Choose a state or territory from the list.",
} as const;

/**
 * The optional details automations read (core/member-dates.ts): a birthday as day and month (no
 * year is kept), a start date (YYYY-MM-DD), a state or territory. Null clears one; left out of a
 * PUT it stays as it is (a system written before these fields keeps working).
 */
const memberDetailsShape = {
  birthDay: z.optional(
    z.nullable(
      z
        .number({ error: MEMBER_DETAILS_MESSAGES.birthDay })
        .check(
          z.int(MEMBER_DETAILS_MESSAGES.birthDay),
          z.minimum(1, MEMBER_DETAILS_MESSAGES.birthDay),
          z.maximum(31, MEMBER_DETAILS_MESSAGES.birthDay),
        ),
    ),
  ),
  birthMonth: z.optional(
    z.nullable(
      z
        .number({ error: MEMBER_DETAILS_MESSAGES.birthMonth })
        .check(
          z.int(MEMBER_DETAILS_MESSAGES.birthMonth),
          z.minimum(1, MEMBER_DETAILS_MESSAGES.birthMonth),
          z.maximum(12, MEMBER_DETAILS_MESSAGES.birthMonth),
        ),
    ),
  ),
  startDate: z.optional(
    z.nullable(
      z.string({ error: MEMBER_DETAILS_MESSAGES.startDate }).check(
        z.refine<string>(isStartDate, { error: MEMBER_DETAILS_MESSAGES.startDate }),
        // Checked when the request arrives: 80 years back from that day (core/member-dates.ts).
        z.refine<string>((v) => !isStartDate(v) || isStartDateRecent(v), {
          error: MEMBER_DETAILS_MESSAGES.startDateTooOld,
        }),
      ),
    ),
  ),
  state: z.optional(z.nullable(z.enum(AUSTRALIAN_STATES, { error: MEMBER_DETAILS_MESSAGES.state }))),
};

function dayAndMonthEachRight(day: unknown, month: unknown): boolean {
  const inRange = (n: unknown, max: number) => Number.isInteger(n) && Number(n) >= 1 && Number(n) <= max;
  return inRange(day, 31) && inRange(month, 12);
}

/** A birthday is day and month together, and the day is in the month (29 February is). */
export const birthdayCheck = z.superRefine<{ birthDay?: number | null; birthMonth?: number | null }>((value, ctx) => {
  const day = value.birthDay ?? null;
  const month = value.birthMonth ?? null;
  if ((day === null) !== (month === null)) {
    ctx.issues.push({
      code: "custom",
      message: MEMBER_DETAILS_MESSAGES.birthdayHalf,
      path: [day === null ? "birthDay" : "birthMonth"],
      input: value,
    });
  } else if (dayAndMonthEachRight(day, month) && !isBirthday(Number(day), Number(month))) {
    // Only a day and a month that are each right can disagree (each field says its own fault).
    ctx.issues.push({
      code: "custom",
      message: MEMBER_DETAILS_MESSAGES.birthdayNotInMonth,
      path: ["birthDay"],
      input: value,
    });
  }
});

/** Add and update a team member's fields before the cross-field check (extend this one). */
export const teamMemberFields = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  ...memberDetailsShape,
});

/**
 * Add and update a team member (docs/requirements.md §S5): trimmed names ≤ 64, a well-formed
 * email ≤ 256, and the optional details above.
 */
export const teamMemberSchema = teamMemberFields.check(birthdayCheck);
export type TeamMemberInput = z.input<typeof teamMemberSchema>;

/** A team member's id, as a form or a body carries it. */
export const teamMemberIdField = z.number().check(z.int(), z.positive(), z.maximum(Number.MAX_SAFE_INTEGER));

/** PUT /Users/{id} carries the id in the body too (docs/requirements.md §S7). */
export const updateTeamMemberSchema = z
  .extend(teamMemberFields, {
    id: z.optional(teamMemberIdField),
  })
  .check(birthdayCheck);
export type UpdateTeamMemberRequest = z.input<typeof updateTeamMemberSchema>;

export const bulkTeamUploadSchema = z.object({
  users: z
    .array(teamMemberSchema, { error: "users is required." })
    .check(
      z.minLength(1, "users must contain at least one team member."),
      z.maxLength(MAX_IMPORT_ROWS, `A file can hold at most ${MAX_IMPORT_ROWS.toLocaleString("en-AU")} team members.`),
    ),
});
export type BulkTeamUploadRequest = z.input<typeof bulkTeamUploadSchema>;

/** GET /Users query (docs/requirements.md §S7). Page numbers start at 1. */
export interface TeamListQuery {
  pageNumber: number;
  pageSize: number;
  search?: string;
  /** The reward flow's user search leaves out members already in the caller's draft. */
  isRewardMyTeam?: boolean;
}

/** A team member as the API answers it (docs/requirements.md §S3); phone is received but not displayed. */
export interface TeamMember {
  id: number;
  firstName: string;
  lastName: string;
  fullName: string;
  email: string;
  phone: string;
  companyId: number;
  companyName: string;
  /** The optional details (null: not given): birthday day and month, start date (YYYY-MM-DD), state. */
  birthDay: number | null;
  birthMonth: number | null;
  startDate: string | null;
  state: AustralianState | null;
  /**
   * My Team's list only (GET /Users without isRewardMyTeam): the Reward Dollars left of the
   * member's unexpired rewards, in cents (0 when none), and the earliest expiry among them (an
   * ISO time; null when nothing is left). Each reward expires on its own (modules/lots/service.server.ts).
   */
  balanceCents?: number;
  nextExpiresAt?: string | null;
}

export interface TeamPage {
  items: TeamMember[];
  totalPages: number;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
  /** Not in SPEC; lets the pager say "X of Y page(s)" without another call. */
  pageNumber: number;
  totalCount: number;
}

export interface BulkTeamUploadResponse {
  successfullyAdded: number;
  duplicates: number;
}

/** The API's refusals (problem+json `detail`). */
export const TEAM_DETAILS = {
  emailInCompany: "A team member with this email already exists in your company.",
  notFound: "Team member not found.",
} as const;
