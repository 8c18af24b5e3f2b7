// CSV imports: streamed and staged in batches, applied all or nothing by one claiming worker;
// up to MAX_IMPORT_ROWS rows, one more refused with the limit in its message; bad input changes
// nothing. The speed of 50,000 rows is measured by scripts/bench/team-import.ts, not here.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { tooManyRowsMessage } from "../../core/csv.ts";
import { MAX_IMPORT_ROWS } from "../../core/limits.ts";
import type { Db } from "../../server/db/client.ts";
import { importJobRows, importJobs, rewardDraftLines, users } from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, signUpVerified } from "../identity/accounts.testkit.ts";
import { REWARD_DETAILS } from "../reward-drafts/schema.ts";
import {
  applyNextImport,
  discardImport,
  IMPORT_BATCH_ROWS,
  type ImportOwner,
  queueImport,
  readImport,
  stageImport,
} from "./service.server.ts";

/** A team file of `rows` members as a spreadsheet writes it, in chunks as an upload arrives. */
function* teamFile(rows: number, options: { badRow?: number; reward?: boolean } = {}): Generator<string> {
  yield options.reward
    ? "\uFEFFFirst Name,Last Name,Email Address,Reward Amount\r\n"
    : "\uFEFFFirst Name,Last Name,Email Address\r\n";
  let chunk = "";
  for (let i = 1; i <= rows; i++) {
    const email = i === options.badRow ? "not-an-address" : `member.${i}@example.com`;
    chunk += `Member${i},"Surname ${i}",${email}${options.reward ? `,${i % 100}` : ""}\r\n`;
    if (chunk.length > 60_000) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

async function count(db: Db, table: typeof users | typeof importJobRows | typeof importJobs | typeof rewardDraftLines) {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(table);
  return Number(row?.n ?? 0);
}

describeEachDatabase("CSV imports", ({ database }) => {
  const db = () => database().db;
  let owner: ImportOwner;
  let other: ImportOwner;

  beforeEach(async () => {
    await truncateAll(db());
    const { api } = accountsApi(db(), { config: testConfig() });
    const alice = await signUpVerified(api, db(), { email: "alice@example.com" });
    const bob = await signUpVerified(api, db(), { email: "bob@example.com", companyName: "Other Co" });
    const companyOf = async (userId: number) =>
      (await db().select({ c: users.companyId }).from(users).where(eq(users.id, userId)))[0]?.c as number;
    owner = { userId: alice.userId, companyId: await companyOf(alice.userId) };
    other = { userId: bob.userId, companyId: await companyOf(bob.userId) };
  });

  it(`imports ${MAX_IMPORT_ROWS.toLocaleString("en-AU")} rows all at once; one more is refused with the limit and stages nothing`, async () => {
    const before = await count(db(), users);
    const tooMany = await stageImport(
      db(),
      owner,
      { kind: "team", fileName: "big.csv", queue: true },
      teamFile(MAX_IMPORT_ROWS + 1),
    );
    expect(tooMany).toEqual({ ok: false, errors: [tooManyRowsMessage(MAX_IMPORT_ROWS + 1, MAX_IMPORT_ROWS)] });
    expect(tooMany.ok || tooMany.errors[0]).toContain("at most 50,000 rows");
    expect(await count(db(), importJobs)).toBe(0);
    expect(await count(db(), importJobRows)).toBe(0);

    const staged = await stageImport(
      db(),
      owner,
      { kind: "team", fileName: "team.csv", queue: true, id: "job-0123456789abcdef" },
      teamFile(MAX_IMPORT_ROWS),
    );
    expect(staged).toMatchObject({
      ok: true,
      job: { id: "job-0123456789abcdef", status: "queued", processedRows: MAX_IMPORT_ROWS, totalRows: MAX_IMPORT_ROWS },
    });
    // Staged, not applied: the team is unchanged until the worker's transaction commits.
    expect(await count(db(), users)).toBe(before);
    expect(await count(db(), importJobRows)).toBe(MAX_IMPORT_ROWS);
    // Another user cannot see or drop it.
    expect(await readImport(db(), other, "job-0123456789abcdef")).toBeNull();

    expect(await applyNextImport(db())).toEqual({ id: "job-0123456789abcdef", status: "done" });
    expect(await applyNextImport(db())).toBeNull();
    expect(await count(db(), users)).toBe(before + MAX_IMPORT_ROWS);
    expect(await count(db(), importJobRows)).toBe(0);
    expect(await readImport(db(), owner, "job-0123456789abcdef")).toMatchObject({
      status: "done",
      result: { successfullyAdded: MAX_IMPORT_ROWS, duplicates: 0 },
    });
  }, 120_000);

  it("a team file with the optional Birthday, Start Date and State columns stores them; blanks are none", async () => {
    const file = [
      "First Name,Last Name,Email Address,State,Birthday,Start Date\r\n",
      "Wren,West,wren@example.com,Western Australia,29/02,3/1/2022\r\n",
      "Ned,North,ned@example.com,nt,07/11/1990,2019-06-30\r\n",
      "Cy,Blank,cy@example.com,,,\r\n",
    ];
    const staged = await stageImport(db(), owner, { kind: "team", fileName: "details.csv", queue: true }, file);
    expect(staged.ok).toBe(true);
    await applyNextImport(db());
    const rows = await db()
      .select({
        email: users.email,
        d: users.birthDay,
        m: users.birthMonth,
        start: users.startDate,
        state: users.state,
      })
      .from(users)
      .where(eq(users.role, "member"))
      .orderBy(users.email);
    expect(rows).toEqual([
      { email: "cy@example.com", d: null, m: null, start: null, state: null },
      { email: "ned@example.com", d: 7, m: 11, start: "2019-06-30", state: "NT" },
      { email: "wren@example.com", d: 29, m: 2, start: "2022-01-03", state: "WA" },
    ]);
  });

  it("a bad row anywhere (even after the first batches) refuses the file and changes nothing", async () => {
    const before = await count(db(), users);
    const badRow = IMPORT_BATCH_ROWS * 2 + 7;
    const result = await stageImport(
      db(),
      owner,
      { kind: "team", fileName: "team.csv", queue: true },
      teamFile(IMPORT_BATCH_ROWS * 3, { badRow }),
    );
    expect(result).toEqual({ ok: false, errors: [`Row ${badRow}: Email is missing or incorrect`] });
    expect(await count(db(), importJobs)).toBe(0);
    expect(await count(db(), importJobRows)).toBe(0);
    expect(await count(db(), users)).toBe(before);
  });

  it("refuses a missing heading, an empty file, an unreadable file and an oversized one with their messages", async () => {
    const stage = (chunks: string[], maxBytes?: number) =>
      stageImport(db(), owner, { kind: "team", fileName: "t.csv", queue: true, maxBytes }, chunks);
    expect(await stage(["First Name,Email Address\r\nAnn,ann@example.com\r\n"])).toEqual({
      ok: false,
      errors: ['Last Name: Column heading is missing or incorrect; please update to "Last Name".'],
    });
    expect(await stage(["First Name,Last Name,Email Address\r\n\r\n"])).toEqual({
      ok: false,
      errors: ["The file has no rows below the column headings."],
    });
    const unreadable = await stage(['First Name,Last Name,Email Address\r\nAnn,"Lee,ann@example.com\r\n']);
    expect(unreadable.ok || unreadable.errors[0]).toMatch(
      /^The file could not be read as CSV: a quoted value is never closed/,
    );
    const large = await stage(["First Name,Last Name,Email Address\r\n", "x".repeat(2000)], 1000);
    expect(large.ok || large.errors[0]).toMatch(/^The file is larger than 10 MB/);
    expect(await count(db(), importJobs)).toBe(0);
  });

  it("without JavaScript: a checked file waits staged with a preview, then Save queues it; repeats are duplicates", async () => {
    const file =
      "First Name,Last Name,Email Address\r\nAnn,Lee,ann@example.com\r\nAnn,Again,ANN@example.com\r\nBo,Ng,bo@example.com\r\n";
    const staged = await stageImport(db(), owner, { kind: "team", fileName: "t.csv", queue: false }, [file]);
    if (!staged.ok) throw new Error(staged.errors.join());
    const { id } = staged.job;
    expect(await applyNextImport(db())).toBeNull();
    expect(await readImport(db(), owner, id, { sample: 2 })).toMatchObject({
      status: "staged",
      totalRows: 3,
      sample: [
        { firstName: "Ann", lastName: "Lee", email: "ann@example.com", value: null },
        { firstName: "Ann", lastName: "Again", email: "ANN@example.com", value: null },
      ],
    });
    expect(await queueImport(db(), other, id)).toBe(false);
    expect(await queueImport(db(), owner, id)).toBe(true);
    expect(await queueImport(db(), owner, id)).toBe(false);
    await discardImport(db(), owner, id); // a queued job is not dropped
    expect(await applyNextImport(db())).toEqual({ id, status: "done" });
    expect((await readImport(db(), owner, id))?.result).toEqual({ successfullyAdded: 2, duplicates: 1 });
    await discardImport(db(), owner, id);
    expect(await readImport(db(), owner, id)).toBeNull();
  });

  it("a reward import past the draft's limit fails whole: no member, no line, the reason kept", async () => {
    const members = await count(db(), users);
    // Repeated addresses are refused while reading, as the bulk API refuses them.
    const repeated = await stageImport(db(), owner, { kind: "reward", fileName: "r.csv", queue: true }, [
      "First Name,Last Name,Email Address,Reward Amount\r\nAnn,Lee,ann@example.com,5\r\nAnn,Lee,Ann@Example.com,6\r\n",
    ]);
    expect(repeated).toEqual({
      ok: false,
      errors: ["Row 2: Email Address repeats row 1; list each recipient once."],
    });

    const first = await stageImport(db(), owner, { kind: "reward", fileName: "r.csv", queue: true }, [
      ...teamFile(3, { reward: true }),
    ]);
    expect(first.ok).toBe(true);
    expect(await applyNextImport(db())).toMatchObject({ status: "done" });
    expect(await count(db(), rewardDraftLines)).toBe(3);

    // The program manager's own address at row 2: refused by the draft rules while applying.
    const manager = await stageImport(db(), owner, { kind: "reward", fileName: "r.csv", queue: true }, [
      "First Name,Last Name,Email Address,Reward Amount\r\nZed,Ng,zed@example.com,5\r\nAl,Ice,alice@example.com,6\r\n",
    ]);
    if (!manager.ok) throw new Error(manager.errors.join());
    expect(await applyNextImport(db())).toEqual({ id: manager.job.id, status: "failed" });
    expect((await readImport(db(), owner, manager.job.id))?.errors).toEqual([`Row 2: ${REWARD_DETAILS.managerEmail}`]);
    expect(await count(db(), users)).toBe(members + 3);
    expect(await count(db(), rewardDraftLines)).toBe(3);
    expect(await count(db(), importJobRows)).toBe(0);
  });

  it("a job whose apply breaks off (the process dies) is rolled back and applied later, once", async () => {
    const staged = await stageImport(db(), owner, { kind: "team", fileName: "t.csv", queue: true }, [
      ...teamFile(2000),
    ]);
    if (!staged.ok) throw new Error(staged.errors.join());
    const before = await count(db(), users);
    // A dying process: its transaction ends without a commit, after the rows were written.
    await expect(
      db().transaction(async (tx) => {
        await tx.execute(sql`select id from import_jobs where status = 'queued' for update skip locked`);
        await tx.execute(sql`insert into users (company_id, first_name, last_name, email, role)
          select ${owner.companyId}, first_name, last_name, email, 'member' from import_job_rows`);
        throw new Error("killed");
      }),
    ).rejects.toThrow("killed");
    expect(await count(db(), users)).toBe(before);
    expect((await readImport(db(), owner, staged.job.id))?.status).toBe("queued");
    expect(await applyNextImport(db())).toEqual({ id: staged.job.id, status: "done" });
    expect(await count(db(), users)).toBe(before + 2000);
  });
});
