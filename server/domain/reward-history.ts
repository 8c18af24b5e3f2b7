// Reward history (SPEC §2 dashboard, §3 reward history item): the caller's company's released
// rewards, newest first. One row per release (release.ts), amounts in Reward Dollars, each with
// its order's tax invoice number. SPEC's call answers the newest REWARD_HISTORY_LIMIT; the
// dashboard pages through all of them, and the CSV export holds them all.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { RewardHistoryEntry, RewardHistoryItem, RewardHistoryPage } from "../../core/account-forms.ts";
import { sydneyTime } from "../../core/audit.ts";
import { centsToDollars, formatDollars } from "../../core/money.ts";
import { historyStateLabel, type RewardOrderState } from "../../core/schedule.ts";
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

// The paged history and its CSV: the releases, and the orders paid for later (scheduled) or
// cancelled before their time, in one list by date (a release's time, the send time, the
// cancellation's time), newest first.
function entriesOf(db: Db, companyId: number) {
  const released = db
    .select({
      orderId: orders.id,
      rewardReleaseId: sql<number | null>`${rewardReleases.id}`.as("release_id"),
      at: sql<Date | string>`${rewardReleases.releasedAt}`.as("at"),
      rewardName: rewardReleases.rewardName,
      amountCents: rewardReleases.amountCents,
      invoiceNumber: orders.invoiceNumber,
      status: orders.status,
      refundedAt: orders.refundedAt,
    })
    .from(rewardReleases)
    .innerJoin(orders, eq(orders.id, rewardReleases.orderId))
    .where(eq(rewardReleases.companyId, companyId));
  const waitingOrCancelled = db
    .select({
      orderId: orders.id,
      rewardReleaseId: sql<number | null>`null::bigint`.as("release_id"),
      at: sql<Date | string>`coalesce(${orders.cancelledAt}, ${orders.sendAt})`.as("at"),
      rewardName: orders.rewardName,
      amountCents: orders.rewardsCents,
      invoiceNumber: orders.invoiceNumber,
      status: orders.status,
      refundedAt: orders.refundedAt,
    })
    .from(orders)
    .where(and(eq(orders.companyId, companyId), inArray(orders.status, ["scheduled", "cancelled"])));
  return unionAll(released, waitingOrCancelled);
}

type EntryRow = {
  orderId: number;
  rewardReleaseId: number | null;
  at: Date | string;
  rewardName: string;
  amountCents: number | string;
  invoiceNumber: string | null;
  status: string;
  refundedAt: Date | string | null;
};

const entry = (r: EntryRow): RewardHistoryEntry => {
  const state: RewardOrderState =
    r.status === "scheduled" ? "scheduled" : r.status === "cancelled" ? "cancelled" : "released";
  return {
    orderId: Number(r.orderId),
    rewardReleaseId: r.rewardReleaseId === null ? null : Number(r.rewardReleaseId),
    state,
    rewardDate: new Date(r.at).toISOString(),
    rewardName: r.rewardName,
    amount: centsToDollars(Number(r.amountCents)),
    invoiceNumber: r.invoiceNumber,
    refunded: r.refundedAt !== null,
  };
};

async function historyEntries(db: Db, companyId: number, limit: number, offset: number): Promise<RewardHistoryEntry[]> {
  const rows = await entriesOf(db, companyId).orderBy(sql`at desc`, sql`id desc`).limit(limit).offset(offset);
  return (rows as EntryRow[]).map(entry);
}

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
  const [items, totalCount] = await Promise.all([
    historyEntries(db, companyId, pageSize, (pageNumber - 1) * pageSize),
    historyCount(db, companyId),
  ]);
  const totalPages = Math.max(1, Math.ceil(totalCount / pageSize));
  return {
    items,
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
  const rows = await historyEntries(db, companyId, REWARD_HISTORY_EXPORT_MAX_ROWS, 0);
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
