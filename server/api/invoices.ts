// Tax invoices of the caller's company's paid orders (core/invoices.ts), for any of its managers:
//   GET /Invoices/:invoiceNumber       → TaxInvoice
//   GET /Invoices/:invoiceNumber/pdf   → the same invoice as a PDF (server/documents/invoice-pdf.ts)
// Another company's number, an unpaid order or a malformed number answer 404 alike.
import { Hono, type MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { INVOICE_DETAILS, INVOICE_NUMBER_PATTERN } from "../../core/invoices.ts";
import { invoicePdf } from "../documents/invoice-pdf.ts";
import { findTaxInvoice } from "../domain/invoices.ts";
import { ProblemError } from "../http/problem.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

const invoiceParam = validator("param", (param: Record<string, string>) => {
  const invoiceNumber = param.invoiceNumber ?? "";
  if (!INVOICE_NUMBER_PATTERN.test(invoiceNumber) || invoiceNumber.length > 20) {
    throw new ProblemError(404, INVOICE_DETAILS.notFound);
  }
  return { invoiceNumber };
});

export function invoicesRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  async function invoiceOf(companyId: number, invoiceNumber: string) {
    const invoice = await findTaxInvoice(deps.db, deps.config, companyId, invoiceNumber);
    if (!invoice) throw new ProblemError(404, INVOICE_DETAILS.notFound);
    return invoice;
  }
  return new Hono<ApiEnv>()
    .get("/Invoices/:invoiceNumber", auth, invoiceParam, async (c) => {
      return c.json(await invoiceOf(requireAuth(c).companyId, c.req.valid("param").invoiceNumber));
    })
    .get("/Invoices/:invoiceNumber/pdf", auth, invoiceParam, async (c) => {
      const invoice = await invoiceOf(requireAuth(c).companyId, c.req.valid("param").invoiceNumber);
      const pdf = await invoicePdf(invoice);
      return c.body(new Uint8Array(pdf), 200, {
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename="tax-invoice-${invoice.invoiceNumber}.pdf"`,
        "cache-control": "private, no-store",
      });
    });
}
