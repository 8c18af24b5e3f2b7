// Who counts as a team member, for every query that reads or locks one (SPEC §2 My Team,
// Reward My Team): the team domain and the reward draft must agree on it.
import { and, eq, type Placeholder } from "drizzle-orm";
import { users } from "../db/schema.ts";

/** The company's active team members: never a program manager, never another company's. */
export const activeMemberOf = (companyId: number | Placeholder) =>
  and(eq(users.companyId, companyId), eq(users.isActive, true), eq(users.role, "member"));
