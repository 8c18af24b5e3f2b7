// Who may sign in (docs/rules.md "Who may sign in"; ADR 0046, ADR 0042): the one
// function that opens a session. Every door that ends in an access token — password login, email
// verification, accepting an invitation, the second-factor step, the single sign-on callback —
// calls signIn, and a reset completion asks the same rules (signInRule) before it sets a password.
// The rules, in order:
//   1. the account is an active program manager of a company that exists;
//   2. the company's single sign-on requirement: while its company requires single sign-on, a
//      manager signs in only through the provider, whatever their address is now (an address moved
//      out of the company's domains keeps the requirement), the break-glass Owner excepted while
//      they are an active Owner;
//   3. the second factor (ADR 0042): a manager with an app on, or of a company that requires one,
//      gets a challenge instead of a token; not when completing that step, and not through the
//      provider (its own multi-factor policy is the second factor there, ADR 0046 §4).
// This module is the only writer of access_tokens rows (tests/rules/sign-in.test.ts); revoking
// them (logout, removal, reset, back-channel logout) stays with those operations.
import { and, eq, sql } from "drizzle-orm";
import type { Conn } from "../../server/db/client.ts";
import { accessTokens, companies, singleSignOnConfigs, singleSignOnDomains, users } from "../../server/db/schema.ts";
import { emailDomain } from "../single-sign-on/schema.ts";
import { randomToken, sha256Hex } from "./identity-crypto.server.ts";
import type { AppSettings } from "./schema.ts";

/** An access token's fixed lifetime from issue (identity.ts header; docs/requirements.md §D7). */
export const ACCESS_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;

/** Where a login came from (the client's address, its User-Agent): shown in the manager's list of sessions. */
export interface LoginOrigin {
  clientIp?: string | null;
  userAgent?: string | null;
}

/**
 * How the person proved who they are. "password", "verification" (the emailed code), "invite" (the
 * emailed link and a new password), "second-factor" (the step after a password) and "reset" (the
 * emailed link and a new password) all rest on a password or a mailbox; "sso" on the provider.
 */
export type SignInMethod = "password" | "verification" | "invite" | "second-factor" | "reset" | "sso";

export type SignInRefusal = "inactive" | "sso_required";

export type SignInDecision =
  | { status: "allowed"; userId: number; companyId: number; email: string; appSettings: AppSettings }
  /** No token yet: "verify" asks for the app's code, "setup" for setting an app up first. */
  | { status: "second_factor"; userId: number; companyId: number; email: string; purpose: "verify" | "setup" }
  | { status: "refused"; reason: SignInRefusal };

export type SignInResult =
  | { status: "signed_in"; userId: number; companyId: number; accessToken: string; appSettings: AppSettings }
  | Exclude<SignInDecision, { status: "allowed" }>;

