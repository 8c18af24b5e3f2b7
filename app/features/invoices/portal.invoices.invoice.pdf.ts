// GET /portal/invoices/:invoiceNumber/pdf: the tax invoice as the PDF the API makes, downloaded
// with the session's token. Unknown or another company's invoice: the API's message, as text.
import { INVOICE_DETAILS, invoiceNumberFromPath } from "../../../modules/invoices/schema.ts";
import { portalUserMiddleware, requireOnboardedUser } from "../portal/portal.server.ts";
import type { Route } from "./+types/portal.invoices.invoice.pdf";

// Outside the portal layout (a file, not a page), so it resolves the portal's user itself.
export const middleware: Route.MiddlewareFunction[] = [portalUserMiddleware];

export async function loader({ context, params }: Route.LoaderArgs) {
  const { api: client } = requireOnboardedUser(context);
  const invoiceNumber = invoiceNumberFromPath(params.invoiceNumber);
  const pdf = invoiceNumber
    ? await client.bytes((api) => api.Invoices[":invoiceNumber"].pdf.$get({ param: { invoiceNumber } }))
    : ({ ok: false, status: 404, detail: INVOICE_DETAILS.notFound } as const);
  if (!pdf.ok) {
    return new Response(pdf.detail, {
      status: pdf.status,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" },
    });
  }
  return new Response(pdf.data, {
    headers: {
      "content-type": "application/pdf",
      "content-disposition": `attachment; filename="tax-invoice-${invoiceNumber}.pdf"`,
      "cache-control": "private, no-store",
    },
  });
}
