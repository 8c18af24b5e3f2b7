// Tax invoices of paid orders (core/invoices.ts): read from the order as it was frozen and paid,
// scoped to the caller's company, the supplier from configuration (DESIGN.md §3).
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { TaxInvoice } from "../../core/invoices.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { companies, orderLines, orders } from "../db/schema.ts";

/** The invoice numbered `invoiceNumber` of company `companyId`, or null (unknown, or another company's). */
export async function findTaxInvoice(
  db: Db,
  config: Pick<Config, "supplierName" | "supplierAbn" | "supplierIsPlaceholder">,
  companyId: number,
  invoiceNumber: string,
): Promise<TaxInvoice | null> {
  const [row] = await db
    .select({
      id: orders.id,
      invoiceNumber: orders.invoiceNumber,
      releasedAt: orders.releasedAt,
      paidAt: orders.paidAt,
      rewardName: orders.rewardName,
      rewardsCents: orders.rewardsCents,
      serviceFeeCents: orders.serviceFeeCents,
      gstCents: orders.gstCents,
      totalCents: orders.totalCents,
      companyName: companies.name,
      abn: companies.abn,
      recipientCount: sql<number>`(select count(*)::int from ${orderLines} where ${orderLines.orderId} = ${orders.id})`,
    })
    .from(orders)
    .innerJoin(companies, eq(companies.id, orders.companyId))
    .where(
      and(
        eq(orders.companyId, companyId),
        eq(orders.invoiceNumber, invoiceNumber),
        // Paid: released, scheduled for later, or cancelled and refunded after it was invoiced.
        isNotNull(orders.paidAt),
      ),
    );
  if (!row?.invoiceNumber) return null;
  const date = row.paidAt ?? row.releasedAt;
  if (!date) return null;
  return {
    invoiceNumber: row.invoiceNumber,
    invoiceDate: date.toISOString(),
    supplier: { name: config.supplierName, abn: config.supplierAbn, isPlaceholder: config.supplierIsPlaceholder },
    buyer: { companyName: row.companyName, abn: row.abn ?? null },
    rewardName: row.rewardName,
    recipientCount: row.recipientCount,
    rewardsCents: row.rewardsCents,
    serviceFeeCents: row.serviceFeeCents,
    gstCents: row.gstCents,
    totalCents: row.totalCents,
    amountPaidCents: row.totalCents,
  };
}
