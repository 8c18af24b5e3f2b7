// Reward history (docs/requirements.md §S2 dashboard, §S3 reward history item): the caller's company's released
// rewards, newest first. One row per release (release.ts), amounts in Reward Dollars, each with
// its order's tax invoice number. SPEC's call answers the newest REWARD_HISTORY_LIMIT; the
// dashboard pages through all of them, and the CSV export holds them all.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { csvFile } from "../../core/csv-file.ts";
import { centsToDollars, formatDollars } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import { preparedOnce } from "../../server/db/prepared.ts";
import { orders, rewardReleases } from "../../server/db/schema.ts";
import { rowsOf } from "../../server/db/sql.ts";
import { sydneyTime } from "../audit/schema.ts";
import type { RewardHistoryEntry, RewardHistoryItem, RewardHistoryPage } from "../identity/schema.ts";
import { historyStateLabel, type RewardOrderState } from "../scheduled-sends/schema.ts";

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

/** GET get-reward-history (docs/requirements.md §S7): the newest `limit` releases. */
export async function rewardHistory(
  db: Db,
  companyId: number,
  limit = REWARD_HISTORY_LIMIT,
): Promise<RewardHistoryItem[]> {
  const rows = await historyPageOf(db).execute({ companyId, limit, offset: 0 });
  return rows.map(item);
}

// The paged history and its CSV: the releases, and the orders paid for later (scheduled) or
// cancelled before their time, in one list by date (a release's time, the send time, the
// cancellation's time), newest first. One statement a page: its rows carry the total.
type EntryRow = {
  order_id: number | string;
  release_id: number | string | null;
  at: Date | string;
  reward_name: string;
  amount_cents: number | string;
  invoice_number: string | null;
  status: string;
  refunded_at: Date | string | null;
  total_count: number | string;
};

async function historyEntries(
  db: Db,
  companyId: number,
  limit: number,
  offset: number,
): Promise<{ items: RewardHistoryEntry[]; totalCount: number | null }> {
  const result = await db.execute(sql`
    select h.*, count(*) over () as total_count from (
      select ${orders.id} as order_id, ${rewardReleases.id} as release_id, ${rewardReleases.releasedAt} as at,
        ${rewardReleases.rewardName} as reward_name, ${rewardReleases.amountCents} as amount_cents,
        ${orders.invoiceNumber} as invoice_number, ${orders.status} as status, ${orders.refundedAt} as refunded_at
      from ${rewardReleases} inner join ${orders} on ${orders.id} = ${rewardReleases.orderId}
      where ${rewardReleases.companyId} = ${companyId}
      union all
      select ${orders.id}, null, coalesce(${orders.cancelledAt}, ${orders.sendAt}), ${orders.rewardName},
        ${orders.rewardsCents}, ${orders.invoiceNumber}, ${orders.status}, ${orders.refundedAt}
      from ${orders}
      where ${orders.companyId} = ${companyId} and ${orders.status} in ('scheduled', 'cancelled')
    ) h
    order by h.at desc, h.order_id desc
    limit ${limit} offset ${offset}`);
  const rows = rowsOf<EntryRow>(result);
  return { items: rows.map(entry), totalCount: rows[0] ? Number(rows[0].total_count) : null };
}

const entry = (r: EntryRow): RewardHistoryEntry => {
  const state: RewardOrderState =
    r.status === "scheduled" ? "scheduled" : r.status === "cancelled" ? "cancelled" : "released";
  return {
    orderId: Number(r.order_id),
    rewardReleaseId: r.release_id === null ? null : Number(r.release_id),
    state,
    rewardDate: new Date(r.at).toISOString(),
    rewardName: r.reward_name,
    amount: centsToDollars(Number(r.amount_cents)),
    invoiceNumber: r.invoice_number,
    refunded: r.refunded_at !== null,
  };
};

/** Past the last page the rows carry no total: counted on their own then. */
async function historyCount(db: Db, companyId: number): Promise<number> {
  const [released] = await historyCountOf(db).execute({ companyId });
  const [others] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(orders)
    .where(and(eq(orders.companyId, companyId), inArray(orders.status, ["scheduled", "cancelled"])));
  return (released?.n ?? 0) + (others?.n ?? 0);
}

/** GET /RewardHistory: page `pageNumber` of every paid order (past the last page: no items). */
export async function rewardHistoryPage(
  db: Db,
  companyId: number,
  pageNumber: number,
  pageSize: number,
): Promise<RewardHistoryPage> {
  const offset = (pageNumber - 1) * pageSize;
  const page = await historyEntries(db, companyId, pageSize, offset);
  // No rows from the start: there are none at all (a new company's dashboard), nothing to count.
  const totalCount = page.totalCount ?? (offset === 0 ? 0 : await historyCount(db, companyId));
  const totalPages = Math.max(1, Math.ceil(totalCount / pageSize));
  return {
    items: page.items,
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
  "Status",
  "Released",
  "Invoice number",
] as const;

/** GET /RewardHistory/export: every paid order, newest first, the rows the dashboard pages through. */
export async function rewardHistoryCsv(db: Db, companyId: number): Promise<string> {
  const { items: rows } = await historyEntries(db, companyId, REWARD_HISTORY_EXPORT_MAX_ROWS, 0);
  return csvFile(
    REWARD_HISTORY_CSV_HEADINGS,
    rows.map((r) => [
      sydneyTime(r.rewardDate),
      r.rewardName,
      historyStateLabel(r),
      formatDollars(Math.round(r.amount * 100)),
      r.invoiceNumber ?? "",
    ]),
  );
}
