// Single sign-on with a company's OpenID Connect provider (ADR 0046), through openid-client (a
// certified relying party): the Owner's configuration, "Test the connection", and the sign-in
// itself — the authorization code flow with PKCE, `state` and `nonce`.
//
// - The client secret is sealed like the webhook secrets (secret-seal.ts: AES-256-GCM, key derived
//   from the server secret with its own label, the company id authenticated with it): the token call
//   must send it, so it cannot be a hash.
// - A sign-in is a row (single_sign_on_flows) holding the state's hash, the nonce and the PKCE
//   verifier; the browser keeps the state in an httpOnly cookie (app/features/accounts). The
//   callback deletes the row before the code is exchanged, so a replayed callback finds nothing
//   and changes nothing, and a code that fails leaves nothing behind (docs/requirements.md §D7).
// - openid-client checks the ID token's signature (asked to: enableNonRepudiationChecks, under the
//   keys of the provider's jwks_uri), issuer, audience, expiry and nonce; when the ID token lacks
//   the email claims, they are read from the UserInfo endpoint, whose `sub` must be the ID token's
//   (OpenID Connect Core 1.0 §5.4, §5.3.2). This module then insists on `email_verified: true`, a
//   domain the company configured, and a manager of that company (matched or created on the spot,
//   "just in time"); never a manager of another company.
// - The expiry is judged by the caller's clock (`now`), the clock of every other lifetime here
//   (identity.ts): openid-client's clockSkew is set to the difference.
// - Plain http issuers are refused by openid-client; they are allowed only for a loopback host in a
//   local run (single-sign-on-issuers.ts, the rule the login page's form-action follows too).
import { constants, createPublicKey, type JsonWebKey, randomBytes, verify } from "node:crypto";
import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import * as oidc from "openid-client";
import { isLoopbackHost } from "../../server/config.ts";
import type { Db, Tx } from "../../server/db/client.ts";
import {
  accessTokens,
  companies,
  loginChallenges,
  passwordResets,
  singleSignOnConfigs,
  singleSignOnDomains,
  singleSignOnFlows,
  users,
} from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { singleSignOnManagerJoinedEmail } from "../../server/mail/templates/account.ts";
import { Refusal } from "../../server/refusal.ts";
import { companySecretSeal } from "../../server/secret-seal.ts";
import { recordAudit } from "../audit/service.server.ts";
import { sha256Hex } from "../identity/identity-crypto.server.ts";
import { isUniqueViolation, type ManagerRole } from "../identity/service.server.ts";
import { type LoginOrigin, signIn } from "../identity/sign-in.server.ts";
import { acceptInviteThroughProvider } from "../managers/service.server.ts";
import { ssoIssuerAllowed } from "./issuers.server.ts";
import {
  emailDomain,
  type SaveSingleSignOn,
  type SingleSignOnTestResult,
  type SingleSignOnView,
  SSO_DETAILS,
  SSO_FLOW_TTL_MS,
  SSO_SCOPES,
  type SsoTokenEndpointAuthMethod,
} from "./schema.ts";

// ─── The client secret's seal ───────────────────────────────────────────────────────────────

export type SingleSignOnKeys = ReturnType<typeof singleSignOnKeys>;

/** The seal of client secrets, derived from the server secret (its own HKDF label). */
export function singleSignOnKeys(serverSecret: string) {
  return companySecretSeal(serverSecret, { label: "rewards sso client secret", scope: "sso" });
}

// ─── Configuration (Settings → Single sign-on) ──────────────────────────────────────────────

export interface SingleSignOnActor {
  companyId: number;
  userId: number;
  clientIp?: string | null;
}

