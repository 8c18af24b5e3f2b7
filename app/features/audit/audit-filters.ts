// The Audit page's filters as its address carries them (?actor=&kind=&from=&to=&page=), shared
// by the page and its CSV download so both list the same rows. Browser-safe.

import { MAX_PAGE_NUMBER } from "../../../core/paging.ts";
import { AUDIT_KIND_IDS, type AuditKind } from "../../../modules/audit/schema.ts";
import { pageNumberOf } from "../../lib/paging.ts";

export interface AuditAddress {
  actor: string;
  kind: AuditKind | "";
  from: string;
  to: string;
  page: number;
}

export function auditAddressOf(url: URL): AuditAddress {
  const p = url.searchParams;
  const kind = p.get("kind") ?? "";
  return {
    actor: (p.get("actor") ?? "").trim(),
    kind: (AUDIT_KIND_IDS as string[]).includes(kind) ? (kind as AuditKind) : "",
    from: (p.get("from") ?? "").trim(),
    to: (p.get("to") ?? "").trim(),
    page: pageNumberOf(p.get("page"), MAX_PAGE_NUMBER),
  };
}

/** The filters as a query string (blank ones left out), with `page` when given. */
export function auditQuery(a: AuditAddress, page?: number): string {
  const q = new URLSearchParams();
  if (a.actor) q.set("actor", a.actor);
  if (a.kind) q.set("kind", a.kind);
  if (a.from) q.set("from", a.from);
  if (a.to) q.set("to", a.to);
  if (page && page > 1) q.set("page", String(page));
  const text = q.toString();
  return text ? `?${text}` : "";
}

/** The API's query for these filters. */
export function apiFilters(a: AuditAddress) {
  return { actor: a.actor, kind: a.kind, from: a.from, to: a.to };
}
