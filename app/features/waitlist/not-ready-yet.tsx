// The waitlist (docs/requirements.md §S2 waitlist page, §S5 waitlist rules, §S8): banner, the form with the
// required terms box (Terms and Privacy open in dialogs), then 'Thank You!' after joining.

import { getFormProps } from "@conform-to/react";
import { useState } from "react";
import { Form, href, redirect, useSearchParams } from "react-router";
import { waitlistFormSchema } from "../../../core/public-forms.ts";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { useSite } from "../../root.tsx";
import { Banner } from "../../ui/banner.tsx";
import { useCaptcha } from "../../ui/captcha.tsx";
import { UrlDialog } from "../../ui/dialog.tsx";
import {
  CheckboxField,
  CsrfInput,
  FormAlert,
  FormSuccess,
  SubmitButton,
  TextField,
  useFormSubmit,
} from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";
import { PrivacyContent, TermsContent, usePolicyDialogs } from "../policies/policy-dialog-content.tsx";
import { PublicLayout } from "../site/public-layout.tsx";
import type { Route } from "./+types/not-ready-yet";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

const ACTION = href("/not-ready-yet");

export const meta: Route.MetaFunction = () => [
  { title: "Join the Waitlist ... Get Early Access" },
  {
    name: "description",
    content: "Not ready yet? Join the waitlist to stay updated on product updates and exclusive tips.",
  },
];

export async function action({ context, request }: Route.ActionArgs) {
  const { submission, usedChallenge } = (await readPostedForm(context, request)).parse(waitlistFormSchema);
  if (submission.status !== "success") return replyInvalid(submission, usedChallenge);
  const json = submission.value;
  const result = await createApiClient(context).call((api) => api.WaitList.$post({ json }));
  if (!result.ok) return replyFailure(submission, result, { shown: inApiWords("waitlist-duplicate"), usedChallenge });
  throw redirect(`${ACTION}?joined=1`);
}

export default function Waitlist({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const joined = searchParams.get("joined") === "1";

  return (
    <PublicLayout>
      <Banner title="Not Ready?" subtitle="Enter your details to stay updated on product updates and exclusive tips" />
      <div className="mx-auto max-w-2xl px-4 py-12 md:py-16">
        <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-8">
          {joined ? <Joined /> : <WaitlistForm reply={actionData} />}
        </div>
      </div>
    </PublicLayout>
  );
}

const linkClass =
  "font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

const constraint = formConstraint(waitlistFormSchema);

function WaitlistForm({ reply }: { reply?: FormReply }) {
  const hydrated = useHydrated();
  // Without JavaScript the links lead to the policy pages; ?dialog=terms also opens the dialog here.
  const { terms, privacy } = usePolicyDialogs("#waitlist-heading");
  const captcha = useCaptcha({ action: "waitlist", reply });
  const { onSubmit, busy, clientError } = useFormSubmit(ACTION, captcha);
  const [form, fields] = useSchemaForm(waitlistFormSchema, {
    id: "waitlist-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const [termsTicked, setTermsTicked] = useState(fields.terms.initialValue === "on");
  const alerts = [...(form.errors ?? []), ...(clientError ? [clientError] : [])];

  return (
    <>
      <h2 id="waitlist-heading" className="mb-6 text-2xl font-bold text-brand-800 md:text-3xl">
        We'll keep you updated…
      </h2>
      <Form method="post" action={ACTION} preventScrollReset {...getFormProps(form)} className="space-y-4">
        <CsrfInput />
        <HoneypotInputs />
        <FormAlert messages={alerts} focusKey={reply ?? clientError} focus={!hasFieldErrors(reply?.result)} />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField field={fields.firstName} label="First Name" autoComplete="given-name" />
          <TextField field={fields.lastName} label="Last Name" autoComplete="family-name" />
        </div>
        <TextField field={fields.email} label="Email" type="email" autoComplete="email" />
        <TextField field={fields.companyName} label="Company Name" autoComplete="organization" />
        <CheckboxField field={fields.terms} onCheckedChange={setTermsTicked} className="pt-2">
          I agree to the{" "}
          <a {...terms.linkProps} className={linkClass}>
            Terms and Conditions
          </a>{" "}
          and the{" "}
          <a {...privacy.linkProps} className={linkClass}>
            Privacy Policy
          </a>
          .
        </CheckboxField>
        {captcha.element}
        <SubmitButton
          busy={busy}
          disabled={(hydrated && !termsTicked) || captcha.blocksSubmit}
          className="w-full sm:w-auto"
        >
          Join the Waitlist
        </SubmitButton>
      </Form>
      <UrlDialog control={terms} title="Terms and Conditions">
        <TermsContent headingLevel={3} />
      </UrlDialog>
      <UrlDialog control={privacy} title="Privacy Policy">
        <PrivacyContent headingLevel={3} />
      </UrlDialog>
    </>
  );
}

function Joined() {
  const { companyProfileUrl } = useSite();
  return (
    <FormSuccess title="Thank You!">
      <p className="text-slate-700">
        You&rsquo;re on the waitlist. We&rsquo;ll be in touch with product updates, exclusive tips and your early
        access.
      </p>
      <a
        href={companyProfileUrl}
        target="_blank"
        rel="noopener noreferrer"
        className="inline-flex min-h-11 items-center rounded-md bg-brand-700 px-6 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        Follow us on LinkedIn
        <span className="sr-only"> (opens in a new tab)</span>
      </a>
    </FormSuccess>
  );
}
