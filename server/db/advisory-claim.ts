// A claim on one item that several processes sharing a PostgreSQL database may reach for at once
// (an order to reconcile or to release at its time): a transaction-scoped advisory lock, tried
// and not waited for, so a second process skips the item instead of doing the slow part
// (processor calls, password hashing) twice. The claim holds no row lock, so the work's own
// transaction is not blocked by it; exactly-once is still the work's own guard.
import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";

/** Runs `work` only while this process holds the claim on (namespace, id); null when another holds it. */
export async function withAdvisoryClaim<T>(
  db: Db,
  namespace: number,
  id: number,
  work: () => Promise<T>,
): Promise<T | null> {
  return db.transaction(async (tx) => {
    const result = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(${namespace}::int, (${id}::bigint % 2147483647)::int) as claimed`,
    )) as unknown as { rows: { claimed: boolean }[] };
    if (!result.rows[0]?.claimed) return null;
    return work();
  });
}
