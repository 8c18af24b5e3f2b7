// A company's managers (ADR 0022 §1, §3–§5): the Owner's list of managers and pending
// invitations, inviting by email (a single-use link valid 7 days, stored as its SHA-256),
// withdrawing an invitation, changing a role, removing a manager, and the invitee's side: the
// link's preview and accepting it (name and password, signed in at once).
//
// The last Owner stays (ADR 0022 §3): a demotion or removal locks every active manager row of
// the company (FOR UPDATE, in id order) in its transaction and counts the Owners left, so two
// Owners demoting each other at once cannot leave the company without one: the second waits for
// the first, then reads the rows as the first left them.
//
// A removal (ADR 0022 §4) marks the row inactive (orders and the audit trail keep pointing at
// it), revokes every access token of the manager and deletes their web sessions
// (web_sessions.user_id), so their next request of any kind lands on the login page.
//
// Invitations end with their inviting Owner (ADR 0022 amendment; docs/requirements.md §D7): a removal
// withdraws every pending invitation the manager sent, and so does a demotion from Owner (only
// Owners invite, so the role was the invitation's authority), in the change's transaction; and
// accepting checks the inviter again (still active, still an Owner), so a link sent just before
// the change, or one that outlived it some other way, lets nobody in.
//
// Every change writes its audit row in the same transaction (recordAudit, ADR 0022 §7).
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { accessTokens, companies, managerInvites, users, webSessions } from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { managerInviteEmail } from "../../server/mail/templates/account.ts";
import { recordAudit } from "../audit/service.server.ts";
import { randomToken, sha256Hex } from "../identity/identity-crypto.server.ts";
import { hashPassword } from "../identity/password.server.ts";
import type { AppSettings } from "../identity/schema.ts";
import { isUniqueViolation, type TokenOwner } from "../identity/service.server.ts";
import { type LoginOrigin, newManagerSignsInThroughProvider, signIn } from "../identity/sign-in.server.ts";
import { INVITE_TTL_DAYS, type InvitePreview, type ManagerRole, type ManagersList } from "./schema.ts";

export const INVITE_TTL_MS = INVITE_TTL_DAYS * 24 * 60 * 60 * 1000;

/** Who acts and from where: the Owner's token and the client address the edge trusted. */
export interface Actor extends TokenOwner {
  clientIp?: string | null;
}

const sameEmail = (column: typeof users.email | typeof managerInvites.email, email: string) =>
  sql`lower(${column}) = lower(${email.trim()})`;

// ─── The Owner's list ─────────────────────────────────────────────────────────────────────────

export async function listManagers(db: Db, actor: Actor, now: Date): Promise<ManagersList> {
  const managers = await db
    .select({
      id: users.id,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
      managerRole: users.managerRole,
      createdAt: users.createdAt,
      monthlyBudgetCents: users.monthlyBudgetCents,
    })
    .from(users)
    .where(and(eq(users.companyId, actor.companyId), eq(users.role, "program_manager"), eq(users.isActive, true)))
    .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id));
  const inviter = db
    .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .as("inviter");
  const invites = await db
    .select({
      id: managerInvites.id,
      email: managerInvites.email,
      managerRole: managerInvites.managerRole,
      createdAt: managerInvites.createdAt,
      expiresAt: managerInvites.expiresAt,
      inviterFirst: inviter.firstName,
      inviterLast: inviter.lastName,
    })
    .from(managerInvites)
    .innerJoin(inviter, eq(inviter.id, managerInvites.invitedBy))
    .where(and(eq(managerInvites.companyId, actor.companyId), pendingInvite(now)))
    .orderBy(asc(managerInvites.createdAt), asc(managerInvites.id));
  return {
    managers: managers.map((m) => ({
      id: m.id,
      firstName: m.firstName,
      lastName: m.lastName,
      fullName: `${m.firstName} ${m.lastName}`,
      email: m.email,
      managerRole: m.managerRole ?? "manager",
      isYou: m.id === actor.userId,
      createdAt: m.createdAt.toISOString(),
      monthlyBudgetCents: m.monthlyBudgetCents,
    })),
    invites: invites.map((i) => ({
      id: i.id,
      email: i.email,
      managerRole: i.managerRole,
      invitedByName: `${i.inviterFirst} ${i.inviterLast}`,
      createdAt: i.createdAt.toISOString(),
      expiresAt: i.expiresAt.toISOString(),
    })),
  };
}

