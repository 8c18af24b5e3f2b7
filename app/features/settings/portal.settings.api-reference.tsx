// Settings › API keys › API reference: the calls a company's own systems make with a key, read
// from the OpenAPI document the API serves (GET /api/v1/openapi.json, generated from the schemas
// the API validates with), so this page and the API cannot disagree. Every signed-in manager may
// read it (the document is public); creating a key stays an Owner's (the API keys page).
import { href, Link } from "react-router";
import { services } from "../../context.ts";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.api-reference";
import { apiReferenceOf, type ReferenceField, type ReferenceOperation } from "./api-reference.ts";
import { card, sectionHeading } from "./settings-styles.ts";

const TITLE = "API reference";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const s = services(context);
  const result = await client.text((api) => api.v1["openapi.json"].$get());
  if (!result.ok) {
    s.logger.warn({ status: result.status, detail: result.detail }, "openapi document fetch failed");
    throw new Response("The API reference is not available right now. Please try again.", { status: 503 });
  }
  return {
    reference: apiReferenceOf(JSON.parse(result.data)),
    baseUrl: `${s.config.appUrl.replace(/\/$/, "")}/api/v1`,
  };
}

const methodColour: Record<string, string> = {
  GET: "bg-sky-100 text-sky-900",
  POST: "bg-green-100 text-green-900",
  PUT: "bg-amber-100 text-amber-900",
  DELETE: "bg-red-100 text-red-900",
};

const anchorOf = (op: ReferenceOperation) =>
  `${op.method}-${op.path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/-+$/, "");

export default function ApiReferencePage({ loaderData }: Route.ComponentProps) {
  const { reference, baseUrl } = loaderData;
  return (
    <div className="max-w-4xl space-y-8">
      <section aria-labelledby="reference-intro-heading" className={card}>
        <h2 id="reference-intro-heading" className={sectionHeading}>
          {reference.title}
        </h2>
        <p className="mt-2 text-slate-700">{reference.description}</p>
        <dl className="mt-4 grid gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
          <dt className="font-semibold text-slate-900">Base address</dt>
          <dd className="min-w-0 break-all font-mono text-sm text-slate-800">{baseUrl}</dd>
          <dt className="font-semibold text-slate-900">Key</dt>
          <dd className="min-w-0 text-slate-800">
            Send <code className="break-all">Authorization: Bearer rk_…</code> with a key from{" "}
            <Link to={href("/portal/settings/api-keys")} className="font-medium text-brand-700 underline">
              Settings → API keys
            </Link>
            . A key acts for your company with a Manager's access; 600 calls a minute per key.
          </dd>
          <dt className="font-semibold text-slate-900">Errors</dt>
          <dd className="min-w-0 text-slate-800">
            A refusal answers <code>application/problem+json</code> with <code>status</code>, <code>title</code>,{" "}
            <code>detail</code> (a sentence to show a person) and, for bad input, <code>errors</code> by field.
          </dd>
          <dt className="font-semibold text-slate-900">Machine-readable</dt>
          <dd className="min-w-0 text-slate-800">
            <a href="/api/v1/openapi.json" className="font-medium text-brand-700 underline">
              OpenAPI 3.1 document
            </a>{" "}
            (for code generators and API tools).
          </dd>
        </dl>
        <nav aria-label="Operations" className="mt-4">
          <ul className="space-y-1">
            {reference.operations.map((op) => (
              <li key={anchorOf(op)}>
                <a href={`#${anchorOf(op)}`} className="text-brand-700 underline">
                  <span className="font-mono text-sm">
                    {op.method} {op.path}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </section>

      {reference.operations.map((op) => (
        <OperationCard key={anchorOf(op)} op={op} anchor={anchorOf(op)} />
      ))}
    </div>
  );
}

function OperationCard({ op, anchor }: { op: ReferenceOperation; anchor: string }) {
  return (
    <section id={anchor} aria-labelledby={`${anchor}-heading`} className={`${card} scroll-mt-24`}>
      <h2 id={`${anchor}-heading`} className="flex flex-wrap items-center gap-2 text-lg font-bold text-slate-900">
        <span className={`rounded px-2 py-0.5 font-mono text-sm ${methodColour[op.method] ?? "bg-slate-100"}`}>
          {op.method}
        </span>
        <span className="min-w-0 break-all font-mono text-base">{op.path}</span>
      </h2>
      <p className="mt-2 text-slate-700">{op.summary}</p>
      {op.secured ? null : <p className="mt-1 text-sm font-medium text-slate-700">No key needed.</p>}
      <Fields title="Parameters" fields={op.parameters} />
      <Fields title="Headers" fields={op.headers} />
      <Fields title="Request body (JSON)" fields={op.body} />
      <h3 className="mt-5 font-semibold text-slate-900">Answers</h3>
      <ul className="mt-2 space-y-3">
        {op.responses.map((r) => (
          <li key={r.status}>
            <p className="text-slate-800">
              <span className="font-mono font-semibold">{r.status}</span> {r.description}
            </p>
            {r.fields.length > 0 ? (
              <details className="mt-1">
                <summary className="cursor-pointer text-brand-700 underline">Fields of the answer</summary>
                <FieldList fields={r.fields} />
              </details>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Fields({ title, fields }: { title: string; fields: ReferenceField[] }) {
  if (fields.length === 0) return null;
  return (
    <>
      <h3 className="mt-5 font-semibold text-slate-900">{title}</h3>
      <FieldList fields={fields} />
    </>
  );
}

/** A definition list rather than a table: it reads the same at 360 px and at 1280 px. */
function FieldList({ fields }: { fields: ReferenceField[] }) {
  return (
    <dl className="mt-2 divide-y divide-slate-100 rounded-md border border-slate-200">
      {fields.map((f) => (
        <div key={f.name} className="grid gap-1 px-3 py-2 sm:grid-cols-[minmax(0,14rem)_1fr] sm:gap-4">
          <dt className="min-w-0 break-all font-mono text-sm text-slate-900">
            {f.name}
            {f.required ? <span className="ml-1 font-sans text-xs font-semibold text-red-800">required</span> : null}
          </dt>
          <dd className="min-w-0 text-sm text-slate-700">
            <span className="break-words font-mono">{f.type}</span>
            {f.description ? <span className="block">{f.description}</span> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}
