// Pieces every data table of the portal writes alike: the header row of column headings, and the
// one row shown when there are no rows ("No data to display", docs/requirements.md §S3 tables).
import type { ReactNode } from "react";

/** One column heading: its text and the classes of its cell. */
export type ColumnHead = readonly [label: ReactNode, className: string];

/** The header row: a `<th scope="col">` per column, in order. */
export function ColumnHeads({ columns }: { columns: readonly ColumnHead[] }) {
  return (
    <tr>
      {columns.map(([label, className], index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the page; their order is their identity
        <th key={index} scope="col" className={className}>
          {label}
        </th>
      ))}
    </tr>
  );
}

/** The row of an empty table, across all its columns. */
export function EmptyTableRow({ columns, children = "No data to display" }: { columns: number; children?: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className="px-4 py-8 text-center text-slate-600">
        {children}
      </td>
    </tr>
  );
}
