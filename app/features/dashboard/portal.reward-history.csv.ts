// GET /portal/reward-history.csv: every release of the company (GET /api/RewardHistory/export),
// downloaded with the session's token. A failure answers the API's message as plain text.

import { formatDate } from "../../../core/dates.ts";
import { portalUserMiddleware, requireOnboardedUser } from "../portal/portal.server.ts";
import type { Route } from "./+types/portal.reward-history.csv";

// Outside the portal layout (a file, not a page), so it resolves the portal's user itself.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = requireOnboardedUser(context);
  const csv = await client.text((api) => api.RewardHistory.export.$get());
  const headers = { "cache-control": "private, no-store" };
  if (!csv.ok) {
    return new Response(csv.detail, {
      status: csv.status,
      headers: { ...headers, "content-type": "text/plain; charset=utf-8" },
    });
  }
  const day = formatDate(new Date(), "isoDay");
  return new Response(csv.data, {
    headers: {
      ...headers,
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="reward-history-${day}.csv"`,
    },
  });
}
