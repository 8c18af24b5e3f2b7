// The reward draft (docs/requirements.md §S2 Reward My Team, §S3, §S5, §S9; §D4, §D5): one draft
// per program manager, holding a reward name and recipient lines (a team member of the same
// company and a whole number of Reward Dollars, 0 to 10,000). Plain functions over the
// database, always scoped by the caller's company and the caller's own draft.
//
//   - Every change runs in one transaction that locks the draft row (created on first use), so
//     changes of one draft are serialised and the recipient limit (MAX_DRAFT_RECIPIENTS) holds under concurrency.
//     Rows are locked in one order everywhere: team members (FOR SHARE), then the draft row,
//     then its lines; the member removal of the team domain takes the same order (member, then
//     dropMemberFromDrafts: drafts, then lines), and so does clearDraft (draft, then lines).
//   - Every change bumps the draft's `version`: a payment created for an older version is refused
//     by the payments domain. A call that changes nothing (adding a recipient already in the
//     draft, setting the amount it already has) leaves the version alone.
//   - Lists are newest first: created_at desc, id desc. A bulk upload is inserted last row first,
//     so the file reads top to bottom at the top of the table.
//   - Money stays in whole dollars here; cents, fee and GST come from core/money.ts.

import { and, desc, eq, ne, type SQL, sql } from "drizzle-orm";
import { centsToDollars, chargesFor } from "../../core/money.ts";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { rewardDraftLines, rewardDrafts, users } from "../../server/db/schema.ts";
import { col, unnestRows } from "../../server/db/sql.ts";
import { Refusal } from "../../server/refusal.ts";
import { recordAudit } from "../audit/service.server.ts";
import { scheduleRefusal } from "../scheduled-sends/schema.ts";
import { activeMemberOf, matchOrCreateMembers } from "../team/members.server.ts";
import {
  MAX_DRAFT_RECIPIENTS,
  type NewRewardUserParsed,
  type RewardDraftTotals,
  type RewardMessage,
  type RewardRecipient,
  type RewardRecipientPage,
  type RewardSummary,
  type RewardWording,
} from "./schema.ts";

/** A send time refused (modules/scheduled-sends/schema.ts scheduleRefusal). */
export type SendTimeRefusal = NonNullable<ReturnType<typeof scheduleRefusal>>;

/** Who is asking: the access token's user (the program manager) and company. */
export interface DraftOwner {
  userId: number;
  companyId: number;
  /** The caller's address, for the audit trail. */
  clientIp?: string;
}

const fullName = sql<string>`${users.firstName} || ' ' || ${users.lastName}`;

/** Lines of a draft joined to their (active) members. */
const lineMember = and(
  eq(users.id, rewardDraftLines.userId),
  eq(users.companyId, rewardDraftLines.companyId),
  eq(users.isActive, true),
);

const newestFirst = [desc(rewardDraftLines.createdAt), desc(rewardDraftLines.id)] as const;

/** What a draft's row holds beside its lines. */
const draftColumns = {
  id: rewardDrafts.id,
  version: rewardDrafts.version,
  name: rewardDrafts.name,
  message: rewardDrafts.message,
  senderName: rewardDrafts.senderName,
  sendAt: rewardDrafts.sendAt,
};

async function findDraft(db: Conn, owner: DraftOwner) {
  const [row] = await db
    .select(draftColumns)
    .from(rewardDrafts)
    .where(and(eq(rewardDrafts.userId, owner.userId), eq(rewardDrafts.companyId, owner.companyId)));
  return row;
}

/** The caller's draft, created on first use, locked FOR UPDATE until the transaction ends. */
async function lockDraft(tx: Tx, owner: DraftOwner, now: Date) {
  const where = and(eq(rewardDrafts.userId, owner.userId), eq(rewardDrafts.companyId, owner.companyId));
  const select = () =>
    tx
      .select({ id: rewardDrafts.id, version: rewardDrafts.version, name: rewardDrafts.name })
      .from(rewardDrafts)
      .where(where)
      .for("update");
  const [existing] = await select();
  if (existing) return existing;
  await tx
    .insert(rewardDrafts)
    .values({ companyId: owner.companyId, userId: owner.userId, updatedAt: now, createdAt: now })
    .onConflictDoNothing({ target: rewardDrafts.userId });
  const [created] = await select();
  if (!created) throw new Error("reward draft could not be created");
  return created;
}

