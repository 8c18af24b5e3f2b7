// Two-factor sign-in (ADR 0042): a TOTP authenticator app per manager (RFC 6238 through
// `otpauth`), ten single-use recovery codes, the company's requirement, and the login challenge
// that sits between a right password and the second factor. Plain functions over the database;
// the caller passes the clock and the keys (derived from the server secret).
//
// How things are stored:
//   - the TOTP secret: sealed (secret-seal.ts: AES-256-GCM, key derived from the server secret,
//     the user's id authenticated with it) in users.totp_secret_sealed, never in the clear. A
//     secret with totp_enabled_at null is a set-up not yet confirmed.
//   - recovery codes: HMAC-SHA-256 keyed by a key derived from the server secret, so a copy of
//     the database alone tells none of them.
//   - login challenges: the token handed to the browser as its SHA-256; short-lived, single use,
//     at most MAX_CHALLENGE_ATTEMPTS codes checked, each counted before it is checked
//     (countChallengeAttempt; docs/requirements.md §D7, ADR 0042).
//   - users.totp_last_step: the time step of the last accepted code; the same code (or an older
//     one) is refused afterwards, so an observed code cannot be replayed within its window.
import { createHmac, hkdfSync, randomInt } from "node:crypto";
import { and, count, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import type { Conn, Db, Tx } from "../../server/db/client.ts";
import { companies, loginChallenges, recoveryCodes, users } from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { secondFactorFailuresEmail } from "../../server/mail/templates/account.ts";
import { secretSeal } from "../../server/secret-seal.ts";
import { recordAudit } from "../audit/service.server.ts";
import { randomToken, sha256Hex } from "../identity/identity-crypto.server.ts";
import { verifyPassword } from "../identity/password.server.ts";
import { type LoginOrigin, signIn } from "../identity/sign-in.server.ts";

/** The name authenticator apps show next to the account. */
export const TOTP_ISSUER = "Reward Portal";
const TOTP_PERIOD_SECONDS = 30;
/** The code of the step before or after the current one is accepted too: clocks drift (±30 s). */
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** A code's step: 10 characters of this alphabet (50 bits), shown as two groups of five. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const RECOVERY_LENGTH = 10;
export const MAX_CHALLENGE_ATTEMPTS = 5;
/** A code is asked for straight after the password; setting an app up takes longer. */
export const CHALLENGE_TTL_MS = { verify: 10 * 60 * 1000, setup: 20 * 60 * 1000 } as const;

export type ChallengePurpose = "verify" | "setup";

// ─── Keys ───────────────────────────────────────────────────────────────────────────────────

/** The keys of this module, derived from the server secret (as the web sessions' sealer is). */
export function twoFactorKeys(serverSecret: string) {
  const seal = secretSeal(serverSecret, "rewards totp secret");
  const recoveryKey = Buffer.from(hkdfSync("sha256", serverSecret, "", "rewards recovery codes", 32));
  const aad = (userId: number) => `user:${userId}`;
  return {
    /** The base32 secret, sealed for one user: moved to another user's row it does not open. */
    sealSecret(secret: string, userId: number): string {
      return seal.seal(secret, aad(userId));
    },
    /** The base32 secret, or null when it was sealed with another secret or for another user. */
    openSecret(sealed: string, userId: number): string | null {
      return seal.open(sealed, aad(userId));
    },
    /** The stored form of a recovery code, whatever case and hyphens it was typed with. */
    hashRecoveryCode(code: string, userId: number): string {
      return createHmac("sha256", recoveryKey)
        .update(`${userId}:${normaliseRecoveryCode(code)}`, "utf8")
        .digest("hex");
    },
  };
}

export type TwoFactorKeys = ReturnType<typeof twoFactorKeys>;

function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < RECOVERY_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

function totpFor(secret: string, email: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: email,
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** The time step of a right code (the current one ±1), or null. */
function matchingStep(secret: string, code: string, now: Date): number | null {
  const token = code.replace(/\s/g, "");
  const delta = totpFor(secret, "").validate({ token, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now.getTime() }) + delta;
}

// ─── Status ─────────────────────────────────────────────────────────────────────────────────

export interface TwoFactorStatus {
  enabled: boolean;
  /** ISO time it was turned on; null when off. */
  enabledAt: string | null;
  /** An app was offered (a secret is waiting for its first code). */
  setupPending: boolean;
  recoveryCodesLeft: number;
  /** The company asks every manager to sign in with a second factor. */
  companyRequired: boolean;
}

async function managerRow(db: Conn, userId: number) {
  const [row] = await db
    .select({
      id: users.id,
      companyId: users.companyId,
      email: users.email,
      passwordHash: users.passwordHash,
      totpSecretSealed: users.totpSecretSealed,
      totpSetupStartedBy: users.totpSetupStartedBy,
      totpEnabledAt: users.totpEnabledAt,
      companyRequired: companies.twoFactorRequired,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.id, userId), eq(users.isActive, true), eq(users.role, "program_manager")));
  return row;
}

/** The manager's address (the login budgets of rate-limits.ts are keyed by it), or null. */
export async function managerEmail(db: Db, userId: number): Promise<string | null> {
  return (await managerRow(db, userId))?.email ?? null;
}

export async function twoFactorStatus(db: Db, userId: number): Promise<TwoFactorStatus | null> {
  const row = await managerRow(db, userId);
  if (!row) return null;
  const [left] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return {
    enabled: row.totpEnabledAt !== null,
    enabledAt: row.totpEnabledAt?.toISOString() ?? null,
    setupPending: row.totpEnabledAt === null && row.totpSecretSealed !== null,
    recoveryCodesLeft: row.totpEnabledAt ? Number(left?.n ?? 0) : 0,
    companyRequired: row.companyRequired,
  };
}

// ─── Set-up ─────────────────────────────────────────────────────────────────────────────────

export interface Actor {
  userId: number;
  companyId: number;
  clientIp?: string | null;
}

export type StartSetupResult =
  | { status: "ready"; secret: string; otpauthUri: string }
  | { status: "already_on" | "unknown" };

/**
 * Who asks to set up an app: the session (`token:<access token id>`) of a signed-in manager, or
 * the set-up challenge (`challenge:<id>`) of a sign-in the company requires a second factor for.
 */
export type SetupStarter = `token:${number}` | `challenge:${number}`;

/**
 * Offers an app to set up. The secret waiting for its first code is offered again only to the
 * session that was shown it (so reloading the page shows the same QR code as the app scanned);
 * anyone else gets a new one, stored sealed, which replaces it. So a session that is not the
 * owner's (a stolen one) never knows the secret the owner goes on to confirm (ADR 0042's
 * amendment "A waiting secret belongs to the session that asked for it").
 */
export async function startSetup(
  db: Db,
  keys: TwoFactorKeys,
  userId: number,
  startedBy: SetupStarter,
): Promise<StartSetupResult> {
  const row = await managerRow(db, userId);
  if (!row) return { status: "unknown" };
  if (row.totpEnabledAt) return { status: "already_on" };
  const pending =
    row.totpSecretSealed && row.totpSetupStartedBy === startedBy ? keys.openSecret(row.totpSecretSealed, userId) : null;
  const secret = pending ?? new Secret({ size: 20 }).base32;
  if (!pending) {
    await db
      .update(users)
      .set({ totpSecretSealed: keys.sealSecret(secret, userId), totpSetupStartedBy: startedBy, totpLastStep: null })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)));
  }
  return { status: "ready", secret, otpauthUri: totpFor(secret, row.email).toString() };
}

