// Where a paid order's tax invoice lives in the portal: the page and its PDF (lower-case paths).
import { href } from "react-router";
import { invoicePathSegment } from "../../../modules/invoices/schema.ts";

export const invoicePath = (invoiceNumber: string) =>
  href("/portal/invoices/:invoiceNumber", { invoiceNumber: invoicePathSegment(invoiceNumber) });
export const invoicePdfPath = (invoiceNumber: string) =>
  href("/portal/invoices/:invoiceNumber/pdf", { invoiceNumber: invoicePathSegment(invoiceNumber) });