/**
 * A change of the owner's draft: its version moves on (a payment or approval of an older version
 * is refused) and the change is in the audit trail, in the same transaction (ADR 0022).
 */
async function draftChanged(
  tx: Tx,
  owner: DraftOwner,
  draftId: number,
  now: Date,
  action: string,
  data: Record<string, unknown> = {},
): Promise<number> {
  const version = await bumpVersion(tx, draftId, now);
  await recordAudit(tx, {
    companyId: owner.companyId,
    actorUserId: owner.userId,
    action,
    subject: `draft:${draftId}`,
    data: { ...data, version },
    clientIp: owner.clientIp,
    at: now,
  });
  return version;
}

async function bumpVersion(tx: Tx, draftId: number, now: Date): Promise<number> {
  const [row] = await tx
    .update(rewardDrafts)
    .set({ version: sql`${rewardDrafts.version} + 1`, updatedAt: now })
    .where(eq(rewardDrafts.id, draftId))
    .returning({ version: rewardDrafts.version });
  return row?.version ?? 0;
}

async function lineCount(tx: Conn, draftId: number): Promise<number> {
  const [row] = await tx
    .select({ count: sql<number>`count(*)::int` })
    .from(rewardDraftLines)
    .where(eq(rewardDraftLines.draftId, draftId));
  return row?.count ?? 0;
}

/** Locks (FOR SHARE) and answers the active member `memberId` of the company, if it is one. */
async function lockMember(tx: Tx, companyId: number, memberId: number) {
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, memberId), activeMemberOf(companyId)))
    .for("share");
  return row;
}

async function totalsOf(db: Conn, draftId: number): Promise<RewardDraftTotals> {
  const [row] = await db
    .select({
      count: sql<number>`count(*)::int`,
      dollars: sql<string>`coalesce(sum(${rewardDraftLines.amountDollars}), 0)::text`,
    })
    .from(rewardDraftLines)
    .innerJoin(users, lineMember)
    .where(eq(rewardDraftLines.draftId, draftId));
  return { recipientCount: row?.count ?? 0, totalRewards: Number(row?.dollars ?? 0) };
}

const recipientColumns = {
  userId: rewardDraftLines.userId,
  fullName,
  email: users.email,
  reward: rewardDraftLines.amountDollars,
};

async function recipientRow(db: Conn, draftId: number, memberId: number): Promise<RewardRecipient | undefined> {
  const [row] = await db
    .select(recipientColumns)
    .from(rewardDraftLines)
    .innerJoin(users, lineMember)
    .where(and(eq(rewardDraftLines.draftId, draftId), eq(rewardDraftLines.userId, memberId)));
  return row;
}

// ─── Reads ───────────────────────────────────────────────────────────────────────────────────

/** GET get-reward: every recipient of the caller's draft, newest first. */
export async function listRecipients(db: Conn, owner: DraftOwner): Promise<RewardRecipient[]> {
  const draft = await findDraft(db, owner);
  if (!draft) return [];
  return db
    .select(recipientColumns)
    .from(rewardDraftLines)
    .innerJoin(users, lineMember)
    .where(eq(rewardDraftLines.draftId, draft.id))
    .orderBy(...newestFirst);
}

/** GET get-reward-page: one page of the table (newest first) and the footer figures. */
export async function recipientPage(
  db: Conn,
  owner: DraftOwner,
  pageNumber: number,
  pageSize: number,
): Promise<RewardRecipientPage> {
  const draft = await findDraft(db, owner);
  const totals = draft ? await totalsOf(db, draft.id) : { recipientCount: 0, totalRewards: 0 };
  const totalPages = Math.ceil(totals.recipientCount / pageSize);
  const offset = (pageNumber - 1) * pageSize;
  const items =
    draft && offset < totals.recipientCount
      ? await db
          .select(recipientColumns)
          .from(rewardDraftLines)
          .innerJoin(users, lineMember)
          .where(eq(rewardDraftLines.draftId, draft.id))
          .orderBy(...newestFirst)
          .limit(pageSize)
          .offset(offset)
      : [];
  return {
    items,
    totalPages,
    hasPreviousPage: pageNumber > 1,
    hasNextPage: pageNumber < totalPages,
    pageNumber,
    totalCount: totals.recipientCount,
    totalRewards: totals.totalRewards,
  };
}

