// Accounts (docs/requirements.md §S3, §S4; §D7): registration of a program manager with their company,
// email verification with a 6-digit code, login, opaque access tokens, password reset, and the
// two onboarding flags. Plain functions over the database; the caller passes the clock (`now`).
//
// Lifetimes and limits:
//   - verification code: 10 minutes, at most 5 wrong tries per request token, single use; a new
//     request (VerifyEmailRequest, Resend) invalidates every earlier code of the user.
//   - reset link: 1 hour, single use; using one voids the user's other links.
//   - access token: a FIXED 12 hours from issue (no sliding renewal, so checking a token never
//     writes); revoked at logout, and all of a user's tokens at a password reset.
//   - a password reset, a password change and an email change end the user's sign-ins in
//     progress (endSignInsInProgress: login challenges, an app secret not yet confirmed, unused
//     reset links) in the transaction of the change (docs/requirements.md §D7, ADR 0042).
//
// The onboarding-video flag lives on the user (markOnboardingVideoWatched), so it follows the
// account from browser to browser. hasProvidedCompanyDetails is derived from the company row.
import { and, eq, gt, isNotNull, isNull, lt, ne, sql } from "drizzle-orm";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { preparedOnce } from "../../server/db/prepared.ts";
import {
  accessTokens,
  companies,
  emailVerifications,
  loginChallenges,
  passwordResets,
  users,
} from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { passwordResetEmail, verificationEmail } from "../../server/mail/templates/account.ts";
import {
  generateVerificationCode,
  hashVerificationCode,
  randomToken,
  sameDigest,
  sha256Hex,
} from "./identity-crypto.server.ts";
import { hashPassword, verifyPassword } from "./password.server.ts";
import type { AppSettings, MyDetails } from "./schema.ts";
import { ACCESS_TOKEN_TTL_MS, type LoginOrigin, signIn, signInRule } from "./sign-in.server.ts";

export { ACCESS_TOKEN_TTL_MS, type LoginOrigin };

export const VERIFICATION_TTL_MS = 10 * 60 * 1000;
export const MAX_VERIFICATION_ATTEMPTS = 5;
export const RESET_TTL_MS = 60 * 60 * 1000;

/** Who an access token speaks for (the shape the bearer middleware hands to handlers). */
export interface TokenOwner {
  userId: number;
  companyId: number;
  tokenId: number;
  /** What the manager may do (ADR 0022), read with the token on every call: a change of role holds at once. */
  managerRole: ManagerRole;
}

export type ManagerRole = "owner" | "manager";

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** A unique-key violation, whichever driver (node-postgres, PGlite) and wrapper raised it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    if (typeof e === "object" && (e as { code?: unknown }).code === "23505") return true;
    e = typeof e === "object" ? (e as { cause?: unknown }).cause : undefined;
  }
  return false;
}

const sameEmail = (email: string) => sql`lower(${users.email}) = lower(${email.trim()})`;