export async function getSingleSignOn(db: Db, companyId: number): Promise<SingleSignOnView | null> {
  const [row] = await db.select().from(singleSignOnConfigs).where(eq(singleSignOnConfigs.companyId, companyId));
  if (!row) return null;
  const domains = await db
    .select({ domain: singleSignOnDomains.domain })
    .from(singleSignOnDomains)
    .where(eq(singleSignOnDomains.companyId, companyId))
    .orderBy(asc(singleSignOnDomains.domain));
  let breakGlass: SingleSignOnView["breakGlass"] = null;
  if (row.breakGlassUserId) {
    const [owner] = await db
      .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, email: users.email })
      .from(users)
      .where(
        and(
          eq(users.id, row.breakGlassUserId),
          eq(users.companyId, companyId),
          eq(users.isActive, true),
          eq(users.managerRole, "owner"),
        ),
      );
    if (owner) breakGlass = { userId: owner.id, name: `${owner.firstName} ${owner.lastName}`, email: owner.email };
  }
  return {
    issuerUrl: row.issuerUrl,
    clientId: row.clientId,
    hasClientSecret: true,
    domains: domains.map((d) => d.domain),
    newManagerRole: row.newManagerRole,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    required: row.required,
    breakGlass,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type SaveSingleSignOnResult =
  | { ok: true }
  | { ok: false; refused: "sso-issuer-invalid" | "sso-client-secret-required" | "sso-domain-taken" };

/**
 * Saves the provider, the domains and the flags in one transaction, audited. The Owner who saves
 * becomes the break-glass Owner when none is set yet (or the one set is no longer an active Owner):
 * someone must be able to sign in when the provider is broken (ADR 0046). Turning "require"
 * on ends the open password sign-ins of the domains' other managers (their login challenges).
 */
export async function saveSingleSignOn(
  db: Db,
  keys: SingleSignOnKeys,
  actor: SingleSignOnActor,
  input: SaveSingleSignOn,
  now: Date,
  appUrl: string,
): Promise<SaveSingleSignOnResult> {
  const domains = [...new Set(input.domains)];
  // Only an issuer sign-ins can reach (single-sign-on-issuers.ts): plain http only on loopback in a local run.
  if (!ssoIssuerAllowed(new URL(input.issuerUrl.trim()), appUrl)) {
    return { ok: false, refused: "sso-issuer-invalid" };
  }
  try {
    return await db.transaction(async (tx): Promise<SaveSingleSignOnResult> => {
      await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, actor.companyId)).for("update");
      const [existing] = await tx
        .select()
        .from(singleSignOnConfigs)
        .where(eq(singleSignOnConfigs.companyId, actor.companyId));
      const secret = input.clientSecret?.trim();
      if (!existing && !secret) return { ok: false, refused: "sso-client-secret-required" };
      const clientSecretSealed = secret
        ? keys.sealSecret(secret, actor.companyId)
        : (existing?.clientSecretSealed ?? "");
      const breakGlassUserId = (await isActiveOwner(tx, actor.companyId, existing?.breakGlassUserId))
        ? (existing?.breakGlassUserId ?? actor.userId)
        : actor.userId;
      const values = {
        issuerUrl: input.issuerUrl.trim(),
        clientId: input.clientId.trim(),
        clientSecretSealed,
        newManagerRole: input.newManagerRole,
        tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
        required: input.required,
        breakGlassUserId,
        updatedBy: actor.userId,
        updatedAt: now,
      };
      if (existing) {
        await tx.update(singleSignOnConfigs).set(values).where(eq(singleSignOnConfigs.companyId, actor.companyId));
      } else {
        await tx.insert(singleSignOnConfigs).values({ companyId: actor.companyId, ...values, createdAt: now });
      }
      await tx.delete(singleSignOnDomains).where(eq(singleSignOnDomains.companyId, actor.companyId));
      await tx.insert(singleSignOnDomains).values(domains.map((domain) => ({ companyId: actor.companyId, domain })));
      if (input.required) await endPasswordSignInsInProgress(tx, actor.companyId, breakGlassUserId, now);
      await recordAudit(tx, {
        companyId: actor.companyId,
        actorUserId: actor.userId,
        action: existing ? "sso.updated" : "sso.configured",
        subject: `company:${actor.companyId}`,
        // Never the secret; only whether a new one was given.
        data: {
          issuerUrl: values.issuerUrl,
          clientId: values.clientId,
          domains,
          newManagerRole: values.newManagerRole,
          tokenEndpointAuthMethod: values.tokenEndpointAuthMethod,
          required: values.required,
          breakGlassUserId,
          clientSecretChanged: Boolean(secret),
        },
        clientIp: actor.clientIp,
        at: now,
      });
      return { ok: true };
    });
  } catch (error) {
    // Another company holds one of the domains (the unique index decides, even for two saves at once).
    if (isUniqueViolation(error)) return { ok: false, refused: "sso-domain-taken" };
    throw error;
  }
}

