// GET /api/Audit and /api/Audit/export (ADR 0022 point 7): an Owner's view of the company's
// trail, newest first, filtered by who, kind and Australia/Sydney days, paged; the CSV holds the
// same rows with cells neutralised against spreadsheet formulas. A Manager gets 403; another
// company's entries never appear; bad filters are a 400 naming the filter.

import { parse } from "csv-parse/sync";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { csvCell } from "../../core/csv-file.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, logIn, signUpVerified } from "../identity/accounts.testkit.ts";
import { AUDIT_DETAILS, type AuditPage, sydneyTime } from "./schema.ts";
import { recordAudit, sydneyDayStart } from "./service.server.ts";

describe("sydneyDayStart", () => {
  it("is midnight in Sydney: AEDT (UTC+11) in summer, AEST (UTC+10) in winter, either side of the changes", () => {
    expect(sydneyDayStart("2025-03-02").toISOString()).toBe("2025-03-01T13:00:00.000Z");
    expect(sydneyDayStart("2025-07-01").toISOString()).toBe("2025-06-30T14:00:00.000Z");
    // Daylight saving ended at 3 am on 6 April 2025 and began at 2 am on 5 October 2025.
    expect(sydneyDayStart("2025-04-06").toISOString()).toBe("2025-04-05T13:00:00.000Z");
    expect(sydneyDayStart("2025-04-07").toISOString()).toBe("2025-04-06T14:00:00.000Z");
    expect(sydneyDayStart("2025-10-05").toISOString()).toBe("2025-10-04T14:00:00.000Z");
    expect(sydneyDayStart("2025-10-06").toISOString()).toBe("2025-10-05T13:00:00.000Z");
  });
});

describe("csvCell", () => {
  it("neutralises what a spreadsheet would run, and quotes as RFC 4180 says", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) expect(csvCell(`${start}1+1`)).toMatch(/^"?'/);
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a, b")).toBe('"a, b"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
  });
});