/** Neither accepted nor withdrawn, and not yet expired. */
function pendingInvite(now: Date) {
  return and(isNull(managerInvites.acceptedAt), isNull(managerInvites.revokedAt), gt(managerInvites.expiresAt, now));
}

// ─── Inviting ─────────────────────────────────────────────────────────────────────────────────

export type InviteResult =
  | { status: "invited"; id: number; email: string; managerRole: ManagerRole; expiresAt: string }
  /** The address already signs in as a program manager (any company), or is one of this company's people. */
  | { status: "email_in_use" }
  /**
   * The company details are not saved yet: an invitee would land on the onboarding form, which
   * only an Owner may fill in (docs/requirements.md §S6 gate; ADR 0022).
   */
  | { status: "details_missing" };

/**
 * An active program manager of any company signs in with the address (it is unique among them),
 * and an active team member of this company holds it in the company's list: either way a new
 * manager cannot take it.
 */
async function emailTaken(db: Conn, companyId: number, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.isActive, true),
        sameEmail(users.email, email),
        sql`(${users.role} = 'program_manager' or ${users.companyId} = ${companyId})`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Invites `email` as `role`. A pending invitation of the same address in the company is
 * withdrawn by the new one (inviting again is how an Owner resends, or changes the role offered).
 */
export async function inviteManager(
  db: Db,
  actor: Actor,
  input: { email: string; role: ManagerRole },
  appUrl: string,
  now: Date,
): Promise<InviteResult> {
  const email = input.email.trim();
  const [company] = await db
    .select({ detailsUpdatedAt: companies.detailsUpdatedAt })
    .from(companies)
    .where(eq(companies.id, actor.companyId));
  if (!company?.detailsUpdatedAt) return { status: "details_missing" };
  if (await emailTaken(db, actor.companyId, email)) return { status: "email_in_use" };
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  const link = `${appUrl}/corporate/accept-invite?token=${encodeURIComponent(token)}`;
  return db.transaction(async (tx) => {
    const [context] = await tx
      .select({ inviterFirst: users.firstName, inviterLast: users.lastName, companyName: companies.name })
      .from(users)
      .innerJoin(companies, eq(companies.id, users.companyId))
      .where(eq(users.id, actor.userId));
    if (!context) throw new Error("the inviting Owner has no row");
    const superseded = await tx
      .update(managerInvites)
      .set({ revokedAt: now })
      .where(
        and(eq(managerInvites.companyId, actor.companyId), sameEmail(managerInvites.email, email), pendingInvite(now)),
      )
      .returning({ id: managerInvites.id });
    const [invite] = await tx
      .insert(managerInvites)
      .values({
        companyId: actor.companyId,
        invitedBy: actor.userId,
        email,
        managerRole: input.role,
        tokenHash: sha256Hex(token),
        expiresAt,
        createdAt: now,
      })
      .returning({ id: managerInvites.id });
    if (!invite) throw new Error("invite insert returned no row");
    await enqueueEmail(
      tx,
      managerInviteEmail({
        to: email,
        inviterName: `${context.inviterFirst} ${context.inviterLast}`,
        companyName: context.companyName,
        role: input.role,
        link,
      }),
      now,
    );
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "manager.invited",
      subject: `invite:${invite.id}`,
      // The address and role, never the link (it would sign someone in).
      data: { email, role: input.role, expiresAt: expiresAt.toISOString(), supersedes: superseded.map((s) => s.id) },
      clientIp: actor.clientIp,
      at: now,
    });
    return { status: "invited", id: invite.id, email, managerRole: input.role, expiresAt: expiresAt.toISOString() };
  });
}

