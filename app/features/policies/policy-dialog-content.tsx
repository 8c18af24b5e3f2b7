// The policy texts as dialog content (sign-up and waitlist forms). The server renders them
// directly (a dialog opened by ?dialog=terms is in the HTML, JavaScript or not); in the browser
// they are a chunk of their own, loaded when a dialog is about to open, not with the page
// (about 6 KB compressed that every visit would otherwise download and parse).
// A static import would keep the chunk in the page (the bundler cannot prove it free of side
// effects), hence the import() the client build drops.
import { lazy } from "react";
import { href } from "react-router";
import { useUrlDialog } from "../../ui/dialog.tsx";

const load = () => import("./policy-content.tsx");
const onServer = import.meta.env.SSR ? await load() : null;

export const preloadPolicies = () => void load();

export const TermsContent = onServer
  ? onServer.TermsContent
  : lazy(() => load().then((m) => ({ default: m.TermsContent })));

export const PrivacyContent = onServer
  ? onServer.PrivacyContent
  : lazy(() => load().then((m) => ({ default: m.PrivacyContent })));

/**
 * The Terms and Privacy dialogs of a form that asks to accept them. Without JavaScript their
 * openers lead to the policy pages; closing returns to `returnHash` (the form's heading).
 */
export function usePolicyDialogs(returnHash: string) {
  const terms = useUrlDialog("terms", {
    href: href("/policies/terms-and-conditions"),
    preload: preloadPolicies,
    returnHash,
  });
  const privacy = useUrlDialog("privacy", {
    href: href("/policies/privacy-policy"),
    preload: preloadPolicies,
    returnHash,
  });
  return { terms, privacy };
}
