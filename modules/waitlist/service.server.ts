import type { Db } from "../../server/db/client.ts";
import { waitlistEntries } from "../../server/db/schema.ts";

export interface WaitlistInput {
  firstName: string;
  lastName: string;
  email: string;
  companyName: string;
  isOptedIn: boolean;
}

/** Adds the address to the waitlist once; "duplicate" when it is already there (any letter case). */
export async function joinWaitlist(db: Db, input: WaitlistInput): Promise<"added" | "duplicate"> {
  const inserted = await db
    .insert(waitlistEntries)
    .values(input)
    // The only unique key is lower(email), so a conflict means "already on the list".
    .onConflictDoNothing()
    .returning({ id: waitlistEntries.id });
  return inserted.length > 0 ? "added" : "duplicate";
}
