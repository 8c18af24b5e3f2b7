// GET /portal/settings/audit/export.csv: the Audit page's rows (the same filters, from its
// address) as the CSV file GET /api/Audit/export makes, downloaded with the session's token.
// A Manager or a bad filter gets the API's message as plain text with its status.

import { formatDate } from "../../../core/dates.ts";
import { asQuery } from "../../lib/api.server.ts";
import { portalUserMiddleware, requireOnboardedUser } from "../portal/portal.server.ts";
import type { Route } from "./+types/portal.settings.audit.export";
import { apiFilters, auditAddressOf } from "./audit-filters.ts";

// Outside the portal layout (a file, not a page), so it resolves the portal's user itself.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = requireOnboardedUser(context);
  const filters = apiFilters(auditAddressOf(new URL(request.url)));
  const csv = await client.text((api) => api.Audit.export.$get({ query: asQuery(filters) }));
  if (!csv.ok) {
    return new Response(csv.detail, {
      status: csv.status,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" },
    });
  }
  const day = formatDate(new Date(), "isoDay");
  return new Response(csv.data, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-trail-${day}.csv"`,
      "cache-control": "private, no-store",
    },
  });
}
