// CSV imports of My Team and Reward My Team (docs/requirements.md §S5 team CSV upload and reward bulk CSV,
// §D7 upload caps), for files of up to MAX_IMPORT_ROWS rows:
//   1. stageImport reads the file as a stream (csv-parse), checks each row with the reader the
//      browser uses (core/csv.ts, modules/reward-drafts/reward-csv.ts) and writes the checked rows to
//      import_job_rows in batches, each committed with the job's progress, so a poll sees the
//      rows go by and nothing holds the whole file. Staged rows change nothing the product shows.
//      A file with any problem is refused whole: its job and rows are deleted, and its messages
//      (the same as the browser's) are answered.
//   2. A queued job is applied by applyNextImport in ONE transaction that claims it with
//      FOR UPDATE SKIP LOCKED (claimDue of server/jobs/engine.ts; several processes on PostgreSQL never take the same job), writes
//      every row and marks the job done; a process that dies mid-apply rolls back and leaves the
//      job queued for the next worker, so an import is never half applied.
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import {
  CSV_PARSE_OPTIONS,
  CsvRowChecker,
  FILE_TOO_LARGE_MESSAGE,
  parseFailureMessage,
  TEAM_CSV_COLUMNS,
  type TeamCsvKey,
} from "../../core/csv.ts";
import { MAX_IMPORT_ROWS, MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { readCsvBirthday, readCsvStartDate, readCsvState } from "../../core/member-dates.ts";
import type { RefusalKind } from "../../core/refusals.ts";
import type { Db, Tx } from "../../server/db/client.ts";
import { importJobRows, importJobs } from "../../server/db/schema.ts";
import { col, unnestRows } from "../../server/db/sql.ts";
import { claimDue, type JobSpec, type PeriodicJob } from "../../server/jobs/engine.ts";
import type { Logger } from "../../server/logger.ts";
import { isRefusal, Refusal } from "../../server/refusal.ts";
import { REWARD_CSV_COLUMNS, type RewardCsvKey } from "../reward-drafts/reward-csv.ts";
import { csvRewardAmount, duplicateRowMessage, REWARD_DETAILS } from "../reward-drafts/schema.ts";
import { addNewRecipientsIn } from "../reward-drafts/service.server.ts";
import { importStagedTeamMembers } from "../team/service.server.ts";

export type ImportKind = "team" | "reward";
export type ImportStatus = (typeof importJobs.$inferSelect)["status"];

/** Who imports: the access token's user (the program manager) and company. */
export interface ImportOwner {
  userId: number;
  companyId: number;
}

/** Rows per staging INSERT (one array parameter per column) and per progress update. */
export const IMPORT_BATCH_ROWS = 5000;
/** How long a job is kept: a checked file waits this long for Save, a result this long to be seen. */
export const IMPORT_TTL_MS = 60 * 60 * 1000;
/** The message of a failed apply that is not the file's fault. */
export const IMPORT_FAILED_MESSAGE = "The file could not be saved; nothing was changed. Please try again.";

/** A job as its owner sees it. */
export interface ImportView {
  id: string;
  kind: ImportKind;
  status: ImportStatus;
  fileName: string;
  processedRows: number;
  totalRows: number | null;
  result: Record<string, number> | null;
  errors: string[] | null;
  /** The first rows (a checked file's preview), when asked for. */
  sample?: Array<{ firstName: string; lastName: string; email: string; value: number | null }>;
  /** With the sample: the sum of the staged rows' reward amounts in dollars (0 for a team file). */
  totalAmount?: number;
}

export type StageResult = { ok: true; job: ImportView } | { ok: false; errors: string[] };

export interface StageOptions {
  kind: ImportKind;
  fileName: string;
  /** An id chosen by the caller (the browser polls it while the file arrives); else a fresh one. */
  id?: string;
  /** The browser's own count of the file's rows: the progress's total until the file is read. */
  expectedRows?: number;
  /** Queue the job at once (JavaScript: the browser checked the file) or keep it staged for Save. */
  queue: boolean;
  maxBytes?: number;
  now?: Date;
}

export class ImportIdTakenError extends Error {
  constructor() {
    super("import id taken");
    this.name = "ImportIdTakenError";
  }
}

class TooLargeError extends Error {}

/** A file's bytes as they arrive (a request body) or all at hand (a test, a benchmark). */
export type ByteSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** The bytes of `source`, refused once past `maxBytes` (the cap holds however the body came). */
async function* capped(source: ByteSource, maxBytes: number): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) throw new TooLargeError();
    yield bytes;
  }
}

