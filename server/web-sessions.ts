// The database half of the web session (docs/requirements.md §D2): rows keyed by a random id that the
// browser's httpOnly cookie carries. The web app turns this into a React Router SessionStorage
// (app/lib/session.server.ts). A session holds the manager's bearer token, so its data is kept
// sealed (AES-256-GCM, with a key derived from SESSION_SECRET: domain/secret-seal.ts): no raw
// token stays in the table (docs/requirements.md §D7), and a copy of the table alone opens no account.
import { randomBytes } from "node:crypto";
import { and, eq, gt, lte, or, sql } from "drizzle-orm";
import type { WebSessionStore } from "../app/context.ts";
import type { Db } from "./db/client.ts";
import { preparedOnce } from "./db/prepared.ts";
import { webSessions } from "./db/schema.ts";
import { secretSeal } from "./secret-seal.ts";

/** How long a session lives without a new login: the access token's lifetime (12 h). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** What a row's data column holds: the session data, encrypted and authenticated. */
type Sealed = {
  sealed: string;
};

export function sessionSealer(secret: string) {
  const sealer = secretSeal(secret, "rewards web session data");
  return {
    // The row's id is authenticated with the data: sealed data moved to another row does not open.
    seal(data: Record<string, unknown>, id: string): Sealed {
      return { sealed: sealer.seal(JSON.stringify(data), id) };
    },
    /** The data, or null for a row that is not sealed with this secret (then there is no session). */
    open(stored: unknown, id: string): Record<string, unknown> | null {
      const text = (stored as Partial<Sealed> | null)?.sealed;
      if (typeof text !== "string") return null;
      const json = sealer.open(text, id);
      if (json === null) return null;
      try {
        return JSON.parse(json) as Record<string, unknown>;
      } catch {
        return null;
      }
    },
  };
}

/**
 * The signed-in manager of a session's data (app/lib/session.server.ts keeps `user.id`), kept
 * beside the sealed data so removing a manager can delete their sessions at once (ADR 0022 §4).
 */
function sessionUserId(data: Record<string, unknown>): number | null {
  const id = (data.user as { id?: unknown } | undefined)?.id;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
}

// Read on every signed-in request: built and prepared once (no query building per request).
const sessionRowOf = preparedOnce((db) =>
  db
    .select({ data: webSessions.data })
    .from(webSessions)
    .where(and(eq(webSessions.id, sql.placeholder("id")), gt(webSessions.expiresAt, sql.placeholder("now"))))
    .prepare("web_session_read"),
);

export function webSessionStore(db: Db, secret: string, now: () => Date = () => new Date()): WebSessionStore {
  const expiry = (expires?: Date) => expires ?? new Date(now().getTime() + SESSION_TTL_MS);
  const sealer = sessionSealer(secret);
  return {
    async create(data, expires) {
      const id = randomBytes(32).toString("base64url");
      await db
        .insert(webSessions)
        .values({ id, data: sealer.seal(data, id), userId: sessionUserId(data), expiresAt: expiry(expires) });
      return id;
    },
    async read(id) {
      const [row] = await sessionRowOf(db).execute({ id, now: now() });
      return row ? sealer.open(row.data, id) : null;
    },
    async update(id, data, expires) {
      const sealed = sealer.seal(data, id);
      const userId = sessionUserId(data);
      // Upsert: a session flashed after its row expired is recreated under the same id.
      await db
        .insert(webSessions)
        .values({ id, data: sealed, userId, expiresAt: expiry(expires) })
        .onConflictDoUpdate({ target: webSessions.id, set: { data: sealed, userId, expiresAt: expiry(expires) } });
    },
    async delete(id) {
      await db.delete(webSessions).where(eq(webSessions.id, id));
    },
  };
}

/**
 * Removes expired sessions, and any session stored unsealed (an earlier version kept the bearer
 * token in the clear); run at start and now and then.
 */
export async function sweepExpiredSessions(db: Db, now = new Date()): Promise<void> {
  await db.delete(webSessions).where(or(lte(webSessions.expiresAt, now), sql`not (${webSessions.data} ? 'sealed')`));
}