async function findActiveUserByEmail(db: Conn, email: string) {
  const [row] = await db
    .select({
      id: users.id,
      publicId: users.publicId,
      companyId: users.companyId,
      firstName: users.firstName,
      email: users.email,
      role: users.role,
      passwordHash: users.passwordHash,
      emailVerifiedAt: users.emailVerifiedAt,
      hasWatchedOnboardingVideo: users.hasWatchedOnboardingVideo,
      companyDetailsUpdatedAt: companies.detailsUpdatedAt,
      totpEnabledAt: users.totpEnabledAt,
      twoFactorRequired: companies.twoFactorRequired,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    // Only program managers sign in; a team member with the same address is someone else's record.
    .where(and(sameEmail(email), eq(users.isActive, true), eq(users.role, "program_manager")))
    .limit(1);
  return row;
}

// ─── Registration and email verification ────────────────────────────────────────────────────

export interface RegisterInput {
  firstName: string;
  lastName: string;
  email: string;
  companyName: string;
  password: string;
}

/**
 * `userId` is the user's public id (users.public_id, a random UUID): the id docs/requirements.md §S7's
 * verification calls take. The sequential users.id never leaves the server, so nobody can aim
 * those calls at a stranger by counting.
 */
export type RegisterResult = { status: "created"; userId: string; requestToken: string } | { status: "duplicate" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The public id as stored (lower case), or null when `userId` is not a UUID at all. */
function publicIdOf(userId: string): string | null {
  const trimmed = userId.trim();
  // Checked here too: PostgreSQL rejects a malformed uuid with an error rather than no row.
  return UUID.test(trimmed) ? trimmed.toLowerCase() : null;
}

/**
 * Creates the company and its program manager (email not yet verified) and queues the first
 * verification code, all in one transaction. "duplicate" when an active user has the address.
 */
export async function registerProgramManager(db: Db, input: RegisterInput, now: Date): Promise<RegisterResult> {
  if (await findActiveUserByEmail(db, input.email)) return { status: "duplicate" };
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const [company] = await tx.insert(companies).values({ name: input.companyName }).returning({ id: companies.id });
      if (!company) throw new Error("company insert returned no row");
      const [user] = await tx
        .insert(users)
        .values({
          companyId: company.id,
          firstName: input.firstName,
          lastName: input.lastName,
          email: input.email.trim(),
          passwordHash,
          role: "program_manager",
          // Whoever signs a company up is its first Owner (ADR 0022).
          managerRole: "owner",
        })
        .returning({ id: users.id, publicId: users.publicId });
      if (!user) throw new Error("user insert returned no row");
      const requestToken = await issueVerification(
        tx,
        { id: user.id, firstName: input.firstName, email: input.email.trim() },
        now,
      );
      return { status: "created" as const, userId: user.publicId, requestToken };
    });
  } catch (error) {
    // Two sign-ups with one address at the same moment: the unique index decides.
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}

/** Voids the user's open codes, stores a new one and queues its email. Returns the request token. */
async function issueVerification(
  tx: Tx,
  user: { id: number; firstName: string; email: string },
  now: Date,
): Promise<string> {
  // Serialise concurrent requests for one user, so exactly one code is open afterwards.
  await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for("update");
  await tx
    .update(emailVerifications)
    .set({ invalidatedAt: now })
    .where(
      and(
        eq(emailVerifications.userId, user.id),
        isNull(emailVerifications.consumedAt),
        isNull(emailVerifications.invalidatedAt),
      ),
    );
  const requestToken = randomToken();
  const code = generateVerificationCode();
  await tx.insert(emailVerifications).values({
    userId: user.id,
    requestTokenHash: sha256Hex(requestToken),
    codeHash: hashVerificationCode(requestToken, code),
    expiresAt: later(now, VERIFICATION_TTL_MS),
  });
  await enqueueEmail(tx, verificationEmail(user.email, user.firstName, code));
  return requestToken;
}

export type VerificationRequestResult =
  | { status: "issued"; requestToken: string }
  | { status: "unknown" }
  | { status: "already_verified" };

/**
 * VerifyEmailRequest and ResendVerifyEmailRequest: a new code by email, earlier ones void.
 * `userId` is the public id Register answered; anything else is "unknown".
 */
export async function requestVerificationCode(db: Db, userId: string, now: Date): Promise<VerificationRequestResult> {
  const publicId = publicIdOf(userId);
  if (!publicId) return { status: "unknown" };
  const [user] = await db
    .select({
      id: users.id,
      firstName: users.firstName,
      email: users.email,
      role: users.role,
      emailVerifiedAt: users.emailVerifiedAt,
    })
    .from(users)
    .where(and(eq(users.publicId, publicId), eq(users.isActive, true)));
  if (user?.role !== "program_manager") return { status: "unknown" };
  if (user.emailVerifiedAt) return { status: "already_verified" };
  const requestToken = await db.transaction((tx) => issueVerification(tx, user, now));
  return { status: "issued", requestToken };
}

export interface VerifyEmailInput {
  /** The public id Register answered (a UUID). */
  userId: string;
  requestToken: string;
  code: string;
}

export type VerifyEmailResult =
  | { status: "verified"; accessToken: string }
  /** Verified, and the sign-in rules (sign-in.ts) owe a second factor first. */
  | { status: "second_factor"; userId: number; purpose: "verify" | "setup" }
  /** Verified, and the company signs in through its provider only (ADR 0046). */
  | { status: "sso_required" }
  | { status: "invalid_request" | "used" | "superseded" | "too_many" | "expired" | "wrong_code" };

/**
 * Checks the code of one request token. A wrong code counts an attempt; the fifth wrong one
 * answers "too_many", and from then on only a new code helps. A right code verifies the email,
 * voids the user's other codes and opens a session (an access token).
 */
export async function verifyEmail(
  db: Db,
  input: VerifyEmailInput,
  now: Date,
  origin?: LoginOrigin,
): Promise<VerifyEmailResult> {
  const publicId = publicIdOf(input.userId);
  if (!publicId) return { status: "invalid_request" };
  const [row] = await db
    .select({
      id: emailVerifications.id,
      codeHash: emailVerifications.codeHash,
      expiresAt: emailVerifications.expiresAt,
      attempts: emailVerifications.attempts,
      consumedAt: emailVerifications.consumedAt,
      invalidatedAt: emailVerifications.invalidatedAt,
      userId: users.id,
      companyId: users.companyId,
      isActive: users.isActive,
    })
    .from(emailVerifications)
    .innerJoin(users, eq(users.id, emailVerifications.userId))
    .where(and(eq(emailVerifications.requestTokenHash, sha256Hex(input.requestToken)), eq(users.publicId, publicId)));
  if (!row?.isActive) return { status: "invalid_request" };
  if (row.consumedAt) return { status: "used" };
  if (row.invalidatedAt) return { status: "superseded" };
  if (row.attempts >= MAX_VERIFICATION_ATTEMPTS) return { status: "too_many" };
  if (row.expiresAt.getTime() <= now.getTime()) return { status: "expired" };

  if (!sameDigest(row.codeHash, hashVerificationCode(input.requestToken, input.code))) {
    const [counted] = await db
      .update(emailVerifications)
      .set({ attempts: sql`${emailVerifications.attempts} + 1` })
      .where(and(eq(emailVerifications.id, row.id), lt(emailVerifications.attempts, MAX_VERIFICATION_ATTEMPTS)))
      .returning({ attempts: emailVerifications.attempts });
    return { status: !counted || counted.attempts >= MAX_VERIFICATION_ATTEMPTS ? "too_many" : "wrong_code" };
  }

  return db.transaction(async (tx): Promise<VerifyEmailResult> => {
    const [claimed] = await tx
      .update(emailVerifications)
      .set({ consumedAt: now })
      .where(
        and(
          eq(emailVerifications.id, row.id),
          isNull(emailVerifications.consumedAt),
          isNull(emailVerifications.invalidatedAt),
          lt(emailVerifications.attempts, MAX_VERIFICATION_ATTEMPTS),
        ),
      )
      .returning({ id: emailVerifications.id });
    if (!claimed) return { status: "used" };
    await tx
      .update(emailVerifications)
      .set({ invalidatedAt: now })
      .where(
        and(
          eq(emailVerifications.userId, row.userId),
          ne(emailVerifications.id, row.id),
          isNull(emailVerifications.consumedAt),
          isNull(emailVerifications.invalidatedAt),
        ),
      );
    await tx
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(and(eq(users.id, row.userId), isNull(users.emailVerifiedAt)));
    // Who may sign in is decided in one place (sign-in.ts); the address stays verified either way.
    const signedIn = await signIn(tx, { userId: row.userId, method: "verification", origin }, now);
    if (signedIn.status === "signed_in") return { status: "verified", accessToken: signedIn.accessToken };
    if (signedIn.status === "second_factor") {
      return { status: "second_factor", userId: signedIn.userId, purpose: signedIn.purpose };
    }
    return { status: signedIn.reason === "sso_required" ? "sso_required" : "invalid_request" };
  });
}

// ─── Login and access tokens ─────────────────────────────────────────────────────────────────

export type LoginResult =
  | { status: "ok"; userId: number; accessToken: string; appSettings: AppSettings }
  /** `publicId`: the id the verification calls take (requestVerificationCode), as Register answers it. */
  | { status: "not_verified"; publicId: string }
  /**
   * The password was right and a second factor is owed before any token (ADR 0042): "verify"
   * asks for a code, "setup" for setting an app up first (the company requires one).
   */
  | { status: "second_factor"; userId: number; email: string; purpose: "verify" | "setup" }
  /** The password was right and the company signs this manager in through its provider only (ADR 0046). */
  | { status: "sso_required" }
  | { status: "invalid" };

/**
 * Email and password of an active program manager. The password is checked before anything
 * else is revealed: "not_verified" only answers someone who knows the password.
 */
export async function login(
  db: Db,
  input: { email: string; password: string },
  now: Date,
  origin?: LoginOrigin,
): Promise<LoginResult> {
  const user = await findActiveUserByEmail(db, input.email);
  const storedHash = user?.role === "program_manager" ? user.passwordHash : null;
  const matches = await verifyPassword(storedHash, input.password);
  if (!user || !matches) return { status: "invalid" };
  if (!user.emailVerifiedAt) return { status: "not_verified", publicId: user.publicId };
  // Every rule past the password (single sign-on, second factor) is the chokepoint's (sign-in.ts).
  const signedIn = await signIn(db, { userId: user.id, method: "password", origin }, now);
  if (signedIn.status === "second_factor") {
    return { status: "second_factor", userId: signedIn.userId, email: signedIn.email, purpose: signedIn.purpose };
  }
  if (signedIn.status === "refused") return { status: signedIn.reason === "sso_required" ? "sso_required" : "invalid" };
  return { status: "ok", userId: user.id, accessToken: signedIn.accessToken, appSettings: signedIn.appSettings };
}

// Built at the first check, not at import: the route table can be read without a database.
const accessTokenOwnerOf = preparedOnce((db) =>
  db
    .select({
      tokenId: accessTokens.id,
      userId: accessTokens.userId,
      companyId: accessTokens.companyId,
      managerRole: users.managerRole,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(
      and(
        eq(accessTokens.tokenHash, sql.placeholder("tokenHash")),
        isNull(accessTokens.revokedAt),
        gt(accessTokens.expiresAt, sql.placeholder("now")),
        eq(users.isActive, true),
      ),
    )
    .prepare("access_token_check"),
);

/**
 * The bearer check of every authenticated call, prepared once per database (no query building
 * per request): the token's owner, or null when unknown, expired, revoked or inactive.
 */
export function preparedAccessTokenCheck(db: Db): (token: string, now: Date) => Promise<TokenOwner | null> {
  return async (token, now) => {
    const owner = (await accessTokenOwnerOf(db).execute({ tokenHash: sha256Hex(token), now }))[0];
    return owner?.managerRole ? { ...owner, managerRole: owner.managerRole } : null;
  };
}

export async function revokeAccessToken(db: Db, tokenId: number, now: Date): Promise<void> {
  await db
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(and(eq(accessTokens.id, tokenId), isNull(accessTokens.revokedAt)));
}

// ─── Password reset ──────────────────────────────────────────────────────────────────────────

/**
 * Queues a reset link when the address belongs to an active program manager; otherwise does
 * nothing. The caller answers the same either way. An unverified manager may reset too: the
 * emailed link proves the address, so completing the reset also verifies it.
 */
export async function requestPasswordReset(
  db: Db,
  email: string,
  appUrl: string,
  now: Date,
): Promise<{ queued: boolean }> {
  const user = await findActiveUserByEmail(db, email);
  if (user?.role !== "program_manager" || !user.passwordHash) return { queued: false };
  // A manager whose company signs them in through its provider gets no link (sign-in.ts); the
  // caller answers the same, so this tells nothing about the address.
  if ((await signInRule(db, { userId: user.id, method: "reset" })).status === "refused") return { queued: false };
  const token = randomToken();
  const link = `${appUrl}/corporate/forgot-password?passwordResetToken=${encodeURIComponent(token)}`;
  await db.transaction(async (tx) => {
    await tx
      .insert(passwordResets)
      .values({ userId: user.id, tokenHash: sha256Hex(token), expiresAt: later(now, RESET_TTL_MS) });
    await enqueueEmail(tx, passwordResetEmail(user.email, user.firstName, link));
  });
  return { queued: true };
}

export type ResetLookup =
  | { status: "valid"; resetId: number; userId: number; email: string }
  | { status: "invalid" | "expired" | "used" };

export async function findPasswordReset(db: Db, token: string, now: Date): Promise<ResetLookup> {
  const [row] = await db
    .select({
      id: passwordResets.id,
      userId: passwordResets.userId,
      expiresAt: passwordResets.expiresAt,
      usedAt: passwordResets.usedAt,
      isActive: users.isActive,
      email: users.email,
    })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(eq(passwordResets.tokenHash, sha256Hex(token)));
  if (!row?.isActive) return { status: "invalid" };
  if (row.usedAt) return { status: "used" };
  if (row.expiresAt.getTime() <= now.getTime()) return { status: "expired" };
  return { status: "valid", resetId: row.id, userId: row.userId, email: row.email };
}

/**
 * Sets the new password once per link: voids the user's other links, revokes all of the
 * user's access tokens and marks the email verified. "used" when the link was taken meanwhile.
 */
export async function completePasswordReset(
  db: Db,
  reset: { resetId: number; userId: number },
  password: string,
  now: Date,
): Promise<"done" | "used" | "sso_required"> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    // The user's row first (as every change of the user takes it), then the sign-in rules: a
    // manager whose company requires single sign-on sets no password (sign-in.ts, ADR 0046).
    await tx.select({ id: users.id }).from(users).where(eq(users.id, reset.userId)).for("update");
    const rule = await signInRule(tx, { userId: reset.userId, method: "reset" });
    if (rule.status === "refused")
      return rule.reason === "sso_required" ? ("sso_required" as const) : ("used" as const);
    const [claimed] = await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(
        and(eq(passwordResets.id, reset.resetId), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)),
      )
      .returning({ id: passwordResets.id });
    if (!claimed) return "used" as const;
    await tx.update(users).set({ passwordHash }).where(eq(users.id, reset.userId));
    await tx
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(and(eq(users.id, reset.userId), isNull(users.emailVerifiedAt)));
    // The user's other links count as used ("used" is what they answer, identity.test.ts).
    await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.userId, reset.userId), isNull(passwordResets.usedAt)));
    await tx
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(eq(accessTokens.userId, reset.userId), isNull(accessTokens.revokedAt)));
    await endSignInsInProgress(tx, reset.userId, now);
    return "done" as const;
  });
}

