// A signed-in visitor's CSRF token, from the root loader. Pages for visitors without a session
// have none: their forms are checked by Origin instead (app/lib/security.server.ts, docs/requirements.md §D7).
import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "../root.tsx";

export function useCsrfToken(): string | undefined {
  return useRouteLoaderData<typeof rootLoader>("root")?.csrf || undefined;
}
