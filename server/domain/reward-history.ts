// Reward history (SPEC §2 dashboard, §3 reward history item): the caller's company's released
// rewards, newest first. One row per release (release.ts), amounts in Reward Dollars, each with
// its order's tax invoice number. SPEC's call answers the newest REWARD_HISTORY_LIMIT; the
// dashboard pages through all of them, and the CSV export holds them all.
import { desc, eq, sql } from "drizzle-orm";
import type { RewardHistoryItem, RewardHistoryPage } from "../../core/account-forms.ts";
import { sydneyTime } from "../../core/audit.ts";
import { centsToDollars, formatDollars } from "../../core/money.ts";
import type { Db } from "../db/client.ts";
import { preparedOnce } from "../db/prepared.ts";
import { orders, rewardReleases } from "../db/schema.ts";
import { csvFile } from "../http/csv-file.ts";

/** SPEC's get-reward-history answers the most recent ones. */
export const REWARD_HISTORY_LIMIT = 100;
/** The CSV export's ceiling: years of weekly rewards for the largest company. */
export const REWARD_HISTORY_EXPORT_MAX_ROWS = 100_000;

const columns = {
  id: rewardReleases.id,
  releasedAt: rewardReleases.releasedAt,
  rewardName: rewardReleases.rewardName,
  amountCents: rewardReleases.amountCents,
  invoiceNumber: orders.invoiceNumber,
};

// The dashboard's page, on every dashboard request: its rows carry the total (one query).
const historyPageOf = preparedOnce((db) =>
  db
    .select({ ...columns, totalCount: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(rewardReleases)
    .innerJoin(orders, eq(orders.id, rewardReleases.orderId))
    .where(eq(rewardReleases.companyId, sql.placeholder("companyId")))
    .orderBy(desc(rewardReleases.releasedAt), desc(rewardReleases.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare("reward_history_page"),
);

const historyCountOf = preparedOnce((db) =>
  db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(rewardReleases)
    .where(eq(rewardReleases.companyId, sql.placeholder("companyId")))
    .prepare("reward_history_count"),
);

type Row = { id: number; releasedAt: Date; rewardName: string; amountCents: number; invoiceNumber: string | null };

const item = (r: Row): RewardHistoryItem => ({
  rewardReleaseId: r.id,
  rewardDate: r.releasedAt.toISOString(),
  rewardName: r.rewardName,
  amount: centsToDollars(r.amountCents),
  invoiceNumber: r.invoiceNumber,
});

/** GET get-reward-history (SPEC §7): the newest `limit` releases. */
export async function rewardHistory(
  db: Db,
  companyId: number,
  limit = REWARD_HISTORY_LIMIT,
): Promise<RewardHistoryItem[]> {
  const rows = await historyPageOf(db).execute({ companyId, limit, offset: 0 });
  return rows.map(item);
}

/** GET /RewardHistory: page `pageNumber` of every release (past the last page: no items). */
export async function rewardHistoryPage(
  db: Db,
  companyId: number,
  pageNumber: number,
  pageSize: number,
): Promise<RewardHistoryPage> {
  const rows = await historyPageOf(db).execute({ companyId, limit: pageSize, offset: (pageNumber - 1) * pageSize });
  const totalCount = rows[0]?.totalCount ?? (await historyCountOf(db).execute({ companyId }))[0]?.n ?? 0;
  const totalPages = Math.max(1, Math.ceil(totalCount / pageSize));
  return {
    items: rows.map(item),
    totalCount,
    pageNumber,
    pageSize,
    totalPages,
    hasPreviousPage: pageNumber > 1,
    hasNextPage: pageNumber < totalPages,
  };
}

export const REWARD_HISTORY_CSV_HEADINGS = [
  "Date (Australia/Sydney)",
  "Campaign / Reward Name",
  "Released",
  "Invoice number",
] as const;

/** GET /RewardHistory/export: every release, newest first, the rows the dashboard pages through. */
export async function rewardHistoryCsv(db: Db, companyId: number): Promise<string> {
  const rows = await historyPageOf(db).execute({ companyId, limit: REWARD_HISTORY_EXPORT_MAX_ROWS, offset: 0 });
  return csvFile(
    REWARD_HISTORY_CSV_HEADINGS,
    rows.map((r) => [
      sydneyTime(r.releasedAt.toISOString()),
      r.rewardName,
      formatDollars(r.amountCents),
      r.invoiceNumber ?? "",
    ]),
  );
}
