// Who counts as a team member, for every query that reads or locks one (docs/requirements.md §S2 My Team,
// Reward My Team): the team domain and the reward draft must agree on it.
import { and, eq, type Placeholder, sql } from "drizzle-orm";
import type { Tx } from "../../server/db/client.ts";
import { users } from "../../server/db/schema.ts";
import { col, rowsOf, unnestRows } from "../../server/db/sql.ts";

/** The company's active team members: never a program manager, never another company's. */
export const activeMemberOf = (companyId: number | Placeholder) =>
  and(eq(users.companyId, companyId), eq(users.isActive, true), eq(users.role, "member"));

/** A recipient matched to (or made) a team member. */
export interface MatchedMember {
  id: number;
  email: string;
  /** An existing member keeps their names; a new one has the row's. */
  firstName: string;
  lastName: string;
  /** Made by this call. */
  created: boolean;
}

/**
 * The rows as team members of the company, in the order given (the reward CSV import's and the
 * API order's rule, ADR 0044): an active user with the address (any letter case) is that member,
 * keeping their names; a new address becomes an active member with the row's names; a program
 * manager's address calls `onManagerEmail` with its row's index, which must throw (only team
 * members are rewarded). Locked FOR SHARE, so a removal waits for the caller's commit.
 * Set-based: a few queries whatever the count (the insert reads unnest(arrays)).
 */
export async function matchOrCreateMembers(
  tx: Tx,
  companyId: number,
  rows: readonly { email: string; firstName: string; lastName: string }[],
  now: Date,
  onManagerEmail: (index: number) => never,
): Promise<MatchedMember[]> {
  const keys = rows.map((r) => r.email.toLowerCase());
  const byKey = new Map<string, MatchedMember>();
  const lockActive = async (addresses: string[]): Promise<number> => {
    const found = await tx
      .select({
        id: users.id,
        email: users.email,
        role: users.role,
        firstName: users.firstName,
        lastName: users.lastName,
      })
      .from(users)
      .where(
        and(
          eq(users.companyId, companyId),
          eq(users.isActive, true),
          sql`lower(${users.email}) = any(${sql.param(addresses)}::text[])`,
        ),
      )
      .for("share");
    for (const row of found) {
      const key = row.email.toLowerCase();
      if (row.role !== "member") onManagerEmail(keys.indexOf(key));
      byKey.set(key, {
        id: row.id,
        email: row.email,
        firstName: row.firstName,
        lastName: row.lastName,
        created: false,
      });
    }
    return found.length;
  };
  await lockActive(keys);
  // New addresses in address order: two calls sharing new addresses take the unique index's
  // locks in one order, so one waits for the other instead of deadlocking. A member added by
  // another call at this very moment conflicts on the unique index and is read back below.
  const fresh = rows
    .filter((r) => !byKey.has(r.email.toLowerCase()))
    .sort((x, y) => (x.email.toLowerCase() < y.email.toLowerCase() ? -1 : 1));
  if (fresh.length > 0) {
    // One INSERT ... SELECT FROM unnest(arrays): 3 array parameters whatever the row count
    // (3× faster than multi-row VALUES on PGlite for 5,000 rows).
    const inserted = rowsOf<{ id: string | number; email: string; first_name: string; last_name: string }>(
      await tx.execute(sql`
        insert into ${users} (${col(users.companyId)}, ${col(users.firstName)}, ${col(users.lastName)}, ${col(users.email)}, ${col(users.role)}, ${col(users.createdAt)})
        select ${companyId}, t.first_name, t.last_name, t.email, 'member', ${now.toISOString()}::timestamptz
        from ${unnestRows("t", {
          first_name: { type: "text", values: fresh.map((r) => r.firstName) },
          last_name: { type: "text", values: fresh.map((r) => r.lastName) },
          email: { type: "text", values: fresh.map((r) => r.email) },
        })}
        order by t.n
        on conflict do nothing
        returning ${col(users.id)}, ${col(users.email)}, ${col(users.firstName)}, ${col(users.lastName)}`),
    );
    for (const row of inserted) {
      byKey.set(row.email.toLowerCase(), {
        id: Number(row.id),
        email: row.email,
        firstName: row.first_name,
        lastName: row.last_name,
        created: true,
      });
    }
  }
  const missing = keys.filter((k) => !byKey.has(k));
  if (missing.length > 0 && (await lockActive(missing)) !== missing.length) {
    throw new Error("a new team member could not be added");
  }
  return keys.map((k) => byKey.get(k) as MatchedMember);
}
