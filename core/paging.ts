// One page of a list the API pages (the audit trail, the reward history): the same members for
// every list, so one pager (app/ui/pager.tsx) reads them all.
export interface ListPage<Item> {
  items: Item[];
  totalCount: number;
  pageNumber: number;
  pageSize: number;
  totalPages: number;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}
