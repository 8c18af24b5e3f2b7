// Settings › Managers (ADR 0022 §1, §3–§5): an Owner's list of the company's managers and pending
// invitations. Built out in the following commits.
import { useRouteLoaderData } from "react-router";
import { portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.managers";
import { SETTINGS_LAYOUT_ID, type SettingsLayoutData } from "./portal.settings.tsx";

const TITLE = "Managers";
export const handle = { title: TITLE };
export const meta: Route.MetaFunction = portalMeta(TITLE);

export default function ManagersSettings() {
  const layout = useRouteLoaderData<SettingsLayoutData>(SETTINGS_LAYOUT_ID);
  if (layout?.managerRole !== "owner") return <p>Only an Owner of your company can manage its managers.</p>;
  return <h2 className="text-xl font-semibold">Managers</h2>;
}
