// Settings › Company (ADR 0022 §1: the company details are an Owner's): the onboarding form
// (app/ui/company-details-form.tsx, the same schema and ABN check digits) filled with the saved details,
// saved through PUT /api/Companies, which answers a Manager 403. A Manager sees the details and
// says who may change them instead of a form.
import { data, href, useRouteLoaderData } from "react-router";
import { COMPANY_SIZES, INDUSTRIES } from "../../../modules/companies/schema.ts";
import { companyDetailsSchema } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { COMPANY_SIZE_OPTIONS, INDUSTRY_OPTIONS } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { CompanyDetailsForm } from "../../ui/company-details-form.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.company";
import { SETTINGS_LAYOUT_ID, type SettingsLayoutData } from "./portal.settings.tsx";

const TITLE = "Company";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const ACTION = href("/portal/settings/company");

/** What a Manager reads where an Owner has the form. */
export const MANAGER_COMPANY_MESSAGE = "Only an Owner of your company can change the company details.";

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const details = await client.call((api) => api.Companies.$get());
  if (!details.ok) throw data(details.detail, { status: details.status });
  return { details: details.data };
}

export async function action({ context, request }: Route.ActionArgs) {
  const signedIn = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(companyDetailsSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await signedIn.api.call((api) => api.Companies.$put({ json: submission.value }));
  if (!result.ok) {
    if (result.status !== 403) {
      services(context).logger.error({ status: result.status, detail: result.detail }, "company details save failed");
    }
    return replyFailure(submission, result, { shown: inApiWords("owner-only") });
  }
  // The header shows the company's name from the session.
  signedIn.session.set("user", { ...signedIn.user, companyName: result.data.name });
  return redirectWithToast(context, ACTION, { type: "success", title: "Company details saved" });
}

const cardClass = "rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6";

function labelOf(options: readonly { value: string; label: string }[], value: string) {
  return options.find((o) => o.value === value)?.label ?? (value || "Not provided");
}

export default function CompanySettings({ loaderData, actionData }: Route.ComponentProps) {
  const layout = useRouteLoaderData<SettingsLayoutData>(SETTINGS_LAYOUT_ID);
  const { details } = loaderData;
  const isOwner = layout?.managerRole === "owner";
  const saved = {
    ABN: details.ABN,
    size: (COMPANY_SIZES as readonly string[]).includes(details.size) ? details.size : "",
    industry: (INDUSTRIES as readonly string[]).includes(details.industry) ? details.industry : "",
  };

  return (
    <section
      aria-labelledby={isOwner ? "company-form-heading" : "company-settings-heading"}
      className={`${cardClass} max-w-3xl`}
    >
      {isOwner ? (
        <CompanyDetailsForm
          companyName={details.name}
          reply={actionData}
          action={ACTION}
          saved={saved}
          heading="Company details"
          headingLevel={2}
          submitLabel="Save company details"
          note={null}
          className="space-y-4"
        />
      ) : (
        <>
          <h2 id="company-settings-heading" className="text-xl font-semibold text-slate-900">
            Company details
          </h2>
          <p role="note" className="mt-3 rounded-md border border-amber-600 bg-amber-50 px-4 py-3 text-amber-900">
            {MANAGER_COMPANY_MESSAGE}
          </p>
          <dl className="mt-6 grid gap-4 sm:grid-cols-2">
            <Detail term="Company Name" value={details.name} />
            <Detail term="ABN" value={details.ABN || "Not provided"} />
            <Detail term="Company Size" value={labelOf(COMPANY_SIZE_OPTIONS, details.size)} />
            <Detail term="Industry" value={labelOf(INDUSTRY_OPTIONS, details.industry)} />
          </dl>
        </>
      )}
    </section>
  );
}

function Detail({ term, value }: { term: string; value: string }) {
  return (
    <div>
      <dt className="text-sm font-semibold text-slate-700">{term}</dt>
      <dd className="mt-1 break-words text-slate-900">{value}</dd>
    </div>
  );
}
