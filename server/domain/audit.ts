// The audit trail (ADR 0022): every change to managers, roles, settings, team members, drafts,
// approvals, orders, payments and releases is one row of `audit_log`, written in the same
// transaction as the change it records, with who did it, when and from which address.
import type { Db } from "../db/client.ts";
import { auditLog } from "../db/schema.ts";

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