interface StagedRow {
  n: number;
  firstName: string;
  lastName: string;
  email: string;
  amount: number | null;
  /** A team file's optional details (core/csv.ts MEMBER_DETAIL_CSV_COLUMNS); null when blank. */
  birthDay: number | null;
  birthMonth: number | null;
  startDate: string | null;
  state: string | null;
}

/** A checked team row's details as columns (the cells passed their checks: none reads as null). */
function memberDetailsOf(row: Partial<Record<TeamCsvKey, string>>) {
  const birthday = readCsvBirthday(row.birthday ?? "");
  const startDate = readCsvStartDate(row.startDate ?? "");
  const state = readCsvState(row.state ?? "");
  return {
    birthDay: birthday && birthday !== "none" ? birthday.day : null,
    birthMonth: birthday && birthday !== "none" ? birthday.month : null,
    startDate: startDate && startDate !== "none" ? startDate : null,
    state: state && state !== "none" ? state : null,
  };
}

function newId(): string {
  return randomBytes(18).toString("base64url");
}

/**
 * Reads a CSV file from `source` into a new import job of `owner` (see the top of this file).
 * The owner's earlier unfinished jobs of the same kind are dropped (one checked file waits per
 * person and kind), and expired jobs of anyone are swept.
 */
export async function stageImport(
  db: Db,
  owner: ImportOwner,
  options: StageOptions,
  source: ByteSource,
): Promise<StageResult> {
  const now = options.now ?? new Date();
  const id = options.id ?? newId();
  await sweepImports(db, now);
  await db
    .delete(importJobs)
    .where(
      and(
        eq(importJobs.userId, owner.userId),
        eq(importJobs.kind, options.kind),
        inArray(importJobs.status, ["receiving", "staged"]),
      ),
    );
  const expected = options.expectedRows;
  const inserted = await db
    .insert(importJobs)
    .values({
      id,
      userId: owner.userId,
      companyId: owner.companyId,
      kind: options.kind,
      status: "receiving",
      fileName: options.fileName.slice(0, 255),
      totalRows:
        expected !== undefined && Number.isSafeInteger(expected) && expected > 0
          ? Math.min(expected, MAX_IMPORT_ROWS)
          : null,
      expiresAt: new Date(now.getTime() + IMPORT_TTL_MS),
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: importJobs.id });
  if (inserted.length === 0) throw new ImportIdTakenError();

  let outcome: StageResult | undefined;
  try {
    const errors = await readIntoJob(db, id, options, source);
    if (errors.length > 0) {
      outcome = { ok: false, errors };
    } else {
      await db
        .update(importJobs)
        .set({ status: options.queue ? "queued" : "staged", updatedAt: new Date() })
        .where(eq(importJobs.id, id));
      outcome = { ok: true, job: (await readImport(db, owner, id, { now })) as ImportView };
    }
    return outcome;
  } finally {
    // A refused file, or one whose reading failed (the upload broke off, the database went away),
    // leaves nothing behind.
    if (!outcome?.ok) await db.delete(importJobs).where(eq(importJobs.id, id));
  }
}

