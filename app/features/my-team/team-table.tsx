// The My Team table and pager (docs/requirements.md §S2 My Team, §S9 page size 8): columns Name, Email (hidden
// under 768 px), Balance (the Reward Dollars left of the member's unexpired rewards and the next
// expiry, empty when none: each reward expires on its own, modules/lots/service.server.ts) and Action (an
// edit icon named "Edit <first> <last>", docs/requirements.md §D8); 'No data to display' when empty;
// 'X of Y page(s)' with Previous and Next, which keep the search text.

import { dateFormat } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import type { TeamMember, TeamPage } from "../../../modules/team/schema.ts";
import type { UrlDialogControl } from "../../ui/dialog.tsx";
import { Pager } from "../../ui/pager.tsx";
import { ColumnHeads, EmptyTableRow } from "../../ui/table.tsx";
import { pageHref } from "./team.ts";
import { editButtonId } from "./team-dialogs.tsx";

const th = "px-4 py-3 text-left text-sm font-semibold text-slate-800";
const td = "px-4 py-2 align-middle text-slate-800";
// The Balance and Action columns pad less on a phone, so names keep room for a word per line.
const thTight = "px-2 py-3 text-sm font-semibold text-slate-800 sm:px-4";
const tdTight = "px-2 py-2 align-middle text-slate-800 sm:px-4";

/** "24 May 2028", on Sydney's calendar (as the recipients' emails date their expiry). */
const expiryDate = dateFormat("shortDate");

function Balance({ member }: { member: TeamMember }) {
  if (!member.balanceCents) return null;
  return (
    <>
      <span className="block font-medium tabular-nums">{formatDollars(member.balanceCents)}</span>
      {member.nextExpiresAt ? (
        <span className="block text-xs text-slate-600">
          Expires <span className="whitespace-nowrap">{expiryDate.format(new Date(member.nextExpiresAt))}</span>
        </span>
      ) : null}
    </>
  );
}

export function TeamTable({
  items,
  editOpener,
}: {
  items: TeamMember[];
  editOpener: (member: TeamMember) => UrlDialogControl["linkProps"];
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table aria-labelledby="team-heading" className="w-full table-fixed border-collapse">
        <thead className="bg-slate-100">
          <ColumnHeads
            columns={[
              ["Name", `${th} w-auto`],
              ["Email", `${th} hidden w-2/5 md:table-cell`],
              ["Balance", `${thTight} w-28 text-right sm:w-40`],
              ["Action", `${thTight} w-16 text-right sm:w-24`],
            ]}
          />
        </thead>
        <tbody className="divide-y divide-slate-200">
          {items.length === 0 ? (
            <EmptyTableRow columns={4} />
          ) : (
            items.map((member) => {
              const opener = editOpener(member);
              return (
                <tr key={member.id}>
                  <td className={`${td} break-words font-medium`}>
                    {member.fullName || `${member.firstName} ${member.lastName}`}
                  </td>
                  <td className={`${td} hidden break-all md:table-cell`}>{member.email}</td>
                  <td className={`${tdTight} text-right`}>
                    <Balance member={member} />
                  </td>
                  <td className={`${tdTight} text-right`}>
                    <a
                      href={opener.href}
                      onClick={opener.onClick}
                      id={editButtonId(member.id)}
                      aria-label={`Edit ${member.firstName} ${member.lastName}`}
                      className="inline-flex size-11 items-center justify-center rounded-md text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
                    >
                      <PencilIcon />
                    </a>
                  </td>
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}

function PencilIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2">
      <path strokeLinecap="round" strokeLinejoin="round" d="M4 20h4L18.5 9.5a2.1 2.1 0 0 0-3-3L5 17v3zM13.5 6.5l3 3" />
    </svg>
  );
}

export function TeamPager({ search, page }: { search: string; page: TeamPage }) {
  return (
    <Pager
      label="Team pages"
      pageNumber={page.pageNumber}
      totalPages={page.totalPages}
      hrefFor={(pageNumber) => pageHref(search, pageNumber)}
      hasPreviousPage={page.hasPreviousPage}
      hasNextPage={page.hasNextPage}
    />
  );
}