/** GET get-reward-summary: the recipients (newest first) and the charges of docs/requirements.md §D5. */
export async function draftSummary(db: Conn, owner: DraftOwner): Promise<RewardSummary> {
  const draft = await findDraft(db, owner);
  const rewards = draft
    ? await db
        .select({ userId: rewardDraftLines.userId, fullName, reward: rewardDraftLines.amountDollars })
        .from(rewardDraftLines)
        .innerJoin(users, lineMember)
        .where(eq(rewardDraftLines.draftId, draft.id))
        .orderBy(...newestFirst)
    : [];
  const charges = chargesFor(rewards.map((r) => r.reward));
  return {
    rewards,
    totalRewards: centsToDollars(charges.rewardsCents),
    serviceFee: centsToDollars(charges.serviceFeeCents),
    gst: centsToDollars(charges.gstCents),
    total: centsToDollars(charges.totalCents),
    rewardName: draft?.name ?? "",
    message: draft?.message ?? "",
    senderName: await resolvedSenderName(db, owner, draft?.senderName ?? ""),
    sendAt: draft?.sendAt?.toISOString() ?? null,
    recipientCount: rewards.length,
    version: draft?.version ?? 0,
  };
}

// ─── Changes ─────────────────────────────────────────────────────────────────────────────────

/**
 * POST create-reward-search: adds the active team member `memberId` of the caller's company
 * with amount 0. Already in the draft: nothing changes. Throws Refusal member-not-found
 * (another company's id, a removed member, the manager) or too-many-recipients.
 */
export async function addRecipient(db: Db, owner: DraftOwner, memberId: number, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await lockMember(tx, owner.companyId, memberId))) throw new Refusal("member-not-found");
    const draft = await lockDraft(tx, owner, now);
    const [present] = await tx
      .select({ id: rewardDraftLines.id })
      .from(rewardDraftLines)
      .where(and(eq(rewardDraftLines.draftId, draft.id), eq(rewardDraftLines.userId, memberId)));
    if (present) return;
    if ((await lineCount(tx, draft.id)) >= MAX_DRAFT_RECIPIENTS) throw new Refusal("too-many-recipients");
    await tx.insert(rewardDraftLines).values({
      draftId: draft.id,
      companyId: owner.companyId,
      userId: memberId,
      amountDollars: 0,
      createdAt: now,
    });
    await draftChanged(tx, owner, draft.id, now, "draft.recipient_added", { memberId });
  });
}

/** PUT update-reward: the recipient's amount (whole dollars, already checked). */
export async function setRecipientAmount(
  db: Db,
  owner: DraftOwner,
  memberId: number,
  dollars: number,
  now: Date,
): Promise<RewardRecipient> {
  return db.transaction(async (tx) => {
    const draft = await lockDraft(tx, owner, now);
    const before = await recipientRow(tx, draft.id, memberId);
    if (!before) throw new Refusal("not-in-draft");
    if (before.reward === dollars) return before;
    await tx
      .update(rewardDraftLines)
      .set({ amountDollars: dollars })
      .where(and(eq(rewardDraftLines.draftId, draft.id), eq(rewardDraftLines.userId, memberId)));
    await draftChanged(tx, owner, draft.id, now, "draft.amount_set", { memberId, from: before.reward, to: dollars });
    return { ...before, reward: dollars };
  });
}

/** PUT update-all-reward: every recipient's amount; answers the footer figures. */
export async function setAllAmounts(db: Db, owner: DraftOwner, dollars: number, now: Date): Promise<RewardDraftTotals> {
  return db.transaction(async (tx) => {
    const draft = await lockDraft(tx, owner, now);
    const changed = await tx
      .update(rewardDraftLines)
      .set({ amountDollars: dollars })
      .where(and(eq(rewardDraftLines.draftId, draft.id), ne(rewardDraftLines.amountDollars, dollars)))
      .returning({ id: rewardDraftLines.id });
    if (changed.length > 0) {
      await draftChanged(tx, owner, draft.id, now, "draft.all_amounts_set", { to: dollars, lines: changed.length });
    }
    return totalsOf(tx, draft.id);
  });
}

