// One page of a list the API pages (the audit trail, the reward history): the same members for
// every list, so one pager (app/ui/pager.tsx) reads them all; and the page query every API list
// route reads (pageQuerySchema).
import * as z from "zod/mini";

export interface ListPage<Item> {
  items: Item[];
  totalCount: number;
  pageNumber: number;
  pageSize: number;
  totalPages: number;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

/** The highest page number a list's query takes unless its route says otherwise. */
export const MAX_PAGE_NUMBER = 1_000_000;

/** What a list route pages by: its default and largest page size, and its highest page number. */
export interface PageLimits {
  pageSize: number;
  maxPageSize?: number;
  maxPageNumber?: number;
}

/** The `detail` of a 400 for each refused parameter (a strict list's query, see pageQuerySchema). */
export interface PageQueryDetails {
  pageNumber: string;
  pageSize: string;
}

/**
 * A lenient page parameter: anything that is not a whole number from 1 to `max` (absent, blank,
 * "abc", -1, too large) is `fallback`. The pages read `?page=` with it too (app/lib/paging.ts).
 */
export function lenientPageNumber(max: number, fallback: number) {
  return z.catch(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(max)), fallback);
}

/**
 * A strict page parameter: absent or blank is `fallback`; otherwise up to 10 digits (spaces
 * around allowed) of a number from 1 to `max`, else an issue whose message is `detail` (the 400's
 * detail, as modules/team/team.test.ts and audit.test.ts assert).
 */
function strictPageNumber(max: number, fallback: number, detail: string) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((value, ctx) => {
      const text = value?.trim() ?? "";
      if (text === "") return fallback;
      const n = Number(text);
      if (/^\d{1,10}$/.test(text) && n >= 1 && n <= max) return n;
      ctx.issues.push({ code: "custom", message: detail, input: value });
      return z.NEVER;
    }),
  );
}

/**
 * The page query (`pageNumber`, `pageSize`) of every API list route, one schema for all of them.
 * Without `details` it is lenient: an out-of-range or missing value falls back to page 1 and
 * `pageSize` (RewardMyTeam, RewardHistory, /api/v1/orders, whose OpenAPI document is generated
 * from it). With `details` it is strict: a malformed or out-of-range value is refused with its
 * detail (Users, Audit).
 */
export function pageQuerySchema(limits: PageLimits): ReturnType<typeof lenientPageQuery>;
export function pageQuerySchema(limits: PageLimits, details: PageQueryDetails): ReturnType<typeof strictPageQuery>;
export function pageQuerySchema(limits: PageLimits, details?: PageQueryDetails) {
  return details ? strictPageQuery(limits, details) : lenientPageQuery(limits);
}

function lenientPageQuery({ pageSize, maxPageSize = 100, maxPageNumber = MAX_PAGE_NUMBER }: PageLimits) {
  return z.object({
    pageNumber: lenientPageNumber(maxPageNumber, 1),
    pageSize: lenientPageNumber(maxPageSize, pageSize),
  });
}

function strictPageQuery(
  { pageSize, maxPageSize = 100, maxPageNumber = MAX_PAGE_NUMBER }: PageLimits,
  details: PageQueryDetails,
) {
  return z.object({
    pageNumber: strictPageNumber(maxPageNumber, 1, details.pageNumber),
    pageSize: strictPageNumber(maxPageSize, pageSize, details.pageSize),
  });
}

/** The page a list route reads, as pageQuerySchema answers it. */
export interface PageRequest {
  pageNumber: number;
  pageSize: number;
}
