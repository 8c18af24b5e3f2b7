import { sharedPageHeaders } from "../../../core/shared-page.ts";
import type { Route } from "./+types/policies.privacy";
import { PrivacyContent } from "./policy-content.tsx";
import { PolicyPage } from "./policy-page.tsx";

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
    <PolicyPage title="Privacy Policy">
      <PrivacyContent />
    </PolicyPage>
  );
}
