// Company details (docs/requirements.md §S2 Step 3, §S3): name, ABN, size and industry of the caller's own company.
// Saving them is what makes hasProvidedCompanyDetails true (details_updated_at is set). Once
// saved, only an Owner changes them (ADR 0022; the API checks the role), and every save is in
// the audit trail.
import { eq } from "drizzle-orm";
import type { Db } from "../../server/db/client.ts";
import { companies } from "../../server/db/schema.ts";
import { recordAudit } from "../audit/service.server.ts";
import type { CompanyDetailsResponse, CompanySize, Industry } from "../identity/schema.ts";

export interface CompanyDetailsInput {
  name: string;
  /** 11 digits, already checked (modules/companies/abn.ts). */
  abn: string;
  size: CompanySize;
  industry: Industry;
}

/** Who saves the details, for the audit trail: the manager and the address they called from. */
export interface CompanyDetailsActor {
  userId: number;
  clientIp?: string | null;
}

/**
 * Updates the company of `companyId` (the caller's, from the access token); null if it is gone.
 * With an `actor` the save is recorded in the audit trail in the same transaction.
 */
export async function saveCompanyDetails(
  db: Db,
  companyId: number,
  input: CompanyDetailsInput,
  now: Date,
  actor?: CompanyDetailsActor,
): Promise<CompanyDetailsResponse | null> {
  const row = await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ name: companies.name, abn: companies.abn, size: companies.size, industry: companies.industry })
      .from(companies)
      .where(eq(companies.id, companyId))
      .for("update");
    if (!before) return undefined;
    const [saved] = await tx
      .update(companies)
      .set({ name: input.name, abn: input.abn, size: input.size, industry: input.industry, detailsUpdatedAt: now })
      .where(eq(companies.id, companyId))
      .returning({ id: companies.id });
    if (saved && actor) {
      await recordAudit(tx, {
        companyId,
        actorUserId: actor.userId,
        action: "settings.company_updated",
        subject: `company:${companyId}`,
        data: { from: before, to: input },
        clientIp: actor.clientIp,
        at: now,
      });
    }
    return saved;
  });
  if (!row) return null;
  return {
    id: row.id,
    name: input.name,
    ABN: input.abn,
    size: input.size,
    industry: input.industry,
    hasProvidedCompanyDetails: true,
  };
}

/** The company's details as saved (GET /Companies); null fields until onboarding saved them. */
export async function getCompanyDetails(db: Db, companyId: number) {
  const [row] = await db
    .select({
      id: companies.id,
      name: companies.name,
      abn: companies.abn,
      size: companies.size,
      industry: companies.industry,
      detailsUpdatedAt: companies.detailsUpdatedAt,
    })
    .from(companies)
    .where(eq(companies.id, companyId));
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    ABN: row.abn ?? "",
    size: (row.size ?? "") as CompanySize | "",
    industry: (row.industry ?? "") as Industry | "",
    hasProvidedCompanyDetails: row.detailsUpdatedAt !== null,
  };
}
