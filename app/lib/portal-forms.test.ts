// The browser rules of the portal forms (portal-forms.ts, kept free of zod) must give the
// server's messages (core/account-forms.ts companyDetailsSchema, helpSchema) for the same input.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { COMPANY_SIZES, companyDetailsSchema, helpSchema, INDUSTRIES } from "../../core/account-forms.ts";
import { validateWithRules } from "./forms.ts";
import {
  COMPANY_SIZE_OPTIONS,
  INDUSTRY_OPTIONS,
  PORTAL_CONTACT_RULES,
  type PortalContactFields,
  validateCompanyDetails,
} from "./portal-forms.ts";

/** A submission's field errors ({} when it passed). */
function errorsOf(submission: { status?: string; error?: unknown }) {
  return submission.status === "error" ? submission.error : {};
}

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.append(name, value);
  return data;
}

const COMPANY_SAMPLES: Record<string, string>[] = [
  {},
  { name: "", ABN: "", size: "", industry: "" },
  { name: " ", ABN: " ", size: "1-10", industry: "Retail" },
  { name: "Acme", ABN: "1234", size: "11-50", industry: "Other" },
  { name: "Acme", ABN: "123456789012", size: "11-50", industry: "Other" },
  { name: "Acme", ABN: "5182475355a", size: "11-50", industry: "Other" },
  { name: "Acme", ABN: "51 824 753 556", size: "11-50", industry: "Other" },
  { name: "Acme", ABN: "12345678901", size: "51-200", industry: "Finance" },
  { name: "Acme", ABN: "51824753556", size: "", industry: "" },
  { name: "x".repeat(101), ABN: "51824753556", size: "1-10", industry: "Retail" },
  { name: "Acme Pty Ltd", ABN: "51824753556", size: "1001-5000", industry: "Transportation and Logistics" },
];

describe("company details in the browser", () => {
  it.each(COMPANY_SAMPLES)("gives the server's messages for %j", (entries) => {
    const browser = validateCompanyDetails(form(entries));
    const server = parseWithZod(form(entries), { schema: companyDetailsSchema });
    expect(errorsOf(browser)).toEqual(errorsOf(server));
  });

  it("offers SPEC's options, sizes shown as 'N employees'", () => {
    expect(COMPANY_SIZE_OPTIONS.map((o) => o.value)).toEqual([...COMPANY_SIZES]);
    expect(COMPANY_SIZE_OPTIONS.map((o) => o.label)).toEqual(COMPANY_SIZES.map((size) => `${size} employees`));
    expect(INDUSTRY_OPTIONS.map((o) => o.value)).toEqual([...INDUSTRIES]);
  });
});

describe("signed-in contact form in the browser", () => {
  it.each(["", "   ", "Hello", "x".repeat(256), "x".repeat(257)])("gives the server's message for %j", (message) => {
    const browser = validateWithRules<PortalContactFields>(form({ message }), PORTAL_CONTACT_RULES);
    const server = parseWithZod(form({ message }), { schema: helpSchema });
    expect(errorsOf(browser)).toEqual(errorsOf(server));
  });
});
