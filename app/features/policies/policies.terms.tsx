import { sharedPageHeaders } from "../../../core/shared-page.ts";
import type { Route } from "./+types/policies.terms";
import { TermsContent } from "./policy-content.tsx";
import { PolicyPage } from "./policy-page.tsx";

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
    <PolicyPage title="Terms and Conditions">
      <TermsContent />
    </PolicyPage>
  );
}
