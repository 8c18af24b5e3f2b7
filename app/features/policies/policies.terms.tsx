import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { Banner } from "../../ui/banner.tsx";
import { PublicLayout } from "../site/public-layout.tsx";
import type { Route } from "./+types/policies.terms";
import { TermsContent } from "./policy-content.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: "Terms and Conditions | Reward Portal" },
  {
    name: "description",
    content:
      "The terms for using Reward Portal: Reward Dollar value and fees, validity, gift card delivery, support times and accounts.",
  },
];

export default function TermsPage() {
  return (
    <PublicLayout>
      <Banner eyebrow="Policies" title="Terms and Conditions" />
      <article aria-label="Terms and Conditions" className="mx-auto max-w-3xl px-4 py-12 md:px-6 md:py-16">
        <TermsContent />
      </article>
    </PublicLayout>
  );
}
