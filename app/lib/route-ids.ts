// A page's id from its address (/portal/rewards/:releaseId, /portal/approvals/:orderId, …): a
// positive whole number of at most 15 digits, else the page is a 404 (as the API answers).
import { data } from "react-router";

export function idFromParam(text: string | undefined): number {
  const id = Number(text);
  if (!/^\d{1,15}$/.test(text ?? "") || !Number.isSafeInteger(id) || id <= 0) throw data("Not found", { status: 404 });
  return id;
}
