// The pager of Reward My Team (docs/requirements.md §S2 'X of Y page(s)' with Previous and Next; §S9: 7 a page,
// newest first): the shared Pager, linking to ?page=N and keeping the rest of the address's
// query (e.g. the search text without JavaScript).

import { Pager } from "../../ui/pager.tsx";
import { pageHref } from "./reward-draft.ts";

export function RewardDraftPager({
  pageNumber,
  totalPages,
  search,
}: {
  pageNumber: number;
  totalPages: number;
  /** The address's query (kept, e.g. the search text without JavaScript). */
  search: string;
}) {
  return (
    <Pager
      label="Recipient pages"
      pageNumber={pageNumber}
      totalPages={totalPages}
      hrefFor={(page) => pageHref(page, search)}
    />
  );
}
