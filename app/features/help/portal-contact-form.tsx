// The signed-in Contact Us form (docs/requirements.md §S2 Help (portal), §S3 contact (signed in), §S5 contact):
// the message only (≤ 256); the sender is the signed-in user. Posted to the /portal/help action
// (POST /api/Help/create-help), which redirects to /portal/help?sent=1#contact.

import { getFormProps } from "@conform-to/react";
import { Form, href, Link } from "react-router";
import { helpSchema } from "../../../modules/identity/schema.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import {
  CsrfInput,
  FormAlert,
  FormSuccess,
  SubmitButton,
  TextAreaField,
  useFormSubmit,
} from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";

export const PORTAL_HELP_ACTION = href("/portal/help");

const constraint = formConstraint(helpSchema);

export function PortalContactForm({ reply }: { reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PORTAL_HELP_ACTION);
  const [form, fields] = useSchemaForm(helpSchema, {
    id: "portal-contact-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });

  return (
    <Form
      method="post"
      action={`${PORTAL_HELP_ACTION}#contact`}
      preventScrollReset
      {...getFormProps(form)}
      aria-label="Contact Us"
      className="space-y-4"
    >
      <CsrfInput />
      <HoneypotInputs />
      <FormAlert messages={form.errors ?? []} focusKey={reply} focus={!hasFieldErrors(reply?.result)} />
      <TextAreaField field={fields.message} label="Message" rows={5} />
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Send Message
      </SubmitButton>
    </Form>
  );
}

/** The thank-you state shown in place of the form after the message was sent. */
export function PortalContactThankYou() {
  return (
    <FormSuccess title="Thank You!" level={3}>
      <p className="text-slate-700">
        Your message has been sent to our support team. We reply within 24 business hours, to the email address of your
        account.
      </p>
      <Link
        to={`${PORTAL_HELP_ACTION}#contact`}
        className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        Send another message
      </Link>
    </FormSuccess>
  );
}
