// A page's id from its address (/portal/rewards/:releaseId, /portal/approvals/:orderId, …): an id
// of core/fields.ts `parseId`, else the page is a 404 (as the API answers).
import { data } from "react-router";
import { parseId } from "../../core/fields.ts";

export function idFromParam(text: string | undefined): number {
  const id = parseId(text);
  if (id === null) throw data("Not found", { status: 404 });
  return id;
}