describeEachDatabase("the audit trail API", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  /** Owner A (with a team change, a draft change and a company change), A's Manager, Owner B. */
  async function world() {
    const { api, clock } = accountsApi(db(), { config });
    const ownerA = await signUpVerified(api, db(), { email: "owner.a@example.com", firstName: "Olive" });
    const ownerB = await signUpVerified(api, db(), { email: "owner.b@example.com", companyName: "Other Co" });
    // A's Manager: signed up alone, then moved into A as a Manager (as an accepted invitation leaves them).
    const m = await signUpVerified(api, db(), { email: "manager.a@example.com", firstName: "Max" });
    const [a] = await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, ownerA.userId));
    const companyA = a?.companyId as number;
    await db().update(users).set({ companyId: companyA, managerRole: "manager" }).where(eq(users.id, m.userId));
    const manager = {
      ...m,
      accessToken: ((await (await logIn(api, m.email)).json()) as { accessToken: string }).accessToken,
    };

    const asA = (method: string, path: string, body?: unknown, token = ownerA.accessToken) =>
      api.request(path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-rewards-client-ip": "203.0.113.7",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // 1 March 2025, 20:00 in Sydney: a member added by the Owner.
    expect(
      (await asA("POST", "/api/Users/create-user", { firstName: "Tia", lastName: "Team", email: "tia@example.com" }))
        .status,
    ).toBe(200);
    // 2 March 2025, 00:00 in Sydney: the Manager names their draft.
    clock.advance(4 * 60 * 60 * 1000);
    expect(
      (await asA("PUT", "/api/RewardMyTeam/update-reward-name", { name: "Thanks" }, manager.accessToken)).status,
    ).toBe(200);
    // B's own change, never in A's trail.
    await call(
      api,
      "POST",
      "/api/Users/create-user",
      { firstName: "Bo", lastName: "Bee", email: "bo@example.com" },
      ownerB.accessToken,
    );
    return { api, clock, ownerA: { ...ownerA, companyId: companyA }, ownerB, manager, asA };
  }

  const page = async (res: Response) => {
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as AuditPage;
  };

  it("lists the company's changes newest first, with who, when and from which address; another company's never", async () => {
    const w = await world();
    const all = await page(await call(w.api, "GET", "/api/Audit", undefined, w.ownerA.accessToken));
    const actions = all.items.map((i) => i.action);
    expect(actions.slice(0, 2)).toEqual(["draft.name_set", "member.added"]);
    expect(all.items[0]).toMatchObject({
      actor: { id: w.manager.userId, name: "Max Citizen", email: "manager.a@example.com" },
      kind: "drafts",
      clientIp: "203.0.113.7",
      at: "2025-03-01T13:00:00.000Z",
    });
    expect(all.items[0]?.details).toContain("to: Thanks");
    expect(all.items[1]).toMatchObject({ actor: { id: w.ownerA.userId }, kind: "team", clientIp: "203.0.113.7" });
    expect(all.actors.map((a) => a.id).sort()).toEqual([w.ownerA.userId, w.manager.userId].sort());
    expect(JSON.stringify(all)).not.toContain("bo@example.com");
    const b = await page(await call(w.api, "GET", "/api/Audit", undefined, w.ownerB.accessToken));
    expect(b.items.every((i) => i.actor?.id !== w.ownerA.userId && i.actor?.id !== w.manager.userId)).toBe(true);
  });

  it("filters by who, kind and Australia/Sydney days, and pages", async () => {
    const w = await world();
    const get = async (query: string) =>
      page(await call(w.api, "GET", `/api/Audit?${query}`, undefined, w.ownerA.accessToken));
    expect((await get(`actor=${w.manager.userId}`)).items.map((i) => i.action)).toEqual(["draft.name_set"]);
    expect((await get("kind=team")).items.map((i) => i.action)).toEqual(["member.added"]);
    expect((await get("kind=approvals")).items).toEqual([]);
    // 09:00 UTC on 1 March is 8 pm in Sydney that day; 13:00 UTC is midnight, 2 March.
    expect((await get("from=2025-03-01&to=2025-03-01")).items.map((i) => i.action)).toEqual(["member.added"]);
    expect((await get("from=2025-03-02")).items.map((i) => i.action)).toEqual(["draft.name_set"]);
    expect((await get("to=2025-02-28")).items).toEqual([]);
    const first = await get("pageSize=1");
    expect(first).toMatchObject({ pageNumber: 1, pageSize: 1, hasPreviousPage: false, hasNextPage: true });
    const second = await get("pageSize=1&pageNumber=2");
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id);
    expect(second.totalCount).toBe(first.totalCount);
  });

  it("refuses a bad filter with a 400 that names it", async () => {
    const w = await world();
    const problem = async (query: string) =>
      (await expectProblem(await call(w.api, "GET", `/api/Audit?${query}`, undefined, w.ownerA.accessToken), 400))
        .detail;
    expect(await problem("kind=everything")).toBe(AUDIT_DETAILS.kind);
    expect(await problem("from=2025-02-30")).toBe(AUDIT_DETAILS.from);
    expect(await problem("to=yesterday")).toBe(AUDIT_DETAILS.to);
    expect(await problem("from=2025-03-02&to=2025-03-01")).toBe(AUDIT_DETAILS.range);
    expect(await problem("actor=abc")).toBe(AUDIT_DETAILS.actor);
    expect(await problem("pageSize=1000")).toBe(AUDIT_DETAILS.pageSize);
  });

  it("answers a Manager 403 (before reading the filters) and no token 401", async () => {
    const w = await world();
    for (const path of ["/api/Audit", "/api/Audit?kind=nonsense", "/api/Audit/export"]) {
      expect((await expectProblem(await call(w.api, "GET", path, undefined, w.manager.accessToken), 403)).detail).toBe(
        DETAILS.ownerOnly,
      );
      expect((await call(w.api, "GET", path)).status).toBe(401);
    }
  });

  it("exports the same rows as CSV, formulas neutralised", async () => {
    const w = await world();
    await recordAudit(db(), {
      companyId: w.ownerA.companyId,
      actorUserId: w.ownerA.userId,
      action: "member.updated",
      subject: '=HYPERLINK("http://evil.example","click")',
      data: { note: "@SUM(1+1)" },
      clientIp: "+61",
      at: w.clock.now(),
    });
    const listed = await page(
      await call(w.api, "GET", "/api/Audit?kind=team&pageSize=100", undefined, w.ownerA.accessToken),
    );
    const res = await call(w.api, "GET", "/api/Audit/export?kind=team", undefined, w.ownerA.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toContain("attachment");
    const bytes = new Uint8Array(await res.arrayBuffer());
    // A UTF-8 byte-order mark first, so Excel reads names as UTF-8.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    const rows = parse(text, { bom: true }) as string[][];
    expect(rows[0]).toEqual(["Time (Australia/Sydney)", "Who", "Email", "Action", "Subject", "Details", "Address"]);
    // The same rows as the page, in the same order, each as a spreadsheet would show it.
    expect(rows.slice(1).map((r) => [r[0], r[3], r[4]])).toEqual(
      listed.items.map((i) => [sydneyTime(i.at), i.action, i.subject.replace(/^=/, "'=")]),
    );
    expect(rows[1]?.[4]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(rows[1]?.[5]).toBe("note: @SUM(1+1)");
    expect(rows[1]?.[6]).toBe("'+61");
    // No cell a spreadsheet would take for a formula.
    expect(rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
  });
});
