// An import of a CSV file as the server side of the upload pane (app/ui/csv-upload-pane.tsx) sees
// it: where its job stands and what the page shows of it without JavaScript. Here, not in the pane,
// so the upload reader (app/lib/uploads.server.ts) needs no UI module: app/lib never imports app/ui
// (docs/decisions/0030-imports-run-one-way.md).

/** Where an import's job stands, as the progress resource route and the working view show it. */
export interface ImportProgress {
  status: "receiving" | "staged" | "queued" | "done" | "failed";
  fileName: string;
  processedRows: number;
  totalRows: number | null;
}

/** An import without JavaScript: its preview before Save, the working view after it, its messages, or gone. */
export type PendingCsvUpload<P> =
  | (P & { id: string })
  | { id: string; expired: true }
  | { id: string; working: ImportProgress }
  | { id: string; errors: string[] };

/** A job as the progress shows it (the API's view has more). */
export function importProgressOf(job: ImportProgress): ImportProgress {
  const { status, fileName, processedRows, totalRows } = job;
  return { status, fileName, processedRows, totalRows };
}
