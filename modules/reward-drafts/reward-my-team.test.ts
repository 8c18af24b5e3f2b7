// The RewardMyTeam calls of docs/requirements.md §S7: the caller's reward draft, its validation
// messages, §S5 amount conversions, §D5 summary figures, tenant isolation, the
// recipient limit (MAX_DRAFT_RECIPIENTS) and the version bump on every change.
import { and, eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { rewardDraftLines, rewardDrafts, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, signUpVerified } from "../identity/accounts.testkit.ts";
import {
  type BulkRewardUploadResponse,
  type CreateRewardUserResponse,
  duplicateRowMessage,
  MAX_DRAFT_RECIPIENTS,
  REWARD_DETAILS,
  type RewardDraftTotals,
  type RewardRecipient,
  type RewardRecipientPage,
  type RewardSummary,
} from "./schema.ts";
import {
  clearDraft,
  clearDraftIfUnchanged,
  dropMemberFromDrafts,
  loadDraftForOrder,
  notInRewardDraft,
} from "./service.server.ts";

const BASE = "/api/RewardMyTeam";

describeEachDatabase("RewardMyTeam (the reward draft)", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  type Api = ReturnType<typeof accountsApi>["api"];

  /** A signed-up program manager with a fresh company; `go` calls the API with their token. */
  async function manager(api: Api, companyName = "Acme") {
    const account = await signUpVerified(api, db(), { companyName });
    const [row] = await db().select({ companyId: users.companyId }).from(users).where(eq(users.id, account.userId));
    const companyId = row?.companyId as number;
    const go = async (method: string, path: string, body?: unknown) =>
      call(api, method, `${BASE}/${path}`, body, account.accessToken);
    const json = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
      const res = await go(method, path, body);
      const text = await res.text();
      expect(res.status, text).toBe(status);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    return { ...account, companyId, go, json };
  }

  let counter = 0;
  async function member(companyId: number, overrides: Partial<typeof users.$inferInsert> = {}): Promise<number> {
    counter++;
    const [row] = await db()
      .insert(users)
      .values({
        companyId,
        firstName: `First${counter}`,
        lastName: `Last${counter}`,
        email: `member${counter}@example.com`,
        role: "member",
        ...overrides,
      })
      .returning({ id: users.id });
    return row?.id as number;
  }

  async function draftOf(userId: number) {
    const [row] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, userId));
    return row;
  }

  async function lineCount(database: Db = db()) {
    const [row] = await database.select({ n: sql<number>`count(*)::int` }).from(rewardDraftLines);
    return row?.n ?? 0;
  }

  it("answers 401 without a token on every call", async () => {
    const { api } = accountsApi(db(), { config });
    const calls: Array<[string, string, unknown?]> = [
      ["POST", "create-reward-search", { userId: 1 }],
      ["PUT", "update-reward", { userId: 1, value: 1 }],
      ["PUT", "update-all-reward", { value: 1 }],
      ["PUT", "update-reward-name", { name: "x" }],
      ["PUT", "update-reward-message", { message: "x" }],
      ["DELETE", "delete-reward", { userId: 1 }],
      ["DELETE", "delete-all-reward"],
      ["GET", "get-reward"],
      ["GET", "get-reward-page"],
      ["GET", "get-reward-summary"],
      ["GET", "email-sample"],
      ["POST", "create-reward-user", { firstName: "A", lastName: "B", email: "a@example.com" }],
      ["POST", "bulk-upload-reward", { rewards: [] }],
    ];
    for (const [method, path, body] of calls) {
      await expectProblem(await call(api, method, `${BASE}/${path}`, body), 401);
      await expectProblem(await call(api, method, `${BASE}/${path}`, body, "q".repeat(43)), 401);
    }
  });

  it("an empty draft: no recipients, a zero summary, no draft row created by reading", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    expect(await pm.json("GET", "get-reward")).toEqual([]);
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toEqual({
      rewards: [],
      totalRewards: 0,
      serviceFee: 0,
      gst: 0,
      total: 0,
      rewardName: "",
      message: "",
      senderName: expect.any(String),
      sendAt: null,
      recipientCount: 0,
      version: 0,
    });
    expect(await pm.json<RewardRecipientPage>("GET", "get-reward-page")).toEqual({
      items: [],
      totalPages: 0,
      hasPreviousPage: false,
      hasNextPage: false,
      pageNumber: 1,
      totalCount: 0,
      totalRewards: 0,
    });
    expect(await draftOf(pm.userId)).toBeUndefined();
  });

  it("create-reward-search adds a team member with amount 0, answers the list, and is idempotent", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const id = await member(pm.companyId, { firstName: "Ann", lastName: "Lee", email: "ann@example.com" });
    const list = await pm.json<RewardRecipient[]>("POST", "create-reward-search", { userId: id });
    expect(list).toEqual([{ userId: id, fullName: "Ann Lee", email: "ann@example.com", reward: 0 }]);
    const version = (await draftOf(pm.userId))?.version;
    expect(version).toBe(1);
    // Again: no duplicate line, no version bump.
    expect(await pm.json("POST", "create-reward-search", { userId: id })).toEqual(list);
    expect(await lineCount()).toBe(1);
    expect((await draftOf(pm.userId))?.version).toBe(1);
  });

  it("create-reward-search refuses another company's member, a removed member, the manager; 404 and nothing changes", async () => {
    const { api } = accountsApi(db(), { config });
    const a = await manager(api, "Alpha");
    const b = await manager(api, "Beta");
    const theirs = await member(b.companyId);
    const removed = await member(a.companyId, { isActive: false });
    for (const userId of [theirs, removed, a.userId, b.userId, 999_999]) {
      const problem = await expectProblem(await a.go("POST", "create-reward-search", { userId }), 404);
      expect(problem.detail).toBe("Team member not found.");
    }
    expect(await lineCount()).toBe(0);
  });

  it("malformed bodies answer 400 with a detail", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "create-reward-search", {}, REWARD_DETAILS.userIdRequired],
      ["POST", "create-reward-search", { userId: "7" }, REWARD_DETAILS.userIdRequired],
      ["POST", "create-reward-search", { userId: 1.5 }, REWARD_DETAILS.userIdRequired],
      ["POST", "create-reward-search", "{not json", "The request body is not valid JSON."],
      ["POST", "create-reward-search", "[1]", "The request body must be a JSON object."],
      ["PUT", "update-reward", { value: 5 }, REWARD_DETAILS.userIdRequired],
      ["PUT", "update-reward", { userId: 1, value: { n: 1 } }, REWARD_DETAILS.amountType],
      ["PUT", "update-all-reward", { value: true }, REWARD_DETAILS.amountType],
      ["PUT", "update-reward-name", { name: 5 }, REWARD_DETAILS.nameRequired],
      ["DELETE", "delete-reward", {}, REWARD_DETAILS.userIdRequired],
      ["POST", "bulk-upload-reward", {}, REWARD_DETAILS.rewardsRequired],
      ["POST", "bulk-upload-reward", { rewards: [] }, REWARD_DETAILS.rewardsEmpty],
      ["POST", "bulk-upload-reward", { rewards: "x" }, REWARD_DETAILS.rewardsRequired],
      ["POST", "create-reward-user", "null", "The request body must be a JSON object."],
    ];
    for (const [method, path, body, detail] of cases) {
      const problem = await expectProblem(await pm.go(method, path, body), 400);
      expect(problem.detail, `${method} ${path} ${JSON.stringify(body)}`).toBe(detail);
    }
    expect(await lineCount()).toBe(0);
  });

  it("update-reward applies docs/requirements.md §S5 conversions; a fraction or over 10,000 is refused with a clear detail", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const id = await member(pm.companyId);
    await pm.json("POST", "create-reward-search", { userId: id });
    const set = (value: unknown) => pm.json<RewardRecipient>("PUT", "update-reward", { userId: id, value });
    expect((await set(100)).reward).toBe(100);
    expect((await set("250")).reward).toBe(250);
    expect((await set(" 1,000 ")).reward).toBe(1000);
    expect((await set("")).reward).toBe(0);
    expect((await set(40)).reward).toBe(40);
    expect((await set("abc")).reward).toBe(0);
    expect((await set(40)).reward).toBe(40);
    expect((await set("-5")).reward).toBe(0);
    expect((await set(-5)).reward).toBe(0);
    expect((await set(null)).reward).toBe(0);
    expect((await set(10_000)).reward).toBe(10_000);
    for (const [value, detail] of [
      ["10.5", "Amount must be a whole number of Reward Dollars (no cents)."],
      [0.01, "Amount must be a whole number of Reward Dollars (no cents)."],
      [10_001, "Amount must be at most 10,000 Reward Dollars."],
      ["20000", "Amount must be at most 10,000 Reward Dollars."],
    ] as const) {
      const problem = await expectProblem(await pm.go("PUT", "update-reward", { userId: id, value }), 400);
      expect(problem.detail).toBe(detail);
      expect(problem.errors?.value).toEqual([detail]);
    }
    expect((await pm.json<RewardRecipient[]>("GET", "get-reward"))[0]?.reward).toBe(10_000);
  });

  it("update-reward and delete-reward answer 404 for someone not in the caller's draft", async () => {
    const { api } = accountsApi(db(), { config });
    const a = await manager(api, "Alpha");
    const b = await manager(api, "Beta");
    const mine = await member(a.companyId);
    const theirs = await member(b.companyId);
    await b.json("POST", "create-reward-search", { userId: theirs });
    await b.json("PUT", "update-reward", { userId: theirs, value: 7 });
    for (const userId of [mine, theirs]) {
      const update = await expectProblem(await a.go("PUT", "update-reward", { userId, value: 5 }), 404);
      expect(update.detail).toBe("This team member is not in your reward.");
      const remove = await expectProblem(await a.go("DELETE", "delete-reward", { userId }), 404);
      expect(remove.detail).toBe("This team member is not in your reward.");
    }
    expect(await b.json<RewardRecipient[]>("GET", "get-reward")).toEqual([
      expect.objectContaining({ userId: theirs, reward: 7 }),
    ]);
    expect(await a.json("GET", "get-reward")).toEqual([]);
  });

  it("get-reward lists newest first; get-reward-page pages it 7 at a time with the footer figures", async () => {
    const { api, clock } = accountsApi(db(), { config });
    const pm = await manager(api);
    const ids: number[] = [];
    for (let i = 0; i < 9; i++) {
      const id = await member(pm.companyId);
      ids.push(id);
      await pm.json("POST", "create-reward-search", { userId: id });
      await pm.json("PUT", "update-reward", { userId: id, value: i + 1 });
      // Half of them at the same instant: ties fall back to the insertion order.
      if (i % 2 === 0) clock.advance(1000);
    }
    const list = await pm.json<RewardRecipient[]>("GET", "get-reward");
    expect(list.map((r) => r.userId)).toEqual([...ids].reverse());
    const page1 = await pm.json<RewardRecipientPage>("GET", "get-reward-page?pageNumber=1&pageSize=7");
    expect(page1.items.map((r) => r.userId)).toEqual([...ids].reverse().slice(0, 7));
    expect(page1).toMatchObject({ totalPages: 2, hasPreviousPage: false, hasNextPage: true, totalCount: 9 });
    expect(page1.totalRewards).toBe(45);
    const page2 = await pm.json<RewardRecipientPage>("GET", "get-reward-page?pageNumber=2");
    expect(page2.items.map((r) => r.userId)).toEqual([ids[1], ids[0]]);
    expect(page2).toMatchObject({ pageNumber: 2, hasPreviousPage: true, hasNextPage: false });
    const past = await pm.json<RewardRecipientPage>("GET", "get-reward-page?pageNumber=9&pageSize=abc");
    expect(past.items).toEqual([]);
    expect(past.totalPages).toBe(2);
  });

  it("email-sample: the recipient email with sample values and the caller's company, HTML and text", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api, "Sample Co");
    const sample = await pm.json<{ subject: string; html: string; text: string }>("GET", "email-sample");
    expect(sample.subject).toBeTruthy();
    for (const part of [sample.html, sample.text]) {
      expect(part).toContain("Sample Co");
      expect(part).toContain("Employee of the Month");
      expect(part).toContain(config.CATALOGUE_URL);
    }
  });

  it("update-reward-message: kept with its line breaks, the sender defaulting to the manager; shown escaped in the sample", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api, "Sample Co");
    const [me] = await db()
      .select({ firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(eq(users.id, pm.userId));
    const myName = `${me?.firstName} ${me?.lastName}`;
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({
      message: "",
      senderName: myName,
    });

    const message = "Thank you, team!\r\nYou made <Q4> happen & more.\n\n  Onwards.  ";
    expect(await pm.json("PUT", "update-reward-message", { message })).toEqual({
      message: "Thank you, team!\nYou made <Q4> happen & more.\n\n  Onwards.",
      senderName: myName,
    });
    expect(await pm.json("PUT", "update-reward-message", { message, senderName: "  The Board " })).toEqual({
      message: "Thank you, team!\nYou made <Q4> happen & more.\n\n  Onwards.",
      senderName: "The Board",
    });
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({ senderName: "The Board" });

    const sample = await pm.json<{ html: string; text: string }>("GET", "email-sample");
    expect(sample.text).toContain(
      "A message from The Board:\n> Thank you, team!\n> You made <Q4> happen & more.\n>\n>   Onwards.",
    );
    expect(sample.html).toContain("Thank you, team!<br>You made &lt;Q4&gt; happen &amp; more.<br><br>  Onwards.");
    expect(sample.html).not.toContain("<Q4>");
    expect(sample.html).toContain("The Board");

    // Refused, with the reason, and nothing changes.
    for (const [body, detail] of [
      [{ message: "x".repeat(501) }, REWARD_DETAILS.messageTooLong],
      [{ message: "bell \u0007" }, REWARD_DETAILS.messageControl],
      [{ message: "ok", senderName: "x".repeat(65) }, REWARD_DETAILS.senderNameTooLong],
      [{ message: "ok", senderName: "Two\nlines" }, REWARD_DETAILS.senderNameControl],
    ] as const) {
      expect((await expectProblem(await pm.go("PUT", "update-reward-message", body), 400)).detail).toBe(detail);
    }
    // 500 characters is the limit, line ends counted once.
    const longest = `${"y".repeat(498)}\r\nz`;
    expect(
      (await pm.json<{ message: string }>("PUT", "update-reward-message", { message: longest })).message,
    ).toHaveLength(500);
    expect(await pm.json("PUT", "update-reward-message", {})).toEqual({ message: "", senderName: myName });
  });

  it("get-reward-summary: $100 → fee 10.00, GST 1.00, total 111.00; several recipients add up", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const ann = await member(pm.companyId, { firstName: "Ann", lastName: "Lee" });
    await pm.json("POST", "create-reward-search", { userId: ann });
    await pm.json("PUT", "update-reward", { userId: ann, value: 100 });
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({
      rewards: [{ userId: ann, fullName: "Ann Lee", reward: 100 }],
      totalRewards: 100,
      serviceFee: 10,
      gst: 1,
      total: 111,
      recipientCount: 1,
    });
    const bob = await member(pm.companyId, { firstName: "Bob", lastName: "Ray" });
    await pm.json("POST", "create-reward-search", { userId: bob });
    await pm.json("PUT", "update-reward", { userId: bob, value: "37" });
    const summary = await pm.json<RewardSummary>("GET", "get-reward-summary");
    expect(summary.rewards).toEqual([
      { userId: bob, fullName: "Bob Ray", reward: 37 },
      { userId: ann, fullName: "Ann Lee", reward: 100 },
    ]);
    expect(summary).toMatchObject({ totalRewards: 137, serviceFee: 13.7, gst: 1.37, total: 152.07 });
  });

  it("update-all-reward sets every line and answers the totals; update-reward-name trims and checks", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    for (let i = 0; i < 3; i++) await pm.json("POST", "create-reward-search", { userId: await member(pm.companyId) });
    expect(await pm.json<RewardDraftTotals>("PUT", "update-all-reward", { value: "50" })).toEqual({
      recipientCount: 3,
      totalRewards: 150,
    });
    expect((await pm.json<RewardRecipient[]>("GET", "get-reward")).map((r) => r.reward)).toEqual([50, 50, 50]);
    expect(await pm.json("PUT", "update-all-reward", { value: "nope" })).toEqual({
      recipientCount: 3,
      totalRewards: 0,
    });
    expect((await expectProblem(await pm.go("PUT", "update-all-reward", { value: "12.5" }), 400)).detail).toBe(
      REWARD_DETAILS.amountFraction,
    );

    expect(await pm.json("PUT", "update-reward-name", { name: "  Christmas 2026  " })).toEqual({
      rewardName: "Christmas 2026",
    });
    expect((await pm.json<RewardSummary>("GET", "get-reward-summary")).rewardName).toBe("Christmas 2026");
    for (const [name, detail] of [
      ["", "Reward Name is required."],
      ["   ", "Reward Name is required."],
      ["x".repeat(101), "Reward Name must be at most 100 characters."],
    ]) {
      expect((await expectProblem(await pm.go("PUT", "update-reward-name", { name }), 400)).detail).toBe(detail);
    }
    expect((await pm.json<RewardSummary>("GET", "get-reward-summary")).rewardName).toBe("Christmas 2026");
  });

  it("delete-reward removes one line; delete-all-reward empties the draft (the name stays)", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const ids = [await member(pm.companyId), await member(pm.companyId), await member(pm.companyId)];
    for (const userId of ids) await pm.json("POST", "create-reward-search", { userId });
    await pm.json("PUT", "update-reward-name", { name: "Thanks" });
    expect((await pm.go("DELETE", "delete-reward", { userId: ids[1] })).status).toBe(204);
    expect((await pm.json<RewardRecipient[]>("GET", "get-reward")).map((r) => r.userId)).toEqual([ids[2], ids[0]]);
    await expectProblem(await pm.go("DELETE", "delete-reward", { userId: ids[1] }), 404);
    expect((await pm.go("DELETE", "delete-all-reward")).status).toBe(204);
    expect(await pm.json("GET", "get-reward")).toEqual([]);
    expect((await pm.json<RewardSummary>("GET", "get-reward-summary")).rewardName).toBe("Thanks");
    // Emptying an empty draft is fine too.
    expect((await pm.go("DELETE", "delete-all-reward")).status).toBe(204);
    // The members are still on the team.
    const active = await db()
      .select()
      .from(users)
      .where(and(eq(users.companyId, pm.companyId), eq(users.role, "member")));
    expect(active.every((u) => u.isActive)).toBe(true);
  });

  it("every change bumps the draft's version; a call that changes nothing does not", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const id = await member(pm.companyId);
    const version = async () => (await draftOf(pm.userId))?.version ?? 0;
    const { senderName: managerName } = await pm.json<RewardSummary>("GET", "get-reward-summary");
    const steps: Array<[string, string, unknown, boolean]> = [
      ["POST", "create-reward-search", { userId: id }, true],
      ["POST", "create-reward-search", { userId: id }, false],
      ["PUT", "update-reward", { userId: id, value: 5 }, true],
      ["PUT", "update-reward", { userId: id, value: "5" }, false],
      ["PUT", "update-all-reward", { value: 6 }, true],
      ["PUT", "update-all-reward", { value: 6 }, false],
      ["PUT", "update-reward-name", { name: "A" }, true],
      ["PUT", "update-reward-name", { name: " A " }, false],
      ["PUT", "update-reward-message", { message: "Well done", senderName: "Jo" }, true],
      ["PUT", "update-reward-message", { message: " Well done\r\n", senderName: "Jo " }, false],
      ["PUT", "update-reward-message", { message: "Well done", senderName: "" }, true],
      // The manager's own name as the page shows it is the default it already is.
      ["PUT", "update-reward-message", { message: "Well done", senderName: managerName }, false],
      ["POST", "create-reward-user", { firstName: "N", lastName: "M", email: "nm@example.com", value: 3 }, true],
      ["POST", "bulk-upload-reward", { rewards: [{ firstName: "N", lastName: "M", email: "nm@example.com" }] }, true],
      ["DELETE", "delete-reward", { userId: id }, true],
      ["DELETE", "delete-all-reward", undefined, true],
      ["DELETE", "delete-all-reward", undefined, false],
    ];
    for (const [method, path, body, changes] of steps) {
      const before = await version();
      const res = await pm.go(method, path, body);
      expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
      expect(await version(), `${method} ${path} ${JSON.stringify(body)}`).toBe(changes ? before + 1 : before);
    }
    // A refused change changes nothing either.
    const before = await version();
    await expectProblem(await pm.go("PUT", "update-all-reward", { value: 10_001 }), 400);
    expect(await version()).toBe(before);
  });

  it("create-reward-user (single): creates the team member when the email is new, adds them with their value", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const answer = await pm.json<CreateRewardUserResponse>("POST", "create-reward-user", {
      firstName: " Ann ",
      lastName: "Lee",
      email: "Ann.Lee@Example.com",
      value: "75",
    });
    const [created] = await db()
      .select()
      .from(users)
      .where(and(eq(users.companyId, pm.companyId), eq(users.role, "member")));
    expect(created).toMatchObject({ firstName: "Ann", lastName: "Lee", email: "Ann.Lee@Example.com", isActive: true });
    expect(created?.passwordHash).toBeNull();
    expect(answer).toEqual({
      userId: created?.id,
      fullName: "Ann Lee",
      email: "Ann.Lee@Example.com",
      reward: 75,
      firstName: "Ann",
      lastName: "Lee",
      isNewTeamMember: true,
    });
    // The same address in another case: the existing member is reused (names kept), the value replaced.
    const again = await pm.json<CreateRewardUserResponse>("POST", "create-reward-user", {
      firstName: "Annie",
      lastName: "L",
      email: "ann.lee@example.com",
    });
    expect(again).toMatchObject({ userId: created?.id, firstName: "Ann", reward: 0, isNewTeamMember: false });
    expect(await pm.json("GET", "get-reward")).toEqual([
      { userId: created?.id, fullName: "Ann Lee", email: "Ann.Lee@Example.com", reward: 0 },
    ]);
    // An existing member not yet in the draft.
    const bob = await member(pm.companyId, { firstName: "Bob", lastName: "Ray", email: "bob@example.com" });
    expect(
      await pm.json("POST", "create-reward-user", {
        firstName: "B",
        lastName: "R",
        email: "BOB@example.com",
        value: 9,
      }),
    ).toMatchObject({ userId: bob, firstName: "Bob", lastName: "Ray", reward: 9, isNewTeamMember: false });
  });

  it("create-reward-user: the team member messages, amount messages, and the manager's own address", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const cases: Array<[unknown, string]> = [
      [{ lastName: "L", email: "a@example.com" }, "First Name is required."],
      [{ firstName: "  ", lastName: "L", email: "a@example.com" }, "First Name is required."],
      [{ firstName: "F", email: "a@example.com" }, "Last Name is required."],
      [{ firstName: "F", lastName: "L" }, "Email is required."],
      [{ firstName: "F", lastName: "L", email: "not-an-email" }, "The email format is incorrect."],
      [{ firstName: "F", lastName: "L", email: "a@example.com", value: "2.5" }, REWARD_DETAILS.amountFraction],
      [{ firstName: "F", lastName: "L", email: "a@example.com", value: 10_001 }, REWARD_DETAILS.amountTooLarge],
    ];
    for (const [body, detail] of cases) {
      expect((await expectProblem(await pm.go("POST", "create-reward-user", body), 400)).detail).toBe(detail);
    }
    const own = await expectProblem(
      await pm.go("POST", "create-reward-user", { firstName: "F", lastName: "L", email: pm.email.toUpperCase() }),
      400,
    );
    expect(own.detail).toBe(`Row 1: ${REWARD_DETAILS.managerEmail}`);
    expect(await lineCount()).toBe(0);
    expect(await db().select().from(users).where(eq(users.role, "member"))).toEqual([]);
  });

  it("create-reward-user with { rewards } and bulk-upload-reward: counts, new and existing members, row messages", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const bob = await member(pm.companyId, { firstName: "Bob", lastName: "Ray", email: "bob@example.com" });
    await pm.json("POST", "create-reward-search", { userId: bob });
    const result = await pm.json<BulkRewardUploadResponse>("POST", "create-reward-user", {
      rewards: [
        { firstName: "Ann", lastName: "Lee", email: "ann@example.com", value: 10 },
        { firstName: "Bobby", lastName: "R", email: "BOB@example.com", value: "20" },
        { firstName: "Cat", lastName: "Fox", email: "cat@example.com" },
      ],
    });
    expect(result).toEqual({
      successfullyAdded: 3,
      newRecipients: 2,
      updatedRecipients: 1,
      newTeamMembers: 2,
      recipientCount: 3,
    });
    const list = await pm.json<RewardRecipient[]>("GET", "get-reward");
    // The file reads top to bottom above older lines; Bob keeps his place and name.
    expect(list.map((r) => [r.fullName, r.reward])).toEqual([
      ["Ann Lee", 10],
      ["Cat Fox", 0],
      ["Bob Ray", 20],
    ]);

    const bad = await expectProblem(
      await pm.go("POST", "bulk-upload-reward", {
        rewards: [
          { firstName: "Dan", lastName: "Oak", email: "dan@example.com", value: 1 },
          { firstName: "", lastName: "Oak", email: "eve@example.com", value: 1 },
          { firstName: "Fay", lastName: "Elm", email: "fay@example.com", value: "3.5" },
          { firstName: "Dan", lastName: "Oak", email: "DAN@example.com", value: 2 },
        ],
      }),
      400,
    );
    expect(bad.detail).toBe("Row 2: First Name is required.");
    expect(Object.values(bad.errors ?? {}).flat()).toEqual([
      "Row 2: First Name is required.",
      `Row 3: ${REWARD_DETAILS.amountFraction}`,
      duplicateRowMessage(4, 1),
    ]);
    // All or nothing: no member was created, the draft is unchanged.
    const dan = await db().select().from(users).where(eq(users.email, "dan@example.com"));
    expect(dan).toEqual([]);
    expect(await pm.json("GET", "get-reward")).toEqual(list);
  });

  it("bulk-upload-reward with the manager's address in row 3 refuses the whole upload", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const problem = await expectProblem(
      await pm.go("POST", "bulk-upload-reward", {
        rewards: [
          { firstName: "A", lastName: "A", email: "a@example.com" },
          { firstName: "B", lastName: "B", email: "b@example.com" },
          { firstName: "C", lastName: "C", email: pm.email },
        ],
      }),
      400,
    );
    expect(problem.detail).toBe(`Row 3: ${REWARD_DETAILS.managerEmail}`);
    expect(await db().select().from(users).where(eq(users.role, "member"))).toEqual([]);
  });

  it("tenant isolation: each manager sees and changes only their own draft; the same email in two companies is two members", async () => {
    const { api } = accountsApi(db(), { config });
    const a = await manager(api, "Alpha");
    const b = await manager(api, "Beta");
    const row = { firstName: "Sam", lastName: "Same", email: "sam@example.com", value: 5 };
    const inA = await a.json<CreateRewardUserResponse>("POST", "create-reward-user", row);
    const inB = await b.json<CreateRewardUserResponse>("POST", "create-reward-user", { ...row, value: 8 });
    expect(inA.userId).not.toBe(inB.userId);
    expect(inA.isNewTeamMember && inB.isNewTeamMember).toBe(true);
    await a.json("PUT", "update-reward-name", { name: "Alpha reward" });
    await expectProblem(await a.go("PUT", "update-reward", { userId: inB.userId, value: 1 }), 404);
    await expectProblem(await a.go("DELETE", "delete-reward", { userId: inB.userId }), 404);
    await expectProblem(await a.go("POST", "create-reward-search", { userId: inB.userId }), 404);
    await a.json("PUT", "update-all-reward", { value: 99 });
    await a.go("DELETE", "delete-all-reward");
    expect(await b.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({
      rewards: [{ userId: inB.userId, fullName: "Sam Same", reward: 8 }],
      rewardName: "",
      recipientCount: 1,
    });
  });

  it("a draft holds at most 50,000 recipients; a 50,000-row upload is one transaction", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const rewards = Array.from({ length: MAX_DRAFT_RECIPIENTS }, (_, i) => ({
      firstName: `F${i}`,
      lastName: `L${i}`,
      email: `bulk${i}@example.com`,
      value: i % 10_001,
    }));
    const started = performance.now();
    const result = await pm.json<BulkRewardUploadResponse>("POST", "bulk-upload-reward", { rewards });
    const ms = performance.now() - started;
    console.info(`bulk-upload-reward of 50,000 new members: ${ms.toFixed(0)} ms`);
    expect(result).toEqual({
      successfullyAdded: 50_000,
      newRecipients: 50_000,
      updatedRecipients: 0,
      newTeamMembers: 50_000,
      recipientCount: 50_000,
    });
    expect(ms).toBeLessThan(60_000);
    // The same file again only updates the 50,000 lines.
    const again = await pm.json<BulkRewardUploadResponse>("POST", "bulk-upload-reward", {
      rewards: rewards.map((r) => ({ ...r, value: 1 })),
    });
    expect(again).toMatchObject({
      newRecipients: 0,
      updatedRecipients: 50_000,
      newTeamMembers: 0,
      recipientCount: 50_000,
    });

    const summaryStarted = performance.now();
    const summary = await pm.json<RewardSummary>("GET", "get-reward-summary");
    console.info(`get-reward-summary of 50,000 recipients: ${(performance.now() - summaryStarted).toFixed(0)} ms`);
    expect(summary).toMatchObject({
      totalRewards: 50_000,
      serviceFee: 5000,
      gst: 500,
      total: 55_500,
      recipientCount: 50_000,
    });
    expect(summary.rewards[0]?.fullName).toBe("F0 L0");

    const extra = await member(pm.companyId);
    const full = await expectProblem(await pm.go("POST", "create-reward-search", { userId: extra }), 400);
    expect(full.detail).toBe("A reward can have at most 50,000 recipients.");
    const over = await expectProblem(
      await pm.go("POST", "create-reward-user", { firstName: "X", lastName: "Y", email: "xy@example.com" }),
      400,
    );
    expect(over.detail).toBe(REWARD_DETAILS.tooManyRecipients);
    // Refused: no new member was left behind.
    expect(await db().select().from(users).where(eq(users.email, "xy@example.com"))).toEqual([]);
    // Removing one makes room again.
    await pm.json("DELETE", "delete-reward", { userId: summary.rewards[0]?.userId }, 204);
    await pm.json("POST", "create-reward-search", { userId: extra });
    expect(await lineCount()).toBe(50_000);
  }, 180_000);

  it("concurrent changes of one draft: each is applied once, the version counts them, the limit holds", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const ids = await Promise.all(Array.from({ length: 12 }, () => member(pm.companyId)));
    // The first calls race to create the draft row too.
    const added = await Promise.all(ids.map((userId) => pm.go("POST", "create-reward-search", { userId })));
    expect(added.map((r) => r.status)).toEqual(ids.map(() => 200));
    const updated = await Promise.all(ids.map((userId, i) => pm.go("PUT", "update-reward", { userId, value: i + 1 })));
    expect(updated.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect((await draftOf(pm.userId))?.version).toBe(24);
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({
      recipientCount: 12,
      totalRewards: 78,
    });

    // Fill the draft to 2,510 below its limit (straight into the tables: the calls are tested
    // above), then two uploads of 2,500 new members each at once: only one fits.
    const draft = await draftOf(pm.userId);
    const filler = MAX_DRAFT_RECIPIENTS - 12 - 2510;
    await db().execute(sql`
      with added as (
        insert into ${users} (company_id, first_name, last_name, email, role)
        select ${pm.companyId}, 'Fill', 'Er', 'filler' || n || '@example.com', 'member'
        from generate_series(1, ${filler}) as n
        returning id
      )
      insert into ${rewardDraftLines} (draft_id, company_id, user_id, amount_dollars)
      select ${draft?.id}, ${pm.companyId}, id, 1 from added`);
    const upload = (prefix: string) =>
      pm.go("POST", "bulk-upload-reward", {
        rewards: Array.from({ length: 2500 }, (_, i) => ({
          firstName: "F",
          lastName: "L",
          email: `${prefix}${i}@example.com`,
          value: 1,
        })),
      });
    const statuses = (await Promise.all([upload("x"), upload("y")])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    expect(await lineCount()).toBe(MAX_DRAFT_RECIPIENTS - 10);
    const [members] = await db().select({ n: sql<number>`count(*)::int` }).from(users).where(eq(users.role, "member"));
    // The refused upload left no member behind.
    expect(members?.n).toBe(12 + filler + 2500);
  });

  it("domain: loadDraftForOrder, clearDraft, dropMemberFromDrafts and notInRewardDraft", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const other = await manager(api, "Other");
    const owner = { userId: pm.userId, companyId: pm.companyId };
    expect(await db().transaction((tx) => loadDraftForOrder(tx, owner))).toBeNull();
    const ann = await member(pm.companyId, { firstName: "Ann", lastName: "Lee", email: "ann@example.com" });
    const bob = await member(pm.companyId, { firstName: "Bob", lastName: "Ray", email: "bob@example.com" });
    const cat = await member(pm.companyId, { firstName: "Cat", lastName: "Fox", email: "cat@example.com" });
    for (const userId of [ann, bob]) await pm.json("POST", "create-reward-search", { userId });
    await pm.json("PUT", "update-reward", { userId: ann, value: 100 });
    await pm.json("PUT", "update-reward-name", { name: "Thanks" });

    const draft = await db().transaction((tx) => loadDraftForOrder(tx, owner));
    expect(draft).toEqual({
      draftId: expect.any(Number),
      version: 4,
      name: "Thanks",
      message: "",
      senderName: expect.stringMatching(/\S/),
      sendAt: null,
      lines: [
        { userId: bob, firstName: "Bob", lastName: "Ray", email: "bob@example.com", amountDollars: 0 },
        { userId: ann, firstName: "Ann", lastName: "Lee", email: "ann@example.com", amountDollars: 100 },
      ],
    });
    // Another company's manager cannot load it.
    expect(
      await db().transaction((tx) => loadDraftForOrder(tx, { userId: pm.userId, companyId: other.companyId })),
    ).toBeNull();

    // The user search's filter: members not in the caller's draft.
    const offered = await db()
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, pm.companyId), eq(users.role, "member"), notInRewardDraft(owner)));
    expect(offered.map((r) => r.id)).toEqual([cat]);

    // Removing Bob from the team takes him off the draft (and bumps the version).
    const dropped = await db().transaction(async (tx) => {
      await tx.update(users).set({ isActive: false }).where(eq(users.id, bob));
      return dropMemberFromDrafts(tx, pm.companyId, bob);
    });
    expect(dropped).toBe(1);
    expect(await db().transaction((tx) => dropMemberFromDrafts(tx, other.companyId, ann))).toBe(0);
    const after = await db().transaction((tx) => loadDraftForOrder(tx, owner));
    expect(after?.version).toBe(5);
    expect(after?.lines.map((l) => l.userId)).toEqual([ann]);

    // clearDraftIfUnchanged refuses an older version and changes nothing.
    const draftId = draft?.draftId as number;
    expect(await db().transaction((tx) => clearDraftIfUnchanged(tx, draftId, 4, new Date()))).toBe(false);
    expect((await pm.json<RewardSummary>("GET", "get-reward-summary")).recipientCount).toBe(1);
    expect(await db().transaction((tx) => clearDraftIfUnchanged(tx, draftId, 5, new Date()))).toBe(true);
    expect(await pm.json<RewardSummary>("GET", "get-reward-summary")).toMatchObject({
      rewards: [],
      rewardName: "",
      recipientCount: 0,
      version: 6,
    });

    await pm.json("POST", "create-reward-search", { userId: cat });
    await pm.json("PUT", "update-reward-name", { name: "Again" });
    await db().transaction((tx) => clearDraft(tx, draftId));
    const cleared = await pm.json<RewardSummary>("GET", "get-reward-summary");
    expect(cleared).toMatchObject({ rewards: [], rewardName: "", recipientCount: 0, version: 9 });
  });

  it("removing members, clearing and editing the same draft at once never deadlocks", async () => {
    const { api } = accountsApi(db(), { config });
    const pm = await manager(api);
    const ids = await Promise.all(Array.from({ length: 8 }, () => member(pm.companyId)));
    for (const userId of ids) await pm.json("POST", "create-reward-search", { userId });
    const draftId = (await draftOf(pm.userId))?.id as number;
    const remove = (memberId: number) =>
      db().transaction(async (tx) => {
        await tx.update(users).set({ isActive: false }).where(eq(users.id, memberId));
        return dropMemberFromDrafts(tx, pm.companyId, memberId);
      });
    const results = await Promise.all([
      pm.go("PUT", "update-all-reward", { value: 5 }),
      remove(ids[0] as number),
      pm.go("PUT", "update-reward", { userId: ids[1], value: 9 }),
      remove(ids[2] as number),
      pm.go("PUT", "update-all-reward", { value: 6 }),
      db().transaction((tx) => clearDraft(tx, draftId)),
      pm.go("DELETE", "delete-reward", { userId: ids[3] }),
    ]);
    for (const r of results) if (r instanceof Response) expect([200, 204, 404]).toContain(r.status);
    // Whatever the order, removed members are not in the draft.
    const left = (await pm.json<RewardRecipient[]>("GET", "get-reward")).map((r) => r.userId);
    expect(left).not.toContain(ids[0]);
    expect(left).not.toContain(ids[2]);
  });
});
