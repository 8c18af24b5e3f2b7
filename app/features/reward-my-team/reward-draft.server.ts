// The server half of Reward My Team: one page of the draft for the loader (the table is paged
// by the API, so a draft of 5,000 recipients never leaves the server whole), the user search,
// and the fetchers' answers.
import { data, type RouterContextProvider } from "react-router";
import { REWARD_PAGE_SIZE } from "../../../modules/reward-drafts/schema.ts";
import { rewardSearchText } from "../../../modules/team/schema.ts";
import { type ApiClient, asQuery } from "../../lib/api.server.ts";
import { flashToast, type ToastInput } from "../../lib/toast.server.ts";
import type { RewardDraftView, RewardSearchAnswer } from "./reward-draft.ts";

/** docs/requirements.md §S9: the user search answers 10 results. */
export const SEARCH_PAGE_SIZE = 10;

/**
 * One page of the draft (newest first) with the whole draft's totals. A page past the end (the
 * last recipients of the last page were removed) shows the last page instead.
 */
export async function loadDraftView(client: ApiClient, pageNumber: number): Promise<RewardDraftView | null> {
  let result = await client.call((api) =>
    api.RewardMyTeam["get-reward-page"].$get({ query: asQuery({ pageNumber, pageSize: REWARD_PAGE_SIZE }) }),
  );
  if (
    result.ok &&
    result.data.items.length === 0 &&
    pageNumber > result.data.totalPages &&
    result.data.totalPages > 0
  ) {
    const lastPage = asQuery({ pageNumber: result.data.totalPages, pageSize: REWARD_PAGE_SIZE });
    result = await client.call((api) => api.RewardMyTeam["get-reward-page"].$get({ query: lastPage }));
  }
  if (!result.ok) return null;
  const page = result.data;
  return {
    rows: page.items.map((item) => ({
      userId: item.userId,
      fullName: item.fullName,
      email: item.email,
      reward: item.reward ?? 0,
    })),
    pageNumber: Math.max(1, Math.min(page.pageNumber, Math.max(page.totalPages, 1))),
    totalPages: page.totalPages,
    totalRecipients: page.totalCount,
    totalRewardsCents: Math.round((page.totalRewards ?? 0) * 100),
  };
}

/**
 * docs/requirements.md §S5 reward search: any text that is not blank; blank text searches nothing. 10 results,
 * team members not yet in the draft.
 */
export async function searchMembers(client: ApiClient, text: string): Promise<RewardSearchAnswer> {
  const q = text.trim();
  const search = rewardSearchText(q);
  if (!search) return { q, results: [] };
  const query = asQuery({ pageNumber: 1, pageSize: SEARCH_PAGE_SIZE, search, isRewardMyTeam: true });
  const result = await client.call((api) => api.Users.$get({ query }));
  const items = result.ok ? result.data.items : [];
  return {
    q,
    results: items.map(({ id, firstName, lastName, email }) => ({ id, firstName, lastName, email })),
  };
}

/** A fetcher's answer, with a toast flashed into the session when given (the root loader shows it). */
export function fetcherReply<T>(context: Readonly<RouterContextProvider>, reply: T, toast?: ToastInput, status = 200) {
  if (toast) flashToast(context, toast);
  return data(reply, status);
}
