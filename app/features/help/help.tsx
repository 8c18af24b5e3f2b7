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
import { ContactSection, FaqSection } from "./help-sections.tsx";

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
        <FaqSection />
        <ContactSection scrollMargin="scroll-mt-24">
          {sent ? <ContactThankYou /> : <PublicContactForm reply={actionData} />}
        </ContactSection>
      </div>
    </PublicLayout>
  );
}
