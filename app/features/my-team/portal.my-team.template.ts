// The My Team CSV template (docs/requirements.md §S2 My Team): a real file with the three headings, downloaded.
import { TEAM_CSV_TEMPLATE, TEAM_CSV_TEMPLATE_FILE_NAME } from "../../../core/csv.ts";
import { requireSignedIn } from "../../lib/auth.server.ts";
import type { Route } from "./+types/portal.my-team.template";

export async function loader({ context }: Route.LoaderArgs) {
  await requireSignedIn(context);
  return new Response(TEAM_CSV_TEMPLATE, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${TEAM_CSV_TEMPLATE_FILE_NAME}"`,
      "cache-control": "private, no-store",
    },
  });
}
