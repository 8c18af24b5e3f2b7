// Portal Help (docs/requirements.md §S2 Help (portal), title 'Help'): the 'How It Works' video, the same ten FAQs
// as the public Help Centre, and the signed-in Contact Us form (POST /api/Help/create-help),
// which ends in a thank-you state (post/redirect/get to ?sent=1#contact).
import { redirect, useSearchParams } from "react-router";
import { helpSchema } from "../../../modules/identity/schema.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { useSite } from "../../root.tsx";
import { PortalVideo } from "../dashboard/portal-video.tsx";
import { requireOnboardedUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.help";
import { ContactSection, FaqSection, helpSectionHeading } from "./help-sections.tsx";
import { PORTAL_HELP_ACTION, PortalContactForm, PortalContactThankYou } from "./portal-contact-form.tsx";

const TITLE = "Help";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = requireOnboardedUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(helpSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await client.call((api) => api.Help["create-help"].$post({ json: submission.value }));
  if (!result.ok) return replyFailure(submission, result);
  throw redirect(`${PORTAL_HELP_ACTION}?sent=1#contact`);
}

export default function PortalHelp({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const sent = searchParams.get("sent") === "1";
  const { howItWorksVideoUrl } = useSite();

  return (
    <div className="mx-auto max-w-3xl space-y-16 px-4 py-8 md:py-12">
      <section aria-labelledby="how-it-works-heading">
        <h2 id="how-it-works-heading" className={helpSectionHeading}>
          How It Works
        </h2>
        <p className="mt-2 mb-6 text-slate-700">
          Add your team, choose their reward amounts, pay only for what you allocate, and we email each recipient their
          reward.
        </p>
        <PortalVideo src={howItWorksVideoUrl} title="How It Works video" />
      </section>

      <FaqSection />
      <ContactSection scrollMargin="scroll-mt-6">
        {sent ? <PortalContactThankYou /> : <PortalContactForm reply={actionData} />}
      </ContactSection>
    </div>
  );
}
