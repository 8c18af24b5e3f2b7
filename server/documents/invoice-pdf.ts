// The tax invoice as a PDF (A4), made on the server with PDFKit from the same TaxInvoice the
// invoice page shows (core/invoices.ts). PDFKit's built-in Helvetica needs no font files.
import PDFDocument from "pdfkit";
import { formatAbn } from "../../core/abn.ts";
import { invoiceLines, type TaxInvoice } from "../../core/invoices.ts";
import { formatDollars } from "../../core/money.ts";
import { formatAuDate } from "../mail/reward-emails.ts";

const MARGIN = 56;
const INK = "#1f2937";
const MUTED = "#4b5563";
const BRAND = "#4c1d95";

export function invoicePdf(invoice: TaxInvoice): Promise<Buffer> {
  const doc = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    info: { Title: `Tax Invoice ${invoice.invoiceNumber}`, Author: invoice.supplier.name },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  const width = doc.page.width - 2 * MARGIN;
  const placeholder = invoice.supplier.isPlaceholder ? " (placeholder)" : "";

  doc.fillColor(BRAND).font("Helvetica-Bold").fontSize(24).text("Tax Invoice");
  doc.moveDown(0.5);
  doc
    .fillColor(INK)
    .font("Helvetica-Bold")
    .fontSize(11)
    .text(invoice.supplier.name + placeholder);
  doc.font("Helvetica").text(`ABN ${formatAbn(invoice.supplier.abn)}${placeholder}`);
  doc.moveDown();

  const facts: Array<[string, string]> = [
    ["Invoice number", invoice.invoiceNumber],
    ["Invoice date", formatAuDate(new Date(invoice.invoiceDate))],
    ["Bill to", invoice.buyer.companyName],
    ["Buyer ABN", invoice.buyer.abn ? formatAbn(invoice.buyer.abn) : "Not provided"],
  ];
  for (const [label, value] of facts) {
    const y = doc.y;
    doc.fillColor(MUTED).font("Helvetica").text(label, MARGIN, y, { width: 130 });
    doc
      .fillColor(INK)
      .font("Helvetica-Bold")
      .text(value, MARGIN + 140, y, { width: width - 140 });
    doc.moveDown(0.3);
  }
  doc.moveDown();

  const amountWidth = 110;
  const rule = () => {
    doc
      .moveTo(MARGIN, doc.y)
      .lineTo(MARGIN + width, doc.y)
      .strokeColor("#d1d5db")
      .stroke();
    doc.moveDown(0.4);
  };
  doc.fillColor(MUTED).font("Helvetica-Bold").fontSize(10);
  const headY = doc.y;
  doc.text("Description", MARGIN, headY, { width: width - amountWidth });
  doc.text("Amount (AUD)", MARGIN + width - amountWidth, headY, { width: amountWidth, align: "right" });
  doc.moveDown(0.4);
  rule();
  for (const line of invoiceLines(invoice)) {
    const y = doc.y;
    doc
      .fillColor(INK)
      .font(line.strong ? "Helvetica-Bold" : "Helvetica")
      .fontSize(11);
    doc.text(line.label, MARGIN, y, { width: width - amountWidth - 10 });
    const after = doc.y;
    doc.text(formatDollars(line.amountCents), MARGIN + width - amountWidth, y, { width: amountWidth, align: "right" });
    doc.y = Math.max(after, doc.y);
    doc.moveDown(0.4);
    rule();
  }
  doc.moveDown();
  doc
    .fillColor(MUTED)
    .font("Helvetica")
    .fontSize(9)
    .text(
      "Reward Dollars carry no GST; GST applies to the service fee only. Paid by card at checkout.",
      MARGIN,
      doc.y,
      { width },
    );
  doc.end();
  return done;
}
