// Step 3 of the journey (docs/requirements.md §S2 Company-details onboarding, §S4 portal gate, §S5 company details):
// the form's action. The screen itself is the portal layout's onboarding mode (app/features/portal/portal.tsx),
// which also sends this address to the dashboard once the details exist.
import { redirect, useRouteLoaderData } from "react-router";
import { companyDetailsSchema } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid } from "../../lib/forms.server.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { CompanyDetailsStep } from "../../ui/company-details-form.tsx";
import { portalUser } from "../portal/portal.server.ts";
import type { loader as portalLoader } from "../portal/portal.tsx";
import { DASHBOARD_PATH, PORTAL_LAYOUT_ID, type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.onboarding-add-company-details";

const TITLE = "Add Your Company Details";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function action({ context, request }: Route.ActionArgs) {
  const signedIn = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(companyDetailsSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const result = await signedIn.api.call((api) => api.Companies.$put({ json: submission.value }));
  if (!result.ok) {
    // docs/requirements.md §S8: a failed save is logged; the form says so without the API's words, unless they
    // belong to a field (the ABN check digits).
    services(context).logger.error({ status: result.status, detail: result.detail }, "company details save failed");
    // A Manager cannot save them (ADR 0022: an Owner's); the API's words say so.
    return replyFailure(submission, result, { shown: inApiWords("owner-only") });
  }
  signedIn.session.set("user", { ...signedIn.user, companyName: result.data.name });
  signedIn.session.set("appSettings", { ...signedIn.appSettings, hasProvidedCompanyDetails: true });
  // The Getting Started dialog greets a first visit; otherwise a toast confirms the save.
  const toast = signedIn.appSettings.hasWatchedOnboardingVideo
    ? ({ type: "success", title: "Company details saved" } as const)
    : undefined;
  throw toast ? redirectWithToast(context, DASHBOARD_PATH, toast) : redirect(DASHBOARD_PATH);
}

export default function CompanyDetailsOnboarding({ actionData }: Route.ComponentProps) {
  const portal = useRouteLoaderData<typeof portalLoader>(PORTAL_LAYOUT_ID);
  return <CompanyDetailsStep companyName={portal?.user.companyName ?? ""} reply={actionData} />;
}
