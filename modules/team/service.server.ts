// My Team (docs/requirements.md §S2, §S3, §S5, §S6, §S9): the program manager's team members. Plain
// functions over the database, always scoped by the caller's company (tenant isolation):
//   - a member is a `users` row with role 'member' and no password; the program manager is not
//     a team member (never listed, never updated or removed here);
//   - an address is unique among the company's ACTIVE users in any letter case (the program
//     manager's own included): the unique index users_active_company_email_idx decides, so two
//     calls at the same moment cannot both add one address;
//   - removing a member marks the row inactive (history keeps pointing at it), takes them off the
//     company's reward drafts and forfeits their unspent Reward Dollars (their lots drop to 0,
//     with ledger entries).
// Each operation is named after its API route (ADR 0032): createUser is POST /Users/create-user,
// createUserBulkUpload POST /Users/create-user-bulk-upload, updateUser PUT /Users/{id},
// deleteUser DELETE /Users/{id}; My Team's form intents carry the same names.
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { AustralianState } from "../../core/member-dates.ts";
import type { Db, Tx } from "../../server/db/client.ts";
import { preparedOnce } from "../../server/db/prepared.ts";
import { companies, rewardLedger, rewardLots, users } from "../../server/db/schema.ts";
import { col } from "../../server/db/sql.ts";
import { recordAudit } from "../audit/service.server.ts";
import { isUniqueViolation } from "../identity/service.server.ts";
import { forfeitMemberLots, lotBalances } from "../lots/service.server.ts";
import { recipientBalanceCents } from "../orders/release.server.ts";
import { assertRemovable } from "../orders/release-rules.server.ts";
import { dropMemberFromDrafts, notInRewardDraft } from "../reward-drafts/service.server.ts";
import { activeMemberOf } from "./members.server.ts";
import {
  type BulkTeamUploadResponse,
  effectiveSearch,
  rewardSearchText,
  type TeamMember,
  type TeamPage,
} from "./schema.ts";

/** Who is asking: the access token's user and company. */
export interface TeamOwner {
  userId: number;
  companyId: number;
  /** The caller's address, for the audit trail. */
  clientIp?: string;
}

/**
 * The fields of an add or update, already validated and trimmed (modules/team/schema.ts). A detail left
 * undefined is none on an add and unchanged on an update; null clears it.
 */
export interface TeamMemberFields extends MemberDetails {
  firstName: string;
  lastName: string;
  email: string;
}

export interface MemberDetails {
  birthDay?: number | null;
  birthMonth?: number | null;
  startDate?: string | null;
  state?: AustralianState | null;
}

/** The details as columns: undefined ones left out (an update keeps them). */
function detailColumns(input: MemberDetails) {
  const columns: MemberDetails = {};
  // Day and month are one value (modules/team/schema.ts birthdayCheck): either given sets both.
  if (input.birthDay !== undefined || input.birthMonth !== undefined) {
    columns.birthDay = input.birthDay ?? null;
    columns.birthMonth = input.birthMonth ?? null;
  }
  if (input.startDate !== undefined) columns.startDate = input.startDate;
  if (input.state !== undefined) columns.state = input.state;
  return columns;
}

/**
 * When each date was set (users.birthday_set_at, start_date_set_at): `now` for a date this write
 * gives that differs from `before` (a new member's `before` has none). The one place those
 * columns are worked out; the bulk inserts below write the same rule in SQL. An automation's
 * occasion is due only when its date was set before the occasion's time (automations.ts).
 */
function dateSetColumns(
  before: { birthDay: number | null; birthMonth: number | null; startDate: string | null },
  after: MemberDetails,
  now: Date,
): { birthdaySetAt?: Date; startDateSetAt?: Date } {
  const out: { birthdaySetAt?: Date; startDateSetAt?: Date } = {};
  if (
    after.birthDay !== undefined &&
    (after.birthDay !== before.birthDay || (after.birthMonth ?? null) !== before.birthMonth)
  )
    out.birthdaySetAt = now;
  if (after.startDate !== undefined && after.startDate !== before.startDate) out.startDateSetAt = now;
  return out;
}
const NO_DATES = { birthDay: null, birthMonth: null, startDate: null };

