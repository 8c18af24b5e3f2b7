// Reward history (SPEC §2 dashboard, §3 reward history item): the caller's company's released
// rewards, newest first. One row per release (release.ts), amounts in Reward Dollars.
import { desc, eq, sql } from "drizzle-orm";
import type { RewardHistoryItem } from "../../core/account-forms.ts";
import { centsToDollars } from "../../core/money.ts";
import type { Db } from "../db/client.ts";
import { preparedOnce } from "../db/prepared.ts";
import { orders, rewardReleases } from "../db/schema.ts";

/** The dashboard shows the most recent ones; older releases stay in the database. */
export const REWARD_HISTORY_LIMIT = 100;

// The dashboard's list, on every dashboard request.
const historyOf = preparedOnce((db) =>
  db
    .select({
      id: rewardReleases.id,
      releasedAt: rewardReleases.releasedAt,
      rewardName: rewardReleases.rewardName,
      amountCents: rewardReleases.amountCents,
      invoiceNumber: orders.invoiceNumber,
    })
    .from(rewardReleases)
    .innerJoin(orders, eq(orders.id, rewardReleases.orderId))
    .where(eq(rewardReleases.companyId, sql.placeholder("companyId")))
    .orderBy(desc(rewardReleases.releasedAt), desc(rewardReleases.id))
    .limit(sql.placeholder("limit"))
    .prepare("reward_history"),
);

export async function rewardHistory(
  db: Db,
  companyId: number,
  limit = REWARD_HISTORY_LIMIT,
): Promise<RewardHistoryItem[]> {
  const rows = await historyOf(db).execute({ companyId, limit });
  return rows.map((r) => ({
    rewardReleaseId: r.id,
    rewardDate: r.releasedAt.toISOString(),
    rewardName: r.rewardName,
    amount: centsToDollars(r.amountCents),
    invoiceNumber: r.invoiceNumber,
  }));
}