/**
 * What shows that the manager turning an app on is the account's owner (docs/requirements.md §D7: a second
 * factor is enrolled only after the current password is given again; ADR 0042):
 *   - `password`: a signed-in manager gives it again. A bearer token alone is a session, maybe a
 *     stolen one, and an app turned on with it would lock the owner out;
 *   - `challengeId`: the company's forced set-up at login. Its "setup" challenge was opened by the
 *     right password minutes ago and ends with any password reset, change or email change
 *     (identity.ts endSignInsInProgress), so it proves the password already; asking again would
 *     add a step and no safety. It counts its attempts (countChallengeAttempt) and, turned on,
 *     ends the challenge and opens the session (`origin`) in the same transaction.
 */
export type EnrolmentProof = { password: string } | { challengeId: number; origin?: LoginOrigin };

export type ConfirmSetupResult =
  | { status: "enabled"; recoveryCodes: string[]; accessToken: string | null }
  /** `last`: with a challenge, the code was its last attempt (it is used up now). */
  | { status: "wrong_code"; last: boolean }
  | {
      status: "no_setup" | "already_on" | "wrong_password" | "too_many" | "challenge_ended" | "unknown";
    }
  /** The sign-in rules (sign-in.ts) refuse the session the challenge was for: nothing changed. */
  | { status: "sso_required" };