async function isActiveOwner(tx: Tx, companyId: number, userId: number | null | undefined): Promise<boolean> {
  if (!userId) return false;
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.id, userId),
        eq(users.companyId, companyId),
        eq(users.isActive, true),
        eq(users.managerRole, "owner"),
      ),
    );
  return Boolean(row);
}

/**
 * What a password started and has not finished, for the company's managers but the break-glass
 * Owner, whatever their address (the requirement is the company's, modules/identity/sign-in.server.ts):
 * login challenges (a password given, a second factor owed) and unused reset links.
 */
async function endPasswordSignInsInProgress(
  tx: Tx,
  companyId: number,
  breakGlassUserId: number,
  now: Date,
): Promise<void> {
  const ids = tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(eq(users.companyId, companyId), eq(users.role, "program_manager"), sql`${users.id} <> ${breakGlassUserId}`),
    );
  await tx
    .update(loginChallenges)
    .set({ consumedAt: now })
    .where(and(inArray(loginChallenges.userId, ids), isNull(loginChallenges.consumedAt)));
  await tx.delete(passwordResets).where(and(inArray(passwordResets.userId, ids), isNull(passwordResets.usedAt)));
}

// ─── The provider ────────────────────────────────────────────────────────────────────────────

interface ProviderSettings {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  tokenEndpointAuthMethod: SsoTokenEndpointAuthMethod;
}

/**
 * Discovery at the issuer (its /.well-known/openid-configuration), for a run whose APP_URL is
 * `appUrl` (the redirect URI will do): only an issuer single-sign-on-issuers.ts allows.
 */
async function discover(settings: ProviderSettings, appUrl: string, now?: Date): Promise<oidc.Configuration> {
  const issuer = new URL(settings.issuerUrl);
  if (!ssoIssuerAllowed(issuer, appUrl)) throw new Error("single sign-on issuer not allowed in this run");
  // openid-client refuses plain http; the rule above lets it through only to this machine.
  const plainHttp = issuer.protocol === "http:";
  const clientAuth =
    settings.tokenEndpointAuthMethod === "client_secret_post"
      ? oidc.ClientSecretPost(settings.clientSecret)
      : oidc.ClientSecretBasic(settings.clientSecret);
  return oidc.discovery(
    issuer,
    settings.clientId,
    {
      client_secret: settings.clientSecret,
      // Expiry is judged by the caller's clock (see the header).
      ...(now ? { [oidc.clockSkew]: Math.round((now.getTime() - Date.now()) / 1000) } : {}),
    },
    clientAuth,
    {
      timeout: 10,
      // The ID token's signature is checked under the provider's published keys (jwks_uri), as ADR
      // 0046 says: openid-client 6 skips it for a token from the token endpoint unless asked.
      execute: [oidc.enableNonRepudiationChecks, ...(plainHttp ? [oidc.allowInsecureRequests] : [])],
    },
  );
}

async function providerOf(
  db: Db | Tx,
  keys: SingleSignOnKeys,
  companyId: number,
): Promise<(ProviderSettings & { newManagerRole: ManagerRole }) | null> {
  const [row] = await db.select().from(singleSignOnConfigs).where(eq(singleSignOnConfigs.companyId, companyId));
  if (!row) return null;
  const clientSecret = keys.openSecret(row.clientSecretSealed, companyId);
  if (clientSecret === null) return null;
  return {
    issuerUrl: row.issuerUrl,
    clientId: row.clientId,
    clientSecret,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
    newManagerRole: row.newManagerRole,
  };
}

