// Tax invoices of paid orders: the JSON the page shows and the PDF, with the amounts of docs/requirements.md
// §D5 ($100 → service fee $10.00, GST $1.00, total $111.00), scoped to the company, 404 alike for
// another company's, an unpaid or a malformed number. A tax invoice is a legal document (ADR 0025,
// amendment): the page, the PDF and the email show the buyer and the supplier as they were when
// the order was paid, however the company or the configuration changes after; a cancelled and
// refunded order shows its adjustment note; the PDF says how the order was paid (card or balance).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { eq, sql } from "drizzle-orm";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeEach, expect, it } from "vitest";
import InvoicePage from "../../app/features/invoices/portal.invoices.invoice.tsx";
import { formatDate } from "../../core/dates.ts";
import type { Db } from "../../server/db/client.ts";
import { balanceTopUps, emailOutbox, orders } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { moveBalance } from "../balance/service.server.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { RewardHistoryItem } from "../identity/schema.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { INVOICE_DETAILS, type TaxInvoice } from "./schema.ts";

const MINUTE = 60_000;

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

/** Text with every run of white space (a wrapped line, a tag's gap) as one space. */
const words = (text: string) => text.replace(/\s+/g, " ");

/** The invoice page's text, as the route renders the loader's invoice (the server render). */
function pageText(invoice: TaxInvoice): string {
  const html = renderToStaticMarkup(createElement(InvoicePage, { loaderData: { invoice } } as never));
  return words(
    html
      .replace(/<[^>]+>/g, " ")
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, "&"),
  );
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

  async function pdfOf(
    manager: { go: (method: string, path: string) => Response | Promise<Response> },
    invoiceNumber: string,
  ) {
    const res = await manager.go("GET", `Invoices/${invoiceNumber}/pdf`);
    expect(res.status).toBe(200);
    return words(pdfText(Buffer.from(await res.arrayBuffer())));
  }

  it("keeps the buyer and the supplier as they were at payment: the company renamed with a new ABN and the supplier reconfigured change no page, PDF or email", async () => {
    const { manager, invoiceNumber, clock } = await paidOrder("Acme Pty Ltd");
    const renamed = await manager.go("PUT", "Companies/", {
      name: "Zenith Holdings Pty Ltd",
      ABN: "51824753556",
      size: "11-50",
      industry: "Retail",
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    // The same database under a new configuration: the supplier renamed too.
    const later = paymentsApi(db(), {
      config: testConfig({ SUPPLIER_NAME: "Other Supplier Pty Ltd", SUPPLIER_ABN: "51824753556" }),
      clock,
    });
    const res = await call(later.api, "GET", `/api/Invoices/${invoiceNumber}`, undefined, manager.accessToken);
    expect(res.status).toBe(200);
    const invoice = (await res.json()) as TaxInvoice;
    expect(invoice.buyer).toEqual({ companyName: "Acme Pty Ltd", abn: "53004085616" });
    expect(invoice.supplier).toEqual({ name: "Rewards Supplier Pty Ltd", abn: "53004085616", isPlaceholder: false });

    const pdfRes = await call(later.api, "GET", `/api/Invoices/${invoiceNumber}/pdf`, undefined, manager.accessToken);
    const pdf = words(pdfText(Buffer.from(await pdfRes.arrayBuffer())));
    const page = pageText(invoice);
    const [email] = (await db().select().from(emailOutbox)).filter((e) => e.subject.startsWith("Tax Invoice"));
    for (const [name, text] of [
      ["page", page],
      ["PDF", pdf],
      ["email", words(email?.text ?? "")],
    ] as const) {
      for (const shown of ["Acme Pty Ltd", "53 004 085 616", "Rewards Supplier Pty Ltd"]) {
        expect(text, `${name}: ${shown}`).toContain(shown);
      }
      for (const hidden of ["Zenith Holdings", "51 824 753 556", "Other Supplier"]) {
        expect(text, `${name}: ${hidden}`).not.toContain(hidden);
      }
    }
  });

  it("an order paid before migration 0020 reads the buyer the migration copied from the company's row, and the configured supplier", async () => {
    const { manager, invoiceNumber } = await paidOrder("Acme Pty Ltd");
    // As it was before the migration: nothing frozen; then the company renamed before the upgrade.
    await db()
      .update(orders)
      .set({ buyerName: null, buyerAbn: null, supplierName: null, supplierAbn: null })
      .where(eq(orders.invoiceNumber, invoiceNumber));
    await manager.json("PUT", "Companies/", {
      name: "Acme Renamed Pty Ltd",
      ABN: "51824753556",
      size: "11-50",
      industry: "Retail",
    });
    const migration = readFileSync(
      new URL("../../server/db/migrations/0020_invoice_parties.sql", import.meta.url),
      "utf8",
    );
    const backfill = migration.split("--> statement-breakpoint").at(-1) ?? "";
    expect(backfill).toMatch(/^\s*-- Orders paid before/);
    await db().execute(sql.raw(backfill));
    const [row] = await db().select().from(orders).where(eq(orders.invoiceNumber, invoiceNumber));
    expect(row).toMatchObject({ buyerName: "Acme Renamed Pty Ltd", buyerAbn: "51824753556", supplierName: null });
    const invoice = await manager.json<TaxInvoice>("GET", `Invoices/${invoiceNumber}`);
    expect(invoice.buyer).toEqual({ companyName: "Acme Renamed Pty Ltd", abn: "51824753556" });
    expect(invoice.supplier).toEqual({ name: "Rewards Supplier Pty Ltd", abn: "53004085616", isPlaceholder: false });
  });

  it("a cancelled and refunded order's invoice shows the adjustment note with the refund's date and amount, not paid in full", async () => {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    await seedDraft(db(), manager, [100], "Holiday thanks");
    const sendAt = new Date(ctx.clock.now().getTime() + 30 * MINUTE);
    await manager.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt: sendAt.toISOString() });
    expect((await payDraftByCard(manager, [100])).status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order?.invoiceNumber) throw new Error("the scheduled order has no invoice number");
    // Refunded after it was paid: the note carries the refund's time, not the invoice's.
    ctx.clock.advance(10 * MINUTE);
    await manager.json("POST", `RewardOrders/${order.id}/cancel`);
    const refundDate = formatDate(ctx.clock.now(), "longDate");
    const invoice = await manager.json<TaxInvoice>("GET", `Invoices/${order.invoiceNumber}`);
    for (const [name, text] of [
      ["page", pageText(invoice)],
      ["PDF", await pdfOf(manager, order.invoiceNumber)],
    ] as const) {
      for (const shown of ["Adjustment note", refundDate, "-$111.00", "refunded in full to the card"]) {
        expect(text, `${name}: ${shown}`).toContain(shown);
      }
      expect(text, name).not.toContain("Paid by card at checkout.");
    }
    expect(invoice.adjustment).toEqual({
      date: ctx.clock.now().toISOString(),
      amountCents: 11_100,
      gstCents: 100,
      refunded: true,
      refundFailed: false,
    });
  });

  it("says how each order was paid: by card at checkout, or from the prepaid balance", async () => {
    const card = await paidOrder("Acme Pty Ltd");
    const cardInvoice = await card.manager.json<TaxInvoice>("GET", `Invoices/${card.invoiceNumber}`);
    expect(await pdfOf(card.manager, card.invoiceNumber)).toContain("Paid by card at checkout.");
    expect(pageText(cardInvoice)).toContain("Paid by card at checkout.");

    // An order a system placed with its API key, paid from the company's prepaid balance (ADR 0044).
    const owner = await payingManager(card.api, db(), "Balance Co Pty Ltd");
    await db().transaction(async (tx) => {
      const [topUp] = await tx
        .insert(balanceTopUps)
        .values({
          companyId: owner.companyId,
          requestedBy: owner.userId,
          amountCents: 500_00,
          status: "paid",
          processor: "simulated",
          paidAt: card.clock.now(),
        })
        .returning({ id: balanceTopUps.id });
      if (!topUp) throw new Error("no top-up");
      await moveBalance(tx, owner.companyId, { kind: "top_up", topUpId: topUp.id, amountCents: 500_00 });
    });
    const key = await owner.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    const placed = await card.api.request("/api/v1/orders", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.key}`,
        "content-type": "application/json",
        "idempotency-key": randomUUID(),
      },
      body: JSON.stringify({
        rewardName: "Payroll thanks",
        recipients: [{ email: "pat@example.com", firstName: "Pat", lastName: "Lee", amount: 100 }],
      }),
    });
    expect(placed.status, await placed.clone().text()).toBe(201);
    const [balanceOrder] = await db().select().from(orders).where(eq(orders.companyId, owner.companyId));
    if (!balanceOrder?.invoiceNumber) throw new Error("the balance order has no invoice number");
    const invoice = await owner.json<TaxInvoice>("GET", `Invoices/${balanceOrder.invoiceNumber}`);
    for (const [name, text] of [
      ["page", pageText(invoice)],
      ["PDF", await pdfOf(owner, balanceOrder.invoiceNumber)],
    ] as const) {
      expect(text, name).toContain("Paid from the prepaid balance.");
      expect(text, name).not.toContain("Paid by card");
    }
    expect(invoice.paidFrom).toBe("balance");
    expect(cardInvoice.paidFrom).toBe("card");
  });

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
      paidFrom: "card",
      adjustment: null,
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