/** Leaves confirmSetup's transaction without its changes. */
class SetupRefused extends Error {
  constructor() {
    super("sso_required");
  }
}

/**
 * The first right code from the app turns two-factor sign-in on and answers ten new recovery
 * codes, which are stored hashed only: this is the one time they are seen. Nothing changes
 * without the proof (the password, or an open set-up challenge with an attempt left).
 */
export async function confirmSetup(
  db: Db,
  keys: TwoFactorKeys,
  actor: Actor,
  code: string,
  now: Date,
  proof: EnrolmentProof,
  startedBy: SetupStarter,
): Promise<ConfirmSetupResult> {
  const row = await managerRow(db, actor.userId);
  if (!row) return { status: "unknown" };
  if ("password" in proof && !(await verifyPassword(row.passwordHash, proof.password))) {
    return { status: "wrong_password" };
  }
  if (row.totpEnabledAt) return { status: "already_on" };
  // Only the session that was shown the waiting secret turns it on (see startSetup).
  const secret =
    row.totpSecretSealed && row.totpSetupStartedBy === startedBy
      ? keys.openSecret(row.totpSecretSealed, actor.userId)
      : null;
  if (!secret || !row.totpSecretSealed) return { status: "no_setup" };
  let last = false;
  if ("challengeId" in proof) {
    const counted = await countChallengeAttempt(db, proof.challengeId, now);
    if (counted.status !== "counted") return { status: counted.status === "too_many" ? "too_many" : "challenge_ended" };
    last = counted.last;
  }
  const step = matchingStep(secret, code, now);
  if (step === null) return { status: "wrong_code", last };
  const sealed = row.totpSecretSealed;
  try {
    return await confirmSetupIn(db, keys, actor, proof, sealed, step, now);
  } catch (error) {
    if (error instanceof SetupRefused) return { status: "sso_required" };
    throw error;
  }
}

async function confirmSetupIn(
  db: Db,
  keys: TwoFactorKeys,
  actor: Actor,
  proof: EnrolmentProof,
  sealed: string,
  step: number,
  now: Date,
): Promise<ConfirmSetupResult> {
  return db.transaction(async (tx): Promise<ConfirmSetupResult> => {
    // The user's row first, as a password reset or change takes it first: either that change
    // has committed (and ended the challenge and the pending secret, seen below) or it waits
    // for this one and then revokes the session opened here. Otherwise the app could be turned
    // on and the challenge ended by a reset in between, leaving that app on the account.
    const [locked] = await tx
      .select({ enabledAt: users.totpEnabledAt, sealed: users.totpSecretSealed })
      .from(users)
      .where(eq(users.id, actor.userId))
      .for("update");
    if (locked?.enabledAt) return { status: "already_on" };
    // The secret the code was checked against, still waiting (a change may have forgotten it).
    if (locked?.sealed !== sealed) return { status: "no_setup" };
    if ("challengeId" in proof && !(await consumeLoginChallenge(tx, proof.challengeId, now))) {
      return { status: "challenge_ended" };
    }
    await tx
      .update(users)
      .set({ totpEnabledAt: now, totpLastStep: step, totpSetupStartedBy: null })
      .where(eq(users.id, actor.userId));
    const codes = await replaceRecoveryCodes(tx, keys, actor.userId);
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "two_factor.enabled",
      subject: `user:${actor.userId}`,
      clientIp: actor.clientIp,
      at: now,
    });
    let accessToken: string | null = null;
    if ("challengeId" in proof) {
      // A login's set-up challenge ends in a session: the sign-in rules decide it (sign-in.ts).
      const signedIn = await signIn(tx, { userId: actor.userId, method: "second-factor", origin: proof.origin }, now);
      if (signedIn.status !== "signed_in") throw new SetupRefused();
      accessToken = signedIn.accessToken;
    }
    return { status: "enabled", recoveryCodes: codes, accessToken };
  });
}

