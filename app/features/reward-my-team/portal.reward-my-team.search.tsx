// The live user search of Reward My Team (docs/requirements.md §S5 reward search, §S7 user search, §S9: 10
// results), for the search box's fetcher: GET ?q=… answers the team members not yet in the
// draft whose name or email matches (blank text: none). A resource route: JSON only.
import { data } from "react-router";
import { portalUserMiddleware, requireOnboardedUser } from "../portal/portal.server.ts";
import type { Route } from "./+types/portal.reward-my-team.search";
import { searchMembers } from "./reward-draft.server.ts";

// Outside the portal layout (a fetcher's JSON), so it resolves the portal's user itself.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api } = requireOnboardedUser(context);
  const q = new URL(request.url).searchParams.get("q") ?? "";
  return data(await searchMembers(api, q), { headers: { "cache-control": "private, no-store" } });
}