export type RevokeInviteResult = "revoked" | "not_found" | "not_pending";

/** Withdraws a pending invitation of the actor's company; its link stops working at once. */
export async function revokeInvite(db: Db, actor: Actor, inviteId: number, now: Date): Promise<RevokeInviteResult> {
  return db.transaction(async (tx) => {
    const [invite] = await tx
      .select({
        id: managerInvites.id,
        email: managerInvites.email,
        acceptedAt: managerInvites.acceptedAt,
        revokedAt: managerInvites.revokedAt,
      })
      .from(managerInvites)
      .where(and(eq(managerInvites.id, inviteId), eq(managerInvites.companyId, actor.companyId)))
      .for("update");
    if (!invite) return "not_found";
    // Withdrawing twice is the same withdrawal (a double submit, two tabs).
    if (invite.revokedAt) return "revoked";
    if (invite.acceptedAt) return "not_pending";
    await tx.update(managerInvites).set({ revokedAt: now }).where(eq(managerInvites.id, invite.id));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "manager.invite_revoked",
      subject: `invite:${invite.id}`,
      data: { email: invite.email },
      clientIp: actor.clientIp,
      at: now,
    });
    return "revoked";
  });
}

// ─── Roles and removal ────────────────────────────────────────────────────────────────────────

/**
 * Every active manager row of the company, locked until the transaction ends, in id order (so
 * two transactions take the locks in the same order and cannot deadlock).
 */
async function lockCompanyManagers(tx: Tx, companyId: number) {
  return tx
    .select({ id: users.id, managerRole: users.managerRole, email: users.email })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.role, "program_manager"), eq(users.isActive, true)))
    .orderBy(asc(users.id))
    .for("update");
}

const isOwnerIn = (rows: Array<{ id: number; managerRole: ManagerRole | null }>, actor: Actor) =>
  rows.some((r) => r.id === actor.userId && r.managerRole === "owner");

/** Withdraws the pending invitations `inviterId` sent, in the caller's transaction; answers their ids for the audit entry. */
async function withdrawInvitesOf(tx: Tx, companyId: number, inviterId: number, now: Date) {
  const rows = await tx
    .update(managerInvites)
    .set({ revokedAt: now })
    .where(and(eq(managerInvites.companyId, companyId), eq(managerInvites.invitedBy, inviterId), pendingInvite(now)))
    .returning({ id: managerInvites.id });
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export type ChangeRoleResult =
  | { status: "changed"; id: number; managerRole: ManagerRole }
  | { status: "unchanged"; id: number; managerRole: ManagerRole }
  | { status: "not_found" }
  | { status: "last_owner" }
  | { status: "not_owner" };

export async function changeManagerRole(
  db: Db,
  actor: Actor,
  managerId: number,
  role: ManagerRole,
  now: Date,
): Promise<ChangeRoleResult> {
  return db.transaction(async (tx) => {
    const rows = await lockCompanyManagers(tx, actor.companyId);
    // The token said Owner; a demotion that committed meanwhile has the last word.
    if (!isOwnerIn(rows, actor)) return { status: "not_owner" };
    const target = rows.find((r) => r.id === managerId);
    if (!target) return { status: "not_found" };
    if (target.managerRole === role) return { status: "unchanged", id: target.id, managerRole: role };
    const ownersLeft = rows.filter((r) => r.managerRole === "owner" && r.id !== target.id).length;
    if (role !== "owner" && ownersLeft === 0) return { status: "last_owner" };
    await tx.update(users).set({ managerRole: role }).where(eq(users.id, target.id));
    // An Owner invitation is only as good as its inviter's role (ADR 0022 amendment).
    const demoted = target.managerRole === "owner";
    const invitesWithdrawn = demoted ? await withdrawInvitesOf(tx, actor.companyId, target.id, now) : [];
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "manager.role_changed",
      subject: `user:${target.id}`,
      data: { from: target.managerRole, to: role, ...(demoted ? { invitesWithdrawn } : {}) },
      clientIp: actor.clientIp,
      at: now,
    });
    return { status: "changed", id: target.id, managerRole: role };
  });
}

