// The public Help Centre (docs/requirements.md §S2): banner, the ten FAQs, and the Contact Us form.
import { href, redirect, useSearchParams } from "react-router";
import { contactFormSchema } from "../../../core/public-forms.ts";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { Banner } from "../../ui/banner.tsx";
import { PublicLayout } from "../site/public-layout.tsx";
import type { Route } from "./+types/help";
import { ContactThankYou, PublicContactForm } from "./contact-form.tsx";
import { FaqAccordion } from "./faq.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: "FAQs and Help Centre" },
  {
    name: "description",
    content:
      "Answers about Reward Dollars, fees, GST, gift card delivery and redemption, and a form to contact our support team.",
  },
];

export async function action({ context, request }: Route.ActionArgs) {
  const { submission, usedChallenge } = (await readPostedForm(context, request)).parse(contactFormSchema);
  if (submission.status !== "success") return replyInvalid(submission, usedChallenge);
  const json = submission.value;
  const result = await createApiClient(context).call((api) => api.Help["create-help-anonymous"].$post({ json }));
  if (!result.ok) return replyFailure(submission, result, { usedChallenge });
  throw redirect(`${href("/help")}?sent=1#contact`);
}

export default function HelpCentre({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const sent = searchParams.get("sent") === "1";

  return (
    <PublicLayout>
      <Banner title="Help Centre - FAQs, Terms and Contact us." />
      <div className="mx-auto max-w-3xl space-y-16 px-4 py-12 md:py-16">
        <section aria-labelledby="faq-heading">
          <h2 id="faq-heading" className="text-2xl font-bold text-brand-800 md:text-3xl">
            Frequently Asked Questions
          </h2>
          <p className="mt-2 mb-6 text-slate-700">
            Quick answers about Reward Dollars, payments and gift cards. Select a question to show its answer.
          </p>
          <FaqAccordion />
        </section>

        <section id="contact" aria-labelledby="contact-heading" className="scroll-mt-24">
          <h2 id="contact-heading" className="text-2xl font-bold text-brand-800 md:text-3xl">
            Contact Us
          </h2>
          <p className="mt-2 mb-6 text-slate-700">
            Can&rsquo;t find your answer? Send us a message and our support team will reply within 24 business hours.
          </p>
          <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
            {sent ? <ContactThankYou /> : <PublicContactForm reply={actionData} />}
          </div>
        </section>
      </div>
    </PublicLayout>
  );
}
