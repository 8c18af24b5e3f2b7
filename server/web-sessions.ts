// The database half of the web session (DESIGN.md §2): rows keyed by a random id that the
// browser's httpOnly cookie carries. The web app turns this into a React Router SessionStorage
// (app/lib/session.server.ts).
import { randomBytes } from "node:crypto";
import { and, eq, gt, lte } from "drizzle-orm";
import type { WebSessionStore } from "../app/context.ts";
import type { Db } from "./db/client.ts";
import { webSessions } from "./db/schema.ts";

/** How long a session lives without a new login: the access token's lifetime (12 h). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export function webSessionStore(db: Db, now: () => Date = () => new Date()): WebSessionStore {
  const expiry = (expires?: Date) => expires ?? new Date(now().getTime() + SESSION_TTL_MS);
  return {
    async create(data, expires) {
      const id = randomBytes(32).toString("base64url");
      await db.insert(webSessions).values({ id, data, expiresAt: expiry(expires) });
      return id;
    },
    async read(id) {
      const [row] = await db
        .select({ data: webSessions.data })
        .from(webSessions)
        .where(and(eq(webSessions.id, id), gt(webSessions.expiresAt, now())));
      return row?.data ?? null;
    },
    async update(id, data, expires) {
      // Upsert: a session flashed after its row expired is recreated under the same id.
      await db
        .insert(webSessions)
        .values({ id, data, expiresAt: expiry(expires) })
        .onConflictDoUpdate({ target: webSessions.id, set: { data, expiresAt: expiry(expires) } });
    },
    async delete(id) {
      await db.delete(webSessions).where(eq(webSessions.id, id));
    },
  };
}

/** Removes expired sessions; run at start and now and then. */
export async function sweepExpiredSessions(db: Db, now = new Date()): Promise<void> {
  await db.delete(webSessions).where(lte(webSessions.expiresAt, now));
}
