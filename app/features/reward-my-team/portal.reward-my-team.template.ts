// The bulk reward CSV template (docs/requirements.md §S3 bulk reward CSV columns): a real file with the four
// headings, downloaded from the Add dialog's bulk pane.
import { requireSignedIn } from "../../lib/auth.server.ts";
import type { Route } from "./+types/portal.reward-my-team.template";
import { REWARD_CSV_TEMPLATE, REWARD_CSV_TEMPLATE_FILE_NAME } from "./reward-draft-csv.ts";

export async function loader({ context }: Route.LoaderArgs) {
  await requireSignedIn(context);
  return new Response(REWARD_CSV_TEMPLATE, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${REWARD_CSV_TEMPLATE_FILE_NAME}"`,
      "cache-control": "private, no-store",
    },
  });
}