/** PUT update-reward-name: the draft's reward name (trimmed and checked by modules/reward-drafts/schema.ts). */
export async function setRewardName(db: Db, owner: DraftOwner, name: string, now: Date): Promise<string> {
  return db.transaction((tx) => writeRewardName(tx, owner, name, now));
}

async function writeRewardName(tx: Tx, owner: DraftOwner, name: string, now: Date): Promise<string> {
  const draft = await lockDraft(tx, owner, now);
  if (draft.name !== name) {
    await tx.update(rewardDrafts).set({ name }).where(eq(rewardDrafts.id, draft.id));
    await draftChanged(tx, owner, draft.id, now, "draft.name_set", { from: draft.name, to: name });
  }
  return name;
}

/**
 * PUT update-reward-message: the sender's message and name (already checked by modules/reward-drafts/schema.ts),
 * both replaced; a change bumps the version like any change of what an order would freeze.
 */
export async function setRewardMessage(
  db: Db,
  owner: DraftOwner,
  input: { message: string; senderName: string },
  now: Date,
): Promise<RewardMessage> {
  return db.transaction((tx) => writeRewardMessage(tx, owner, input, now));
}

async function writeRewardMessage(
  tx: Tx,
  owner: DraftOwner,
  input: { message: string; senderName: string },
  now: Date,
): Promise<RewardMessage> {
  const [draft] = await tx
    .select({ id: rewardDrafts.id, message: rewardDrafts.message, senderName: rewardDrafts.senderName })
    .from(rewardDrafts)
    .where(eq(rewardDrafts.id, (await lockDraft(tx, owner, now)).id));
  // The manager's own name, sent back as it was shown, is the default kept as it is: saving the
  // words a page showed changes nothing (an approved snapshot stays payable).
  const sameSender =
    draft?.senderName === input.senderName ||
    (draft?.senderName === "" && input.senderName === (await resolvedSenderName(tx, owner, "")));
  if (draft && (draft.message !== input.message || !sameSender)) {
    await tx
      .update(rewardDrafts)
      .set({ message: input.message, senderName: input.senderName })
      .where(eq(rewardDrafts.id, draft.id));
    // The audit says that the message changed, not what it says (it is the sender's text).
    await draftChanged(tx, owner, draft.id, now, "draft.message_set", {
      messageLength: input.message.length,
      senderName: input.senderName,
    });
  }
  return { message: input.message, senderName: await resolvedSenderName(tx, owner, input.senderName) };
}

/**
 * PUT update-reward-schedule: when the order made from the draft is released (null: as soon as
 * it is paid). A new time must be 10 minutes to 90 days ahead; the time already saved, sent back
 * as it was shown, is no change (an approved snapshot stays payable even once it is near).
 */
export async function setRewardSchedule(
  db: Db,
  owner: DraftOwner,
  sendAt: Date | null,
  now: Date,
): Promise<{ ok: true; sendAt: string | null } | { ok: false; refused: SendTimeRefusal }> {
  return db.transaction((tx) => writeRewardSchedule(tx, owner, sendAt, now));
}

async function writeRewardSchedule(
  tx: Tx,
  owner: DraftOwner,
  sendAt: Date | null,
  now: Date,
): Promise<{ ok: true; sendAt: string | null } | { ok: false; refused: SendTimeRefusal }> {
  const draft = await lockDraft(tx, owner, now);
  const [row] = await tx
    .select({ sendAt: rewardDrafts.sendAt })
    .from(rewardDrafts)
    .where(eq(rewardDrafts.id, draft.id));
  const current = row?.sendAt ?? null;
  if ((current?.getTime() ?? null) !== (sendAt?.getTime() ?? null)) {
    const refused = sendAt ? scheduleRefusal(sendAt, now) : null;
    if (refused) return { ok: false as const, refused };
    await tx.update(rewardDrafts).set({ sendAt }).where(eq(rewardDrafts.id, draft.id));
    await draftChanged(tx, owner, draft.id, now, "draft.schedule_set", { sendAt: sendAt?.toISOString() ?? null });
  }
  return { ok: true as const, sendAt: sendAt?.toISOString() ?? null };
}

