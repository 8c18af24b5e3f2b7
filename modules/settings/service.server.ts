// A manager's own settings (ADR 0022: every manager, Owner or Manager, edits their own name,
// email, password and sessions). Plain functions over the database; the caller passes the clock
// and the client's address, which go into the audit trail with every change (recordAudit, in
// the same transaction as the change).
//
// Email change works like email verification (identity.ts): the request token handed to the
// browser is stored as its SHA-256 and the 6-digit code as an HMAC keyed by it; a code is valid
// 10 minutes, allows 5 wrong tries and is used once, and a newer request makes earlier ones void.
// The code goes to the NEW address (proving it); the OLD address is told once the change is done.
//
// Ending the other sessions (a password change, "sign out of all other sessions"): every other
// access token of the manager is revoked, and their web sessions are deleted. The web session
// rows cannot tell which of them holds the caller's token (their data is sealed), so all of the
// manager's rows go and the web portal starts a fresh session for the caller with the token it
// still holds (app/features/settings: startNewSession); a bearer client keeps its token.
//
// A password change and an email change also end the manager's sign-ins in progress (login
// challenges, an app secret not yet confirmed, unused reset links: identity.ts
// endSignInsInProgress), in the transaction of the change (docs/requirements.md §D7, ADR 0042).
import { and, desc, eq, gt, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { Conn, Db } from "../../server/db/client.ts";
import { accessTokens, emailChanges, users, webSessions } from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { emailChangeCodeEmail, emailChangedNotice } from "../../server/mail/templates/account.ts";
import { recordAudit } from "../audit/service.server.ts";
import {
  generateVerificationCode,
  hashVerificationCode,
  randomToken,
  sameDigest,
  sha256Hex,
} from "../identity/identity-crypto.server.ts";
import { hashPassword, verifyPassword } from "../identity/password.server.ts";
import {
  endSignInsInProgress,
  isUniqueViolation,
  MAX_VERIFICATION_ATTEMPTS,
  type TokenOwner,
  VERIFICATION_TTL_MS,
} from "../identity/service.server.ts";
import type { ActiveSession, MyNameResponse } from "./schema.ts";

/** When and from where a change is made: both go into the audit trail. */
export interface ChangeContext {
  now: Date;
  clientIp?: string | null;
}

const subjectOf = (owner: TokenOwner) => `user:${owner.userId}`;

async function activeManager(db: Conn, owner: TokenOwner) {
  const [row] = await db
    .select({
      id: users.id,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
      passwordHash: users.passwordHash,
    })
    .from(users)
    .where(
      and(
        eq(users.id, owner.userId),
        eq(users.companyId, owner.companyId),
        eq(users.isActive, true),
        eq(users.role, "program_manager"),
      ),
    );
  return row;
}

/**
 * Whether `email` is taken for this manager: by another active program manager anywhere (an
 * address signs in to one account), or by anyone active in their own company (a team member's
 * address is unique within its company, users_active_company_email_idx).
 */
async function addressTaken(db: Conn, owner: TokenOwner, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        sql`lower(${users.email}) = lower(${email})`,
        eq(users.isActive, true),
        ne(users.id, owner.userId),
        or(eq(users.role, "program_manager"), eq(users.companyId, owner.companyId)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

// ─── Name ────────────────────────────────────────────────────────────────────────────────────

/** Sets the manager's own first and last name (already trimmed and checked by the schema). */
export async function updateMyName(
  db: Db,
  owner: TokenOwner,
  input: { firstName: string; lastName: string },
  ctx: ChangeContext,
): Promise<MyNameResponse | null> {
  return db.transaction(async (tx) => {
    const before = await activeManager(tx, owner);
    if (!before) return null;
    await tx
      .update(users)
      .set({ firstName: input.firstName, lastName: input.lastName })
      .where(eq(users.id, owner.userId));
    await recordAudit(tx, {
      companyId: owner.companyId,
      actorUserId: owner.userId,
      action: "manager.name_changed",
      subject: subjectOf(owner),
      data: {
        from: { firstName: before.firstName, lastName: before.lastName },
        to: { firstName: input.firstName, lastName: input.lastName },
      },
      clientIp: ctx.clientIp,
      at: ctx.now,
    });
    return { ...input, fullName: `${input.firstName} ${input.lastName}` };
  });
}

// ─── Email ───────────────────────────────────────────────────────────────────────────────────

export type EmailChangeRequestResult =
  | { status: "issued"; requestToken: string; newEmail: string }
  | { status: "wrong_password" }
  | { status: "same" }
  | { status: "taken" }
  | { status: "gone" };

/**
 * The current password proves it is the manager asking; the code goes to the new address. The
 * address is checked here and again when the code comes back (it may be taken meanwhile).
 */
export async function requestEmailChange(
  db: Db,
  owner: TokenOwner,
  input: { newEmail: string; currentPassword: string },
  ctx: ChangeContext,
): Promise<EmailChangeRequestResult> {
  const me = await activeManager(db, owner);
  if (!me) return { status: "gone" };
  if (!(await verifyPassword(me.passwordHash, input.currentPassword))) return { status: "wrong_password" };
  const newEmail = input.newEmail.trim();
  if (newEmail.toLowerCase() === me.email.toLowerCase()) return { status: "same" };
  if (await addressTaken(db, owner, newEmail)) return { status: "taken" };
  const requestToken = randomToken();
  const code = generateVerificationCode();
  await db.transaction(async (tx) => {
    // One request at a time per manager: the newest row is the only one Confirm accepts.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, owner.userId)).for("update");
    await tx.insert(emailChanges).values({
      userId: owner.userId,
      newEmail,
      requestTokenHash: sha256Hex(requestToken),
      codeHash: hashVerificationCode(requestToken, code),
      expiresAt: new Date(ctx.now.getTime() + VERIFICATION_TTL_MS),
      createdAt: ctx.now,
    });
    await enqueueEmail(tx, emailChangeCodeEmail(newEmail, me.firstName, code), ctx.now);
    await recordAudit(tx, {
      companyId: owner.companyId,
      actorUserId: owner.userId,
      action: "manager.email_change_requested",
      subject: subjectOf(owner),
      data: { newEmail },
      clientIp: ctx.clientIp,
      at: ctx.now,
    });
  });
  return { status: "issued", requestToken, newEmail };
}

export type EmailChangeConfirmResult =
  | { status: "changed"; email: string }
  | { status: "invalid_request" | "used" | "superseded" | "too_many" | "expired" | "wrong_code" | "taken" };

/**
 * The code of one request token of the caller's. A wrong code counts a try (the fifth ends the
 * request); the right one switches the address, once, and tells the old address.
 */
export async function confirmEmailChange(
  db: Db,
  owner: TokenOwner,
  input: { requestToken: string; code: string },
  ctx: ChangeContext,
): Promise<EmailChangeConfirmResult> {
  const [row] = await db
    .select()
    .from(emailChanges)
    .where(
      and(eq(emailChanges.requestTokenHash, sha256Hex(input.requestToken)), eq(emailChanges.userId, owner.userId)),
    );
  if (!row) return { status: "invalid_request" };
  if (row.consumedAt) return { status: "used" };
  const [newer] = await db
    .select({ id: emailChanges.id })
    .from(emailChanges)
    .where(and(eq(emailChanges.userId, owner.userId), gt(emailChanges.id, row.id)))
    .limit(1);
  if (newer) return { status: "superseded" };
  if (row.attempts >= MAX_VERIFICATION_ATTEMPTS) return { status: "too_many" };
  if (row.expiresAt.getTime() <= ctx.now.getTime()) return { status: "expired" };

  if (!sameDigest(row.codeHash, hashVerificationCode(input.requestToken, input.code))) {
    const [counted] = await db
      .update(emailChanges)
      .set({ attempts: sql`${emailChanges.attempts} + 1` })
      .where(and(eq(emailChanges.id, row.id), lt(emailChanges.attempts, MAX_VERIFICATION_ATTEMPTS)))
      .returning({ attempts: emailChanges.attempts });
    return { status: !counted || counted.attempts >= MAX_VERIFICATION_ATTEMPTS ? "too_many" : "wrong_code" };
  }

  try {
    return await db.transaction(async (tx): Promise<EmailChangeConfirmResult> => {
      const me = await activeManager(tx, owner);
      if (!me) return { status: "invalid_request" };
      const [claimed] = await tx
        .update(emailChanges)
        .set({ consumedAt: ctx.now })
        .where(
          and(
            eq(emailChanges.id, row.id),
            isNull(emailChanges.consumedAt),
            lt(emailChanges.attempts, MAX_VERIFICATION_ATTEMPTS),
          ),
        )
        .returning({ id: emailChanges.id });
      if (!claimed) return { status: "used" };
      if (await addressTaken(tx, owner, row.newEmail)) return { status: "taken" };
      // The code proved the new address: it is verified as of now.
      await tx.update(users).set({ email: row.newEmail, emailVerifiedAt: ctx.now }).where(eq(users.id, owner.userId));
      // Links emailed to the old address and sign-ins begun before the change end with it.
      await endSignInsInProgress(tx, owner.userId, ctx.now);
      await enqueueEmail(tx, emailChangedNotice(me.email, me.firstName, row.newEmail), ctx.now);
      await recordAudit(tx, {
        companyId: owner.companyId,
        actorUserId: owner.userId,
        action: "manager.email_changed",
        subject: subjectOf(owner),
        data: { from: me.email, to: row.newEmail },
        clientIp: ctx.clientIp,
        at: ctx.now,
      });
      return { status: "changed", email: row.newEmail };
    });
  } catch (error) {
    // Another manager took the address at the same moment: the unique index decides.
    if (isUniqueViolation(error)) return { status: "taken" };
    throw error;
  }
}

// ─── Password and sessions ───────────────────────────────────────────────────────────────────

/** Revokes the manager's access tokens but the caller's, and deletes their web sessions. */
async function endOtherSessions(db: Conn, owner: TokenOwner, now: Date): Promise<number> {
  const revoked = await db
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(
      and(eq(accessTokens.userId, owner.userId), ne(accessTokens.id, owner.tokenId), isNull(accessTokens.revokedAt)),
    )
    .returning({ id: accessTokens.id });
  await db.delete(webSessions).where(eq(webSessions.userId, owner.userId));
  return revoked.length;
}

export type PasswordChangeResult =
  | { status: "changed"; endedSessions: number }
  | { status: "wrong_password" }
  | { status: "gone" };

/** The current password, then the new one (sign-up's rules, checked by the schema); every other session ends. */
export async function changeMyPassword(
  db: Db,
  owner: TokenOwner,
  input: { currentPassword: string; newPassword: string },
  ctx: ChangeContext,
): Promise<PasswordChangeResult> {
  const me = await activeManager(db, owner);
  if (!me) return { status: "gone" };
  if (!(await verifyPassword(me.passwordHash, input.currentPassword))) return { status: "wrong_password" };
  const passwordHash = await hashPassword(input.newPassword);
  return db.transaction(async (tx) => {
    // Only if the hash is still the one checked: two changes at once cannot both pass with the old password.
    const [updated] = await tx
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, owner.userId), eq(users.passwordHash, me.passwordHash ?? "")))
      .returning({ id: users.id });
    if (!updated) return { status: "wrong_password" as const };
    const endedSessions = await endOtherSessions(tx, owner, ctx.now);
    // Sign-ins begun with the old password (and reset links asked for before) end with it.
    await endSignInsInProgress(tx, owner.userId, ctx.now);
    await recordAudit(tx, {
      companyId: owner.companyId,
      actorUserId: owner.userId,
      action: "manager.password_changed",
      subject: subjectOf(owner),
      data: { endedSessions },
      clientIp: ctx.clientIp,
      at: ctx.now,
    });
    return { status: "changed" as const, endedSessions };
  });
}

/** The manager's open logins (access tokens neither revoked nor expired), newest first. */
export async function listMySessions(db: Db, owner: TokenOwner, now: Date): Promise<ActiveSession[]> {
  const rows = await db
    .select({
      id: accessTokens.id,
      createdAt: accessTokens.createdAt,
      expiresAt: accessTokens.expiresAt,
      clientIp: accessTokens.clientIp,
      userAgent: accessTokens.userAgent,
    })
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, owner.userId), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, now)))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    clientIp: r.clientIp,
    userAgent: r.userAgent,
    current: r.id === owner.tokenId,
  }));
}

/** "Sign out of all other sessions": the caller's own session stays. */
export async function signOutOtherSessions(db: Db, owner: TokenOwner, ctx: ChangeContext): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await endOtherSessions(tx, owner, ctx.now);
    await recordAudit(tx, {
      companyId: owner.companyId,
      actorUserId: owner.userId,
      action: "manager.sessions_ended",
      subject: subjectOf(owner),
      data: { endedSessions: ended },
      clientIp: ctx.clientIp,
      at: ctx.now,
    });
    return ended;
  });
}
