// The public Contact Us form (docs/requirements.md §S2 public Help Centre, §S5 contact rules): first name, last
// name, email, message (≤ 256), honeypot, CSRF and captcha; posted to the /help action, which
// redirects to /help?sent=1#contact. The signed-in variant (message only) is portal-contact-form.tsx.

import { getFormProps } from "@conform-to/react";
import { Form, href, Link } from "react-router";
import { contactFormSchema } from "../../../core/public-forms.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { useCaptcha } from "../../ui/captcha.tsx";
import {
  CsrfInput,
  FormAlert,
  FormSuccess,
  SubmitButton,
  TextAreaField,
  TextField,
  useFormSubmit,
} from "../../ui/form-fields.tsx";
import { HoneypotInputs } from "../../ui/honeypot-inputs.tsx";

const constraint = formConstraint(contactFormSchema);

export function PublicContactForm({ reply, action = href("/help") }: { reply?: FormReply; action?: string }) {
  const captcha = useCaptcha({ action: "help", reply });
  const { onSubmit, busy, clientError } = useFormSubmit(action, captcha);
  const [form, fields] = useSchemaForm(contactFormSchema, {
    id: "contact-form",
    lastResult: reply?.result,
    constraint,
    defaultNoValidate: false,
    onSubmit,
  });
  const alerts = [...(form.errors ?? []), ...(clientError ? [clientError] : [])];

  return (
    <Form
      method="post"
      action={`${action}#contact`}
      preventScrollReset
      {...getFormProps(form)}
      aria-label="Contact Us"
      className="space-y-4"
    >
      <CsrfInput />
      <HoneypotInputs />
      <FormAlert messages={alerts} focusKey={reply ?? clientError} focus={!hasFieldErrors(reply?.result)} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField field={fields.firstName} label="First Name" autoComplete="given-name" />
        <TextField field={fields.lastName} label="Last Name" autoComplete="family-name" />
      </div>
      <TextField field={fields.email} label="Email" type="email" autoComplete="email" />
      <TextAreaField field={fields.message} label="Message" rows={5} />
      {captcha.element}
      <SubmitButton busy={busy} disabled={captcha.blocksSubmit} className="w-full sm:w-auto">
        Send Message
      </SubmitButton>
    </Form>
  );
}

/** The thank-you state shown in place of the form after a message was sent. */
export function ContactThankYou({ againHref = `${href("/help")}#contact` }: { againHref?: string }) {
  return (
    <FormSuccess title="Thank You!" level={3}>
      <p className="text-slate-700">
        Your message has been sent to our support team. We reply within 24 business hours, to the email address you gave
        us.
      </p>
      <Link
        to={againHref}
        className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        Send another message
      </Link>
    </FormSuccess>
  );
}