export type RemoveManagerResult = "removed" | "not_found" | "last_owner" | "not_owner";

export async function removeManager(db: Db, actor: Actor, managerId: number, now: Date): Promise<RemoveManagerResult> {
  return db.transaction(async (tx) => {
    const rows = await lockCompanyManagers(tx, actor.companyId);
    if (!isOwnerIn(rows, actor)) return "not_owner";
    const target = rows.find((r) => r.id === managerId);
    if (!target) return "not_found";
    const ownersLeft = rows.filter((r) => r.managerRole === "owner" && r.id !== target.id).length;
    if (ownersLeft === 0) return "last_owner";
    await tx.update(users).set({ isActive: false }).where(eq(users.id, target.id));
    const revoked = await tx
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(eq(accessTokens.userId, target.id), isNull(accessTokens.revokedAt)))
      .returning({ id: accessTokens.id });
    const ended = await tx
      .delete(webSessions)
      .where(eq(webSessions.userId, target.id))
      .returning({ id: webSessions.id });
    // Whoever they invited would otherwise still join, as an Owner too (ADR 0022 amendment).
    const invitesWithdrawn = await withdrawInvitesOf(tx, actor.companyId, target.id, now);
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "manager.removed",
      subject: `user:${target.id}`,
      data: {
        email: target.email,
        role: target.managerRole,
        tokensRevoked: revoked.length,
        webSessionsEnded: ended.length,
        invitesWithdrawn,
        self: target.id === actor.userId,
      },
      clientIp: actor.clientIp,
      at: now,
    });
    return "removed";
  });
}

// ─── The invitee's side ───────────────────────────────────────────────────────────────────────

type InviteLookup =
  | {
      status: "valid";
      id: number;
      companyId: number;
      invitedBy: number;
      email: string;
      managerRole: ManagerRole;
      companyName: string;
      inviterName: string;
    }
  | { status: LinkProblem };

/**
 * Why a link cannot be used: unknown, expired, used, withdrawn, or its inviter is no longer an
 * active Owner (ADR 0022 amendment).
 */
export type LinkProblem = "invalid" | "expired" | "used" | "revoked" | "inviter_gone";

/**
 * The invited person becomes a verified manager of the company with the invitation's role, and
 * the invitation is spent on them: the one way both acceptances (by password and through single
 * sign-on) add a manager. Run in the acceptance's transaction, with the invitation locked.
 */
async function acceptAsManager(
  tx: Tx,
  invite: { id: number; email: string; managerRole: ManagerRole },
  person: { companyId: number; firstName: string; lastName: string; passwordHash: string | null },
  now: Date,
): Promise<{ id: number }> {
  const [user] = await tx
    .insert(users)
    .values({
      ...person,
      email: invite.email,
      role: "program_manager",
      managerRole: invite.managerRole,
      emailVerifiedAt: now,
      createdAt: now,
    })
    .returning({ id: users.id });
  if (!user) throw new Error("manager insert returned no row");
  await tx
    .update(managerInvites)
    .set({ acceptedAt: now, acceptedUserId: user.id })
    .where(eq(managerInvites.id, invite.id));
  return user;
}