/**
 * "Test the connection": discovery, then the client's credentials at the token endpoint (a code
 * that cannot exist: a provider answers `invalid_client` for wrong credentials and
 * `invalid_grant` for right ones), then whether the email scope is offered. What the discovery
 * document leaves out but need not list is a note beside the success, not a failure: the email
 * claim (`claims_supported` "might not be an exhaustive list", Discovery 1.0 §3) and the chosen
 * client authentication (`token_endpoint_auth_methods_supported`, client_secret_basic when absent).
 */
export async function testSingleSignOn(
  db: Db,
  keys: SingleSignOnKeys,
  companyId: number,
  redirectUri: string,
): Promise<SingleSignOnTestResult> {
  const settings = await providerOf(db, keys, companyId);
  if (!settings) return { ok: false, detail: SSO_DETAILS.notSetUp };
  let config: oidc.Configuration;
  try {
    config = await discover(settings, redirectUri);
  } catch {
    return { ok: false, detail: SSO_DETAILS.testUnreachable };
  }
  try {
    await oidc.genericGrantRequest(config, "authorization_code", {
      code: `connection-test-${randomBytes(8).toString("hex")}`,
      redirect_uri: redirectUri,
    });
  } catch (error) {
    const code = error instanceof oidc.ResponseBodyError ? error.error : undefined;
    if (code === "invalid_client" || code === "unauthorized_client") {
      return { ok: false, detail: SSO_DETAILS.testBadCredentials };
    }
    if (code === undefined && !(error instanceof oidc.WWWAuthenticateChallengeError)) {
      return { ok: false, detail: SSO_DETAILS.testUnreachable };
    }
    if (error instanceof oidc.WWWAuthenticateChallengeError) {
      return { ok: false, detail: SSO_DETAILS.testBadCredentials };
    }
  }
  const metadata = config.serverMetadata();
  // Scopes defined by OpenID Connect Core SHOULD be listed when supported (Discovery 1.0 §3).
  if (metadata.scopes_supported && !metadata.scopes_supported.includes("email")) {
    return { ok: false, detail: SSO_DETAILS.testNoEmailScope };
  }
  const notes: string[] = [];
  if (metadata.claims_supported && !metadata.claims_supported.includes("email")) {
    notes.push(SSO_DETAILS.testNoteEmailClaimUnlisted);
  }
  const authMethods = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (!authMethods.includes(settings.tokenEndpointAuthMethod)) notes.push(SSO_DETAILS.testNoteAuthMethodUnlisted);
  return { ok: true, detail: SSO_DETAILS.testOk, notes };
}

// ─── Signing in ──────────────────────────────────────────────────────────────────────────────

export type StartSingleSignOnResult =
  | { status: "redirect"; authorizationUrl: string; state: string }
  | { status: "not_configured" }
  | { status: "unavailable" };

