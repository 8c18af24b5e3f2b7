// Tax invoices of paid orders (modules/invoices/schema.ts): read from the order as it was frozen and paid,
// scoped to the caller's company (docs/requirements.md §D3). A tax invoice is a legal document: its buyer and
// supplier are frozen with the order in the transaction that pays or charges it
// (freezeInvoiceParties), so a company renamed later, or a new SUPPLIER_NAME, changes no invoice
// already issued (ADR 0025, amendment; modules/invoices/invoices.test.ts).
import { and, eq, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { type Config, PLACEHOLDER_SUPPLIER } from "../../server/config.ts";
import type { Conn } from "../../server/db/client.ts";
import { companies, orderLines, orders } from "../../server/db/schema.ts";
import type { TaxInvoice } from "./schema.ts";

type SupplierConfig = Pick<Config, "supplierName" | "supplierAbn" | "supplierIsPlaceholder">;

/**
 * Freezes the invoice's parties on order `orderId` (the company's name and ABN now, and the
 * configured supplier), once: the first payment or charge wins, a later call changes nothing.
 * Called in the transaction that charges the balance (api-orders.ts, approvals.ts) and in the one
 * that marks the order paid (release.ts).
 */
export async function freezeInvoiceParties(tx: Conn, orderId: number, config: SupplierConfig): Promise<void> {
  await tx
    .update(orders)
    .set({
      buyerName: sql`(select ${companies.name} from ${companies} where ${companies.id} = ${orders.companyId})`,
      buyerAbn: sql`(select ${companies.abn} from ${companies} where ${companies.id} = ${orders.companyId})`,
      supplierName: config.supplierName,
      supplierAbn: config.supplierAbn,
    })
    .where(and(eq(orders.id, orderId), isNull(orders.buyerName)));
}

/** The invoice numbered `invoiceNumber` of company `companyId`, or null (unknown, or another company's). */
export function findTaxInvoice(
  db: Conn,
  config: SupplierConfig,
  companyId: number,
  invoiceNumber: string,
): Promise<TaxInvoice | null> {
  return readTaxInvoice(db, config, and(eq(orders.companyId, companyId), eq(orders.invoiceNumber, invoiceNumber)));
}

/** The invoice of order `orderId` once it is paid (the payer's email is made from it), or null. */
export function taxInvoiceOfOrder(db: Conn, config: SupplierConfig, orderId: number): Promise<TaxInvoice | null> {
  return readTaxInvoice(db, config, eq(orders.id, orderId));
}

async function readTaxInvoice(db: Conn, config: SupplierConfig, which: SQL | undefined): Promise<TaxInvoice | null> {
  const [row] = await db
    .select({
      invoiceNumber: orders.invoiceNumber,
      releasedAt: orders.releasedAt,
      paidAt: orders.paidAt,
      rewardName: orders.rewardName,
      rewardsCents: orders.rewardsCents,
      serviceFeeCents: orders.serviceFeeCents,
      gstCents: orders.gstCents,
      totalCents: orders.totalCents,
      processor: orders.processor,
      status: orders.status,
      cancelledAt: orders.cancelledAt,
      refundedAt: orders.refundedAt,
      refundFailedAt: orders.refundFailedAt,
      buyerName: orders.buyerName,
      buyerAbn: orders.buyerAbn,
      supplierName: orders.supplierName,
      supplierAbn: orders.supplierAbn,
      // Only for an order paid by a process of the previous release while migration 0020 ran
      // (a rolling deploy): every other paid order has its buyer frozen.
      companyName: companies.name,
      companyAbn: companies.abn,
      recipientCount: sql<number>`(select count(*)::int from ${orderLines} where ${orderLines.orderId} = ${orders.id})`,
    })
    .from(orders)
    .innerJoin(companies, eq(companies.id, orders.companyId))
    // Paid: released, scheduled for later, or cancelled and refunded after it was invoiced.
    .where(and(which, isNotNull(orders.paidAt)));
  if (!row?.invoiceNumber) return null;
  const date = row.paidAt ?? row.releasedAt;
  if (!date) return null;
  const frozen = row.buyerName !== null;
  // Orders paid before migration 0020 have no frozen supplier: the configuration, as they always showed.
  const supplier =
    row.supplierName !== null && row.supplierAbn !== null
      ? {
          name: row.supplierName,
          abn: row.supplierAbn,
          isPlaceholder: row.supplierName === PLACEHOLDER_SUPPLIER.name || row.supplierAbn === PLACEHOLDER_SUPPLIER.abn,
        }
      : { name: config.supplierName, abn: config.supplierAbn, isPlaceholder: config.supplierIsPlaceholder };
  const cancelled = row.status === "cancelled";
  const adjustedAt = row.refundedAt ?? row.cancelledAt;
  return {
    invoiceNumber: row.invoiceNumber,
    invoiceDate: date.toISOString(),
    supplier,
    buyer: frozen
      ? { companyName: row.buyerName ?? "", abn: row.buyerAbn }
      : { companyName: row.companyName, abn: row.companyAbn ?? null },
    rewardName: row.rewardName,
    recipientCount: row.recipientCount,
    rewardsCents: row.rewardsCents,
    serviceFeeCents: row.serviceFeeCents,
    gstCents: row.gstCents,
    totalCents: row.totalCents,
    amountPaidCents: row.totalCents,
    paidFrom: row.processor === "balance" ? "balance" : "card",
    // A scheduled order cancelled before its release is refunded in full (scheduled-sends.ts).
    adjustment:
      cancelled && adjustedAt
        ? {
            date: adjustedAt.toISOString(),
            amountCents: row.totalCents,
            gstCents: row.gstCents,
            refunded: row.refundedAt !== null,
            refundFailed: row.refundedAt === null && row.refundFailedAt !== null,
          }
        : null,
  };
}