/** Rows per INSERT of a bulk upload (one json parameter each). */
const INSERT_CHUNK = 5000;

const memberColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  phone: users.phone,
  companyId: users.companyId,
  companyName: companies.name,
  birthDay: users.birthDay,
  birthMonth: users.birthMonth,
  startDate: users.startDate,
  state: users.state,
};

function toTeamMember(row: {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  companyId: number;
  companyName: string;
  birthDay: number | null;
  birthMonth: number | null;
  startDate: string | null;
  state: AustralianState | null;
}): TeamMember {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    fullName: `${row.firstName} ${row.lastName}`,
    email: row.email,
    phone: row.phone ?? "",
    companyId: row.companyId,
    companyName: row.companyName,
    birthDay: row.birthDay,
    birthMonth: row.birthMonth,
    startDate: row.startDate,
    state: row.state,
  };
}

/** A LIKE pattern that matches `text` literally anywhere (%, _ and \ lose their meaning). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// ─── The list (GET /Users) ───────────────────────────────────────────────────────────────────

export interface TeamListOptions {
  /** 1-based; past the last page answers no items. */
  pageNumber: number;
  pageSize: number;
  /** My Team's: used only when longer than 2 characters once trimmed; the reward search's: when not blank (docs/requirements.md §S5, §S9). */
  search?: string;
  /** The reward flow's user search: needs a search text, and leaves out the draft's members. */
  isRewardMyTeam?: boolean;
  /** My Team's balances count the rewards unexpired at this time; default: the clock's. */
  now?: Date;
}

