// The audit trail for Owners (ADR 0022 point 7): GET /api/Audit (a page, newest first, filtered
// by who, kind and Australia/Sydney dates) and GET /api/Audit/export (the same rows as CSV, cells
// neutralised against spreadsheet formulas). Another company's entries are never in either.
import { Hono, type MiddlewareHandler } from "hono";
import { csvHeaders } from "../../core/csv-file.ts";
import { pageQuerySchema } from "../../core/paging.ts";
import { ownerOnly, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { pageOf, queryParams } from "../../server/http/validate.ts";
import {
  AUDIT_DETAILS,
  AUDIT_MAX_PAGE_SIZE,
  AUDIT_PAGE_SIZE,
  type AuditFilters,
  isAuditKind,
  isCalendarDate,
} from "./schema.ts";
import { auditCsv, auditPage } from "./service.server.ts";

type FilterQuery = { actor?: string; kind?: string; from?: string; to?: string };

/** The actor filter: a user id of up to 10 digits, else a 400 with AUDIT_DETAILS.actor. */
function actorOf(text: string): number {
  const n = Number(text);
  if (!/^\d{1,10}$/.test(text) || n < 1) throw new ProblemError(400, AUDIT_DETAILS.actor);
  return n;
}

/** The trail's page: strict, a malformed or out-of-range value is a 400 with AUDIT_DETAILS (core/paging.ts). */
const auditPageSchema = pageQuerySchema({ pageSize: AUDIT_PAGE_SIZE, maxPageSize: AUDIT_MAX_PAGE_SIZE }, AUDIT_DETAILS);

/** The filters of a query; each blank one is no filter, anything malformed a 400 naming it. */
function filtersOf(query: FilterQuery): AuditFilters {
  const filters: AuditFilters = {};
  const actor = query.actor?.trim() ?? "";
  if (actor) filters.actor = actorOf(actor);
  const kind = query.kind?.trim() ?? "";
  if (kind) {
    if (!isAuditKind(kind)) throw new ProblemError(400, AUDIT_DETAILS.kind);
    filters.kind = kind;
  }
  for (const edge of ["from", "to"] as const) {
    const day = query[edge]?.trim() ?? "";
    if (!day) continue;
    if (!isCalendarDate(day)) throw new ProblemError(400, AUDIT_DETAILS[edge]);
    filters[edge] = day;
  }
  if (filters.from && filters.to && filters.from > filters.to) throw new ProblemError(400, AUDIT_DETAILS.range);
  return filters;
}

const pageQuery = queryParams((query: FilterQuery & { pageNumber?: string; pageSize?: string }) => ({
  filters: filtersOf(query),
  ...pageOf(auditPageSchema, query),
}));

const exportQuery = queryParams((query: FilterQuery) => filtersOf(query));

export function auditRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  return (
    new Hono<ApiEnv>()
      /** { items, totalCount, pageNumber, pageSize, totalPages, hasPreviousPage, hasNextPage, actors } */
      .get("/Audit", auth, ownerOnly, pageQuery, async (c) => {
        const { companyId } = requireOwner(c);
        const { filters, pageNumber, pageSize } = c.req.valid("query");
        return c.json(await auditPage(deps.db, companyId, filters, { pageNumber, pageSize }));
      })
      /** The filtered trail as text/csv (UTF-8 with a byte-order mark). */
      .get("/Audit/export", auth, ownerOnly, exportQuery, async (c) => {
        const { companyId } = requireOwner(c);
        const csv = await auditCsv(deps.db, companyId, c.req.valid("query"));
        return c.body(csv, 200, csvHeaders("audit-trail.csv"));
      })
  );
}