/** The rules of the header for `userId` signing in by `method`, without issuing anything. */
export async function signInRule(db: Conn, input: { userId: number; method: SignInMethod }): Promise<SignInDecision> {
  const [row] = await db
    .select({
      id: users.id,
      companyId: users.companyId,
      email: users.email,
      managerRole: users.managerRole,
      totpEnabledAt: users.totpEnabledAt,
      hasWatchedOnboardingVideo: users.hasWatchedOnboardingVideo,
      detailsUpdatedAt: companies.detailsUpdatedAt,
      twoFactorRequired: companies.twoFactorRequired,
      ssoRequired: singleSignOnConfigs.required,
      breakGlassUserId: singleSignOnConfigs.breakGlassUserId,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .leftJoin(singleSignOnConfigs, eq(singleSignOnConfigs.companyId, users.companyId))
    .where(and(eq(users.id, input.userId), eq(users.isActive, true), eq(users.role, "program_manager")));
  if (!row) return { status: "refused", reason: "inactive" };
  if (input.method !== "sso" && row.ssoRequired && !isBreakGlass(row)) {
    return { status: "refused", reason: "sso_required" };
  }
  const purpose = row.totpEnabledAt ? "verify" : row.twoFactorRequired ? "setup" : null;
  if (purpose && input.method !== "second-factor" && input.method !== "sso") {
    return { status: "second_factor", userId: row.id, companyId: row.companyId, email: row.email, purpose };
  }
  return {
    status: "allowed",
    userId: row.id,
    companyId: row.companyId,
    email: row.email,
    appSettings: {
      hasProvidedCompanyDetails: row.detailsUpdatedAt !== null,
      hasWatchedOnboardingVideo: row.hasWatchedOnboardingVideo,
    },
  };
}

/**
 * Whether a new manager of `companyId` (an invitee) would sign in only through the provider: the
 * rule of signInRule for someone who is not the break-glass Owner, asked before the row exists.
 */
export async function newManagerSignsInThroughProvider(db: Conn, companyId: number): Promise<boolean> {
  const [row] = await db
    .select({ required: singleSignOnConfigs.required })
    .from(singleSignOnConfigs)
    .where(eq(singleSignOnConfigs.companyId, companyId));
  return row?.required === true;
}

/** The break-glass Owner keeps their password only while they are an active Owner (ADR 0046 §6). */
const isBreakGlass = (row: { id: number; managerRole: string | null; breakGlassUserId: number | null }) =>
  row.breakGlassUserId === row.id && row.managerRole === "owner";

/**
 * Opens a session for `userId` when every rule allows it: the one place an access token is
 * issued. Call it inside the transaction of the step that proves the person (a code consumed, an
 * invitation accepted), so a refusal there can roll that step back.
 */
export async function signIn(
  db: Conn,
  input: {
    userId: number;
    method: SignInMethod;
    origin?: LoginOrigin;
    /** The provider's session and subject (ADR 0046 §7), kept for its back-channel logout. */
    sso?: { sid: string | null; sub: string };
  },
  now: Date,
): Promise<SignInResult> {
  const decision = await signInRule(db, input);
  if (decision.status !== "allowed") return decision;
  const accessToken = await issueAccessToken(
    db,
    { id: decision.userId, companyId: decision.companyId },
    now,
    input.origin,
    input.sso,
  );
  return {
    status: "signed_in",
    userId: decision.userId,
    companyId: decision.companyId,
    accessToken,
    appSettings: decision.appSettings,
  };
}

/**
 * Whether a password (login, reset request) is refused for an address before anything about it is
 * checked: decided by the address's domain, so the answer does not tell whether the company has a
 * manager with it (ADR 0046 §6). A domain of a company that requires single sign-on refuses, but
 * for the break-glass Owner's address and for an active manager of another company (whose own
 * company's rules then apply, in signInRule). A manager whose address is outside every required
 * domain is not refused here: signInRule refuses them after their password, by their company.
 */
export async function passwordRefusedForAddress(db: Conn, email: string): Promise<boolean> {
  const domain = emailDomain(email);
  if (!domain) return false;
  const [row] = await db
    .select({
      companyId: singleSignOnConfigs.companyId,
      required: singleSignOnConfigs.required,
      breakGlassEmail: users.email,
    })
    .from(singleSignOnDomains)
    .innerJoin(singleSignOnConfigs, eq(singleSignOnConfigs.companyId, singleSignOnDomains.companyId))
    // Only while they are an active Owner: a break-glass Owner demoted or removed is no longer one.
    .leftJoin(
      users,
      and(eq(users.id, singleSignOnConfigs.breakGlassUserId), eq(users.isActive, true), eq(users.managerRole, "owner")),
    )
    .where(eq(singleSignOnDomains.domain, domain));
  if (!row?.required) return false;
  if (row.breakGlassEmail?.toLowerCase() === email.trim().toLowerCase()) return false;
  const [elsewhere] = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        sql`lower(${users.email}) = lower(${email.trim()})`,
        eq(users.isActive, true),
        eq(users.role, "program_manager"),
        sql`${users.companyId} <> ${row.companyId}`,
      ),
    );
  return !elsewhere;
}

/** The longest User-Agent kept: enough to tell browsers apart, and no room for a megabyte header. */
const USER_AGENT_MAX = 512;

/**
 * The one insert into access_tokens. Exported for test set-ups and the benchmarks (scripts/bench)
 * only: a production door calls signIn, never this (tests/rules/sign-in.test.ts).
 */
export async function issueAccessToken(
  db: Conn,
  user: { id: number; companyId: number },
  now: Date,
  origin: LoginOrigin = {},
  sso?: { sid: string | null; sub: string },
): Promise<string> {
  const token = randomToken();
  await db.insert(accessTokens).values({
    tokenHash: sha256Hex(token),
    userId: user.id,
    companyId: user.companyId,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
    clientIp: origin.clientIp?.slice(0, 64) || null,
    userAgent: origin.userAgent?.replaceAll("\0", "").slice(0, USER_AGENT_MAX) || null,
    ssoSessionId: sso?.sid ?? null,
    ssoSubject: sso?.sub ?? null,
    // The login's own clock (a list of sessions shows when each began).
    createdAt: now,
  });
  return token;
}