/** Streams the file through csv-parse and the checker into the job's rows; answers the file's messages. */
async function readIntoJob(db: Db, id: string, options: StageOptions, source: ByteSource): Promise<string[]> {
  const reward = options.kind === "reward";
  const checker = new CsvRowChecker<RewardCsvKey | TeamCsvKey>({
    columns: reward ? REWARD_CSV_COLUMNS : TEAM_CSV_COLUMNS,
    maxRows: MAX_IMPORT_ROWS,
  });
  /** Reward rows: an address repeated within the file is refused, as the bulk API refuses it. */
  const firstRowOf = new Map<string, number>();
  let batch: StagedRow[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await db.transaction(async (tx) => {
      await stageBatch(tx, id, rows);
      await tx
        .update(importJobs)
        .set({ processedRows: (rows.at(-1) as StagedRow).n, updatedAt: new Date() })
        .where(eq(importJobs.id, id));
    });
  };

  const input = Readable.from(capped(source, options.maxBytes ?? MAX_UPLOAD_BYTES));
  const parser = parse(CSV_PARSE_OPTIONS);
  input.on("error", (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const row = checker.add(record);
      if (!row) continue;
      const n = checker.rowCount;
      if (reward) {
        const key = row.email.toLowerCase();
        const first = firstRowOf.get(key);
        if (first !== undefined) checker.problem(duplicateRowMessage(n, first));
        else firstRowOf.set(key, n);
      }
      // Once the file is refused nothing more is written: the rest is only read for its messages.
      if (checker.failed) continue;
      batch.push({
        n,
        firstName: row.firstName,
        lastName: row.lastName,
        email: row.email,
        amount: reward ? (csvRewardAmount(row.value) ?? 0) : null,
        ...(reward ? { birthDay: null, birthMonth: null, startDate: null, state: null } : memberDetailsOf(row)),
      });
      if (batch.length >= IMPORT_BATCH_ROWS) await flush();
    }
  } catch (error) {
    if (error instanceof TooLargeError) return [FILE_TOO_LARGE_MESSAGE];
    if ((error as { code?: unknown })?.code?.toString().startsWith("CSV_")) return [parseFailureMessage(error)];
    throw error;
  } finally {
    input.destroy();
  }
  const errors = checker.result();
  if (errors.length > 0) return errors;
  await flush();
  await db
    .update(importJobs)
    .set({ processedRows: checker.rowCount, totalRows: checker.rowCount, updatedAt: new Date() })
    .where(eq(importJobs.id, id));
  return [];
}

/** One INSERT ... SELECT FROM unnest(arrays): one parameter per column whatever the batch size. */
async function stageBatch(tx: Tx, jobId: string, rows: StagedRow[]): Promise<void> {
  await tx.execute(sql`
    insert into ${importJobRows} (${col(importJobRows.jobId)}, ${col(importJobRows.n)}, ${col(importJobRows.firstName)}, ${col(importJobRows.lastName)}, ${col(importJobRows.email)}, ${col(importJobRows.amount)}, ${col(importJobRows.birthDay)}, ${col(importJobRows.birthMonth)}, ${col(importJobRows.startDate)}, ${col(importJobRows.state)})
    select ${jobId}, t.row_n, t.first_name, t.last_name, t.email, t.amount, t.birth_day, t.birth_month, t.start_date::date, t.state
    from ${unnestRows("t", {
      row_n: { type: "integer", values: rows.map((r) => r.n) },
      first_name: { type: "text", values: rows.map((r) => r.firstName) },
      last_name: { type: "text", values: rows.map((r) => r.lastName) },
      email: { type: "text", values: rows.map((r) => r.email) },
      amount: { type: "integer", values: rows.map((r) => r.amount) },
      birth_day: { type: "integer", values: rows.map((r) => r.birthDay) },
      birth_month: { type: "integer", values: rows.map((r) => r.birthMonth) },
      start_date: { type: "text", values: rows.map((r) => r.startDate) },
      state: { type: "text", values: rows.map((r) => r.state) },
    })}`);
}

const viewColumns = {
  id: importJobs.id,
  kind: importJobs.kind,
  status: importJobs.status,
  fileName: importJobs.fileName,
  processedRows: importJobs.processedRows,
  totalRows: importJobs.totalRows,
  result: importJobs.result,
  errors: importJobs.errors,
};

