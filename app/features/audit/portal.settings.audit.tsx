// Settings › Audit (ADR 0022 point 7): an Owner's view of every change to the company's managers,
// roles, settings, team, drafts, approvals, orders, payments and releases, newest first. The
// filters are a GET form (the address holds them, so a filtered view can be bookmarked, paged
// and downloaded the same with or without JavaScript); the CSV link downloads the same rows.
import { Form, href, Link, useNavigation } from "react-router";
import { AUDIT_KIND_IDS, AUDIT_KINDS, type AuditPage, sydneyTime } from "../../../modules/audit/schema.ts";
import { asQuery } from "../../lib/api.server.ts";
import { Pager } from "../../ui/pager.tsx";
import { ColumnHeads } from "../../ui/table.tsx";
import { requireOnboardedUser } from "../portal/portal.server.ts";
import { portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.audit";
import { apiFilters, auditAddressOf, auditQuery } from "./audit-filters.ts";

const TITLE = "Audit";
export const handle = { title: TITLE };
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { api: client } = requireOnboardedUser(context);
  const address = auditAddressOf(new URL(request.url));
  const result = await client.call((api) =>
    api.Audit.$get({ query: asQuery({ ...apiFilters(address), pageNumber: address.page }) }),
  );
  if (result.ok) return { address, page: result.data as AuditPage, problem: null, forbidden: false };
  return { address, page: null, problem: result.detail, forbidden: result.status === 403 };
}

const input =
  "mt-1 block min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-700";
const label = "block text-sm font-semibold text-slate-800";
const button =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-4 py-2 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const secondary =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-4 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

export default function AuditSettings({ loaderData }: Route.ComponentProps) {
  const { address, page, problem, forbidden } = loaderData;
  const navigation = useNavigation();
  const busy = navigation.state === "loading" && navigation.location?.pathname === href("/portal/settings/audit");
  if (forbidden) {
    return (
      <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-amber-900">
        {problem}
      </p>
    );
  }
  const exportHref = `${href("/portal/settings/audit/export.csv")}${auditQuery(address)}`;
  return (
    <section aria-labelledby="audit-heading" className="flex flex-col gap-6">
      <div>
        <h2 id="audit-heading" className="text-2xl font-bold text-brand-800">
          Audit trail
        </h2>
        <p className="mt-1 text-slate-700">
          Every change to managers, settings, the team, drafts, approvals, orders, payments and releases, newest first.
          Times are in Sydney time.
        </p>
      </div>

      <Form
        method="get"
        className="grid gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
      >
        <div>
          <label htmlFor="audit-actor" className={label}>
            Who
          </label>
          <select id="audit-actor" name="actor" defaultValue={address.actor} className={input}>
            <option value="">Everyone</option>
            {page?.actors.map((a) => (
              <option key={a.id} value={String(a.id)}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-kind" className={label}>
            Kind
          </label>
          <select id="audit-kind" name="kind" defaultValue={address.kind} className={input}>
            <option value="">Every kind</option>
            {AUDIT_KIND_IDS.map((kind) => (
              <option key={kind} value={kind}>
                {AUDIT_KINDS[kind].label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="audit-from" className={label}>
            From
          </label>
          <input id="audit-from" name="from" type="date" defaultValue={address.from} className={input} />
        </div>
        <div>
          <label htmlFor="audit-to" className={label}>
            To
          </label>
          <input id="audit-to" name="to" type="date" defaultValue={address.to} className={input} />
        </div>
        <div className="flex gap-2">
          <button type="submit" className={button} aria-busy={busy || undefined}>
            {busy ? "Filtering…" : "Filter"}
          </button>
          <Link to={href("/portal/settings/audit")} className={secondary}>
            Clear
          </Link>
        </div>
      </Form>

      {problem ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-4 text-red-900">
          {problem}
        </p>
      ) : null}

      {page ? (
        <>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-slate-700" aria-live="polite">
              {page.totalCount === 1 ? "1 entry" : `${page.totalCount.toLocaleString("en-AU")} entries`}
            </p>
            <a href={exportHref} className={secondary} download>
              Download CSV
            </a>
          </div>
          <AuditTable page={page} />
          <Pager
            label="Audit pages"
            pageNumber={page.pageNumber}
            totalPages={page.totalPages}
            hasPreviousPage={page.hasPreviousPage}
            hasNextPage={page.hasNextPage}
            hrefFor={(n) => `${href("/portal/settings/audit")}${auditQuery(address, n)}`}
          />
        </>
      ) : null}
    </section>
  );
}

const th = "px-3 py-3 text-left text-sm font-semibold text-slate-800";
const td = "px-3 py-3 align-top text-slate-800";

function AuditTable({ page }: { page: AuditPage }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full border-collapse">
        <caption className="sr-only">Audit trail, newest first</caption>
        <thead className="bg-slate-100">
          <ColumnHeads
            columns={[
              ["When", `${th} hidden md:table-cell`],
              ["Who", th],
              ["What", th],
              ["Details", `${th} hidden md:table-cell`],
              ["Address", `${th} hidden lg:table-cell`],
            ]}
          />
        </thead>
        <tbody className="divide-y divide-slate-200">
          {page.items.length === 0 ? (
            <tr>
              <td colSpan={5} className="px-4 py-8 text-center text-slate-600">
                No entries match these filters.
              </td>
            </tr>
          ) : (
            page.items.map((entry) => (
              <tr key={entry.id}>
                <td className={`${td} hidden whitespace-nowrap text-sm md:table-cell`}>
                  <time dateTime={entry.at}>{sydneyTime(entry.at)}</time>
                </td>
                <td className={`${td} [overflow-wrap:anywhere]`}>
                  {entry.actor ? (
                    <>
                      {entry.actor.name}
                      <span className="block text-sm text-slate-600">{entry.actor.email}</span>
                    </>
                  ) : (
                    "System"
                  )}
                </td>
                <td className={`${td} [overflow-wrap:anywhere]`}>
                  <time dateTime={entry.at} className="mb-1 block text-sm text-slate-600 md:hidden">
                    {sydneyTime(entry.at)}
                  </time>
                  <code className="text-sm">{entry.action}</code>
                  <span className="block text-sm text-slate-600">{entry.subject}</span>
                  {entry.details ? (
                    <span className="mt-1 block text-sm text-slate-600 md:hidden">{entry.details}</span>
                  ) : null}
                </td>
                <td className={`${td} hidden text-sm [overflow-wrap:anywhere] md:table-cell`}>{entry.details}</td>
                <td className={`${td} hidden whitespace-nowrap text-sm lg:table-cell`}>{entry.clientIp ?? ""}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