async function findInvite(db: Conn, token: string, now: Date, lock: boolean): Promise<InviteLookup> {
  const query = db
    .select({
      id: managerInvites.id,
      companyId: managerInvites.companyId,
      invitedBy: managerInvites.invitedBy,
      email: managerInvites.email,
      managerRole: managerInvites.managerRole,
      expiresAt: managerInvites.expiresAt,
      acceptedAt: managerInvites.acceptedAt,
      revokedAt: managerInvites.revokedAt,
      companyName: companies.name,
      inviterFirst: users.firstName,
      inviterLast: users.lastName,
      inviterActive: users.isActive,
      inviterRole: users.managerRole,
    })
    .from(managerInvites)
    .innerJoin(companies, eq(companies.id, managerInvites.companyId))
    .innerJoin(users, eq(users.id, managerInvites.invitedBy))
    .where(eq(managerInvites.tokenHash, sha256Hex(token)));
  const [row] = lock ? await query.for("update", { of: managerInvites }) : await query;
  if (!row) return { status: "invalid" };
  if (row.acceptedAt) return { status: "used" };
  // Before "withdrawn": a removal or demotion withdraws the link too, and this says why.
  if (!row.inviterActive || row.inviterRole !== "owner") {
    return { status: "inviter_gone" };
  }
  if (row.revokedAt) return { status: "revoked" };
  if (row.expiresAt.getTime() <= now.getTime()) return { status: "expired" };
  return {
    status: "valid",
    id: row.id,
    companyId: row.companyId,
    invitedBy: row.invitedBy,
    email: row.email,
    managerRole: row.managerRole,
    companyName: row.companyName,
    inviterName: `${row.inviterFirst} ${row.inviterLast}`,
  };
}

export type PreviewResult = ({ status: "valid" } & InvitePreview) | { status: LinkProblem };

/** Leaves acceptInvite's transaction without its changes (the new row, the invitation's use). */
class AcceptRefused extends Error {
  constructor() {
    super("sso_required");
  }
}

/** What the accept page shows: the company, who invited, the address and the role. */
export async function previewInvite(db: Db, token: string, now: Date): Promise<PreviewResult> {
  const invite = await findInvite(db, token, now, false);
  if (invite.status !== "valid") return invite;
  return {
    status: "valid",
    companyName: invite.companyName,
    inviterName: invite.inviterName,
    email: invite.email,
    managerRole: invite.managerRole,
    // The page offers the provider instead of a password (sign-in.ts decides, ADR 0046).
    signInWithProvider: await newManagerSignsInThroughProvider(db, invite.companyId),
  };
}

export type AcceptResult =
  | { status: "accepted"; userId: number; accessToken: string; appSettings: AppSettings }
  /** The company requires a second factor (ADR 0042): no token until the new manager sets one up. */
  | { status: "accepted_setup_owed"; userId: number }
  /**
   * The company signs its managers in through its provider (ADR 0046): no password is
   * taken and nothing changes; the invitee signs in with the provider, whose callback accepts the
   * invitation (acceptInviteThroughProvider).
   */
  | { status: "sso_required" }
  | { status: LinkProblem | "email_in_use" };

/**
 * Creates the program manager with the invitation's role in its company, verified (the emailed
 * link proves the address), marks the invitation used and signs them in (an access token as
 * login issues). Two accepts of one link at once: the row lock lets one through, the other reads "used".
 * The inviter's row is locked (FOR SHARE) before the invitation's, in the order a removal or a
 * role change takes them (managers, then invitations): a removal or demotion at the same moment
 * either waits for this accept or is seen by it (ADR 0022 amendment).
 */
