// The audit trail's kinds, filters and answers (ADR 0022 point 7): what the API validates, what
// the Audit page's filter form sends, and what both show. Browser-safe (no server imports).

import { formatDate } from "../../core/dates.ts";
import type { ListPage } from "../../core/paging.ts";

/** The kinds an Owner filters by, each the action prefixes it covers (modules/*: `thing.verb`). */
export const AUDIT_KINDS = {
  managers: { label: "Managers and invitations", prefixes: ["manager."] },
  "sign-in": { label: "Sign-in and two-factor", prefixes: ["two_factor.", "login."] },
  settings: { label: "Company settings", prefixes: ["settings."] },
  team: { label: "Team members", prefixes: ["member.", "members."] },
  drafts: { label: "Reward drafts", prefixes: ["draft."] },
  approvals: { label: "Approvals", prefixes: ["approval."] },
  orders: { label: "Orders and payments", prefixes: ["order."] },
  releases: { label: "Releases", prefixes: ["reward."] },
  "api-keys": { label: "API keys", prefixes: ["api_key."] },
  webhooks: { label: "Webhooks", prefixes: ["webhook."] },
  balance: { label: "Prepaid balance", prefixes: ["balance."] },
  budgets: { label: "Monthly budgets", prefixes: ["budget."] },
} as const satisfies Record<string, { label: string; prefixes: readonly string[] }>;

export type AuditKind = keyof typeof AUDIT_KINDS;
export const AUDIT_KIND_IDS = Object.keys(AUDIT_KINDS) as AuditKind[];

export function isAuditKind(value: string): value is AuditKind {
  return Object.hasOwn(AUDIT_KINDS, value);
}

/** The kind an action belongs to, or undefined for one no filter names. */
export function kindOfAction(action: string): AuditKind | undefined {
  return AUDIT_KIND_IDS.find((kind) => AUDIT_KINDS[kind].prefixes.some((p) => action.startsWith(p)));
}

export const AUDIT_PAGE_SIZE = 25;
export const AUDIT_MAX_PAGE_SIZE = 100;
/** A CSV export holds at most this many rows (newest first); the page says so when cut. */
export const AUDIT_EXPORT_MAX_ROWS = 50_000;

export const AUDIT_DETAILS = {
  actor: "Who must be one of the company's managers.",
  kind: "Kind must be one of the listed kinds.",
  from: "From must be a date (YYYY-MM-DD).",
  to: "To must be a date (YYYY-MM-DD).",
  range: "From must be on or before To.",
  pageNumber: "pageNumber must be a whole number of at least 1.",
  pageSize: `pageSize must be a whole number from 1 to ${AUDIT_MAX_PAGE_SIZE}.`,
} as const;

/** The filters as the page and the API take them: every one optional, dates as YYYY-MM-DD (Australia/Sydney days). */
export interface AuditFilters {
  actor?: number;
  kind?: AuditKind;
  from?: string;
  to?: string;
}

export interface AuditEntryView {
  id: number;
  /** ISO 8601. */
  at: string;
  /** The manager who acted; null for the system or the payment processor. */
  actor: { id: number; name: string; email: string } | null;
  action: string;
  kind: AuditKind | null;
  subject: string;
  /** The recorded details, as `key: value` pairs. */
  details: string;
  clientIp: string | null;
}

export interface AuditPage extends ListPage<AuditEntryView> {
  /** Everyone who appears in the company's trail, for the Who filter. */
  actors: { id: number; name: string }[];
}

/** "2026-11-24" when it names a real calendar day. */
export function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 2000;
}

/** A time as the trail shows it: Australia/Sydney, with its zone (e.g. "24/11/2026, 5:52:01 pm AEDT"). */
export function sydneyTime(iso: string): string {
  return formatDate(iso, "auditTime");
}
