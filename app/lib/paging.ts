// The page number a paged page reads from its address (`?page=`, the dashboard's `?historyPage=`)
// or from a form's `page` field: one rule for all of them, the lenient one of the API's lists
// (core/paging.ts), so an old or hand-edited link shows page 1 rather than an error.
import { lenientPageNumber } from "../../core/paging.ts";

const pageNumbers = new Map<number, ReturnType<typeof lenientPageNumber>>();

/**
 * The page number `value` names: a whole number from 1 to `max`; anything else (missing, blank,
 * "abc", 0, -1, 1.5, too large, a file) is page 1.
 */
export function pageNumberOf(value: FormDataEntryValue | null | undefined, max = Number.MAX_SAFE_INTEGER): number {
  let schema = pageNumbers.get(max);
  if (!schema) {
    schema = lenientPageNumber(max, 1);
    pageNumbers.set(max, schema);
  }
  return schema.parse(value);
}
