// 'Sample of Email' (docs/requirements.md §S2 Reward My Team Review): the email each recipient receives, with sample
// values, from the same template as the real one (GET /api/RewardMyTeam/email-sample). The Review page's
// link leads here without JavaScript; with JavaScript its tooltip loads this route's data.
// The HTML version is shown in a sandboxed frame (srcdoc: no scripts, no same-origin access, and
// the page's CSP still applies to it); the text version is shown as text.
import { Link } from "react-router";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.reward-email-sample";
import { REVIEW_PATH } from "./payment.ts";
import { EmailSampleText } from "./payment-email-sample.tsx";

const TITLE = "Sample of Email";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const sample = await client.call((api) => api.RewardMyTeam["email-sample"].$get());
  if (!sample.ok) throw new Response(sample.detail, { status: sample.status });
  return { sample: sample.data };
}

export default function RewardEmailSample({ loaderData }: Route.ComponentProps) {
  const { sample } = loaderData;
  return (
    <div className="mx-auto max-w-3xl space-y-6 px-4 py-8 md:py-12">
      <Link
        to={REVIEW_PATH}
        className="inline-flex min-h-11 items-center gap-1 font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900"
      >
        <span aria-hidden="true">←</span> Back to the review
      </Link>
      <section aria-labelledby="sample-heading" className="space-y-4">
        <h2 id="sample-heading" className="text-2xl font-bold text-brand-800">
          The email each recipient receives
        </h2>
        <p className="text-slate-700">
          Each recipient receives an email like this one, with their own amount, access code and password.
        </p>
        <p className="font-semibold text-slate-900">Subject: {sample.subject}</p>
        <iframe
          title="Sample of the email sent to recipients"
          sandbox=""
          srcDoc={sample.html}
          className="h-[36rem] w-full rounded-lg border border-slate-300 bg-white"
        />
      </section>
      <details className="rounded-lg border border-slate-200 bg-white p-4">
        <summary className="min-h-11 cursor-pointer py-2 font-semibold text-brand-800">Plain-text version</summary>
        <div className="mt-2">
          <EmailSampleText sample={sample} />
        </div>
      </details>
    </div>
  );
}