async function replaceRecoveryCodes(tx: Conn, keys: TwoFactorKeys, userId: number): Promise<string[]> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx
    .insert(recoveryCodes)
    .values(codes.map((code) => ({ userId, codeHash: keys.hashRecoveryCode(code, userId) })));
  return codes;
}

export type PasswordActionResult<T = object> =
  | ({ status: "ok" } & T)
  | { status: "wrong_password" | "not_on" | "required" | "unknown" };

/** Turns it off (the password again); refused while the company requires a second factor. */
export async function disableTwoFactor(
  db: Db,
  actor: Actor,
  password: string,
  now: Date,
): Promise<PasswordActionResult> {
  const row = await managerRow(db, actor.userId);
  if (!(await verifyPassword(row?.passwordHash, password)) || !row)
    return { status: row ? "wrong_password" : "unknown" };
  if (!row.totpEnabledAt) return { status: "not_on" };
  if (row.companyRequired) return { status: "required" };
  return db.transaction(async (tx) => {
    const [off] = await tx
      .update(users)
      .set({ totpSecretSealed: null, totpSetupStartedBy: null, totpEnabledAt: null, totpLastStep: null })
      .where(and(eq(users.id, actor.userId), sql`${users.totpEnabledAt} is not null`))
      .returning({ id: users.id });
    if (!off) return { status: "not_on" as const };
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, actor.userId));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "two_factor.disabled",
      subject: `user:${actor.userId}`,
      clientIp: actor.clientIp,
      at: now,
    });
    return { status: "ok" as const };
  });
}

/** Ten new recovery codes (the password again); every earlier one stops working. */
export async function regenerateRecoveryCodes(
  db: Db,
  keys: TwoFactorKeys,
  actor: Actor,
  password: string,
  now: Date,
): Promise<PasswordActionResult<{ recoveryCodes: string[] }>> {
  const row = await managerRow(db, actor.userId);
  if (!(await verifyPassword(row?.passwordHash, password)) || !row)
    return { status: row ? "wrong_password" : "unknown" };
  if (!row.totpEnabledAt) return { status: "not_on" };
  return db.transaction(async (tx) => {
    // Serialise with a concurrent regeneration or turning off.
    const [locked] = await tx
      .select({ enabledAt: users.totpEnabledAt })
      .from(users)
      .where(eq(users.id, actor.userId))
      .for("update");
    if (!locked?.enabledAt) return { status: "not_on" as const };
    const codes = await replaceRecoveryCodes(tx, keys, actor.userId);
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "two_factor.recovery_codes_regenerated",
      subject: `user:${actor.userId}`,
      clientIp: actor.clientIp,
      at: now,
    });
    return { status: "ok" as const, recoveryCodes: codes };
  });
}

/** An Owner turns the company's requirement on or off (the caller checked the role). */
export async function setCompanyRequirement(db: Db, actor: Actor, required: boolean, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ required: companies.twoFactorRequired })
      .from(companies)
      .where(eq(companies.id, actor.companyId))
      .for("update");
    if (!before) return false;
    if (before.required === required) return true;
    await tx.update(companies).set({ twoFactorRequired: required }).where(eq(companies.id, actor.companyId));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "settings.two_factor_required_changed",
      subject: `company:${actor.companyId}`,
      data: { from: before.required, to: required },
      clientIp: actor.clientIp,
      at: now,
    });
    return true;
  });
}

// ─── Login challenges ───────────────────────────────────────────────────────────────────────

/**
 * After a right password: a challenge for the second factor ("verify") or for setting one up
 * ("setup"). The user's earlier open challenges end: one sign-in is in progress at a time; the
 * ones already finished are deleted.
 */
export async function startLoginChallenge(
  db: Db,
  userId: number,
  purpose: ChallengePurpose,
  now: Date,
): Promise<{ challengeToken: string; expiresAt: Date }> {
  const challengeToken = randomToken();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS[purpose]);
  await db.transaction(async (tx) => {
    // The user's finished challenges go (a login leaves one row, not one per attempt ever made).
    await tx
      .delete(loginChallenges)
      .where(
        and(
          eq(loginChallenges.userId, userId),
          or(sql`${loginChallenges.consumedAt} is not null`, lt(loginChallenges.expiresAt, now)),
        ),
      );
    await tx
      .update(loginChallenges)
      .set({ consumedAt: now })
      .where(and(eq(loginChallenges.userId, userId), isNull(loginChallenges.consumedAt)));
    await tx.insert(loginChallenges).values({ userId, tokenHash: sha256Hex(challengeToken), purpose, expiresAt });
  });
  return { challengeToken, expiresAt };
}