/**
 * The wording a payment or an approval request carries (modules/reward-drafts/schema.ts rewardWordingSchema),
 * saved in the caller's transaction before the draft is frozen, by the rules of the three calls
 * above. A send time they refuse is answered as the refusal, and the caller rolls back.
 */
export async function writeRewardWording(
  tx: Tx,
  owner: DraftOwner,
  wording: RewardWording,
  now: Date,
): Promise<{ ok: true } | { ok: false; refused: SendTimeRefusal }> {
  await writeRewardName(tx, owner, wording.rewardName, now);
  await writeRewardMessage(tx, owner, wording, now);
  const scheduled = await writeRewardSchedule(tx, owner, wording.sendAt ? new Date(wording.sendAt) : null, now);
  return scheduled.ok ? { ok: true } : scheduled;
}

/** What the recipients' email of the caller's draft will say: its name, message and sender. */
export async function draftWording(db: Conn, owner: DraftOwner): Promise<RewardMessage & { rewardName: string }> {
  const draft = await findDraft(db, owner);
  return {
    rewardName: draft?.name ?? "",
    message: draft?.message ?? "",
    senderName: await resolvedSenderName(db, owner, draft?.senderName ?? ""),
  };
}

/** The sender the recipients' email names: the one set, else the manager's own name. */
async function resolvedSenderName(db: Conn, owner: { userId: number; companyId: number }, set: string) {
  if (set) return set;
  const [me] = await db
    .select({ fullName })
    .from(users)
    .where(and(eq(users.id, owner.userId), eq(users.companyId, owner.companyId)));
  return me?.fullName ?? "";
}

/** DELETE delete-reward: takes the member off the draft. Throws Refusal not-in-draft. */
export async function removeRecipient(db: Db, owner: DraftOwner, memberId: number, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const draft = await lockDraft(tx, owner, now);
    const removed = await tx
      .delete(rewardDraftLines)
      .where(and(eq(rewardDraftLines.draftId, draft.id), eq(rewardDraftLines.userId, memberId)))
      .returning({ id: rewardDraftLines.id });
    if (removed.length === 0) throw new Refusal("not-in-draft");
    await draftChanged(tx, owner, draft.id, now, "draft.recipient_removed", { memberId });
  });
}

/** DELETE delete-all-reward: empties the draft's table (the reward name stays). */
export async function removeAllRecipients(db: Db, owner: DraftOwner, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const draft = await lockDraft(tx, owner, now);
    const removed = await tx
      .delete(rewardDraftLines)
      .where(eq(rewardDraftLines.draftId, draft.id))
      .returning({ id: rewardDraftLines.id });
    if (removed.length > 0) {
      await draftChanged(tx, owner, draft.id, now, "draft.recipients_cleared", { lines: removed.length });
    }
  });
}

export interface AddNewRecipientsResult {
  /** Per input row: the member's id and whether this call created the member. */
  rows: Array<{ memberId: number; firstName: string; lastName: string; isNewTeamMember: boolean; wasInDraft: boolean }>;
  newRecipients: number;
  updatedRecipients: number;
  newTeamMembers: number;
  recipientCount: number;
}

/**
 * POST create-reward-user and bulk-upload-reward: for each row (validated, emails distinct in
 * any letter case), the company's active member with that email, or a new member (active, role
 * 'member', the row's names) when the email is new to the company; then the member's line with
 * the row's value (a line already there gets the value, keeps its place). All or nothing, in
 * one transaction, set-based: a few queries whatever the size (inserts from unnest(arrays)).
 * An existing member keeps their names. Throws Refusal draft-manager-email (row) or too-many-recipients.
 */
export async function addNewRecipients(
  db: Db,
  owner: DraftOwner,
  input: readonly NewRewardUserParsed[],
  now: Date,
): Promise<AddNewRecipientsResult> {
  return db.transaction((tx) => addNewRecipientsIn(tx, owner, input, now));
}

