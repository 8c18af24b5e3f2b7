// The spend picture of a company (modules/reward-history/spend.ts): its releases of the last SPEND_MONTHS calendar
// months in Sydney, summed per month, with the fees, GST and distinct recipients of the same
// releases. Months are worked out here (Intl), not in SQL, so PGlite and PostgreSQL agree
// whatever time zone data each carries.
import { and, countDistinct, eq, gte, sql } from "drizzle-orm";
import { dateFormat } from "../../core/dates.ts";
import type { Db } from "../../server/db/client.ts";
import { preparedOnce } from "../../server/db/prepared.ts";
import { orderLines, orders, rewardReleases } from "../../server/db/schema.ts";
import { sydneyDayStart } from "../audit/service.server.ts";
import { monthsEndingWith, type SpendSummary } from "./spend.ts";

const sydneyMonth = dateFormat("isoMonthParts");

/** "YYYY-MM" of `date` in Sydney. */
export function sydneyYearMonth(date: Date): string {
  const parts = Object.fromEntries(sydneyMonth.formatToParts(date).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}`;
}

// Built and prepared once (server/db/prepared.ts): the Dashboard asks for them on every request.
const windowOf = () =>
  and(
    eq(rewardReleases.companyId, sql.placeholder("companyId")),
    gte(rewardReleases.releasedAt, sql.placeholder("since")),
  );
const releasesInWindow = preparedOnce((db) =>
  db
    .select({
      releasedAt: rewardReleases.releasedAt,
      releasedCents: rewardReleases.amountCents,
      serviceFeeCents: orders.serviceFeeCents,
      gstCents: orders.gstCents,
    })
    .from(rewardReleases)
    .innerJoin(orders, eq(orders.id, rewardReleases.orderId))
    .where(windowOf())
    .prepare("spend_releases"),
);
const recipientsInWindow = preparedOnce((db) =>
  db
    .select({ n: countDistinct(orderLines.userId) })
    .from(rewardReleases)
    .innerJoin(orderLines, eq(orderLines.orderId, rewardReleases.orderId))
    .where(windowOf())
    .prepare("spend_recipients"),
);

export async function spendSummary(db: Db, companyId: number, now: Date): Promise<SpendSummary> {
  const months = monthsEndingWith(sydneyYearMonth(now));
  const since = sydneyDayStart(`${months[0]}-01`);
  const [rows, [reached]] = await Promise.all([
    releasesInWindow(db).execute({ companyId, since }),
    recipientsInWindow(db).execute({ companyId, since }),
  ]);
  const perMonth = new Map(months.map((m) => [m, 0]));
  const totals = { releasedCents: 0, serviceFeeCents: 0, gstCents: 0, recipientsReached: reached?.n ?? 0 };
  for (const row of rows) {
    const month = sydneyYearMonth(row.releasedAt);
    // A release dated in the future (a clock moved back) is left out of the picture.
    if (!perMonth.has(month)) continue;
    perMonth.set(month, (perMonth.get(month) ?? 0) + row.releasedCents);
    totals.releasedCents += row.releasedCents;
    totals.serviceFeeCents += row.serviceFeeCents;
    totals.gstCents += row.gstCents;
  }
  return { months: months.map((month) => ({ month, releasedCents: perMonth.get(month) ?? 0 })), totals };
}