// ─── Ending the sign-ins in progress ─────────────────────────────────────────────────────────

/**
 * What a password reset, a password change and an email change all end, called inside the
 * transaction that makes the change (docs/requirements.md §D7; ADR 0042). Each of them may be the
 * owner shutting out someone who had the old password or the old address's mailbox, so nothing
 * that someone started with them may finish afterwards:
 *   - the user's open login challenges ("verify" and the company's forced "setup"): otherwise the
 *     holder of the old password finishes the sign-in and gets a session;
 *   - an app secret waiting for its first code: it was shown to whoever started the set-up, maybe
 *     through such a challenge, and the owner's own set-up would show the same one again
 *     (ADR 0042 §2), putting that person's authenticator on the account;
 *   - the reset links not yet used: emailed to the address as it was, or asked for by someone who
 *     knew it. They are deleted, so they answer "not valid" rather than "already used".
 * An app already turned on and the recovery codes stay: they are the owner's own second factor.
 * Callers have written the user's row just before, so two changes of one user queue on that row.
 */
export async function endSignInsInProgress(tx: Tx, userId: number, now: Date): Promise<void> {
  await tx
    .update(loginChallenges)
    .set({ consumedAt: now })
    .where(and(eq(loginChallenges.userId, userId), isNull(loginChallenges.consumedAt)));
  await tx
    .update(users)
    .set({ totpSecretSealed: null, totpSetupStartedBy: null, totpLastStep: null })
    .where(and(eq(users.id, userId), isNull(users.totpEnabledAt), isNotNull(users.totpSecretSealed)));
  await tx.delete(passwordResets).where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
}

