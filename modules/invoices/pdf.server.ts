// The tax invoice as a PDF (A4), made on the server with PDFKit from the same view the invoice
// page and the payer's email show (modules/invoices/schema.ts invoiceView). PDFKit's built-in Helvetica
// needs no font files.
import PDFDocument from "pdfkit";
import { formatDollars } from "../../core/money.ts";
import { invoiceView, type TaxInvoice } from "./schema.ts";

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
  const view = invoiceView(invoice);

  doc.fillColor(BRAND).font("Helvetica-Bold").fontSize(24).text("Tax Invoice");
  doc.moveDown(0.5);
  doc.fillColor(INK).font("Helvetica-Bold").fontSize(11).text(view.supplierName);
  doc.font("Helvetica").text(`ABN ${view.supplierAbn}`);
  doc.moveDown();

  const facts = (rows: Array<[string, string]>) => {
    for (const [label, value] of rows) {
      const y = doc.y;
      doc.fillColor(MUTED).font("Helvetica").fontSize(11).text(label, MARGIN, y, { width: 130 });
      const after = doc.y;
      doc
        .fillColor(INK)
        .font("Helvetica-Bold")
        .text(value, MARGIN + 140, y, { width: width - 140 });
      doc.y = Math.max(after, doc.y);
      doc.moveDown(0.3);
    }
  };
  facts(view.facts);
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
  for (const line of view.lines) {
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
  if (view.adjustment) {
    doc.moveDown();
    doc.fillColor(BRAND).font("Helvetica-Bold").fontSize(16).text(view.adjustment.heading, MARGIN, doc.y, { width });
    doc.moveDown(0.5);
    facts(view.adjustment.facts);
  }
  doc.moveDown();
  doc.fillColor(MUTED).font("Helvetica").fontSize(9);
  for (const note of view.notes) doc.text(note, MARGIN, doc.y, { width });
  doc.end();
  return done;
}