/** The owner's job (never another user's), with its first `sample` rows when asked. */
export async function readImport(
  db: Db,
  owner: ImportOwner,
  id: string,
  options: { sample?: number; now?: Date } = {},
): Promise<ImportView | null> {
  const [job] = await db
    .select(viewColumns)
    .from(importJobs)
    .where(
      and(
        eq(importJobs.id, id),
        eq(importJobs.userId, owner.userId),
        eq(importJobs.companyId, owner.companyId),
        sql`${importJobs.expiresAt} > ${(options.now ?? new Date()).toISOString()}::timestamptz`,
      ),
    );
  if (!job) return null;
  if (!options.sample) return job;
  const sample = await db
    .select({
      firstName: importJobRows.firstName,
      lastName: importJobRows.lastName,
      email: importJobRows.email,
      value: importJobRows.amount,
    })
    .from(importJobRows)
    .where(eq(importJobRows.jobId, id))
    .orderBy(asc(importJobRows.n))
    .limit(options.sample);
  const [sum] = await db
    .select({ total: sql<string | null>`sum(${importJobRows.amount})` })
    .from(importJobRows)
    .where(eq(importJobRows.jobId, id));
  return { ...job, sample, totalAmount: Number(sum?.total ?? 0) };
}

/** Save of a checked file: staged → queued. False when the owner has no such staged job. */
export async function queueImport(db: Db, owner: ImportOwner, id: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(importJobs)
    .set({ status: "queued", updatedAt: now })
    .where(
      and(
        eq(importJobs.id, id),
        eq(importJobs.userId, owner.userId),
        eq(importJobs.status, "staged"),
        sql`${importJobs.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning({ id: importJobs.id });
  return rows.length > 0;
}

/** Drops a job that is not waiting to be applied (a checked file, or a result seen). */
export async function discardImport(db: Db, owner: ImportOwner, id: string): Promise<void> {
  await db
    .delete(importJobs)
    .where(
      and(
        eq(importJobs.id, id),
        eq(importJobs.userId, owner.userId),
        inArray(importJobs.status, ["staged", "done", "failed"]),
      ),
    );
}

/** Deletes expired jobs (their rows go with them), except one waiting to be applied. */
export async function sweepImports(db: Db, now = new Date()): Promise<void> {
  await db
    .delete(importJobs)
    .where(and(lte(importJobs.expiresAt, now), inArray(importJobs.status, ["receiving", "staged", "done", "failed"])));
}

/**
 * Claims the oldest queued job and applies it in one transaction (see the top of this file).
 * Answers the job's id and final status, or null when no job is waiting (or each is being
 * applied by another process).
 */
export async function applyNextImport(
  db: Db,
  logger?: Logger,
  now: () => Date = () => new Date(),
): Promise<{ id: string; status: ImportStatus } | null> {
  const [applied] = await claimDue<string, { id: string; status: ImportStatus }>(
    db,
    {
      table: importJobs,
      id: importJobs.id,
      due: eq(importJobs.status, "queued"),
      orderBy: [asc(importJobs.createdAt)],
      limit: 1,
    },
    async (tx, ids) => {
      const [job] = await tx
        .select({
          id: importJobs.id,
          kind: importJobs.kind,
          userId: importJobs.userId,
          companyId: importJobs.companyId,
        })
        .from(importJobs)
        .where(inArray(importJobs.id, ids));
      return job ? [await applyClaimed(tx, job, logger, now)] : [];
    },
  );
  return applied ?? null;
}

/** Applies a claimed job in its claim's transaction; a refused one is marked failed with its words. */
async function applyClaimed(
  tx: Tx,
  job: { id: string; kind: ImportKind; userId: number; companyId: number },
  logger: Logger | undefined,
  now: () => Date,
): Promise<{ id: string; status: ImportStatus }> {
  {
    const owner = { userId: job.userId, companyId: job.companyId };
    const at = now();
    let done: { result: Record<string, number> } | { errors: string[] };
    try {
      // A savepoint: a refusal undoes the rows written so far and the job is marked failed.
      done = { result: await tx.transaction((sp) => applyJob(sp, job.kind, owner, job.id, at)) };
    } catch (error) {
      if (error instanceof Refusal && DRAFT_REFUSALS.has(error.kind)) {
        done = { errors: [draftRefusal(error)] };
      } else {
        logger?.error({ err: error instanceof Error ? error.message : String(error), job: job.id }, "import failed");
        done = { errors: [IMPORT_FAILED_MESSAGE] };
      }
    }
    const status = "result" in done ? "done" : "failed";
    await tx
      .update(importJobs)
      .set({
        status,
        ...done,
        updatedAt: at,
        expiresAt: new Date(at.getTime() + IMPORT_TTL_MS),
      })
      .where(eq(importJobs.id, job.id));
    await tx.delete(importJobRows).where(eq(importJobRows.jobId, job.id));
    return { id: job.id, status };
  }
}

/** What the reward draft refuses (reward-draft.ts); any other error is logged. */
const DRAFT_REFUSALS: ReadonlySet<RefusalKind> = new Set([
  "member-not-found",
  "not-in-draft",
  "too-many-recipients",
  "draft-manager-email",
]);

/** A refused import's words on its job (what its page shows), or the generic failure. */
function draftRefusal(error: Refusal): string {
  if (error.kind === "too-many-recipients") return REWARD_DETAILS.tooManyRecipients;
  if (isRefusal(error, "draft-manager-email")) {
    const { row } = error.data;
    return row ? `Row ${row}: ${REWARD_DETAILS.managerEmail}` : REWARD_DETAILS.managerEmail;
  }
  return IMPORT_FAILED_MESSAGE;
}

async function applyJob(
  tx: Tx,
  kind: ImportKind,
  owner: ImportOwner,
  jobId: string,
  now: Date,
): Promise<Record<string, number>> {
  if (kind === "team") return { ...(await importStagedTeamMembers(tx, owner, jobId, now)) };
  // The reward rules (existing members, new members, draft lines and the recipient limit) are
  // the bulk upload's own (addNewRecipientsIn), given the staged rows in file order.
  const rows = await tx
    .select({
      firstName: importJobRows.firstName,
      lastName: importJobRows.lastName,
      email: importJobRows.email,
      value: importJobRows.amount,
    })
    .from(importJobRows)
    .where(eq(importJobRows.jobId, jobId))
    .orderBy(asc(importJobRows.n));
  const added = await addNewRecipientsIn(
    tx,
    owner,
    rows.map((r) => ({ ...r, value: r.value ?? 0 })),
    now,
  );
  return {
    successfullyAdded: rows.length,
    newRecipients: added.newRecipients,
    updatedRecipients: added.updatedRecipients,
    newTeamMembers: added.newTeamMembers,
    recipientCount: added.recipientCount,
  };
}

/** Applies every queued job; resolves with how many were applied. */
export type ImportWorker = PeriodicJob<number>;

/**
 * The worker of each process as a job of the engine (server/jobs/engine.ts): applies queued jobs
 * as they come (nudged by the API) and polls for jobs queued by other processes or left by a
 * process that died. A pass asked for during a pass runs after it ("queue"), so a job queued
 * meanwhile is not left for the next poll. A failed pass is logged and answers 0.
 */
export function importJob(options: { db: Db; logger: Logger; pollMs?: number; now?: () => Date }): JobSpec<number> {
  return {
    name: "import worker",
    intervalMs: options.pollMs ?? 5000,
    overlap: "queue",
    observed: false,
    pass: async () => {
      try {
        let applied = 0;
        for (;;) {
          const job = await applyNextImport(options.db, options.logger, options.now);
          if (!job) break;
          applied++;
          options.logger.info({ job: job.id, status: job.status }, "import applied");
        }
        await sweepImports(options.db, options.now?.() ?? new Date());
        return applied;
      } catch (error) {
        options.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "import worker pass failed",
        );
        return 0;
      }
    },
  };
}
