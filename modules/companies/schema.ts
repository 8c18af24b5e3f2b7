// docs/requirements.md §S3's company option lists. Pure data, no zod: the browser bundle imports it too.

/** Company size options (docs/requirements.md §S3), shown as "<option> employees". */
export const COMPANY_SIZES = ["1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000"] as const;
export type CompanySize = (typeof COMPANY_SIZES)[number];

/** Industry options (docs/requirements.md §S3). */
export const INDUSTRIES = [
  "Automotive",
  "Construction",
  "Consumer Service",
  "Education",
  "Finance",
  "Government",
  "Healthcare",
  "Information Technology",
  "Manufacturing",
  "Real Estate",
  "Retail",
  "Telecommunications",
  "Transportation and Logistics",
  "Utilities",
  "Other",
] as const;
export type Industry = (typeof INDUSTRIES)[number];
