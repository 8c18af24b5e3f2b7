// The browser rules of the portal's forms (the conventions of forms.ts): the company-details
// onboarding form (SPEC §5 company details) and the signed-in Contact Us form (message only).
// No zod here: the same messages as core/account-forms.ts, which the route actions parse with;
// the option lists come from core/company.ts, which both sides import.
import { parse } from "@conform-to/react";
import { ABN_LENGTH, ABN_MESSAGES, abnProblem } from "../../core/abn.ts";
import { COMPANY_SIZES, INDUSTRIES } from "../../core/company.ts";
import { checkField, FIELD_LIMITS, type FormRules } from "./forms.ts";

export const COMPANY_SIZE_OPTIONS = COMPANY_SIZES.map((size) => ({ value: size, label: `${size} employees` }));
export const INDUSTRY_OPTIONS = INDUSTRIES.map((industry) => ({ value: industry, label: industry }));

/** SPEC §8: the placeholder of every select. */
export const SELECT_PLACEHOLDER = "Select...";

export type CompanyDetailsFields = { name: string; ABN: string; size: string; industry: string };

/** The company-details form; the field names are the API's (PUT /api/Companies/). */
export const COMPANY_DETAILS_RULES = {
  name: { label: "Company Name", required: true, maxLength: FIELD_LIMITS.companyName },
  // maxLength caps the input at 11 characters (SPEC §5); the value is checked by abnProblem below.
  ABN: { label: "ABN", required: true, maxLength: ABN_LENGTH, requiredMessage: ABN_MESSAGES.required },
  size: { label: "Company Size", required: true, requiredMessage: "Enterprise size is required." },
  industry: { label: "Industry", required: true, requiredMessage: "Industry is required." },
} satisfies FormRules;

function abnMessages(raw: unknown): string[] | undefined {
  const problem = abnProblem(typeof raw === "string" ? raw : "");
  return problem ? [problem] : undefined;
}

/** conform's `onValidate` for the company-details form. */
export function validateCompanyDetails(formData: FormData) {
  return parse<CompanyDetailsFields, string[]>(formData, {
    resolve(payload) {
      const error: Record<string, string[]> = {};
      for (const [name, rule] of Object.entries(COMPANY_DETAILS_RULES)) {
        // The ABN's own rules (core/abn.ts) allow the spaces people type between the digit groups.
        const messages = name === "ABN" ? abnMessages(payload.ABN) : checkField(rule, payload[name]);
        if (messages) error[name] = messages;
      }
      return Object.keys(error).length > 0 ? { error } : { value: payload as CompanyDetailsFields };
    },
  });
}

export type PortalContactFields = { message: string };

/** The signed-in Contact Us form (SPEC §5 contact): the message only. */
export const PORTAL_CONTACT_RULES = {
  message: {
    label: "Message",
    required: true,
    maxLength: FIELD_LIMITS.message,
    maxLengthMessage: "Message must be less than 256 characters.",
  },
} satisfies FormRules;