export type ChallengeLookup =
  | { status: "ok"; challengeId: number; userId: number; companyId: number; email: string; purpose: ChallengePurpose }
  | { status: "invalid" | "too_many" };

/** The open challenge of a token, for `purpose`; anything used, expired or unknown is "invalid". */
export async function findLoginChallenge(
  db: Db,
  token: string,
  purpose: ChallengePurpose,
  now: Date,
): Promise<ChallengeLookup> {
  const [row] = await db
    .select({
      challengeId: loginChallenges.id,
      userId: users.id,
      companyId: users.companyId,
      email: users.email,
      purpose: loginChallenges.purpose,
      attempts: loginChallenges.attempts,
    })
    .from(loginChallenges)
    .innerJoin(users, eq(users.id, loginChallenges.userId))
    .where(
      and(
        eq(loginChallenges.tokenHash, sha256Hex(token)),
        eq(loginChallenges.purpose, purpose),
        isNull(loginChallenges.consumedAt),
        gt(loginChallenges.expiresAt, now),
        eq(users.isActive, true),
      ),
    );
  if (!row) return { status: "invalid" };
  if (row.attempts >= MAX_CHALLENGE_ATTEMPTS) return { status: "too_many" };
  return { status: "ok", ...row };
}

export type ChallengeAttempt = { status: "counted"; last: boolean } | { status: "too_many" | "invalid" };

/**
 * Counts one attempt against an open challenge BEFORE its code is checked (docs/requirements.md §D7: attempt
 * limits are counted before the check they guard, as the account throttles of rate-limits.ts
 * are): one conditional UPDATE, so however many requests arrive at once, only
 * MAX_CHALLENGE_ATTEMPTS of them are counted and so only that many codes are ever checked.
 * Counted after the check, 34 requests at once on one challenge had all 34 codes checked
 * (modules/two-factor/two-factor-guards.test.ts). `last`: this was the final attempt. A right code
 * counts too; it ends the challenge anyway.
 */
export async function countChallengeAttempt(db: Conn, challengeId: number, now: Date): Promise<ChallengeAttempt> {
  const [counted] = await db
    .update(loginChallenges)
    .set({ attempts: sql`${loginChallenges.attempts} + 1` })
    .where(
      and(
        eq(loginChallenges.id, challengeId),
        lt(loginChallenges.attempts, MAX_CHALLENGE_ATTEMPTS),
        isNull(loginChallenges.consumedAt),
        gt(loginChallenges.expiresAt, now),
      ),
    )
    .returning({ attempts: loginChallenges.attempts });
  if (counted) return { status: "counted", last: counted.attempts >= MAX_CHALLENGE_ATTEMPTS };
  const [row] = await db
    .select({ attempts: loginChallenges.attempts, consumedAt: loginChallenges.consumedAt })
    .from(loginChallenges)
    .where(eq(loginChallenges.id, challengeId));
  return { status: row && !row.consumedAt && row.attempts >= MAX_CHALLENGE_ATTEMPTS ? "too_many" : "invalid" };
}

/**
 * Ends a challenge once (its sign-in is done); false when it was ended meanwhile: by another
 * request, a new login, or a password reset, change or email change. Its attempts were counted
 * before its code was checked (countChallengeAttempt), so the count is not looked at here: a
 * right code on the last attempt signs in.
 */
export async function consumeLoginChallenge(db: Conn, challengeId: number, now: Date): Promise<boolean> {
  const [claimed] = await db
    .update(loginChallenges)
    .set({ consumedAt: now })
    .where(and(eq(loginChallenges.id, challengeId), isNull(loginChallenges.consumedAt)))
    .returning({ id: loginChallenges.id });
  return claimed !== undefined;
}

/**
 * A "verify" challenge used up by wrong codes: its owner is emailed that someone who knows the
 * password tried to sign in (through the outbox, as every account email). Once per challenge:
 * only the request whose attempt was the last one counted calls it.
 */
