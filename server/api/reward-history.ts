// GET /api/RewardHistory/get-reward-history (SPEC §7): the dashboard's "Most Recent Reward
// History". Rewards do not exist yet (a later issue), so the caller's list is empty.
import { Hono, type MiddlewareHandler } from "hono";
import type { RewardHistoryItem } from "../../core/account-forms.ts";
import { requireAuth } from "./auth.ts";
import type { ApiEnv } from "./deps.ts";

export function rewardHistoryRoutes(auth: MiddlewareHandler<ApiEnv>) {
  const api = new Hono<ApiEnv>();

  api.get("/RewardHistory/get-reward-history", auth, (c) => {
    requireAuth(c);
    const items: RewardHistoryItem[] = [];
    return c.json(items);
  });

  return api;
}