/** addNewRecipients inside the caller's transaction (the CSV import applies a staged file with it). */
export async function addNewRecipientsIn(
  tx: Tx,
  owner: DraftOwner,
  input: readonly NewRewardUserParsed[],
  now: Date,
): Promise<AddNewRecipientsResult> {
  if (input.length === 0) throw new Error("addNewRecipients needs at least one row");
  const members = await matchOrCreateMembers(tx, owner.companyId, input, now, (index) => {
    throw new Refusal("draft-manager-email", { row: index + 1 });
  });
  const draft = await lockDraft(tx, owner, now);
  const memberIds = members.map((m) => m.id);
  const present = new Set(
    (
      await tx
        .select({ userId: rewardDraftLines.userId })
        .from(rewardDraftLines)
        .where(
          and(
            eq(rewardDraftLines.draftId, draft.id),
            sql`${rewardDraftLines.userId} = any(${sql.param(memberIds)}::bigint[])`,
          ),
        )
    ).map((r) => r.userId),
  );
  const newRecipients = memberIds.filter((id) => !present.has(id)).length;
  if ((await lineCount(tx, draft.id)) + newRecipients > MAX_DRAFT_RECIPIENTS) throw new Refusal("too-many-recipients");

  // Last row first, so the first row of a file is the newest line (top of the table). An
  // existing line gets the row's value and keeps its place.
  await tx.execute(sql`
    insert into ${rewardDraftLines} (${col(rewardDraftLines.draftId)}, ${col(rewardDraftLines.companyId)}, ${col(rewardDraftLines.userId)}, ${col(rewardDraftLines.amountDollars)}, ${col(rewardDraftLines.createdAt)})
    select ${draft.id}, ${owner.companyId}, t.user_id, t.amount, ${now.toISOString()}::timestamptz
    from ${unnestRows("t", {
      user_id: { type: "bigint", values: [...memberIds].reverse() },
      amount: { type: "integer", values: input.map((r) => r.value).reverse() },
    })}
    order by t.n
    on conflict (${col(rewardDraftLines.draftId)}, ${col(rewardDraftLines.userId)}) do update set ${col(rewardDraftLines.amountDollars)} = excluded.${col(rewardDraftLines.amountDollars)}`);
  await draftChanged(tx, owner, draft.id, now, "draft.recipients_added", { rows: input.length, newRecipients });

  return {
    rows: members.map((m) => ({
      memberId: m.id,
      firstName: m.firstName,
      lastName: m.lastName,
      isNewTeamMember: m.created,
      wasInDraft: present.has(m.id),
    })),
    newRecipients,
    updatedRecipients: input.length - newRecipients,
    newTeamMembers: members.filter((m) => m.created).length,
    recipientCount: await lineCount(tx, draft.id),
  };
}

/** The recipient row of `memberId` in the caller's draft (after a change). */
export async function findRecipient(
  db: Conn,
  owner: DraftOwner,
  memberId: number,
): Promise<RewardRecipient | undefined> {
  const draft = await findDraft(db, owner);
  return draft ? recipientRow(db, draft.id, memberId) : undefined;
}

// ─── For the payments and team domains ───────────────────────────────────────────────────────

export interface DraftForOrder {
  draftId: number;
  version: number;
  /** The reward name ('' when not set). */
  name: string;
  /** The sender's message ('' for none) and the sender's name, resolved (never blank). */
  message: string;
  senderName: string;
  /** When the order is to be released; null: as soon as it is paid. */
  sendAt: Date | null;
  /** Newest first, as the table shows them; amounts in whole Reward Dollars. */
  lines: Array<{ userId: number; firstName: string; lastName: string; email: string; amountDollars: number }>;
}

/**
 * The caller's draft to freeze into an order, locked FOR UPDATE until `tx` ends (so no change
 * slips in between reading and freezing). Null when the manager has no draft yet. Lines of
 * members removed meanwhile are left out.
 */
export async function loadDraftForOrder(
  tx: Tx,
  owner: { companyId: number; userId: number },
): Promise<DraftForOrder | null> {
  const [draft] = await tx
    .select(draftColumns)
    .from(rewardDrafts)
    .where(and(eq(rewardDrafts.userId, owner.userId), eq(rewardDrafts.companyId, owner.companyId)))
    .for("update");
  if (!draft) return null;
  const lines = await tx
    .select({
      userId: rewardDraftLines.userId,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
      amountDollars: rewardDraftLines.amountDollars,
    })
    .from(rewardDraftLines)
    .innerJoin(users, lineMember)
    .where(eq(rewardDraftLines.draftId, draft.id))
    .orderBy(...newestFirst);
  return {
    draftId: draft.id,
    version: draft.version,
    name: draft.name,
    message: draft.message,
    senderName: await resolvedSenderName(tx, owner, draft.senderName),
    sendAt: draft.sendAt,
    lines,
  };
}

