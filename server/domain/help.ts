import type { Db } from "../db/client.ts";
import { helpRequests } from "../db/schema.ts";
import { enqueueEmail } from "../mail/outbox.ts";
import { renderEmail } from "../mail/templates.ts";

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
    const body = renderEmail({
      heading: `Help request #${row.id}`,
      paragraphs: [`${input.firstName} ${input.lastName} sent a message through the Contact Us form.`],
      details: [
        ["Name", `${input.firstName} ${input.lastName}`],
        ["Email", input.email],
        ["Message", input.message],
      ],
    });
    await enqueueEmail(tx, {
      to: supportEmail,
      subject: `Help request #${row.id} from ${input.firstName} ${input.lastName}`,
      ...body,
    });
    return row.id;
  });
}
