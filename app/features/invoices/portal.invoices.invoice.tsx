// A paid order's tax invoice (modules/invoices/schema.ts), linked from the dashboard's history and from the
// payer's tax invoice email: supplier and buyer with their ABNs (as frozen at payment), number,
// date, the lines, GST and the total, as the ATO asks of a GST-registered supplier; a cancelled
// order's adjustment note; how it was paid. The same view as the PDF and the email (invoiceView).
// Printing leaves out the portal's header and footer (print: variants); the PDF is made on the
// server (GET /api/Invoices/…/pdf).
import { data } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { invoiceNumberFromPath, invoiceView } from "../../../modules/invoices/schema.ts";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.invoices.invoice";
import { invoicePdfPath } from "./invoice-paths.ts";
import { PrintButton } from "./print-button.tsx";

const TITLE = "Tax Invoice";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function loader({ context, params }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const invoiceNumber = invoiceNumberFromPath(params.invoiceNumber);
  if (!invoiceNumber) throw data("Not found", { status: 404 });
  const invoice = await client.call((api) => api.Invoices[":invoiceNumber"].$get({ param: { invoiceNumber } }));
  if (!invoice.ok) throw data(invoice.detail, { status: invoice.status });
  return { invoice: invoice.data };
}

export default function InvoicePage({ loaderData }: Route.ComponentProps) {
  const { invoice } = loaderData;
  const view = invoiceView(invoice);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 md:py-12 print:max-w-none print:p-0">
      <div className="mb-6 flex flex-wrap gap-3 print:hidden">
        <a
          href={invoicePdfPath(invoice.invoiceNumber)}
          download
          className="inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-6 py-2 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          Download PDF
        </a>
        <PrintButton />
      </div>
      <article
        aria-labelledby="invoice-heading"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-8 print:border-0 print:p-0 print:shadow-none"
      >
        <h2 id="invoice-heading" className="text-3xl font-bold text-brand-800">
          Tax Invoice
        </h2>
        <div className="mt-4">
          <p className="font-semibold text-slate-900">{view.supplierName}</p>
          <p className="text-slate-700">ABN {view.supplierAbn}</p>
        </div>
        <Facts facts={view.facts} />
        <table className="mt-8 w-full border-collapse">
          <caption className="sr-only">What was supplied, the GST and the total, in Australian dollars</caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-2 pr-4 text-left text-sm font-semibold text-slate-700">
                Description
              </th>
              <th scope="col" className="py-2 text-right text-sm font-semibold text-slate-700">
                Amount (AUD)
              </th>
            </tr>
          </thead>
          <tbody>
            {view.lines.map((line) => (
              <tr key={line.label} className="border-b border-slate-200">
                <th
                  scope="row"
                  className={`py-2 pr-4 text-left align-top [overflow-wrap:anywhere] ${line.strong ? "font-bold text-slate-900" : "font-normal text-slate-800"}`}
                >
                  {line.label}
                </th>
                <td
                  className={`whitespace-nowrap py-2 text-right align-top tabular-nums ${line.strong ? "font-bold text-slate-900" : "text-slate-800"}`}
                >
                  {formatDollars(line.amountCents)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {view.adjustment && (
          <section aria-labelledby="adjustment-heading" className="mt-8">
            <h3 id="adjustment-heading" className="text-2xl font-bold text-brand-800">
              {view.adjustment.heading}
            </h3>
            <Facts facts={view.adjustment.facts} />
          </section>
        )}
        {view.notes.map((note) => (
          <p key={note} className="mt-6 text-sm text-slate-600 [&+p]:mt-1">
            {note}
          </p>
        ))}
      </article>
    </div>
  );
}

function Facts({ facts }: { facts: Array<[string, string]> }) {
  return (
    <dl className="mt-6 grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-6 gap-y-2">
      {facts.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-600">{label}</dt>
          <dd className="[overflow-wrap:anywhere] font-semibold text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
