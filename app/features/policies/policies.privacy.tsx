import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { Banner } from "../../ui/banner.tsx";
import { PublicLayout } from "../site/public-layout.tsx";
import type { Route } from "./+types/policies.privacy";
import { PrivacyContent } from "./policy-content.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: "Privacy Policy | Reward Portal" },
  {
    name: "description",
    content:
      "How Reward Portal collects, uses, protects and discloses personal information, following the 13 Australian Privacy Principles.",
  },
];

export default function PrivacyPage() {
  return (
    <PublicLayout>
      <Banner eyebrow="Policies" title="Privacy Policy" />
      <article aria-label="Privacy Policy" className="mx-auto max-w-3xl px-4 py-12 md:px-6 md:py-16">
        <PrivacyContent />
      </article>
    </PublicLayout>
  );
}
