// The dashboard's Quick Links (docs/requirements.md §S2 Dashboard): four tiles.
import type { ReactNode } from "react";
import { href, Link } from "react-router";
import { ExternalIcon } from "../../ui/icons.tsx";

const tileClass =
  "group flex h-full min-h-16 items-center gap-4 rounded-lg border border-slate-200 bg-white p-3 sm:min-h-24 sm:p-4 text-left shadow-sm transition-colors hover:border-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const iconClass =
  "inline-flex size-10 shrink-0 items-center justify-center rounded-full bg-brand-100 sm:size-12 text-brand-800 group-hover:bg-brand-700 group-hover:text-white";

function Tile({ icon, label, to, external }: { icon: ReactNode; label: string; to: string; external?: boolean }) {
  const body = (
    <>
      <span className={iconClass}>{icon}</span>
      <span className="flex-1 text-lg font-semibold text-slate-900">{label}</span>
      {external ? <ExternalIcon className="size-5 shrink-0 text-slate-600" /> : null}
    </>
  );
  return (
    <li>
      {external ? (
        <a href={to} target="_blank" rel="noopener noreferrer" className={tileClass}>
          {body}
          <span className="sr-only"> (opens in a new tab)</span>
        </a>
      ) : (
        <Link to={to} className={tileClass}>
          {body}
        </Link>
      )}
    </li>
  );
}

export function QuickLinks({ catalogueUrl }: { catalogueUrl: string }) {
  return (
    <section aria-labelledby="quick-links-heading">
      <h2 id="quick-links-heading" className="text-2xl font-bold text-brand-800">
        Quick Links
      </h2>
      <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Tile to={href("/portal/my-team")} label="View My Team Members" icon={<TeamIcon />} />
        <Tile to={href("/portal/my-team")} label="Add a Team Member" icon={<AddPersonIcon />} />
        <Tile to={href("/portal/reward-my-team")} label="Reward My Team" icon={<GiftIcon />} />
        <Tile to={catalogueUrl} label="View Reward Catalogue" icon={<CatalogueIcon />} external />
      </ul>
    </section>
  );
}

const iconProps = {
  "aria-hidden": true,
  viewBox: "0 0 24 24",
  className: "size-6",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

function TeamIcon() {
  return (
    <svg {...iconProps}>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20a6.5 6.5 0 0 1 13 0" />
      <path d="M16 4.5a3.5 3.5 0 0 1 0 7M18 14.5a6.5 6.5 0 0 1 3.5 5.5" />
    </svg>
  );
}

function AddPersonIcon() {
  return (
    <svg {...iconProps}>
      <circle cx="10" cy="8" r="3.5" />
      <path d="M3.5 20a6.5 6.5 0 0 1 13 0M19 8v6M16 11h6" />
    </svg>
  );
}

function GiftIcon() {
  return (
    <svg {...iconProps}>
      <path d="M4 11h16v9a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1zM3 7h18v4H3zM12 7v14" />
      <path d="M12 7c-1.5-3.5-6-3.5-5-1 .8 1.5 3.5 1 5 1zm0 0c1.5-3.5 6-3.5 5-1-.8 1.5-3.5 1-5 1z" />
    </svg>
  );
}

function CatalogueIcon() {
  return (
    <svg {...iconProps}>
      <rect x="3" y="6" width="18" height="13" rx="2" />
      <path d="M3 10h18M7 15h4" />
    </svg>
  );
}