/** A page of members, each row with the count of every member the conditions select. */
function teamPageQuery(db: Db, where: SQL | undefined) {
  return db
    .select({ ...memberColumns, totalCount: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(where)
    .orderBy(asc(sql`lower(${users.firstName})`), asc(sql`lower(${users.lastName})`), asc(users.id));
}

type TeamRow = Awaited<ReturnType<typeof teamPageQuery>>[number];

const plainTeamPageOf = preparedOnce((db) =>
  teamPageQuery(db, activeMemberOf(sql.placeholder("companyId")))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare("team_page"),
);

/**
 * One page of the caller's active team members, ordered by first name, last name (in any
 * letter case) and id, so pages never overlap or skip anyone.
 */
export async function listTeamMembers(db: Db, owner: TeamOwner, options: TeamListOptions): Promise<TeamPage> {
  const { pageNumber, pageSize } = options;
  // "Jane   Citizen" finds Jane Citizen: runs of spaces count as one. The reward search takes any
  // text that is not blank; My Team's needs more than 2 characters (docs/requirements.md §S5).
  const text = options.isRewardMyTeam ? rewardSearchText(options.search) : effectiveSearch(options.search);
  const search = text.replace(/\s+/g, " ");
  const empty: TeamPage = {
    items: [],
    totalPages: 0,
    hasPreviousPage: pageNumber > 1,
    hasNextPage: false,
    pageNumber,
    totalCount: 0,
  };
  // The reward search suggests people for what was typed; with nothing typed it suggests nobody.
  if (options.isRewardMyTeam && !search) return empty;

  const offset = (pageNumber - 1) * pageSize;
  const page = { companyId: owner.companyId, limit: pageSize, offset };
  let where: SQL | undefined;
  let rows: TeamRow[];
  if (!search && !options.isRewardMyTeam) {
    // My Team's plain list, on every My Team request.
    rows = await plainTeamPageOf(db).execute(page);
  } else {
    const conditions: Array<SQL | undefined> = [activeMemberOf(owner.companyId)];
    if (search) {
      const pattern = containsPattern(search);
      // The full name "first last" contains the first and the last name, so it covers both.
      conditions.push(
        sql`((${users.firstName} || ' ' || ${users.lastName}) ilike ${pattern} escape '\\' or ${users.email} ilike ${pattern} escape '\\')`,
      );
    }
    if (options.isRewardMyTeam) conditions.push(notInRewardDraft(owner));
    where = and(...conditions);
    rows = await teamPageQuery(db, where).limit(pageSize).offset(offset);
  }
  // Each row carries the count of the whole list; a page past the end has no row to carry it.
  let totalCount = rows[0]?.totalCount ?? 0;
  if (rows.length === 0 && offset > 0) {
    const [counted] = await db
      .select({ count: sql<number>`count(*)::int` })
      .from(users)
      .where(where ?? activeMemberOf(owner.companyId));
    totalCount = counted?.count ?? 0;
  }
  const totalPages = Math.ceil(totalCount / pageSize);
  // My Team shows each member's balance and next expiry: one aggregate over the page's members
  // (the reward search does not show them).
  const balances = options.isRewardMyTeam
    ? undefined
    : await lotBalances(
        db,
        owner.companyId,
        rows.map((r) => r.id),
        options.now ?? new Date(),
      );
  return {
    items: rows.map((row) => {
      const member = toTeamMember(row);
      if (!balances) return member;
      const balance = balances.get(row.id);
      return {
        ...member,
        balanceCents: balance?.balanceCents ?? 0,
        nextExpiresAt: balance?.nextExpiresAt?.toISOString() ?? null,
      };
    }),
    totalPages,
    hasPreviousPage: pageNumber > 1,
    hasNextPage: pageNumber < totalPages,
    pageNumber,
    totalCount,
  };
}

// ─── Add, update, remove ─────────────────────────────────────────────────────────────────────

async function companyName(db: Tx, companyId: number): Promise<string> {
  const [row] = await db.select({ name: companies.name }).from(companies).where(eq(companies.id, companyId));
  return row?.name ?? "";
}

export type CreateMemberResult = { status: "created"; member: TeamMember } | { status: "duplicate" };

/** A membership event in the audit log (docs/requirements.md §D4), in the change's transaction. */
async function audit(tx: Tx, owner: TeamOwner, action: string, subject: string, data: object, now: Date) {
  await recordAudit(tx, {
    companyId: owner.companyId,
    actorUserId: owner.userId,
    action,
    subject,
    data: { ...data },
    clientIp: owner.clientIp,
    at: now,
  });
}

/** Adds an active member to the caller's company; "duplicate" when the address is active there. */
export async function createUser(
  db: Db,
  owner: TeamOwner,
  input: TeamMemberFields,
  now: Date = new Date(),
): Promise<CreateMemberResult> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(users)
        .values({
          companyId: owner.companyId,
          firstName: input.firstName,
          lastName: input.lastName,
          email: input.email,
          ...detailColumns(input),
          ...dateSetColumns(NO_DATES, detailColumns(input), now),
          role: "member",
        })
        .returning({
          id: users.id,
          phone: users.phone,
          birthDay: users.birthDay,
          birthMonth: users.birthMonth,
          startDate: users.startDate,
          state: users.state,
        });
      if (!row) throw new Error("member insert returned no row");
      await audit(tx, owner, "member.added", `user:${row.id}`, {}, now);
      const member = toTeamMember({
        ...row,
        firstName: input.firstName,
        lastName: input.lastName,
        email: input.email,
        companyId: owner.companyId,
        companyName: await companyName(tx, owner.companyId),
      });
      return { status: "created" as const, member };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}

/**
 * Adds many members in one transaction (all or nothing). A row whose address is already active
 * in the company, or repeats an earlier row of the same upload (in any letter case), is a
 * duplicate and is skipped; the first occurrence is added. Rows must be validated beforehand.
 */
export async function createUserBulkUpload(
  db: Db,
  owner: TeamOwner,
  rows: readonly TeamMemberFields[],
  now: Date = new Date(),
): Promise<BulkTeamUploadResponse> {
  const seen = new Set<string>();
  const fresh: TeamMemberFields[] = [];
  for (const row of rows) {
    const key = row.email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(row);
  }
  // Two uploads sharing addresses take the index entries' locks in the same order, so one waits
  // for the other instead of deadlocking.
  fresh.sort((x, y) => (x.email.toLowerCase() < y.email.toLowerCase() ? -1 : 1));
  let successfullyAdded = 0;
  await db.transaction(async (tx) => {
    for (let start = 0; start < fresh.length; start += INSERT_CHUNK) {
      const chunk = fresh.slice(start, start + INSERT_CHUNK).map((r) => ({
        f: r.firstName,
        l: r.lastName,
        e: r.email,
        bd: r.birthDay ?? null,
        bm: r.birthMonth ?? null,
        sd: r.startDate ?? null,
        st: r.state ?? null,
      }));
      // The rows travel as ONE json parameter (drizzle's multi-row VALUES binds every column of
      // every row: 3 to 4 times slower for 5,000 rows on PGlite). No conflict target: drizzle
      // cannot name the expression index, and PostgreSQL then skips a row that conflicts with ANY
      // unique index, here the company's active addresses (also one another call adds at this
      // moment, which a pre-check could miss).
      const result = (await tx.execute(sql`
        insert into ${users} (${col(users.companyId)}, ${col(users.firstName)}, ${col(users.lastName)}, ${col(users.email)}, ${col(users.birthDay)}, ${col(users.birthMonth)}, ${col(users.startDate)}, ${col(users.state)}, ${col(users.role)}, ${col(users.birthdaySetAt)}, ${col(users.startDateSetAt)})
        select ${owner.companyId}::bigint, r.f, r.l, r.e, r.bd, r.bm, r.sd, r.st, 'member',
          case when r.bd is not null then ${now.toISOString()}::timestamptz end,
          case when r.sd is not null then ${now.toISOString()}::timestamptz end
        from json_to_recordset(${JSON.stringify(chunk)}::json) as r(f text, l text, e text, bd smallint, bm smallint, sd date, st text)
        on conflict do nothing
        returning ${col(users.id)}`)) as unknown as { rows: unknown[] };
      successfullyAdded += result.rows.length;
    }
    const counts = { successfullyAdded, duplicates: rows.length - successfullyAdded };
    await audit(tx, owner, "members.imported", `company:${owner.companyId}`, counts, now);
  });
  return { successfullyAdded, duplicates: rows.length - successfullyAdded };
}

/**
 * The team CSV import's apply step (modules/imports/service.server.ts), inside the caller's transaction:
 * the staged rows of `jobId` become members with the rules of createUserBulkUpload (the first
 * row of an address is added, a repeat or an address already active is a duplicate), set-based
 * from the staging table so 50,000 rows never come into this process.
 */
export async function importStagedTeamMembers(
  tx: Tx,
  owner: TeamOwner,
  jobId: string,
  now: Date,
): Promise<BulkTeamUploadResponse> {
  const result = (await tx.execute(sql`
    with staged as (
      select count(*)::int as rows from import_job_rows where job_id = ${jobId}
    ), added as (
      insert into ${users} (${col(users.companyId)}, ${col(users.firstName)}, ${col(users.lastName)}, ${col(users.email)}, ${col(users.birthDay)}, ${col(users.birthMonth)}, ${col(users.startDate)}, ${col(users.state)}, ${col(users.role)}, ${col(users.birthdaySetAt)}, ${col(users.startDateSetAt)})
      select ${owner.companyId}::bigint, r.first_name, r.last_name, r.email, r.birth_day, r.birth_month, r.start_date, r.state, 'member',
        case when r.birth_day is not null then ${now.toISOString()}::timestamptz end,
        case when r.start_date is not null then ${now.toISOString()}::timestamptz end
      from (
        select distinct on (lower(email)) first_name, last_name, email, birth_day, birth_month, start_date, state
        from import_job_rows where job_id = ${jobId}
        order by lower(email), n
      ) r
      -- In address order, as createUserBulkUpload: concurrent imports lock index entries in one order.
      order by lower(r.email)
      on conflict do nothing
      returning 1
    )
    select (select rows from staged) as rows, (select count(*)::int from added) as added`)) as unknown as {
    rows: Array<{ rows: number; added: number }>;
  };
  const { rows = 0, added = 0 } = result.rows[0] ?? {};
  const counts = { successfullyAdded: Number(added), duplicates: Number(rows) - Number(added) };
  await audit(tx, owner, "members.imported", `company:${owner.companyId}`, counts, now);
  return counts;
}

export type UpdateMemberResult = "updated" | "not_found" | "duplicate";

/**
 * Changes a member of the caller's company; "not_found" for anyone else (nothing changes). The
 * audit entry names each field that changed with its old and new value: a member's address is
 * where their reward emails go (a resend goes to it: modules/deliveries/service.server.ts), so a change of
 * it must be traceable to who made it (ADR 0022 amendment).
 */
export async function updateUser(
  db: Db,
  owner: TeamOwner,
  memberId: number,
  input: TeamMemberFields,
  now: Date = new Date(),
): Promise<UpdateMemberResult> {
  try {
    return await db.transaction(async (tx) => {
      // Locked as the update would lock it: the old values are the ones this update replaces.
      const [before] = await tx
        .select({
          firstName: users.firstName,
          lastName: users.lastName,
          email: users.email,
          birthDay: users.birthDay,
          birthMonth: users.birthMonth,
          startDate: users.startDate,
          state: users.state,
        })
        .from(users)
        .where(and(eq(users.id, memberId), activeMemberOf(owner.companyId)))
        .for("update");
      if (!before) return "not_found" as const;
      const after = {
        ...before,
        firstName: input.firstName,
        lastName: input.lastName,
        email: input.email,
        ...detailColumns(input),
      };
      await tx
        .update(users)
        .set({ ...after, ...dateSetColumns(before, detailColumns(input), now) })
        .where(eq(users.id, memberId));
      const changed: Record<string, { from: string | number | null; to: string | number | null }> = {};
      for (const field of Object.keys(after) as Array<keyof typeof after>) {
        if (before[field] !== after[field]) changed[field] = { from: before[field], to: after[field] };
      }
      await audit(tx, owner, "member.updated", `user:${memberId}`, changed, now);
      return "updated" as const;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "duplicate";
    throw error;
  }
}

/**
 * Removes a member of the caller's company (docs/requirements.md §S6): the row becomes inactive and stays, so
 * reward history keeps its name; the member leaves every reward draft of the company, and their
 * unspent Reward Dollars are forfeited by a ledger entry (docs/requirements.md §D5), all in one transaction.
 * False when the id is not an active member of the company (nothing changes).
 */
export async function deleteUser(db: Db, owner: TeamOwner, memberId: number, now: Date = new Date()): Promise<boolean> {
  return db.transaction(async (tx) => {
    // The member row first, then the drafts: the lock order of modules/reward-drafts/service.server.ts.
    const [row] = await tx
      .update(users)
      .set({ isActive: false })
      .where(and(eq(users.id, memberId), activeMemberOf(owner.companyId)))
      .returning({ id: users.id, firstName: users.firstName, lastName: users.lastName });
    if (!row) return false;
    // Refused (the transaction rolls back) while the member is on a paid order not yet released:
    // docs/rules.md "When a release may pay a member" (release-rules.ts).
    await assertRemovable(tx, owner.companyId, { userId: row.id, firstName: row.firstName, lastName: row.lastName });
    // The removal takes effect once it holds the member's row: a release that held it first
    // (release-rules.ts locks it FOR SHARE) committed before, so it is dated no earlier than that
    // release's lots (the money check's 'removed-member' rule compares the two).
    const [latest] = await tx
      .select({ at: sql<string | null>`max(${rewardLots.issuedAt})` })
      .from(rewardLots)
      .where(and(eq(rewardLots.companyId, owner.companyId), eq(rewardLots.userId, memberId)));
    const lastIssued = latest?.at ? new Date(latest.at) : null;
    const removedAt = lastIssued && lastIssued.getTime() > now.getTime() ? lastIssued : now;
    const draftLines = await dropMemberFromDrafts(tx, owner.companyId, memberId, removedAt);
    const forfeitedCents = await forfeitBalance(tx, owner.companyId, memberId, removedAt);
    await audit(tx, owner, "member.removed", `user:${memberId}`, { forfeitedCents, draftLines }, removedAt);
    return true;
  });
}

/**
 * Writes off a member's unspent Reward Dollars: each open lot drops to 0 with its own 'forfeit'
 * entry (so the expiry job finds nothing left to forfeit), then whatever the ledger still holds
 * outside lots with one more entry; answers the cents.
 */
async function forfeitBalance(tx: Tx, companyId: number, memberId: number, now: Date): Promise<number> {
  const fromLots = await forfeitMemberLots(tx, companyId, memberId, now);
  const balance = await recipientBalanceCents(tx, companyId, memberId);
  if (balance <= 0) return fromLots;
  await tx
    .insert(rewardLedger)
    .values({ companyId, userId: memberId, kind: "forfeit", amountCents: balance, createdAt: now });
  return fromLots + balance;
}
