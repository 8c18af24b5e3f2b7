// Company details (SPEC §2 Step 3, §3): name, ABN, size and industry of the caller's own company.
// Saving them is what makes hasProvidedCompanyDetails true (details_updated_at is set).
import { eq } from "drizzle-orm";
import type { CompanyDetailsResponse, CompanySize, Industry } from "../../core/account-forms.ts";
import type { Db } from "../db/client.ts";
import { companies } from "../db/schema.ts";

export interface CompanyDetailsInput {
  name: string;
  /** 11 digits, already checked (core/abn.ts). */
  abn: string;
  size: CompanySize;
  industry: Industry;
}

/** Updates the company of `companyId` (the caller's, from the access token); null if it is gone. */
export async function saveCompanyDetails(
  db: Db,
  companyId: number,
  input: CompanyDetailsInput,
  now: Date,
): Promise<CompanyDetailsResponse | null> {
  const [row] = await db
    .update(companies)
    .set({ name: input.name, abn: input.abn, size: input.size, industry: input.industry, detailsUpdatedAt: now })
    .where(eq(companies.id, companyId))
    .returning({ id: companies.id });
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
