// My Team calls (docs/requirements.md §S7, §S5, §S8, §S9) against the real databases (PGlite and
// PostgreSQL): GET /api/Users (paging, order, search rules, the reward search flag),
// create-user, create-user-bulk-upload (duplicates, row limit, all or nothing), PUT and DELETE
// /api/Users/{id}; every validation message, tenant isolation, malformed bodies, 401.
import { and, count, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { auditLog, rewardLedger, users } from "../../server/db/schema.ts";
import { BULK_JSON_BYTES } from "../../server/http/validate.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, emailsTo, logIn, registration, signUpVerified } from "../identity/accounts.testkit.ts";
import { LIST_DETAILS } from "./api.server.ts";
import { MAX_IMPORT_ROWS, TEAM_DETAILS, type TeamMember, type TeamPage } from "./schema.ts";

type Api = ReturnType<typeof accountsApi>["api"];
type Row = { firstName: string; lastName: string; email: string };

const person = (firstName: string, lastName: string, email?: string): Row => ({
  firstName,
  lastName,
  email: email ?? `${firstName}.${lastName}@example.com`.toLowerCase(),
});

describeEachDatabase("My Team API", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  /** Two companies, A and B, each with a verified program manager. */
  async function twoCompanies() {
    const { api } = accountsApi(db(), { config });
    const a = await signUpVerified(api, db(), { firstName: "Ann", companyName: "Alpha", email: "ann@alpha.test" });
    const b = await signUpVerified(api, db(), { firstName: "Bob", companyName: "Beta", email: "bob@beta.test" });
    const companyOf = async (userId: number) =>
      (await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, userId)))[0]!.companyId;
    return {
      api,
      a: { ...a, companyId: await companyOf(a.userId) },
      b: { ...b, companyId: await companyOf(b.userId) },
    };
  }

  const list = async (api: Api, token: string, query: Record<string, string | number> = {}) => {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    const res = await call(api, "GET", `/api/Users?${params}`, undefined, token);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as TeamPage;
  };
  const names = (page: TeamPage) => page.items.map((m) => m.fullName);
  const add = (api: Api, token: string, body: unknown) => call(api, "POST", "/api/Users/create-user", body, token);
  const addOk = async (api: Api, token: string, row: Row) => {
    const res = await add(api, token, row);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as TeamMember;
  };
  const bulk = (api: Api, token: string, body: unknown) =>
    call(api, "POST", "/api/Users/create-user-bulk-upload", body, token);
  const update = (api: Api, token: string, id: number | string, body: unknown) =>
    call(api, "PUT", `/api/Users/${id}`, body, token);
  const remove = (api: Api, token: string, id: number | string) =>
    call(api, "DELETE", `/api/Users/${id}`, undefined, token);
  const memberRows = (companyId: number) =>
    db()
      .select()
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.role, "member")))
      .orderBy(users.id);
  const memberCount = async () =>
    (await db().select({ n: count() }).from(users).where(eq(users.role, "member")))[0]?.n ?? 0;

  describe("POST /api/Users/create-user", () => {
    it("adds an active member of the caller's company (trimmed, no password) and answers the TeamMember", async () => {
      const { api, a } = await twoCompanies();
      const res = await add(api, a.accessToken, {
        firstName: "  Jane ",
        lastName: " Citizen ",
        email: " Jane.Citizen@Example.com ",
      });
      expect(res.status).toBe(200);
      const member = (await res.json()) as TeamMember;
      expect(member).toEqual({
        id: expect.any(Number),
        firstName: "Jane",
        lastName: "Citizen",
        fullName: "Jane Citizen",
        email: "Jane.Citizen@Example.com",
        phone: "",
        companyId: a.companyId,
        companyName: "Alpha",
        birthDay: null,
        birthMonth: null,
        startDate: null,
        state: null,
      });
      const [row] = await db().select().from(users).where(eq(users.id, member.id));
      expect(row).toMatchObject({
        companyId: a.companyId,
        role: "member",
        isActive: true,
        passwordHash: null,
        email: "Jane.Citizen@Example.com",
      });
      expect(names(await list(api, a.accessToken))).toEqual(["Jane Citizen"]);
    });

    it.each([
      ["firstName", undefined, "First Name is required."],
      ["firstName", "", "First Name is required."],
      ["firstName", "   ", "First Name is required."],
      ["firstName", 42, "First Name is required."],
      ["firstName", "f".repeat(65), "First Name must be at most 64 characters."],
      ["lastName", undefined, "Last Name is required."],
      ["lastName", " ", "Last Name is required."],
      ["lastName", "l".repeat(65), "Last Name must be at most 64 characters."],
      ["email", undefined, "Email is required."],
      ["email", "  ", "Email is required."],
      ["email", "jane", "The email format is incorrect."],
      ["email", "jane@", "The email format is incorrect."],
      ["email", "jane citizen@example.com", "The email format is incorrect."],
      [
        "email",
        `${"e".repeat(64)}@${"d".repeat(63)}.${"d".repeat(63)}.${"d".repeat(60)}.com`,
        "Email must be at most 256 characters.",
      ],
    ])("%s = %j → 400 %s, nothing stored", async (field, value, message) => {
      const { api, a } = await twoCompanies();
      const body: Record<string, unknown> = { ...person("Jane", "Citizen") };
      if (value === undefined) delete body[field];
      else body[field] = value;
      const problem = await expectProblem(await add(api, a.accessToken, body), 400);
      expect(problem.detail).toBe(message);
      expect(problem.errors?.[field]).toEqual([message]);
      expect(await memberCount()).toBe(0);
    });

    it("accepts names of 64 characters and an email of 256", async () => {
      const { api, a } = await twoCompanies();
      const email = `${"e".repeat(64)}@${"d".repeat(63)}.${"d".repeat(63)}.${"d".repeat(59)}.com`;
      expect(email).toHaveLength(256);
      await addOk(api, a.accessToken, { firstName: "f".repeat(64), lastName: "l".repeat(64), email });
    });

    it("refuses an address already active in the company, in any letter case (the manager's own too): 409", async () => {
      const { api, a } = await twoCompanies();
      await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      for (const email of ["jane@example.com", "JANE@Example.COM", " Jane@example.com ", "ANN@alpha.test"]) {
        const problem = await expectProblem(await add(api, a.accessToken, person("Other", "Person", email)), 409);
        expect(problem.detail).toBe(TEAM_DETAILS.emailInCompany);
      }
      expect(await memberCount()).toBe(1);
    });

    it("lets another company add the same address, and the company add it again once removed", async () => {
      const { api, a, b } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      await addOk(api, b.accessToken, person("Jane", "Citizen", "jane@example.com"));
      await addOk(api, b.accessToken, person("Ann", "Manager", "ann@alpha.test"));
      expect((await remove(api, a.accessToken, jane.id)).status).toBe(204);
      const again = await addOk(api, a.accessToken, person("Jane", "Again", "JANE@example.com"));
      expect(again.id).not.toBe(jane.id);
    });

    it("adds one member when the same address is posted twice at the same moment", async () => {
      const { api, a } = await twoCompanies();
      const results = await Promise.all(
        [1, 2, 3].map(() => add(api, a.accessToken, person("Jane", "Citizen", "race@example.com"))),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect(await memberCount()).toBe(1);
    });

    it("answers 400 with a detail for a body that is not JSON or not an object, and 415 for another type", async () => {
      const { api, a } = await twoCompanies();
      expect((await expectProblem(await add(api, a.accessToken, "{nope"), 400)).detail).toBe(
        "The request body is not valid JSON.",
      );
      expect((await expectProblem(await add(api, a.accessToken, "[1,2]"), 400)).detail).toBe(
        "The request body must be a JSON object.",
      );
      expect((await expectProblem(await add(api, a.accessToken, {}), 400)).detail).toBe("First Name is required.");
      const res = await api.request("/api/Users/create-user", {
        method: "POST",
        headers: { authorization: `Bearer ${a.accessToken}`, "content-type": "text/plain" },
        body: JSON.stringify(person("Jane", "Citizen")),
      });
      await expectProblem(res, 415);
      expect(await memberCount()).toBe(0);
    });
  });

  describe("GET /api/Users", () => {
    it("lists only the caller's active members (not the manager, not removed ones, not another company's)", async () => {
      const { api, a, b } = await twoCompanies();
      await addOk(api, a.accessToken, person("Jane", "Citizen"));
      const gone = await addOk(api, a.accessToken, person("Gone", "Member"));
      await addOk(api, b.accessToken, person("Bea", "Other"));
      expect((await remove(api, a.accessToken, gone.id)).status).toBe(204);
      const page = await list(api, a.accessToken);
      expect(page).toEqual({
        items: [expect.objectContaining({ fullName: "Jane Citizen", companyName: "Alpha", companyId: a.companyId })],
        totalPages: 1,
        hasPreviousPage: false,
        hasNextPage: false,
        pageNumber: 1,
        totalCount: 1,
      });
      expect(names(await list(api, b.accessToken))).toEqual(["Bea Other"]);
    });

    it("answers an empty page when the team is empty", async () => {
      const { api, a } = await twoCompanies();
      expect(await list(api, a.accessToken)).toEqual({
        items: [],
        totalPages: 0,
        hasPreviousPage: false,
        hasNextPage: false,
        pageNumber: 1,
        totalCount: 0,
      });
    });

    it("orders by first name, last name (any letter case) and id, and pages 8 at a time by default", async () => {
      const { api, a } = await twoCompanies();
      const rows = [
        person("zoe", "Adams"),
        person("Amy", "Zed"),
        person("amy", "Brown"),
        person("Bob", "Clark"),
        person("Bob", "Clark", "bob.clark2@example.com"),
        person("Carl", "Day"),
        person("Dan", "Evans"),
        person("Eve", "Ford"),
        person("Fay", "Gray"),
        person("Gus", "Hill"),
      ];
      expect((await bulk(api, a.accessToken, { users: rows })).status).toBe(200);
      const first = await list(api, a.accessToken);
      expect(names(first)).toEqual([
        "amy Brown",
        "Amy Zed",
        "Bob Clark",
        "Bob Clark",
        "Carl Day",
        "Dan Evans",
        "Eve Ford",
        "Fay Gray",
      ]);
      const bobs = first.items.filter((m) => m.firstName === "Bob");
      expect(bobs[0]!.id).toBeLessThan(bobs[1]!.id);
      expect(first).toMatchObject({ totalPages: 2, hasPreviousPage: false, hasNextPage: true, totalCount: 10 });
      const second = await list(api, a.accessToken, { pageNumber: 2 });
      expect(names(second)).toEqual(["Gus Hill", "zoe Adams"]);
      expect(second).toMatchObject({ totalPages: 2, hasPreviousPage: true, hasNextPage: false, pageNumber: 2 });
    });

    it("pages across three pages with a chosen size, and past the end answers no items with the right flags", async () => {
      const { api, a } = await twoCompanies();
      const rows = Array.from({ length: 7 }, (_, i) => person(`Member${i + 1}`, "Team"));
      await bulk(api, a.accessToken, { users: rows });
      const seen: string[] = [];
      for (const [pageNumber, hasPreviousPage, hasNextPage, size] of [
        [1, false, true, 3],
        [2, true, true, 3],
        [3, true, false, 1],
      ] as const) {
        const page = await list(api, a.accessToken, { pageNumber, pageSize: 3 });
        expect(page).toMatchObject({ pageNumber, totalPages: 3, totalCount: 7, hasPreviousPage, hasNextPage });
        expect(page.items).toHaveLength(size);
        seen.push(...names(page));
      }
      expect(new Set(seen).size).toBe(7);
      expect(await list(api, a.accessToken, { pageNumber: 9, pageSize: 3 })).toEqual({
        items: [],
        totalPages: 3,
        hasPreviousPage: true,
        hasNextPage: false,
        pageNumber: 9,
        totalCount: 7,
      });
      const all = await list(api, a.accessToken, { pageSize: 100 });
      expect(all.items).toHaveLength(7);
      expect(all.totalPages).toBe(1);
    });

    it.each([
      [{ pageNumber: "0" }, LIST_DETAILS.pageNumber],
      [{ pageNumber: "-1" }, LIST_DETAILS.pageNumber],
      [{ pageNumber: "abc" }, LIST_DETAILS.pageNumber],
      [{ pageNumber: "1.5" }, LIST_DETAILS.pageNumber],
      [{ pageNumber: "99999999999" }, LIST_DETAILS.pageNumber],
      [{ pageSize: "0" }, LIST_DETAILS.pageSize],
      [{ pageSize: "101" }, LIST_DETAILS.pageSize],
      [{ pageSize: "ten" }, LIST_DETAILS.pageSize],
      [{ search: "x".repeat(257) }, LIST_DETAILS.search],
      [{ isRewardMyTeam: "maybe" }, LIST_DETAILS.isRewardMyTeam],
    ])("%j → 400 with a clear detail", async (query, detail) => {
      const { api, a } = await twoCompanies();
      const res = await call(api, "GET", `/api/Users?${new URLSearchParams(query)}`, undefined, a.accessToken);
      expect((await expectProblem(res, 400)).detail).toBe(detail);
    });

    it("uses the defaults for empty parameters (page 1, 8 a page)", async () => {
      const { api, a } = await twoCompanies();
      await bulk(api, a.accessToken, { users: Array.from({ length: 9 }, (_, i) => person(`M${i}`, "Team")) });
      const page = await list(api, a.accessToken, { pageNumber: "", pageSize: "", search: "" });
      expect(page).toMatchObject({ pageNumber: 1, totalPages: 2, totalCount: 9 });
      expect(page.items).toHaveLength(8);
    });

    describe("search", () => {
      async function team() {
        const ctx = await twoCompanies();
        await bulk(ctx.api, ctx.a.accessToken, {
          users: [
            person("Jane", "Citizen", "jane@alpha.test"),
            person("Janet", "Smith", "jsmith@example.com"),
            person("Mark", "Janeway", "mark@example.com"),
            person("Percy", "Per_cent%", "percy_p@example.com"),
            person("Pat", "Perxcentx", "pat@example.com"),
            person("Bob", "Back\\slash", "bob@example.com"),
          ],
        });
        await addOk(ctx.api, ctx.b.accessToken, person("Jane", "Beta", "jane@beta.test"));
        return ctx;
      }

      it("ignores a text of 2 characters or fewer (after trimming)", async () => {
        const { api, a } = await team();
        for (const search of ["", "ja", "  ja  ", "zz", "%", "__"]) {
          expect((await list(api, a.accessToken, { search })).totalCount, search).toBe(6);
        }
      });

      it("matches first name, last name, full name and email as a substring, in any letter case", async () => {
        const { api, a } = await team();
        expect(names(await list(api, a.accessToken, { search: "jane" }))).toEqual([
          "Jane Citizen",
          "Janet Smith",
          "Mark Janeway",
        ]);
        expect(names(await list(api, a.accessToken, { search: "CITIZ" }))).toEqual(["Jane Citizen"]);
        expect(names(await list(api, a.accessToken, { search: "ne cit" }))).toEqual(["Jane Citizen"]);
        expect(names(await list(api, a.accessToken, { search: " Jane   Citizen " }))).toEqual(["Jane Citizen"]);
        expect(names(await list(api, a.accessToken, { search: "JSMITH@" }))).toEqual(["Janet Smith"]);
        expect(names(await list(api, a.accessToken, { search: "alpha.test" }))).toEqual(["Jane Citizen"]);
        expect(names(await list(api, a.accessToken, { search: "nobody-here" }))).toEqual([]);
      });

      it("takes % _ and \\ literally", async () => {
        const { api, a } = await team();
        expect(names(await list(api, a.accessToken, { search: "per_cent%" }))).toEqual(["Percy Per_cent%"]);
        expect(names(await list(api, a.accessToken, { search: "r_c" }))).toEqual(["Percy Per_cent%"]);
        expect(names(await list(api, a.accessToken, { search: "nt%" }))).toEqual(["Percy Per_cent%"]);
        expect(names(await list(api, a.accessToken, { search: "y_p@" }))).toEqual(["Percy Per_cent%"]);
        expect(names(await list(api, a.accessToken, { search: "k\\s" }))).toEqual(["Bob Back\\slash"]);
        expect(names(await list(api, a.accessToken, { search: "%%%" }))).toEqual([]);
        expect(names(await list(api, a.accessToken, { search: "___" }))).toEqual([]);
      });

      it("pages the matches", async () => {
        const { api, a } = await team();
        const page = await list(api, a.accessToken, { search: "jane", pageSize: 2, pageNumber: 2 });
        expect(names(page)).toEqual(["Mark Janeway"]);
        expect(page).toMatchObject({ totalCount: 3, totalPages: 2, hasPreviousPage: true, hasNextPage: false });
      });

      it("with isRewardMyTeam=true answers nobody for blank text and matches any other text, however short", async () => {
        const { api, a } = await team();
        for (const search of ["", "   "]) {
          const page = await list(api, a.accessToken, { search, isRewardMyTeam: "true", pageSize: 10 });
          expect(page).toMatchObject({ items: [], totalCount: 0, totalPages: 0, hasNextPage: false });
        }
        // docs/requirements.md §S5: the reward search runs on any text that is not blank (My Team's needs 3 characters).
        expect(
          names(await list(api, a.accessToken, { search: "  ja ", isRewardMyTeam: "true", pageSize: 10 })),
        ).toEqual(["Jane Citizen", "Janet Smith", "Mark Janeway"]);
        expect(names(await list(api, a.accessToken, { search: "ja", isRewardMyTeam: "false" }))).toHaveLength(6);
        const page = await list(api, a.accessToken, { search: "jane", isRewardMyTeam: "true", pageSize: 10 });
        expect(names(page)).toEqual(["Jane Citizen", "Janet Smith", "Mark Janeway"]);
        expect(names(await list(api, a.accessToken, { search: "jane", isRewardMyTeam: "false" }))).toHaveLength(3);
      });

      it("with isRewardMyTeam=true leaves out the members already in the caller's reward draft", async () => {
        const { api, a } = await team();
        const all = await list(api, a.accessToken, { search: "jane" });
        const jane = all.items.find((m) => m.fullName === "Jane Citizen")!;
        const res = await call(
          api,
          "POST",
          "/api/RewardMyTeam/create-reward-search",
          { userId: jane.id },
          a.accessToken,
        );
        expect(res.status, await res.clone().text()).toBe(200);
        const page = await list(api, a.accessToken, { search: "jane", isRewardMyTeam: "true", pageSize: 10 });
        expect(names(page)).toEqual(["Janet Smith", "Mark Janeway"]);
        expect(page.totalCount).toBe(2);
        // My Team itself still lists everyone.
        expect(names(await list(api, a.accessToken, { search: "jane" }))).toHaveLength(3);
      });
    });
  });

  describe("POST /api/Users/create-user-bulk-upload", () => {
    it("adds every row, trimmed, and answers the counts", async () => {
      const { api, a } = await twoCompanies();
      const res = await bulk(api, a.accessToken, {
        users: [person("Jane", "Citizen"), { firstName: " Tom ", lastName: " Lee ", email: " Tom@Example.com " }],
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ successfullyAdded: 2, duplicates: 0 });
      const rows = await memberRows(a.companyId);
      expect(rows.map((r) => [r.firstName, r.lastName, r.email, r.role, r.isActive, r.passwordHash])).toEqual([
        ["Jane", "Citizen", "jane.citizen@example.com", "member", true, null],
        ["Tom", "Lee", "Tom@Example.com", "member", true, null],
      ]);
    });

    it("counts as duplicates the addresses active in the company and repeats within the file (any letter case); the first occurrence wins", async () => {
      const { api, a, b } = await twoCompanies();
      await addOk(api, a.accessToken, person("Old", "Member", "old@example.com"));
      const removed = await addOk(api, a.accessToken, person("Removed", "Member", "removed@example.com"));
      await remove(api, a.accessToken, removed.id);
      await addOk(api, b.accessToken, person("Other", "Company", "other@example.com"));
      const res = await bulk(api, a.accessToken, {
        users: [
          person("First", "Copy", "new@example.com"),
          person("Second", "Copy", "NEW@example.com"),
          person("Old", "Again", "OLD@EXAMPLE.COM"),
          person("Ann", "Manager", "Ann@Alpha.test"),
          person("Removed", "Back", "removed@example.com"),
          person("Other", "Here", "other@example.com"),
          person("Third", "Copy", "new@example.com"),
        ],
      });
      expect(await res.json()).toEqual({ successfullyAdded: 3, duplicates: 4 });
      const active = (await memberRows(a.companyId)).filter((r) => r.isActive);
      expect(active.map((r) => `${r.firstName} ${r.lastName}`).sort()).toEqual([
        "First Copy",
        "Old Member",
        "Other Here",
        "Removed Back",
      ]);
      expect((await memberRows(b.companyId)).map((r) => r.firstName)).toEqual(["Other"]);
    });

    it("two uploads of the same addresses at the same moment add each address once", async () => {
      const { api, a } = await twoCompanies();
      const rows = Array.from({ length: 50 }, (_, i) => person(`Same${i}`, "Person"));
      const answers = (await Promise.all(
        [rows, [...rows].reverse()].map(async (users) => (await bulk(api, a.accessToken, { users })).json()),
      )) as Array<{ successfullyAdded: number; duplicates: number }>;
      expect(answers.reduce((n, x) => n + x.successfullyAdded, 0)).toBe(50);
      expect(answers.reduce((n, x) => n + x.duplicates, 0)).toBe(50);
      expect(await memberCount()).toBe(50);
    });

    it.each([
      [1, "firstName", "", "Row 1: First Name is required."],
      [3, "email", "not-an-email", "Row 3: The email format is incorrect."],
      [2, "lastName", undefined, "Row 2: Last Name is required."],
      [3, "email", "", "Row 3: Email is required."],
      [2, "firstName", "f".repeat(65), "Row 2: First Name must be at most 64 characters."],
    ])("a bad row %i (%s = %j) → 400 %s, nothing stored", async (rowNumber, field, value, detail) => {
      const { api, a } = await twoCompanies();
      const rows: Record<string, unknown>[] = [person("A", "One"), person("B", "Two"), person("C", "Three")];
      const row = rows[rowNumber - 1]!;
      if (value === undefined) delete row[field];
      else row[field] = value;
      const problem = await expectProblem(await bulk(api, a.accessToken, { users: rows }), 400);
      expect(problem.detail).toBe(detail);
      expect(problem.errors?.[`users.${rowNumber - 1}.${field}`]).toBeDefined();
      expect(await memberCount()).toBe(0);
    });

    it(`accepts ${MAX_IMPORT_ROWS} rows at once and refuses ${MAX_IMPORT_ROWS + 1} with a detail, storing nothing`, async () => {
      const { api, a } = await twoCompanies();
      const rows = Array.from({ length: MAX_IMPORT_ROWS + 1 }, (_, i) => person(`First${i}`, `Last${i}`));
      const problem = await expectProblem(await bulk(api, a.accessToken, { users: rows }), 400);
      expect(problem.detail).toBe(`A file can hold at most ${MAX_IMPORT_ROWS.toLocaleString("en-AU")} team members.`);
      expect(problem.detail).toBe("A file can hold at most 50,000 team members.");
      expect(await memberCount()).toBe(0);
      const res = await bulk(api, a.accessToken, { users: rows.slice(0, MAX_IMPORT_ROWS) });
      expect(await res.json()).toEqual({ successfullyAdded: MAX_IMPORT_ROWS, duplicates: 0 });
      expect(await memberCount()).toBe(MAX_IMPORT_ROWS);
      const page = await list(api, a.accessToken, { pageNumber: 6250 });
      expect(page).toMatchObject({ totalPages: 6250, totalCount: MAX_IMPORT_ROWS, hasNextPage: false });
      expect(page.items).toHaveLength(8);
    });

    it("accepts maximum-length fields up to the JSON body cap (BULK_JSON_BYTES, over 10 MB) and refuses a longer body with 413", async () => {
      const { api, a } = await twoCompanies();
      const row = (i: number) => ({
        firstName: "F".repeat(64),
        lastName: "L".repeat(64),
        email: `${`${i}.`.padEnd(64, "x")}@${"d".repeat(60)}.${"e".repeat(60)}.${"f".repeat(50)}.example.com`,
      });
      // As many maximum-length rows as the cap holds (a 50,000-row file of them is a streamed import's).
      const fits = Math.floor(BULK_JSON_BYTES / (JSON.stringify(row(99_999)).length + 1)) - 1;
      const rows = Array.from({ length: fits }, (_, i) => row(i));
      const body = JSON.stringify({ users: rows });
      expect(body.length).toBeGreaterThan(10_000_000);
      expect(body.length).toBeLessThanOrEqual(BULK_JSON_BYTES);
      const res = await bulk(api, a.accessToken, body);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ successfullyAdded: fits, duplicates: 0 });
      const longer = JSON.stringify({ users: [...rows, row(fits), row(fits + 1), row(fits + 2)] });
      expect(longer.length).toBeGreaterThan(BULK_JSON_BYTES);
      await expectProblem(await bulk(api, a.accessToken, longer), 413);
    }, 120_000);

    it.each([
      ["not JSON", "{users:", "The request body is not valid JSON."],
      ["a list", JSON.stringify([person("A", "B")]), "The request body must be a JSON object."],
      ["no users", JSON.stringify({}), "users is required."],
      ["users not a list", JSON.stringify({ users: "nope" }), "users is required."],
      ["no rows", JSON.stringify({ users: [] }), "users must contain at least one team member."],
    ])("%s → 400 with a detail, nothing stored", async (_name, body, detail) => {
      const { api, a } = await twoCompanies();
      expect((await expectProblem(await bulk(api, a.accessToken, body), 400)).detail).toBe(detail);
      expect(await memberCount()).toBe(0);
    });

    it("a row that is not an object → 400 naming the row", async () => {
      const { api, a } = await twoCompanies();
      const problem = await expectProblem(await bulk(api, a.accessToken, { users: [person("A", "B"), 7] }), 400);
      expect(problem.detail).toMatch(/^Row 2: /);
      expect(await memberCount()).toBe(0);
    });
  });

  describe("PUT /api/Users/{id}", () => {
    it("changes the member: 204, trimmed; the body id may be left out or equal the path id", async () => {
      const { api, a } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      const res = await update(api, a.accessToken, jane.id, {
        id: jane.id,
        firstName: " Janet ",
        lastName: "Smith ",
        email: " janet@example.com",
      });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe("");
      const [row] = await db().select().from(users).where(eq(users.id, jane.id));
      expect(row).toMatchObject({ firstName: "Janet", lastName: "Smith", email: "janet@example.com", isActive: true });
      expect((await update(api, a.accessToken, jane.id, person("Jan", "Smith", "JANET@example.com"))).status).toBe(204);
      expect(names(await list(api, a.accessToken))).toEqual(["Jan Smith"]);
    });

    it("refuses an address active in the company (another member's or the manager's): 409, nothing changes", async () => {
      const { api, a } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      await addOk(api, a.accessToken, person("Tom", "Lee", "tom@example.com"));
      for (const email of ["TOM@example.com", "ann@alpha.test"]) {
        const problem = await expectProblem(
          await update(api, a.accessToken, jane.id, person("Jane", "Citizen", email)),
          409,
        );
        expect(problem.detail).toBe(TEAM_DETAILS.emailInCompany);
      }
      expect((await db().select().from(users).where(eq(users.id, jane.id)))[0]?.email).toBe("jane@example.com");
    });

    it("answers 404 for another company's member, a removed one, the manager, an unknown or non-numeric id; nothing changes", async () => {
      const { api, a, b } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      const gone = await addOk(api, a.accessToken, person("Gone", "Member", "gone@example.com"));
      await remove(api, a.accessToken, gone.id);
      const body = person("Hacked", "Name", "hacked@example.com");
      for (const [token, id] of [
        [b.accessToken, jane.id],
        [a.accessToken, gone.id],
        [a.accessToken, a.userId],
        [a.accessToken, b.userId],
        [a.accessToken, 999999],
        [a.accessToken, "abc"],
        [a.accessToken, "0"],
        [a.accessToken, "-1"],
        [a.accessToken, "1.5"],
        [a.accessToken, "99999999999999999999"],
        [a.accessToken, "MyDetails"],
      ] as const) {
        const problem = await expectProblem(await update(api, token, id, body), 404);
        expect(problem.detail).toBe(TEAM_DETAILS.notFound);
      }
      const rows = await db().select().from(users).orderBy(users.id);
      expect(rows.map((r) => [r.firstName, r.email, r.isActive])).toEqual([
        ["Ann", "ann@alpha.test", true],
        ["Bob", "bob@beta.test", true],
        ["Jane", "jane@example.com", true],
        ["Gone", "gone@example.com", false],
      ]);
    });

    it("answers 400 when the body id differs from the path id, and for each validation failure", async () => {
      const { api, a } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen", "jane@example.com"));
      const tom = await addOk(api, a.accessToken, person("Tom", "Lee", "tom@example.com"));
      const mismatch = await update(api, a.accessToken, jane.id, { ...person("X", "Y"), id: tom.id });
      expect((await expectProblem(mismatch, 400)).detail).toBe(LIST_DETAILS.idMismatch);
      for (const [body, detail] of [
        [{ lastName: "Citizen", email: "jane@example.com" }, "First Name is required."],
        [{ firstName: "Jane", lastName: "", email: "jane@example.com" }, "Last Name is required."],
        [{ firstName: "Jane", lastName: "Citizen" }, "Email is required."],
        [{ firstName: "Jane", lastName: "Citizen", email: "jane@" }, "The email format is incorrect."],
        [
          { firstName: "f".repeat(65), lastName: "Citizen", email: "jane@example.com" },
          "First Name must be at most 64 characters.",
        ],
      ] as const) {
        expect((await expectProblem(await update(api, a.accessToken, jane.id, body), 400)).detail).toBe(detail);
      }
      await expectProblem(await update(api, a.accessToken, jane.id, "{nope"), 400);
      await expectProblem(await update(api, a.accessToken, jane.id, { ...person("J", "C"), id: String(jane.id) }), 400);
      expect((await db().select().from(users).where(eq(users.id, jane.id)))[0]).toMatchObject({
        firstName: "Jane",
        email: "jane@example.com",
      });
    });
  });

  describe("a member's optional details: birthday (day and month), start date, state", () => {
    const details = { birthDay: 29, birthMonth: 2, startDate: "2021-03-15", state: "WA" };

    it("are stored with an add, listed, kept by a PUT that leaves them out, and cleared by null", async () => {
      const { api, a } = await twoCompanies();
      const member = await addOk(api, a.accessToken, { ...person("Pia", "Perth"), ...details } as Row);
      expect(member).toMatchObject(details);
      const [stored] = await memberRows(a.companyId);
      expect(stored).toMatchObject(details);
      expect((await list(api, a.accessToken)).items[0]).toMatchObject(details);

      // A system written before these fields sends only names and email: the details stay.
      expect((await update(api, a.accessToken, member.id, person("Pia", "Perry"))).status).toBe(204);
      expect((await memberRows(a.companyId))[0]).toMatchObject({ lastName: "Perry", ...details });

      const cleared = { birthDay: null, birthMonth: null, startDate: null, state: "NSW" };
      expect((await update(api, a.accessToken, member.id, { ...person("Pia", "Perry"), ...cleared })).status).toBe(204);
      expect((await memberRows(a.companyId))[0]).toMatchObject(cleared);
      // The audit entry names each detail that changed, old and new.
      const [entry] = await db()
        .select({ data: auditLog.data })
        .from(auditLog)
        .where(eq(auditLog.action, "member.updated"))
        .orderBy(auditLog.id)
        .offset(1);
      expect(entry?.data).toEqual({
        birthDay: { from: 29, to: null },
        birthMonth: { from: 2, to: null },
        startDate: { from: "2021-03-15", to: null },
        state: { from: "WA", to: "NSW" },
      });
    });

    it.each([
      [{ birthDay: 31 }, "birthMonth", "Choose both the day and the month of the birthday, or neither."],
      [{ birthMonth: 4 }, "birthDay", "Choose both the day and the month of the birthday, or neither."],
      [{ birthDay: 31, birthMonth: 4 }, "birthDay", "That month has no such day; check the birthday."],
      [{ birthDay: 30, birthMonth: 2 }, "birthDay", "That month has no such day; check the birthday."],
      [{ birthDay: 0, birthMonth: 1 }, "birthDay", "Choose a day from 1 to 31."],
      [{ birthDay: 1.5, birthMonth: 1 }, "birthDay", "Choose a day from 1 to 31."],
      [{ birthDay: "3", birthMonth: 1 }, "birthDay", "Choose a day from 1 to 31."],
      [{ birthDay: 1, birthMonth: 13 }, "birthMonth", "Choose a month from the list."],
      [{ startDate: "2021-02-29" }, "startDate", "Enter the start date as a real date between 1900 and 2099."],
      [{ startDate: "15/03/2021" }, "startDate", "Enter the start date as a real date between 1900 and 2099."],
      [{ startDate: "0202-01-01" }, "startDate", "Enter the start date as a real date between 1900 and 2099."],
      [{ state: "Perth" }, "state", "Choose a state or territory from the list."],
      [{ state: "wa" }, "state", "Choose a state or territory from the list."],
    ])("%j → 400 on %s with a clear message; nothing stored or changed", async (bad, field, message) => {
      const { api, a } = await twoCompanies();
      const problem = await expectProblem(await add(api, a.accessToken, { ...person("Jane", "Citizen"), ...bad }), 400);
      expect(problem.errors?.[field]).toEqual([message]);
      expect(await memberCount()).toBe(0);

      const member = await addOk(api, a.accessToken, { ...person("Jane", "Citizen"), ...details } as Row);
      await expectProblem(await update(api, a.accessToken, member.id, { ...person("Jane", "Citizen"), ...bad }), 400);
      expect((await memberRows(a.companyId))[0]).toMatchObject(details);
    });

    it("a bulk upload stores each row's details", async () => {
      const { api, a } = await twoCompanies();
      const res = await bulk(api, a.accessToken, {
        users: [
          { ...person("Ann", "One"), ...details },
          { ...person("Ben", "Two"), birthDay: 1, birthMonth: 12 },
          person("Cat", "Three"),
        ],
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const rows = await memberRows(a.companyId);
      expect(rows.map((r) => [r.firstName, r.birthDay, r.birthMonth, r.startDate, r.state])).toEqual([
        ["Ann", 29, 2, "2021-03-15", "WA"],
        ["Ben", 1, 12, null, null],
        ["Cat", null, null, null, null],
      ]);
    });
  });

  describe("DELETE /api/Users/{id}", () => {
    it("inactivates the member (the row stays): 204, gone from the list, a second time 404", async () => {
      const { api, a } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen"));
      const tom = await addOk(api, a.accessToken, person("Tom", "Lee"));
      const res = await remove(api, a.accessToken, jane.id);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe("");
      expect((await db().select().from(users).where(eq(users.id, jane.id)))[0]).toMatchObject({
        isActive: false,
        firstName: "Jane",
      });
      expect(names(await list(api, a.accessToken))).toEqual(["Tom Lee"]);
      expect((await expectProblem(await remove(api, a.accessToken, jane.id), 404)).detail).toBe(TEAM_DETAILS.notFound);
      expect((await db().select().from(users).where(eq(users.id, tom.id)))[0]?.isActive).toBe(true);
    });

    it("takes the member off the reward draft and forfeits the unspent Reward Dollars with a ledger entry", async () => {
      const { api, a } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen"));
      const tom = await addOk(api, a.accessToken, person("Tom", "Lee"));
      for (const member of [jane, tom]) {
        const res = await call(
          api,
          "POST",
          "/api/RewardMyTeam/create-reward-search",
          { userId: member.id },
          a.accessToken,
        );
        expect(res.status, await res.clone().text()).toBe(200);
      }
      await db()
        .insert(rewardLedger)
        .values([
          { companyId: a.companyId, userId: jane.id, kind: "credit", amountCents: 5000 },
          { companyId: a.companyId, userId: jane.id, kind: "debit", amountCents: 1250 },
        ]);
      expect((await remove(api, a.accessToken, jane.id)).status).toBe(204);
      expect((await remove(api, a.accessToken, tom.id)).status).toBe(204);
      const ledger = await db().select().from(rewardLedger).orderBy(rewardLedger.id);
      expect(ledger.map((l) => [l.userId, l.kind, l.amountCents])).toEqual([
        [jane.id, "credit", 5000],
        [jane.id, "debit", 1250],
        [jane.id, "forfeit", 3750],
      ]);
      const draft = await call(api, "GET", "/api/RewardMyTeam/get-reward", undefined, a.accessToken);
      expect(await draft.json()).toEqual([]);
      const audit = await db()
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, "member.removed"))
        .orderBy(auditLog.id);
      expect(audit.map((r) => [r.subject, r.data])).toEqual([
        [`user:${jane.id}`, { forfeitedCents: 3750, draftLines: 1 }],
        [`user:${tom.id}`, { forfeitedCents: 0, draftLines: 1 }],
      ]);
    });

    it("answers 404 for another company's member, the caller, another manager, unknown and non-numeric ids; nothing changes", async () => {
      const { api, a, b } = await twoCompanies();
      const jane = await addOk(api, a.accessToken, person("Jane", "Citizen"));
      for (const [token, id] of [
        [b.accessToken, jane.id],
        [a.accessToken, a.userId],
        [a.accessToken, b.userId],
        [a.accessToken, 424242],
        [a.accessToken, "jane"],
        [a.accessToken, "0"],
      ] as const) {
        expect((await expectProblem(await remove(api, token, id), 404)).detail).toBe(TEAM_DETAILS.notFound);
      }
      const rows = await db().select().from(users);
      expect(rows.every((r) => r.isActive)).toBe(true);
      expect(names(await list(api, a.accessToken))).toEqual(["Jane Citizen"]);
      // The managers still sign in.
      expect((await logIn(api, a.email)).status).toBe(200);
      expect((await logIn(api, b.email)).status).toBe(200);
    });
  });

  it("records each membership change in the audit log, with the acting manager and the test clock's time", async () => {
    const { api, a, b } = await twoCompanies();
    const jane = await addOk(api, a.accessToken, person("Jane", "Citizen"));
    await bulk(api, a.accessToken, { users: [person("Tom", "Lee"), person("Jane", "Again", jane.email)] });
    await update(api, a.accessToken, jane.id, person("Janet", "Citizen"));
    await remove(api, a.accessToken, jane.id);
    // Refusals write nothing.
    await add(api, a.accessToken, person("Tom", "Lee"));
    await remove(api, b.accessToken, jane.id);
    const rows = await db().select().from(auditLog).orderBy(auditLog.id);
    expect(rows.map((r) => [r.companyId, r.actorUserId, r.action, r.subject, r.data])).toEqual([
      [a.companyId, a.userId, "member.added", `user:${jane.id}`, {}],
      [a.companyId, a.userId, "members.imported", `company:${a.companyId}`, { successfullyAdded: 1, duplicates: 1 }],
      [
        a.companyId,
        a.userId,
        "member.updated",
        `user:${jane.id}`,
        // What changed, old and new (ADR 0022 amendment); the unchanged last name is not listed.
        {
          firstName: { from: "Jane", to: "Janet" },
          email: { from: "jane.citizen@example.com", to: "janet.citizen@example.com" },
        },
      ],
      [a.companyId, a.userId, "member.removed", `user:${jane.id}`, { forfeitedCents: 0, draftLines: 0 }],
    ]);
    expect(rows.every((r) => r.createdAt.toISOString() === "2025-03-01T09:00:00.000Z")).toBe(true);
  });

  it("answers 401 without a token or with a revoked one on every team call", async () => {
    const { api, a } = await twoCompanies();
    const jane = await addOk(api, a.accessToken, person("Jane", "Citizen"));
    const calls = (token?: string) => [
      call(api, "GET", "/api/Users?pageNumber=1&pageSize=8", undefined, token),
      call(api, "POST", "/api/Users/create-user", person("Tom", "Lee"), token),
      call(api, "POST", "/api/Users/create-user-bulk-upload", { users: [person("Tom", "Lee")] }, token),
      call(api, "PUT", `/api/Users/${jane.id}`, person("X", "Y"), token),
      call(api, "DELETE", `/api/Users/${jane.id}`, undefined, token),
    ];
    for (const res of await Promise.all(calls())) {
      expect((await expectProblem(res, 401)).detail).toBe(DETAILS.unauthorized);
    }
    expect((await call(api, "POST", "/api/Identity/logout", undefined, a.accessToken)).status).toBe(204);
    for (const res of await Promise.all(calls(a.accessToken))) await expectProblem(res, 401);
    expect(await memberRows(a.companyId)).toEqual([expect.objectContaining({ firstName: "Jane", isActive: true })]);
  });

  describe("team members and accounts", () => {
    it("a team member's address can still sign up as a program manager of a new company (a member is not an account)", async () => {
      const { api, a } = await twoCompanies();
      await addOk(api, a.accessToken, person("Mia", "Member", "mia@example.com"));
      // A member has no password: logging in with the address fails like any unknown address.
      const login = await expectProblem(await logIn(api, "mia@example.com"), 400);
      expect(login.detail).toBe(DETAILS.invalidLoginCredentials);
      const res = await call(
        api,
        "POST",
        "/api/Register",
        registration({ email: "MIA@example.com", firstName: "Mia" }),
      );
      expect(res.status, await res.clone().text()).toBe(200);
      // And a second sign-up with that address now meets the new program manager.
      const again = await call(api, "POST", "/api/Register", registration({ email: "mia@example.com" }));
      expect((await expectProblem(again, 409)).detail).toBe("Email is already used, please use another one.");
      const rows = await db().select().from(users).where(eq(users.isActive, true));
      expect(
        rows
          .filter((r) => r.email.toLowerCase() === "mia@example.com")
          .map((r) => r.role)
          .sort(),
      ).toEqual(["member", "program_manager"]);
      expect(names(await list(api, a.accessToken))).toEqual(["Mia Member"]);
    });

    it("a team member's address gets no password-reset link (only program managers sign in)", async () => {
      const { api, a } = await twoCompanies();
      await addOk(api, a.accessToken, person("Mia", "Member", "mia@example.com"));
      const res = await call(api, "POST", "/api/Identity/ResetPasswordRequest", { email: "mia@example.com" });
      expect(res.status).toBe(200);
      expect(await emailsTo(db(), "mia@example.com")).toEqual([]);
    });
  });
});
