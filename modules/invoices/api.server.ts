// Tax invoices of the caller's company's paid orders (modules/invoices/schema.ts), for any of its managers:
//   GET /Invoices/:invoiceNumber       → TaxInvoice
//   GET /Invoices/:invoiceNumber/pdf   → the same invoice as a PDF (modules/invoices/pdf.server.ts)
// Another company's number, an unpaid order or a malformed number answer 404 alike.
import { Hono, type MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { invoicePdf } from "./pdf.server.ts";
import { INVOICE_DETAILS, INVOICE_NUMBER_PATTERN } from "./schema.ts";
import { findTaxInvoice } from "./service.server.ts";

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
