// The audit trail (ADR 0022): every change to managers, roles, settings, team members, drafts,
// approvals, orders, payments and releases is one row of `audit_log`, written in the same
// transaction as the change it records, with who did it, when and from which address.

import { and, desc, eq, gte, lt, or, type SQL, sql } from "drizzle-orm";
import { csvFile } from "../../core/csv-file.ts";
import type { Db } from "../../server/db/client.ts";
import { auditLog, users } from "../../server/db/schema.ts";
import { sydneyWallTimeToInstant } from "../scheduled-sends/schema.ts";
import {
  AUDIT_EXPORT_MAX_ROWS,
  AUDIT_KINDS,
  type AuditEntryView,
  type AuditFilters,
  type AuditPage,
  kindOfAction,
  sydneyTime,
} from "./schema.ts";

/** A database handle or a transaction: an entry is written with the change it records. */
type Writer = Pick<Db, "insert">;

export interface AuditEntry {
  companyId: number | null;
  /** The manager who acted; null for the processor (webhook) or the system. */
  actorUserId: number | null;
  /** What happened, as `thing.verb`: `manager.invited`, `order.approved`, `settings.company_updated`. */
  action: string;
  /** What it happened to, as `kind:id`: `user:12`, `order:40`, `invite:3`. */
  subject: string;
  data?: Record<string, unknown>;
  /** The caller's address as the edge trusted it (the API's `clientIp`). */
  clientIp?: string | null;
  at: Date;
}

export async function recordAudit(db: Writer, ...entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.insert(auditLog).values(
    entries.map((e) => ({
      companyId: e.companyId,
      actorUserId: e.actorUserId,
      action: e.action,
      subject: e.subject,
      data: e.data ?? {},
      clientIp: e.clientIp ?? null,
      createdAt: e.at,
    })),
  );
}

// ─── Reading the trail (an Owner's Audit page and its CSV) ───────────────────────────────────

/** The instant a day of Australia/Sydney starts ("2026-11-24" → 2026-11-23T13:00:00Z in summer). */
export function sydneyDayStart(day: string): Date {
  // Midnight is never skipped or repeated in Sydney (daylight saving changes at 2–3 am).
  const start = sydneyWallTimeToInstant(`${day}T00:00`);
  if (!start) throw new Error(`not a calendar day: ${day}`);
  return start;
}

const addDays = (day: string, n: number) => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
};

function whereOf(companyId: number, filters: AuditFilters): SQL {
  const conditions: SQL[] = [eq(auditLog.companyId, companyId)];
  if (filters.actor !== undefined) conditions.push(eq(auditLog.actorUserId, filters.actor));
  if (filters.kind) {
    const prefixes = AUDIT_KINDS[filters.kind].prefixes;
    // starts_with, not LIKE: "_" in an action name is not a wildcard.
    conditions.push(or(...prefixes.map((p) => sql`starts_with(${auditLog.action}, ${p})`)) as SQL);
  }
  if (filters.from) conditions.push(gte(auditLog.createdAt, sydneyDayStart(filters.from)));
  // `to` names a whole day: everything before the next day starts.
  if (filters.to) conditions.push(lt(auditLog.createdAt, sydneyDayStart(addDays(filters.to, 1))));
  return and(...conditions) as SQL;
}

const entryColumns = {
  id: auditLog.id,
  createdAt: auditLog.createdAt,
  action: auditLog.action,
  subject: auditLog.subject,
  data: auditLog.data,
  clientIp: auditLog.clientIp,
  actorId: users.id,
  actorFirstName: users.firstName,
  actorLastName: users.lastName,
  actorEmail: users.email,
};

type EntryRow = {
  id: number;
  createdAt: Date;
  action: string;
  subject: string;
  data: Record<string, unknown>;
  clientIp: string | null;
  actorId: number | null;
  actorFirstName: string | null;
  actorLastName: string | null;
  actorEmail: string | null;
};

/** The recorded details as `key: value; …` (nested values as JSON). */
export function detailsText(data: Record<string, unknown>): string {
  return Object.entries(data)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("; ");
}

function view(row: EntryRow): AuditEntryView {
  return {
    id: row.id,
    at: row.createdAt.toISOString(),
    actor:
      row.actorId === null
        ? null
        : {
            id: row.actorId,
            name: `${row.actorFirstName ?? ""} ${row.actorLastName ?? ""}`.trim(),
            email: row.actorEmail ?? "",
          },
    action: row.action,
    kind: kindOfAction(row.action) ?? null,
    subject: row.subject,
    details: detailsText(row.data ?? {}),
    clientIp: row.clientIp,
  };
}

function entries(db: Db, companyId: number, filters: AuditFilters) {
  return db
    .select(entryColumns)
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(whereOf(companyId, filters))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id));
}

/** One page of the company's trail, newest first, with everyone who appears in it (for the Who filter). */
export async function auditPage(
  db: Db,
  companyId: number,
  filters: AuditFilters,
  page: { pageNumber: number; pageSize: number },
): Promise<AuditPage> {
  const [rows, [count], actors] = await Promise.all([
    entries(db, companyId, filters)
      .limit(page.pageSize)
      .offset((page.pageNumber - 1) * page.pageSize),
    db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(whereOf(companyId, filters)),
    db
      .selectDistinct({ id: users.id, firstName: users.firstName, lastName: users.lastName })
      .from(auditLog)
      .innerJoin(users, eq(users.id, auditLog.actorUserId))
      .where(eq(auditLog.companyId, companyId))
      .orderBy(users.firstName, users.lastName, users.id),
  ]);
  const totalCount = count?.n ?? 0;
  const totalPages = Math.max(1, Math.ceil(totalCount / page.pageSize));
  return {
    items: (rows as EntryRow[]).map(view),
    totalCount,
    pageNumber: page.pageNumber,
    pageSize: page.pageSize,
    totalPages,
    hasPreviousPage: page.pageNumber > 1,
    hasNextPage: page.pageNumber < totalPages,
    actors: actors.map((a) => ({ id: a.id, name: `${a.firstName} ${a.lastName}` })),
  };
}

export const AUDIT_CSV_HEADINGS = [
  "Time (Australia/Sydney)",
  "Who",
  "Email",
  "Action",
  "Subject",
  "Details",
  "Address",
];

/** The filtered trail as CSV (newest first, at most AUDIT_EXPORT_MAX_ROWS rows), the same rows the page lists. */
export async function auditCsv(db: Db, companyId: number, filters: AuditFilters): Promise<string> {
  const rows = (await entries(db, companyId, filters).limit(AUDIT_EXPORT_MAX_ROWS)) as EntryRow[];
  return csvFile(
    AUDIT_CSV_HEADINGS,
    rows
      .map(view)
      .map((row) => [
        sydneyTime(row.at),
        row.actor?.name ?? "System",
        row.actor?.email ?? "",
        row.action,
        row.subject,
        row.details,
        row.clientIp ?? "",
      ]),
  );
}