export async function acceptInvite(
  db: Db,
  input: { token: string; firstName: string; lastName: string; password: string },
  now: Date,
  origin: LoginOrigin = {},
): Promise<AcceptResult> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const seen = await findInvite(tx, input.token, now, false);
      if (seen.status !== "valid") return { status: seen.status };
      await tx.select({ id: users.id }).from(users).where(eq(users.id, seen.invitedBy)).for("share");
      // Read again under the locks: the inviter as a removal or demotion just left them.
      const invite = await findInvite(tx, input.token, now, true);
      if (invite.status !== "valid") return { status: invite.status };
      if (await emailTaken(tx, invite.companyId, invite.email)) return { status: "email_in_use" as const };
      const user = await acceptAsManager(
        tx,
        invite,
        { companyId: invite.companyId, firstName: input.firstName, lastName: input.lastName, passwordHash },
        now,
      );
      const [company] = await tx
        .select({ detailsUpdatedAt: companies.detailsUpdatedAt, twoFactorRequired: companies.twoFactorRequired })
        .from(companies)
        .where(eq(companies.id, invite.companyId));
      // Who may sign in is decided in one place (sign-in.ts): the company's single sign-on
      // requirement refuses the password (and rolls the acceptance back); a second factor the
      // company requires is set up before any session.
      const signedIn = await signIn(tx, { userId: user.id, method: "invite", origin }, now);
      if (signedIn.status === "refused") throw new AcceptRefused();
      const accessToken = signedIn.status === "signed_in" ? signedIn.accessToken : null;
      await recordAudit(tx, {
        companyId: invite.companyId,
        actorUserId: user.id,
        action: "manager.invite_accepted",
        subject: `user:${user.id}`,
        data: { invite: invite.id, role: invite.managerRole, invitedBy: invite.invitedBy },
        clientIp: origin.clientIp ?? null,
        at: now,
      });
      if (accessToken === null) return { status: "accepted_setup_owed" as const, userId: user.id };
      return {
        status: "accepted" as const,
        userId: user.id,
        accessToken,
        appSettings: {
          hasProvidedCompanyDetails: (company?.detailsUpdatedAt ?? null) !== null,
          hasWatchedOnboardingVideo: false,
        },
      };
    });
  } catch (error) {
    if (error instanceof AcceptRefused) return { status: "sso_required" };
    // The address was taken between the check and the insert (a sign-up at the same moment).
    if (isUniqueViolation(error)) return { status: "email_in_use" };
    throw error;
  }
}

/**
 * The single sign-on callback's side of an invitation (ADR 0046): the company's provider
 * vouched for `email`, which has no active manager; a pending invitation of that address in the
 * company, from an inviter who is still an active Owner, is accepted now: the manager is created
 * with the invitation's role, verified and without a password, and the acceptance is audited as
 * any other. Answers the new manager's id, or null when there is no such invitation. Called in the
 * callback's transaction; the inviter's row is locked before the invitation's, as acceptInvite does.
 */
export async function acceptInviteThroughProvider(
  tx: Tx,
  person: { companyId: number; email: string; firstName: string; lastName: string },
  now: Date,
  origin: LoginOrigin = {},
): Promise<{ userId: number; role: ManagerRole } | null> {
  const pending = await tx
    .select({ id: managerInvites.id, invitedBy: managerInvites.invitedBy })
    .from(managerInvites)
    .where(
      and(
        eq(managerInvites.companyId, person.companyId),
        sameEmail(managerInvites.email, person.email),
        pendingInvite(now),
      ),
    )
    .orderBy(sql`${managerInvites.createdAt} desc`, sql`${managerInvites.id} desc`)
    .limit(1);
  const seen = pending[0];
  if (!seen) return null;
  const [inviter] = await tx
    .select({ isActive: users.isActive, managerRole: users.managerRole })
    .from(users)
    .where(eq(users.id, seen.invitedBy))
    .for("share");
  if (!inviter?.isActive || inviter.managerRole !== "owner") return null;
  const [invite] = await tx
    .select({ id: managerInvites.id, email: managerInvites.email, managerRole: managerInvites.managerRole })
    .from(managerInvites)
    .where(and(eq(managerInvites.id, seen.id), pendingInvite(now)))
    .for("update");
  if (!invite) return null;
  const fallbackName = person.email.slice(0, person.email.indexOf("@"));
  const user = await acceptAsManager(
    tx,
    invite,
    // No password: this manager signs in through the provider.
    {
      companyId: person.companyId,
      firstName: person.firstName || fallbackName,
      lastName: person.lastName,
      passwordHash: null,
    },
    now,
  );
  await recordAudit(tx, {
    companyId: person.companyId,
    actorUserId: user.id,
    action: "manager.invite_accepted",
    subject: `user:${user.id}`,
    data: { invite: invite.id, role: invite.managerRole, invitedBy: seen.invitedBy, via: "sso" },
    clientIp: origin.clientIp ?? null,
    at: now,
  });
  return { userId: user.id, role: invite.managerRole };
}
