// Tax invoices of paid orders: the JSON the page shows and the PDF, with the amounts of DESIGN.md
// §5 ($100 → service fee $10.00, GST $1.00, total $111.00), scoped to the company, 404 alike for
// another company's, an unpaid or a malformed number.
import { inflateSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { RewardHistoryItem } from "../../core/account-forms.ts";
import { INVOICE_DETAILS, type TaxInvoice } from "../../core/invoices.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { Db } from "../db/client.ts";
import { orders } from "../db/schema.ts";
import { call } from "./accounts.testkit.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";

/**
 * The text a PDF shows, as PDFKit writes it: each page's content stream (Flate) holds the text as
 * hex strings in TJ arrays, split where the font kerns.
 */
function pdfText(pdf: Buffer): string {
  const raw = pdf.toString("latin1");
  const texts: string[] = [];
  for (const match of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let content: string;
    try {
      content = inflateSync(Buffer.from(match[1] ?? "", "latin1")).toString("latin1");
    } catch {
      continue;
    }
    for (const array of content.matchAll(/\[([^\]]*)\]\s*TJ/g)) {
      const hex = [...(array[1] ?? "").matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join("");
      texts.push(Buffer.from(hex, "hex").toString("latin1"));
    }
  }
  return texts.join("\n");
}

describeEachDatabase("tax invoices", ({ database }) => {
  const config = testConfig({ SUPPLIER_NAME: "Rewards Supplier Pty Ltd", SUPPLIER_ABN: "53004085616" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function paidOrder(companyName = "Acme Pty Ltd") {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), companyName);
    await seedDraft(db(), manager, [60, 40], "Quarterly Thanks");
    expect((await payDraftByCard(manager, [60, 40])).status).toBe("succeeded");
    const [order] = await db().select().from(orders).where(eq(orders.companyId, manager.companyId));
    if (!order?.invoiceNumber) throw new Error("the paid order has no invoice number");
    return { ...ctx, manager, invoiceNumber: order.invoiceNumber };
  }

  it("answers the invoice of a paid order: supplier and buyer ABNs, number, date, lines, GST and total", async () => {
    const { manager, invoiceNumber, clock } = await paidOrder();
    const invoice = await manager.json<TaxInvoice>("GET", `Invoices/${invoiceNumber}`);
    expect(invoice).toEqual({
      invoiceNumber,
      invoiceDate: clock.now().toISOString(),
      supplier: { name: "Rewards Supplier Pty Ltd", abn: "53004085616", isPlaceholder: false },
      buyer: { companyName: "Acme Pty Ltd", abn: "53004085616" },
      rewardName: "Quarterly Thanks",
      recipientCount: 2,
      rewardsCents: 10_000,
      serviceFeeCents: 1_000,
      gstCents: 100,
      totalCents: 11_100,
      amountPaidCents: 11_100,
    });
    // The dashboard's history links each release to its invoice.
    const [item] = await manager.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history");
    expect(item?.invoiceNumber).toBe(invoiceNumber);
  });

  it("makes the same invoice as a PDF with the words 'Tax Invoice' and the amounts", async () => {
    const { manager, invoiceNumber } = await paidOrder();
    const res = await manager.go("GET", `Invoices/${invoiceNumber}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="tax-invoice-${invoiceNumber}.pdf"`);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const text = pdfText(pdf);
    for (const shown of [
      "Tax Invoice",
      "Rewards Supplier Pty Ltd",
      "ABN 53 004 085 616",
      invoiceNumber,
      "Acme Pty Ltd",
      "$100.00",
      "$10.00",
      "$1.00",
      "$111.00",
    ]) {
      expect(text, shown).toContain(shown);
    }
  });

  it("another company's invoice, an unpaid order, a malformed number and no token: refused, nothing shown", async () => {
    const { api, manager, invoiceNumber } = await paidOrder();
    const other = await payingManager(api, db(), "Other Co");
    for (const path of [`Invoices/${invoiceNumber}`, `Invoices/${invoiceNumber}/pdf`]) {
      const problem = await expectProblem(await other.go("GET", path), 404);
      expect(problem.detail).toBe(INVOICE_DETAILS.notFound);
      await expectProblem(await call(api, "GET", `/api/${path}`), 401);
    }
    for (const bad of ["INV-999999", "INV-1", "inv-000001", "1", "INV-000001%00", `${"INV-"}${"9".repeat(30)}`]) {
      await expectProblem(await manager.go("GET", `Invoices/${encodeURIComponent(bad)}`), 404);
    }
    // An order made but not paid has no invoice.
    await seedDraft(db(), other, [10]);
    await other.json("POST", "StripePayment/create-payment-intent", { amount: 1_110 });
    const [pending] = await db().select().from(orders).where(eq(orders.companyId, other.companyId));
    expect(pending?.invoiceNumber).toBeNull();
  });
});
