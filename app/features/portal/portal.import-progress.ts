// The progress of a CSV import (app/ui/csv-upload-pane.tsx polls it while Save's post runs):
// GET /portal/import-progress?id=<id> answers where the signed-in user's job stands (rows checked of the
// file's rows, then queued, done or failed), read through the typed client; 404 while the
// server has not started it yet (the file is on its way) or when it is gone. JSON only. The id
// is in the query: portal paths are answered in lower case only (server/http/app.ts), and a
// job id the server chose is base64url.
import { data } from "react-router";
import { importProgressOf } from "../../lib/csv-upload.ts";
import type { Route } from "./+types/portal.import-progress";
import { portalUserMiddleware, requireOnboardedUser } from "./portal.server.ts";

// Outside the portal layout (a poll's JSON), so it resolves the portal's user itself.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

const NO_STORE = { "cache-control": "private, no-store" };

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = requireOnboardedUser(context);
  const id = new URL(request.url).searchParams.get("id") ?? "";
  const read = /^[A-Za-z0-9_-]{16,64}$/.test(id)
    ? await client.call((api) => api.Imports[":id"].$get({ param: { id }, query: {} }))
    : null;
  if (!read?.ok) return data({ status: "gone" as const }, { status: 404, headers: NO_STORE });
  return data(importProgressOf(read.data), { headers: NO_STORE });
}