export async function noticeSecondFactorFailures(db: Db, userId: number, appUrl: string, now: Date): Promise<boolean> {
  const [user] = await db
    .select({ email: users.email, firstName: users.firstName })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.isActive, true)));
  if (!user) return false;
  const resetUrl = `${appUrl}/corporate/forgot-password-request`;
  await enqueueEmail(db, secondFactorFailuresEmail(user.email, user.firstName, resetUrl), now);
  return true;
}

export type SecondFactorResult =
  | { status: "ok"; usedRecoveryCode: boolean }
  | { status: "wrong_code" | "reused_code" | "wrong_recovery_code" | "not_on" };

export type ChallengeSignInResult =
  | { status: "signed_in"; accessToken: string }
  | { status: "challenge_ended" }
  /** The sign-in rules (sign-in.ts) refuse the session: the company requires single sign-on. */
  | { status: "sso_required" }
  | { status: Exclude<SecondFactorResult["status"], "ok"> };

/** Leaves a transaction without its changes, carrying why. */
class Refused extends Error {
  readonly result: ChallengeSignInResult;
  constructor(result: ChallengeSignInResult) {
    super("refused");
    this.result = result;
  }
}

/**
 * The second step of a login: with an attempt of the challenge counted already
 * (countChallengeAttempt), checks the code or recovery code and, right, ends the challenge and
 * opens the session, all in one transaction. The user's row is taken first, as a password reset
 * takes it, so a reset either ended the challenge before (refused here) or revokes this session
 * after. A wrong code changes nothing: the challenge stays open for its attempts left.
 */
export async function signInWithSecondFactor(
  db: Db,
  keys: TwoFactorKeys,
  actor: Actor,
  challengeId: number,
  input: { code?: string; recoveryCode?: string },
  now: Date,
  origin?: LoginOrigin,
): Promise<ChallengeSignInResult> {
  try {
    return await db.transaction(async (tx: Tx): Promise<ChallengeSignInResult> => {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, actor.userId)).for("update");
      if (!(await consumeLoginChallenge(tx, challengeId, now))) return { status: "challenge_ended" };
      const spent = await spendSecondFactor(tx, keys, actor, input, now);
      if (spent.status !== "ok") throw new Refused({ status: spent.status });
      // Who may sign in is decided in one place (sign-in.ts): a refusal rolls the code back too.
      const signedIn = await signIn(tx, { userId: actor.userId, method: "second-factor", origin }, now);
      if (signedIn.status !== "signed_in") throw new Refused({ status: "sso_required" });
      return { status: "signed_in", accessToken: signedIn.accessToken };
    });
  } catch (error) {
    if (error instanceof Refused) return error.result;
    throw error;
  }
}

/**
 * Checks a TOTP code (the current step ±1, never one already accepted) or a recovery code (each
 * works once) of a manager with two-factor sign-in on, inside `tx`: the code is spent only if
 * the sign-in it belongs to commits.
 */
export async function spendSecondFactor(
  tx: Conn,
  keys: TwoFactorKeys,
  actor: Actor,
  input: { code?: string; recoveryCode?: string },
  now: Date,
): Promise<SecondFactorResult> {
  const row = await managerRow(tx, actor.userId);
  const secret =
    row?.totpEnabledAt && row.totpSecretSealed ? keys.openSecret(row.totpSecretSealed, actor.userId) : null;
  if (!secret) return { status: "not_on" };
  if (input.recoveryCode !== undefined) {
    const [used] = await tx
      .update(recoveryCodes)
      .set({ usedAt: now })
      .where(
        and(
          eq(recoveryCodes.userId, actor.userId),
          eq(recoveryCodes.codeHash, keys.hashRecoveryCode(input.recoveryCode, actor.userId)),
          isNull(recoveryCodes.usedAt),
        ),
      )
      .returning({ id: recoveryCodes.id });
    if (!used) return { status: "wrong_recovery_code" };
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "login.recovery_code_used",
      subject: `user:${actor.userId}`,
      data: { recoveryCodeId: used.id },
      clientIp: actor.clientIp,
      at: now,
    });
    return { status: "ok", usedRecoveryCode: true };
  }
  const step = matchingStep(secret, input.code ?? "", now);
  if (step === null) return { status: "wrong_code" };
  // Compare-and-set: of two requests with one code, one moves the step and the other finds it moved.
  const [moved] = await tx
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, actor.userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return moved ? { status: "ok", usedRecoveryCode: false } : { status: "reused_code" };
}