/**
 * Empties a draft after its order is released: no lines, the reward name back to '', version
 * bumped. The caller's transaction; `draftId` comes from loadDraftForOrder.
 */
export async function clearDraft(tx: Tx, draftId: number, now: Date = new Date()): Promise<void> {
  // The draft row first, then its lines: the lock order of every draft change (no deadlock).
  await tx
    .update(rewardDrafts)
    // The next reward starts without this one's name and message; the sender's name stays.
    .set({ name: "", message: "", sendAt: null, version: sql`${rewardDrafts.version} + 1`, updatedAt: now })
    .where(eq(rewardDrafts.id, draftId));
  await tx.delete(rewardDraftLines).where(eq(rewardDraftLines.draftId, draftId));
}

/**
 * clearDraft only while the draft is still at `version` (what an order was frozen from): the
 * check and the change under one row lock. True when it was cleared.
 */
export async function clearDraftIfUnchanged(
  tx: Tx,
  draftId: number | null,
  version: number | null,
  now: Date,
): Promise<boolean> {
  // An order placed with an API key has no draft (ADR 0044).
  if (draftId === null || version === null) return false;
  const [row] = await tx
    .update(rewardDrafts)
    .set({ name: "", message: "", sendAt: null, version: sql`${rewardDrafts.version} + 1`, updatedAt: now })
    .where(and(eq(rewardDrafts.id, draftId), eq(rewardDrafts.version, version)))
    .returning({ id: rewardDrafts.id });
  if (!row) return false;
  await tx.delete(rewardDraftLines).where(eq(rewardDraftLines.draftId, draftId));
  return true;
}

/**
 * Takes a removed team member off every draft of the company (bumping each draft's version),
 * in the removal's transaction. Answers how many lines went.
 */
export async function dropMemberFromDrafts(
  tx: Tx,
  companyId: number,
  memberId: number,
  now: Date = new Date(),
): Promise<number> {
  // The drafts first (in id order), then the lines: the lock order of every draft change, so a
  // concurrent change of the same draft waits instead of deadlocking. No line of the member can
  // appear meanwhile: adding one needs a share lock on the member row the removal holds.
  const drafts = await tx
    .selectDistinct({ draftId: rewardDraftLines.draftId })
    .from(rewardDraftLines)
    .where(and(eq(rewardDraftLines.companyId, companyId), eq(rewardDraftLines.userId, memberId)));
  if (drafts.length === 0) return 0;
  const ids = drafts.map((d) => d.draftId).sort((a, b) => a - b);
  await tx
    .select({ id: rewardDrafts.id })
    .from(rewardDrafts)
    .where(sql`${rewardDrafts.id} = any(${sql.param(ids)}::bigint[])`)
    .orderBy(rewardDrafts.id)
    .for("update");
  const removed = await tx
    .delete(rewardDraftLines)
    .where(and(eq(rewardDraftLines.companyId, companyId), eq(rewardDraftLines.userId, memberId)))
    .returning({ draftId: rewardDraftLines.draftId });
  for (const draftId of new Set(removed.map((r) => r.draftId))) await bumpVersion(tx, draftId, now);
  return removed.length;
}

/**
 * For the reward flow's user search (GET /Users?isRewardMyTeam=true): true for a member who is
 * NOT a line of the caller's draft. Use inside a query over `users`.
 */
export function notInRewardDraft(owner: DraftOwner): SQL {
  return sql`not exists (select 1 from ${rewardDraftLines} join ${rewardDrafts} on ${rewardDrafts.id} = ${rewardDraftLines.draftId} where ${rewardDrafts.userId} = ${owner.userId} and ${rewardDrafts.companyId} = ${owner.companyId} and ${rewardDraftLines.userId} = ${users.id})`;
}
