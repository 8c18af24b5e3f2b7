// A company's API keys (ADR 0028): an Owner creates, lists and revokes them; a system presents one
// to /api/v1 and acts for the company with the Manager role. A key is `rk_` and 32 random bytes
// (base64url), answered once at creation; only its SHA-256 is stored (256 random bits need no
// slow hash: there is nothing to guess), with its first characters for the list. Verifying a key
// is one indexed read; `last_used_at` is written at most once a minute and an `api_key.used`
// audit entry at most once an hour per key, so a busy integration does not write on every call.
import { and, desc, eq, isNull, lte, or } from "drizzle-orm";
import type { Db } from "../../server/db/client.ts";
import { apiKeys, users } from "../../server/db/schema.ts";
import { recordAudit } from "../audit/service.server.ts";
import { randomToken, sha256Hex } from "../identity/identity-crypto.server.ts";
import { API_KEY_PREFIX, API_KEY_SHOWN_CHARS, type ApiKeyView, type CreatedApiKey } from "./schema.ts";

/** Who acts on the keys: an Owner of the company (the API checks the role), and from where. */
export interface KeyActor {
  companyId: number;
  userId: number;
  clientIp?: string | null;
}

/** What a valid key stands for. */
export interface ApiKeyOwner {
  companyId: number;
  apiKeyId: number;
  createdBy: number;
}

/** `last_used_at` is brought up to date when it is older than this. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** One `api_key.used` audit entry per key per this long. */
export const USE_AUDIT_INTERVAL_MS = 60 * 60_000;

const KEY_PATTERN = /^rk_[A-Za-z0-9_-]{43}$/;

/** A new key: `rk_` and 32 random bytes, base64url (46 characters). */
export function newApiKey(): string {
  return `${API_KEY_PREFIX}${randomToken()}`;
}

export async function createApiKey(
  db: Db,
  actor: KeyActor,
  input: { name: string; expiresAt: Date | null },
  now: Date,
): Promise<CreatedApiKey> {
  const key = newApiKey();
  const prefix = key.slice(0, API_KEY_SHOWN_CHARS);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({
        companyId: actor.companyId,
        createdBy: actor.userId,
        name: input.name,
        prefix,
        keyHash: sha256Hex(key),
        createdAt: now,
        expiresAt: input.expiresAt,
      })
      .returning({ id: apiKeys.id });
    if (!row) throw new Error("api key insert returned no row");
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "api_key.created",
      subject: `api_key:${row.id}`,
      data: { name: input.name, prefix, expiresAt: input.expiresAt?.toISOString() ?? null },
      clientIp: actor.clientIp,
      at: now,
    });
    return {
      id: row.id,
      name: input.name,
      prefix,
      key,
      createdAt: now.toISOString(),
      expiresAt: input.expiresAt?.toISOString() ?? null,
    };
  });
}

/** The company's keys, newest first, revoked and expired ones too (never a key or its hash). */
export async function listApiKeys(db: Db, companyId: number): Promise<ApiKeyView[]> {
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      createdById: apiKeys.createdBy,
      firstName: users.firstName,
      lastName: users.lastName,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      monthlyBudgetCents: apiKeys.monthlyBudgetCents,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdBy))
    .where(eq(apiKeys.companyId, companyId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.createdAt.toISOString(),
    createdBy: { id: r.createdById, name: `${r.firstName} ${r.lastName}`.trim() },
    lastUsedAt: iso(r.lastUsedAt),
    expiresAt: iso(r.expiresAt),
    revokedAt: iso(r.revokedAt),
    monthlyBudgetCents: r.monthlyBudgetCents,
  }));
}

/**
 * Revokes a key of the actor's company: false when the company has no such key (another
 * company's is not found either). Revoking twice is the same revocation (a double submit).
 */
export async function revokeApiKey(db: Db, actor: KeyActor, apiKeyId: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [key] = await tx
      .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.companyId, actor.companyId)))
      .for("update");
    if (!key) return false;
    if (key.revokedAt) return true;
    await tx.update(apiKeys).set({ revokedAt: now, revokedBy: actor.userId }).where(eq(apiKeys.id, key.id));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "api_key.revoked",
      subject: `api_key:${key.id}`,
      data: { name: key.name, prefix: key.prefix },
      clientIp: actor.clientIp,
      at: now,
    });
    return true;
  });
}

/**
 * The company a presented key acts for, or null when it is unknown, revoked or expired. Marks the
 * key used (at most once a minute) and records the use in the audit trail (at most once an hour),
 * each with a conditional update, so concurrent calls write one entry between them.
 */
export async function verifyApiKey(
  db: Db,
  key: string,
  now: Date,
  clientIp?: string | null,
): Promise<ApiKeyOwner | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const [row] = await db
    .select({
      id: apiKeys.id,
      companyId: apiKeys.companyId,
      createdBy: apiKeys.createdBy,
      prefix: apiKeys.prefix,
      lastUsedAt: apiKeys.lastUsedAt,
      lastAuditedAt: apiKeys.lastAuditedAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(key)));
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now.getTime())) return null;
  const stale = (at: Date | null, ms: number) => !at || now.getTime() - at.getTime() >= ms;
  if (stale(row.lastUsedAt, LAST_USED_RESOLUTION_MS)) {
    const before = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lte(apiKeys.lastUsedAt, before))));
  }
  if (stale(row.lastAuditedAt, USE_AUDIT_INTERVAL_MS)) {
    const before = new Date(now.getTime() - USE_AUDIT_INTERVAL_MS);
    await db.transaction(async (tx) => {
      const claimed = await tx
        .update(apiKeys)
        .set({ lastAuditedAt: now })
        .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastAuditedAt), lte(apiKeys.lastAuditedAt, before))))
        .returning({ id: apiKeys.id });
      if (claimed.length === 0) return;
      await recordAudit(tx, {
        companyId: row.companyId,
        actorUserId: null,
        action: "api_key.used",
        subject: `api_key:${row.id}`,
        data: { prefix: row.prefix },
        clientIp: clientIp ?? null,
        at: now,
      });
    });
  }
  return { companyId: row.companyId, apiKeyId: row.id, createdBy: row.createdBy };
}