/** The provider's authorization URL for `email`'s domain, and the state the browser must keep. */
export async function startSingleSignOn(
  db: Db,
  keys: SingleSignOnKeys,
  email: string,
  redirectUri: string,
  now: Date,
): Promise<StartSingleSignOnResult> {
  const [domain] = await db
    .select({ companyId: singleSignOnDomains.companyId })
    .from(singleSignOnDomains)
    .where(eq(singleSignOnDomains.domain, emailDomain(email)));
  const settings = domain ? await providerOf(db, keys, domain.companyId) : null;
  if (!domain || !settings) return { status: "not_configured" };
  let config: oidc.Configuration;
  try {
    config = await discover(settings, redirectUri);
  } catch {
    return { status: "unavailable" };
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  // Flows nobody finished are swept as new ones start (each lives SSO_FLOW_TTL_MS).
  await db.delete(singleSignOnFlows).where(lt(singleSignOnFlows.expiresAt, now));
  await db.insert(singleSignOnFlows).values({
    companyId: domain.companyId,
    stateHash: sha256Hex(state),
    nonce,
    codeVerifier,
    expiresAt: new Date(now.getTime() + SSO_FLOW_TTL_MS),
    createdAt: now,
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SSO_SCOPES,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    login_hint: email.trim(),
  });
  return { status: "redirect", authorizationUrl: url.href, state };
}

export type CompleteSingleSignOnResult =
  | {
      status: "signed_in";
      userId: number;
      companyId: number;
      accessToken: string;
      /** A manager created by this sign-in (just in time). */
      created: boolean;
      hasProvidedCompanyDetails: boolean;
      hasWatchedOnboardingVideo: boolean;
    }
  | { status: "refused"; refusal: Refusal; reason: string };

const refused = (reason: string, refusal: Refusal = new Refusal("sso-failed")): CompleteSingleSignOnResult => ({
  status: "refused",
  reason,
  refusal,
});

/**
 * The callback: `query` is what the provider appended to the redirect URI, `browserState` the
 * state the browser kept since the start. Any mismatch (state, a used or expired flow, a code the
 * provider refuses, an ID token that fails a check) is refused and changes nothing but the flow,
 * which is gone either way.
 */
export async function completeSingleSignOn(
  db: Db,
  keys: SingleSignOnKeys,
  input: { query: string; browserState: string; redirectUri: string },
  now: Date,
  origin?: LoginOrigin,
): Promise<CompleteSingleSignOnResult> {
  const params = new URLSearchParams(input.query.startsWith("?") ? input.query.slice(1) : input.query);
  const state = params.get("state") ?? "";
  // The state in the address must be the one this browser was sent off with (login CSRF).
  if (!state || state !== input.browserState) return refused("state");
  // Claimed once: a replayed callback (the same code and state again) finds no row.
  const [flow] = await db
    .delete(singleSignOnFlows)
    .where(eq(singleSignOnFlows.stateHash, sha256Hex(state)))
    .returning();
  if (!flow) return refused("flow_unknown");
  if (flow.expiresAt.getTime() <= now.getTime()) return refused("flow_expired");
  if (params.has("error")) return refused(`provider_error:${params.get("error")}`);
  const settings = await providerOf(db, keys, flow.companyId);
  if (!settings) return refused("not_configured");

  let claims: oidc.IDToken;
  try {
    const config = await discover(settings, input.redirectUri, now);
    const callback = new URL(input.redirectUri);
    callback.search = params.toString();
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      expectedState: state,
      expectedNonce: flow.nonce,
      pkceCodeVerifier: flow.codeVerifier,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) return refused("no_id_token");
    claims = await withEmailClaims(config, idClaims, tokens.access_token);
  } catch (error) {
    const reason = error instanceof Error ? `token:${(error as { code?: string }).code ?? error.name}` : "token";
    return refused(reason);
  }

  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  if (!email) return refused("no_email", new Refusal("sso-no-email"));
  if (claims.email_verified !== true) return refused("email_not_verified", new Refusal("sso-email-not-verified"));
  const [covered] = await db
    .select({ id: singleSignOnDomains.id })
    .from(singleSignOnDomains)
    .where(and(eq(singleSignOnDomains.companyId, flow.companyId), eq(singleSignOnDomains.domain, emailDomain(email))));
  if (!covered) return refused("domain_not_covered", new Refusal("sso-domain-not-covered"));

  const sso = { sid: typeof claims.sid === "string" ? claims.sid : null, sub: claims.sub };
  const firstName = typeof claims.given_name === "string" && claims.given_name.trim() ? claims.given_name.trim() : "";
  const lastName = typeof claims.family_name === "string" && claims.family_name.trim() ? claims.family_name.trim() : "";
  try {
    return await db.transaction((tx) =>
      signInManager(
        tx,
        { companyId: flow.companyId, email, firstName, lastName, role: settings.newManagerRole, sso },
        now,
        origin,
      ),
    );
  } catch (error) {
    // Two first sign-ins of one address at once: the unique index of managers' addresses decides.
    if (isUniqueViolation(error)) return refused("concurrent_first_sign_in");
    throw error;
  }
}

