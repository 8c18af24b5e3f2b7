// Company-details onboarding (docs/requirements.md §S2 Company-details onboarding, §S3 options, §S5 rules): the
// 'Step 3: Add Your Company Details' screen and its form, posted to the onboarding route's
// action, which saves through PUT /api/Companies/ and redirects to the dashboard. The portal
// layout shows this screen in place of any portal page until the details are saved.

import { getFormProps, getInputProps } from "@conform-to/react";
import { Form, href } from "react-router";
import { ABN_LENGTH } from "../../core/limits.ts";
import { companyDetailsSchema } from "../../modules/identity/schema.ts";
import {
  COMPANY_SIZE_OPTIONS,
  type FormReply,
  formConstraint,
  hasFieldErrors,
  INDUSTRY_OPTIONS,
} from "../lib/forms.ts";
import { useSchemaForm } from "../lib/use-schema-form.ts";
import {
  CsrfInput,
  FieldError,
  FormAlert,
  SelectField,
  SubmitButton,
  TextField,
  useFormSubmit,
} from "./form-fields.tsx";
import { HoneypotInputs } from "./honeypot-inputs.tsx";
import { OnboardingSteps } from "./onboarding-steps.tsx";

export const COMPANY_DETAILS_ACTION = href("/portal/onboarding-add-company-details");

// docs/requirements.md §S5 caps the ABN input at 11 characters; the API also takes the spaced "51 824 753 556".
const constraint = formConstraint(companyDetailsSchema, { ABN: { required: true, maxLength: ABN_LENGTH } });

const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";

/** The onboarding screen's body: where the person is in the four steps, and the form. */
export function CompanyDetailsStep({ companyName, reply }: { companyName: string; reply?: FormReply }) {
  return (
    <div className="mx-auto grid max-w-5xl gap-8 px-4 py-8 md:grid-cols-[17rem_minmax(0,1fr)] md:py-12">
      <OnboardingSteps current={3} />
      <section
        aria-labelledby="company-step-heading"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-8"
      >
        <h2 id="company-step-heading" className="text-2xl font-bold text-brand-800 md:text-3xl">
          Step 3: Add Your Company Details
        </h2>
        <CompanyDetailsForm companyName={companyName} reply={reply} />
      </section>
    </div>
  );
}

/** Where the form is used besides onboarding (Settings › Company): its address, values and texts. */
export interface CompanyDetailsFormOptions {
  action?: string;
  /** The saved details, shown for editing. */
  saved?: { ABN: string; size: string; industry: string };
  heading?: string;
  /** The heading's level: 2 where the form is the page's only section (Settings › Company). */
  headingLevel?: 2 | 3;
  submitLabel?: string;
  /** The line beside the button; onboarding's names the video that follows. */
  note?: string | null;
  /** The form's own classes: onboarding sets it apart from the step's heading above it. */
  className?: string;
}

export function CompanyDetailsForm({
  companyName,
  reply,
  action = COMPANY_DETAILS_ACTION,
  saved,
  heading = "Add Your Company Details",
  headingLevel = 3,
  submitLabel = "Save & Continue",
  note = "You'll have an onboarding video on the next screen →",
  className = "mt-6 space-y-4",
}: { companyName: string; reply?: FormReply } & CompanyDetailsFormOptions) {
  const { onSubmit, busy } = useFormSubmit(action);
  const [form, fields] = useSchemaForm(companyDetailsSchema, {
    id: "company-details-form",
    lastResult: reply?.result,
    defaultValue: { name: companyName, ...saved },
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const { key: abnKey, ...abnProps } = getInputProps(fields.ABN, { type: "text" });
  const Heading = headingLevel === 2 ? "h2" : "h3";

  return (
    <Form
      method="post"
      action={action}
      {...getFormProps(form)}
      aria-labelledby="company-form-heading"
      className={className}
    >
      <Heading id="company-form-heading" className="text-lg font-semibold text-slate-900">
        {heading}
      </Heading>
      <CsrfInput />
      <HoneypotInputs />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <TextField field={fields.name} label="Company Name" autoComplete="organization" />
      <div>
        <label htmlFor={fields.ABN.id} className={labelClass}>
          ABN
        </label>
        <input
          key={abnKey}
          {...abnProps}
          inputMode="numeric"
          autoComplete="off"
          aria-describedby={[abnProps["aria-describedby"], `${fields.ABN.id}-hint`].filter(Boolean).join(" ")}
          className={controlClass}
        />
        <p id={`${fields.ABN.id}-hint`} className="mt-1 text-sm text-slate-600">
          Your 11-digit Australian Business Number, digits only.
        </p>
        <FieldError id={fields.ABN.errorId} errors={fields.ABN.errors} />
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField field={fields.size} label="Company Size" options={COMPANY_SIZE_OPTIONS} />
        <SelectField field={fields.industry} label="Industry" options={INDUSTRY_OPTIONS} />
      </div>
      <div className="flex flex-col gap-3 pt-2 sm:flex-row sm:items-center sm:justify-between">
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          {submitLabel}
        </SubmitButton>
        {note ? <p className="text-sm font-medium text-slate-700">{note}</p> : null}
      </div>
    </Form>
  );
}
