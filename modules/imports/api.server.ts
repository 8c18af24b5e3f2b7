// CSV imports (not in docs/requirements.md §S7: SPEC's bulk calls take JSON, which for a 50,000-row file would be
// one body of tens of megabytes held whole; docs/requirements.md §D7 upload caps). The file itself is the
// body, read as a stream by modules/imports/service.server.ts:
//   POST   /Imports?kind=team|reward&fileName=…[&queue=true][&id=…][&expectedRows=N]   text/csv
//          → 201 the job (queued, or staged for Save); 400 with the file's messages (errors.file)
//   GET    /Imports/:id[?sample=N]   → the job: status, rows processed / total, result or errors
//   POST   /Imports/:id/start        → the staged job queued (Save without JavaScript); 404 if none
//   DELETE /Imports/:id              → 204 (a checked file dropped, or a result seen); 404 if none
import { Hono, type MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { queryParams } from "../../server/http/validate.ts";
import {
  discardImport,
  ImportIdTakenError,
  type ImportKind,
  type ImportView,
  queueImport,
  readImport,
  stageImport,
} from "./service.server.ts";

/** The title of a refused file; its messages are in `errors.file`. */
export const IMPORT_REFUSED_DETAIL = "The file was not imported; nothing was changed.";
export const IMPORT_REQUEST_INVALID = "The import request is not valid.";
export const IMPORT_NOT_FOUND_DETAIL = "This import is no longer available.";

/** A job id: ours (base64url) or one the browser chose to poll while its file arrives. */
const ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

function importId(value: string | undefined): string {
  if (!value || !ID_PATTERN.test(value)) throw new ProblemError(404, IMPORT_NOT_FOUND_DETAIL);
  return value;
}

const startQuery = queryParams(
  (q: { kind?: string; fileName?: string; queue?: string; id?: string; expectedRows?: string }) => {
    const kind = q.kind === "team" || q.kind === "reward" ? (q.kind as ImportKind) : null;
    const fileName = (q.fileName ?? "").trim();
    const errors: Record<string, string[]> = {};
    if (!kind) errors.kind = ["kind must be team or reward."];
    if (!fileName || fileName.length > 255 || !fileName.isWellFormed() || fileName.includes("\u0000")) {
      errors.fileName = ["fileName is required (at most 255 characters)."];
    }
    if (q.id !== undefined && !ID_PATTERN.test(q.id)) errors.id = ["id must be 16 to 64 letters, digits, - or _."];
    if (!kind || Object.keys(errors).length > 0) throw new ProblemError(400, IMPORT_REQUEST_INVALID, errors);
    const expected = Number(q.expectedRows);
    return {
      kind,
      fileName,
      queue: q.queue === "true",
      id: q.id,
      expectedRows: Number.isSafeInteger(expected) && expected > 0 ? expected : undefined,
    };
  },
);

const sampleQuery = queryParams((q: { sample?: string }) => {
  const n = Number(q.sample);
  return { sample: Number.isInteger(n) && n > 0 ? Math.min(n, 20) : 0 };
});

const idParam = validator("param", (param) => ({ id: importId(param.id) }));

export function importsRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  const now = () => deps.now?.() ?? new Date();
  const found = (job: ImportView | null): ImportView => {
    if (!job) throw new ProblemError(404, IMPORT_NOT_FOUND_DETAIL);
    return job;
  };

  return (
    new Hono<ApiEnv>()
      /** The file as the body (text/csv), read as it arrives: 201 the job, or 400 with the file's messages. */
      .post("/Imports", auth, startQuery, async (c) => {
        const owner = requireAuth(c);
        const options = c.req.valid("query");
        const body = c.req.raw.body;
        if (!body) throw new ProblemError(400, IMPORT_REFUSED_DETAIL, { file: ["Please choose a CSV file."] });
        let staged: Awaited<ReturnType<typeof stageImport>>;
        try {
          staged = await stageImport(deps.db, owner, { ...options, now: now() }, body);
        } catch (error) {
          if (error instanceof ImportIdTakenError)
            throw new ProblemError(409, IMPORT_REQUEST_INVALID, { id: ["id is taken."] });
          throw error;
        }
        if (!staged.ok) throw new ProblemError(400, IMPORT_REFUSED_DETAIL, { file: staged.errors });
        if (staged.job.status === "queued") deps.onImportQueued?.();
        return c.json(staged.job, 201);
      })
      /** The job's progress (rows processed / total) and, once finished, its result or messages. */
      .get("/Imports/:id", auth, idParam, sampleQuery, async (c) => {
        const { sample } = c.req.valid("query");
        return c.json(
          found(await readImport(deps.db, requireAuth(c), c.req.valid("param").id, { sample, now: now() })),
        );
      })
      /** Save of a checked file (no JavaScript): queued for the worker. */
      .post("/Imports/:id/start", auth, idParam, async (c) => {
        const owner = requireAuth(c);
        const { id } = c.req.valid("param");
        if (!(await queueImport(deps.db, owner, id, now()))) throw new ProblemError(404, IMPORT_NOT_FOUND_DETAIL);
        deps.onImportQueued?.();
        return c.json(found(await readImport(deps.db, owner, id, { now: now() })));
      })
      /** 204, or 404 for an id that is not the caller's (the same answer as for no such job). */
      .delete("/Imports/:id", auth, idParam, async (c) => {
        const owner = requireAuth(c);
        const { id } = c.req.valid("param");
        found(await readImport(deps.db, owner, id, { now: now() }));
        await discardImport(deps.db, owner, id);
        return c.body(null, 204);
      })
  );
}