/**
 * The ID token's claims, with the email claims (email, email_verified; names when missing) from
 * the UserInfo endpoint when the ID token lacks them: with the code flow a provider may return the
 * email scope's claims there only (OpenID Connect Core 1.0 §5.4). openid-client refuses a UserInfo
 * answer whose `sub` is not the ID token's (§5.3.2); the ID token keeps `sub`, `sid` and the rest.
 */
async function withEmailClaims(config: oidc.Configuration, idClaims: oidc.IDToken, accessToken: string) {
  if (typeof idClaims.email === "string" && idClaims.email_verified !== undefined) return idClaims;
  if (!config.serverMetadata().userinfo_endpoint) return idClaims;
  const info = await oidc.fetchUserInfo(config, accessToken, idClaims.sub);
  // The address and whether it is verified come as a pair, from one answer.
  return {
    ...idClaims,
    email: info.email,
    email_verified: info.email_verified,
    given_name: idClaims.given_name ?? info.given_name,
    family_name: idClaims.family_name ?? info.family_name,
  };
}

async function signInManager(
  tx: Tx,
  person: {
    companyId: number;
    email: string;
    firstName: string;
    lastName: string;
    role: ManagerRole;
    sso: { sid: string | null; sub: string };
  },
  now: Date,
  origin?: LoginOrigin,
): Promise<CompleteSingleSignOnResult> {
  const [existing] = await tx
    .select({
      id: users.id,
      companyId: users.companyId,
      hasWatchedOnboardingVideo: users.hasWatchedOnboardingVideo,
      emailVerifiedAt: users.emailVerifiedAt,
    })
    .from(users)
    .where(
      and(
        sql`lower(${users.email}) = lower(${person.email})`,
        eq(users.isActive, true),
        eq(users.role, "program_manager"),
      ),
    )
    .for("update");
  const [company] = await tx
    .select({ name: companies.name, detailsUpdatedAt: companies.detailsUpdatedAt })
    .from(companies)
    .where(eq(companies.id, person.companyId));
  if (!company) return refused("company_missing");

  let userId: number;
  let created = false;
  let hasWatchedOnboardingVideo = false;
  // Only active managers are matched (above). No active one: an invitation waiting for the address
  // is accepted through the provider; otherwise a manager an Owner removed stays removed until an
  // Owner invites them again (ADR 0046), and only then is someone new created.
  const invited = existing ? null : await acceptInviteThroughProvider(tx, person, now, origin);
  if (!existing && !invited && (await wasRemoved(tx, person.companyId, person.email))) {
    return refused("removed", new Refusal("sso-access-removed", { companyName: company.name }));
  }
  if (invited) {
    userId = invited.userId;
  } else if (existing) {
    // Matched by address, and only within the company whose provider vouched for it.
    if (existing.companyId !== person.companyId) return refused("other_company", new Refusal("sso-other-company"));
    userId = existing.id;
    hasWatchedOnboardingVideo = existing.hasWatchedOnboardingVideo;
    // The provider verified the address: a manager who never finished the email code is verified now.
    if (!existing.emailVerifiedAt) await tx.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, userId));
  } else {
    const fallbackName = person.email.slice(0, person.email.indexOf("@"));
    const [row] = await tx
      .insert(users)
      .values({
        companyId: person.companyId,
        firstName: person.firstName || fallbackName,
        lastName: person.lastName,
        email: person.email,
        // No password: this manager signs in through the provider (a reset can set one, unless SSO is required).
        passwordHash: null,
        role: "program_manager",
        managerRole: person.role,
        emailVerifiedAt: now,
        createdAt: now,
      })
      .returning({ id: users.id });
    if (!row) throw new Error("user insert returned no row");
    userId = row.id;
    created = true;
    await recordAudit(tx, {
      companyId: person.companyId,
      actorUserId: userId,
      action: "manager.joined_via_sso",
      subject: `user:${userId}`,
      data: { email: person.email, role: person.role },
      clientIp: origin?.clientIp ?? null,
      at: now,
    });
    const owners = await tx
      .select({ email: users.email, firstName: users.firstName })
      .from(users)
      .where(
        and(
          eq(users.companyId, person.companyId),
          eq(users.isActive, true),
          eq(users.managerRole, "owner"),
          sql`${users.id} <> ${userId}`,
        ),
      );
    for (const owner of owners) {
      await enqueueEmail(
        tx,
        singleSignOnManagerJoinedEmail({
          to: owner.email,
          ownerFirstName: owner.firstName,
          companyName: company.name,
          managerEmail: person.email,
          role: person.role,
        }),
      );
    }
  }
  // Who may sign in is decided in one place (sign-in.ts); the provider's sid and sub go with the token.
  const signedIn = await signIn(tx, { userId, method: "sso", origin, sso: person.sso }, now);
  if (signedIn.status !== "signed_in") return refused(`sign_in:${signedIn.status}`);
  return {
    status: "signed_in",
    userId,
    companyId: person.companyId,
    accessToken: signedIn.accessToken,
    created,
    hasProvidedCompanyDetails: company.detailsUpdatedAt !== null,
    hasWatchedOnboardingVideo,
  };
}