// ─── The signed-in user ──────────────────────────────────────────────────────────────────────

/** GET /Users/MyDetails: always the token's own user, within the token's company. */
export async function getMyDetails(db: Db, owner: TokenOwner): Promise<MyDetails | null> {
  const [row] = await db
    .select({
      id: users.id,
      companyId: users.companyId,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
      phone: users.phone,
      companyName: companies.name,
      managerRole: users.managerRole,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.id, owner.userId), eq(users.companyId, owner.companyId)));
  if (!row) return null;
  return {
    ...row,
    phone: row.phone ?? "",
    fullName: `${row.firstName} ${row.lastName}`,
    // Only program managers hold tokens, so the role is set; "manager" is the safe reading otherwise.
    managerRole: row.managerRole ?? "manager",
  };
}

export async function getAppSettings(
  db: Db,
  owner: Pick<TokenOwner, "userId" | "companyId">,
): Promise<AppSettings | null> {
  const [row] = await db
    .select({
      hasWatchedOnboardingVideo: users.hasWatchedOnboardingVideo,
      detailsUpdatedAt: companies.detailsUpdatedAt,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.id, owner.userId), eq(users.companyId, owner.companyId)));
  if (!row) return null;
  return {
    hasProvidedCompanyDetails: row.detailsUpdatedAt !== null,
    hasWatchedOnboardingVideo: row.hasWatchedOnboardingVideo,
  };
}

/** Closing the Getting Started dialog: the video is not offered again, in any browser. */
export async function markOnboardingVideoWatched(db: Db, owner: TokenOwner): Promise<void> {
  await db
    .update(users)
    .set({ hasWatchedOnboardingVideo: true })
    .where(and(eq(users.id, owner.userId), eq(users.companyId, owner.companyId)));
}
