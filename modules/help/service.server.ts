import type { Db } from "../../server/db/client.ts";
import { helpRequests } from "../../server/db/schema.ts";
import { enqueueEmail } from "../../server/mail/outbox.ts";
import { helpRequestEmail } from "../../server/mail/templates/support.ts";

export interface HelpRequestInput {
  firstName: string;
  lastName: string;
  email: string;
  message: string;
  userId?: number;
  /** The signed-in sender's company (the portal's Help form). */
  companyId?: number;
}

/** Stores the request and queues the email to support in one transaction: neither exists alone. */
export async function createHelpRequest(db: Db, supportEmail: string, input: HelpRequestInput): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(helpRequests).values(input).returning({ id: helpRequests.id });
    if (!row) throw new Error("help request insert returned no row");
    await enqueueEmail(
      tx,
      helpRequestEmail({
        to: supportEmail,
        id: row.id,
        firstName: input.firstName,
        lastName: input.lastName,
        email: input.email,
        message: input.message,
      }),
    );
    return row.id;
  });
}