/** Whether the company has a removed (inactive) manager with the address, and no active one took it since. */
async function wasRemoved(tx: Tx, companyId: number, email: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.companyId, companyId),
        sql`lower(${users.email}) = lower(${email})`,
        eq(users.isActive, false),
        eq(users.role, "program_manager"),
      ),
    )
    .limit(1);
  return row !== undefined;
}

// ─── The provider's back-channel logout ─────────────────────────────────────────────────────

const LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** How far a logout token's `iat` may be from our clock (seconds). */
const LOGOUT_TOKEN_SKEW_SECONDS = 5 * 60;

type Jwk = JsonWebKey & { kid?: string; alg?: string; use?: string };

const SIGNATURE_ALGORITHMS: Record<string, { hash: string; padding?: number; dsa?: true }> = {
  RS256: { hash: "sha256" },
  RS384: { hash: "sha384" },
  RS512: { hash: "sha512" },
  PS256: { hash: "sha256", padding: constants.RSA_PKCS1_PSS_PADDING },
  ES256: { hash: "sha256", dsa: true },
  ES384: { hash: "sha384", dsa: true },
};

function decodePart(part: string | undefined): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether `token`'s signature is good under one of the provider's published keys. */
async function verifiedByProvider(config: oidc.Configuration, token: string) {
  const [headerPart, payloadPart, signaturePart] = token.split(".");
  const header = decodePart(headerPart);
  const algorithm = typeof header?.alg === "string" ? SIGNATURE_ALGORITHMS[header.alg] : undefined;
  const jwksUri = config.serverMetadata().jwks_uri;
  if (!header || !algorithm || !jwksUri || !signaturePart) return false;
  const url = new URL(jwksUri);
  // As for discovery: plain http only to this machine.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) return false;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: "error" });
  if (!response.ok) return false;
  const { keys } = (await response.json()) as { keys?: Jwk[] };
  const candidates = (keys ?? []).filter(
    (k) => (header.kid === undefined || k.kid === header.kid) && (k.use === undefined || k.use === "sig"),
  );
  const data = Buffer.from(`${headerPart}.${payloadPart}`);
  const signature = Buffer.from(signaturePart, "base64url");
  for (const jwk of candidates) {
    try {
      const key = createPublicKey({ key: jwk, format: "jwk" });
      const ok = verify(
        algorithm.hash,
        data,
        {
          key,
          ...(algorithm.padding ? { padding: algorithm.padding, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : {}),
          ...(algorithm.dsa ? { dsaEncoding: "ieee-p1363" as const } : {}),
        },
        signature,
      );
      if (ok) return true;
    } catch {
      // A key of another type than the algorithm's: try the next one.
    }
  }
  return false;
}

export type BackChannelLogoutResult = { status: "ended"; sessions: number } | { status: "refused"; reason: string };

/**
 * OpenID Connect Back-Channel Logout 1.0: the provider posts a signed logout token when someone
 * signs out there (or is disabled). It is checked as an ID token is — signature under the
 * provider's keys, issuer, audience (our client id), `iat` near our clock, the logout event, no
 * nonce — and the access tokens it names (by `sid`, or by `sub` when it has none) are revoked, in
 * the company whose provider and client it is. Their web sessions end at their next request
 * (the bearer check answers 401).
 */
export async function backChannelLogout(
  db: Db,
  keys: SingleSignOnKeys,
  logoutToken: string,
  now: Date,
  appUrl: string,
): Promise<BackChannelLogoutResult> {
  const claims = decodePart(logoutToken.split(".")[1]);
  if (!claims || logoutToken.split(".").length !== 3) return { status: "refused", reason: "malformed" };
  const issuer = typeof claims.iss === "string" ? claims.iss : "";
  const audiences = (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).filter(
    (a): a is string => typeof a === "string",
  );
  const sid = typeof claims.sid === "string" ? claims.sid : null;
  const sub = typeof claims.sub === "string" ? claims.sub : null;
  const events = claims.events as Record<string, unknown> | undefined;
  const iat = typeof claims.iat === "number" ? claims.iat : Number.NaN;
  const exp = typeof claims.exp === "number" ? claims.exp : null;
  const nowSeconds = now.getTime() / 1000;
  if (!issuer || audiences.length === 0 || (!sid && !sub)) return { status: "refused", reason: "claims" };
  if (!events || typeof events[LOGOUT_EVENT] !== "object" || "nonce" in claims) {
    return { status: "refused", reason: "not_a_logout_token" };
  }
  if (!(Math.abs(nowSeconds - iat) <= LOGOUT_TOKEN_SKEW_SECONDS) || (exp !== null && exp <= nowSeconds)) {
    return { status: "refused", reason: "time" };
  }
  const sameIssuer = (a: string) => a.replace(/\/+$/, "") === issuer.replace(/\/+$/, "");
  const configs = (
    await db
      .select({ companyId: singleSignOnConfigs.companyId, issuerUrl: singleSignOnConfigs.issuerUrl })
      .from(singleSignOnConfigs)
      .where(inArray(singleSignOnConfigs.clientId, audiences))
  ).filter((c) => sameIssuer(c.issuerUrl));
  // Issuer and client id are public: another company may have saved the same ones. Every candidate
  // whose provider's keys verify the token is tried, and the session ends in whichever company it
  // belongs to; stopping at the first one let another company switch this one's logout off.
  let sessions = 0;
  let verified = false;
  for (const { companyId } of configs) {
    const settings = await providerOf(db, keys, companyId);
    if (!settings) continue;
    let config: oidc.Configuration;
    try {
      config = await discover(settings, appUrl);
      if (!sameIssuer(config.serverMetadata().issuer)) continue;
      if (!(await verifiedByProvider(config, logoutToken))) continue;
    } catch {
      continue;
    }
    const ended = await db
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(
        and(
          eq(accessTokens.companyId, companyId),
          isNull(accessTokens.revokedAt),
          sid ? eq(accessTokens.ssoSessionId, sid) : eq(accessTokens.ssoSubject, sub ?? ""),
          ...(sid && sub ? [eq(accessTokens.ssoSubject, sub)] : []),
        ),
      )
      .returning({ id: accessTokens.id });
    verified = true;
    sessions += ended.length;
  }
  return verified ? { status: "ended", sessions } : { status: "refused", reason: "unknown_or_unsigned" };
}
