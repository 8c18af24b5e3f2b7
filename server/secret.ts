import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "./db/client.ts";
import { appSettings } from "./db/schema.ts";

const KEY = "session_secret";

/** SESSION_SECRET when set; otherwise a random secret generated once and kept in the database. */
export async function resolveSessionSecret(
  db: Db,
  configured: string | undefined,
): Promise<{ secret: string; generated: boolean }> {
  if (configured) return { secret: configured, generated: false };
  await db
    .insert(appSettings)
    .values({ key: KEY, value: randomBytes(32).toString("base64url") })
    .onConflictDoNothing();
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, KEY));
  if (!row) throw new Error("could not store the generated session secret");
  return { secret: row.value, generated: true };
}
