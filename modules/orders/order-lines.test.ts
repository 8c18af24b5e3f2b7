// What an order line may be and what a budget allows (docs/rules.md), through the real API and
// the automations job, on PGlite and PostgreSQL:
// - an occasion is due only when its date was set before the occasion's 9:00: a Manager adding a
//   member with today's birthday at 11:00 (or changing a date to today) pays nothing today and
//   pays next year; a date set long ago is still caught up;
// - an automation whose maker is no longer an Owner skips its occasions with a reason the page
//   shows, until an Owner saves it (ADR 0035 amendment);
// - "$250 per year of service" for 45 years ($11,250) makes no order: skipped, shown, balance unchanged;
// - a start date more than 80 years back is refused on the API and in a CSV, naming the field;
//   79 years back and a future date are accepted;
// - a line outside $1–$10,000 or for a member no longer active is refused by the one writer of
//   order_lines (modules/orders/order-lines.server.ts), and at every door;
// - the money check finds nothing after each.
import { randomUUID } from "node:crypto";
import { eq, isNotNull } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { problemOfRefusal } from "../../server/api/refusals.ts";
import type { Db } from "../../server/db/client.ts";
import { automationRewards, automations, companies, orderLines, orders, users } from "../../server/db/schema.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { addManager } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { CARD } from "../../tests/support/app-process.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import type { AutomationRequest, AutomationsAnswer } from "../automations/schema.ts";
import { AUTOMATION_SKIPS, type AutomationServices, runAutomations } from "../automations/service.server.ts";
import { call, testClock } from "../identity/accounts.testkit.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { insertOrderLines, OrderLineError } from "./order-lines.server.ts";
import { payingManager, paymentsApi } from "./payments.testkit.ts";

const BIRTHDAY: AutomationRequest = {
  occasion: "birthday",
  amount: 100,
  rewardName: "Happy Birthday",
  message: "Happy birthday, {firstName}!",
  enabled: true,
};

/** YYYY-MM-DD `years` before (negative: after) today's UTC date (the validation reads the real clock). */
function yearsBack(years: number, dayShift = 0): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() + dayShift);
  return d.toISOString().slice(0, 10);
}

describeEachDatabase("order lines and budgets", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function world(start: string, topUpCents: number) {
    const clock = testClock(new Date(start));
    const ctx = paymentsApi(db(), { config, clock });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    if (topUpCents > 0) {
      const created = await owner.json<{ topUpId: number }>("POST", "Balance/TopUps", { amount: topUpCents }, 201);
      await owner.json("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    }
    const services: AutomationServices = {
      db: db(),
      payments: simulatedProcessor(db(), clock.now),
      logger: captureLogs("silent").logger,
      now: clock.now,
      release: { config },
      appUrl: config.APP_URL,
    };
    const at = (iso: string) => clock.advance(new Date(iso).getTime() - clock.now().getTime());
    const balance = async () =>
      (await db().select({ b: companies.balanceCents }).from(companies).where(eq(companies.id, owner.companyId)))[0]?.b;
    const manager = async (email = "morgan@alpha.example") => {
      const m = await addManager(ctx.api, db(), owner.companyId, email);
      const json = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
        const r = await call(ctx.api, method, `/api/${path}`, body, m.accessToken);
        const text = await r.text();
        // A change answers 204 where it has nothing to say.
        expect(r.status === 204 && status === 200 ? 200 : r.status, text).toBe(status);
        return (text ? JSON.parse(text) : undefined) as T;
      };
      const go = (method: string, path: string, body?: unknown) =>
        call(ctx.api, method, `/api/${path}`, body, m.accessToken);
      return { ...m, json, go };
    };
    const moneyFindings = async () => (await checkMoney(db(), { now: clock.now() })).findings;
    return { clock, ctx, owner, services, at, balance, manager, moneyFindings, run: () => runAutomations(services) };
  }

  const member = async (companyId: number, firstName: string, values: Partial<typeof users.$inferInsert>) => {
    const [row] = await db()
      .insert(users)
      .values({
        companyId,
        firstName,
        lastName: "Member",
        email: `${firstName.toLowerCase()}@alpha.example`,
        role: "member",
        ...values,
      })
      .returning({ id: users.id });
    return (row as { id: number }).id;
  };
  const paidTo = async (userId: number) =>
    db().select({ orderId: orderLines.orderId }).from(orderLines).where(eq(orderLines.userId, userId));

  it("a date entered or changed after its occasion's 9:00 waits for the next one; one set long ago is caught up", async () => {
    // The Owner's $100 birthday automation, made on 10 June 2026 (a token lives 12 hours: the
    // clock starts late on 14 June).
    const w = await world("2026-06-14T20:00:00Z", 2_000_000);
    const { automationId } = await w.owner.json<{ automationId: number }>(
      "POST",
      "Automations/create-automation",
      BIRTHDAY,
      201,
    );
    await db()
      .update(automations)
      .set({ createdAt: new Date("2026-06-10T00:00:00Z") })
      .where(eq(automations.id, automationId));
    const m = await w.manager();
    await w.owner.json("PUT", `Managers/${m.userId}/budget`, { budgetDollars: 0 });
    // Known since 2020, birthday 14 June: the catch-up on 15 June pays it.
    const olga = await w.owner.companyId;
    const old = await member(olga, "Olga", {
      birthDay: 14,
      birthMonth: 6,
      state: "NSW",
      birthdaySetAt: new Date("2020-01-01T00:00:00Z"),
    });
    const changing = await member(olga, "Chad", {
      birthDay: 1,
      birthMonth: 1,
      state: "NSW",
      birthdaySetAt: new Date("2020-01-01T00:00:00Z"),
    });
    // 15 June, 11:00 in Sydney (every process was down since before 9:00 on 14 June).
    w.at("2026-06-15T01:00:00Z");
    const before = await w.balance();
    const added = await m.json<{ id: number }>("POST", "Users/create-user", {
      firstName: "Mallory",
      lastName: "Mule",
      email: "mallory@attacker.example",
      birthDay: 15,
      birthMonth: 6,
      state: "NSW",
    });
    await m.json("PUT", `Users/${changing}`, {
      firstName: "Chad",
      lastName: "Member",
      email: "chad@alpha.example",
      birthDay: 15,
      birthMonth: 6,
      state: "NSW",
    });
    const summary = await w.run();
    // Only Olga's (set long ago) is paid: $100 + fee.
    expect(summary.rewards).toBe(1);
    expect(await paidTo(old)).toHaveLength(1);
    expect(await paidTo(added.id)).toHaveLength(0);
    expect(await paidTo(changing)).toHaveLength(0);
    expect(await w.balance()).toBe((before ?? 0) - 11_100);
    w.at("2026-06-16T01:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    // Next year both are paid at 9:00 (and Olga's of the day before, caught up).
    w.at("2027-06-14T23:00:00Z");
    expect((await w.run()).rewards).toBe(3);
    expect(await paidTo(added.id)).toHaveLength(1);
    expect(await paidTo(changing)).toHaveLength(1);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("an automation whose maker is no longer an Owner skips with a reason until an Owner saves it", async () => {
    const w = await world("2026-06-14T20:00:00Z", 2_000_000);
    const { automationId } = await w.owner.json<{ automationId: number }>(
      "POST",
      "Automations/create-automation",
      BIRTHDAY,
      201,
    );
    const other = await w.manager("olive@alpha.example");
    await w.owner.json("PUT", `Managers/${other.userId}/role`, { role: "owner" });
    // The maker is made a Manager by the other Owner.
    await other.json("PUT", `Managers/${w.owner.userId}/role`, { role: "manager" });
    const ben = await member(w.owner.companyId, "Ben", {
      birthDay: 15,
      birthMonth: 6,
      state: "NSW",
      birthdaySetAt: new Date("2020-01-01T00:00:00Z"),
    });
    const before = await w.balance();
    w.at("2026-06-14T23:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    expect(await paidTo(ben)).toHaveLength(0);
    expect(await w.balance()).toBe(before);
    const page = await other.json<AutomationsAnswer>("GET", "Automations");
    expect(page.skipped).toEqual([
      expect.objectContaining({ automationId, userId: ben, year: 2026, reason: AUTOMATION_SKIPS.makerNotOwner }),
    ]);
    // Skipped once: the next run records nothing more.
    w.at("2026-06-15T01:00:00Z");
    await w.run();
    expect(await db().select().from(automationRewards)).toHaveLength(1);
    // The remaining Owner saves it: it spends as them from now on.
    await other.json("PUT", `Automations/${automationId}/update-automation`, BIRTHDAY);
    w.at("2027-06-14T23:00:00Z");
    expect((await w.run()).rewards).toBe(1);
    const [order] = await db().select().from(orders).where(isNotNull(orders.automationId));
    expect(order?.placedBy).toBe(other.userId);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("$250 per year of service for 45 years makes no order: skipped with its reason, the balance unchanged", async () => {
    const w = await world("2026-06-14T20:00:00Z", 2_000_000);
    const { automationId } = await w.owner.json<{ automationId: number }>(
      "POST",
      "Automations/create-automation",
      {
        occasion: "anniversary",
        amount: 250,
        perYear: true,
        rewardName: "Thank you",
        message: "{years} years!",
        enabled: true,
      },
      201,
    );
    const veteran = await member(w.owner.companyId, "Vera", {
      startDate: "1981-06-15",
      state: "NSW",
      startDateSetAt: new Date("2020-01-01T00:00:00Z"),
    });
    const junior = await member(w.owner.companyId, "Jun", {
      startDate: "2016-06-15",
      state: "NSW",
      startDateSetAt: new Date("2020-01-01T00:00:00Z"),
    });
    const before = await w.balance();
    w.at("2026-06-14T23:00:00Z");
    expect(await w.run()).toMatchObject({ rewards: 1, ordersCharged: 1 });
    expect(await paidTo(veteran)).toHaveLength(0);
    expect(await paidTo(junior)).toHaveLength(1);
    // Only Jun's $2,500 + fee left the balance.
    expect(await w.balance()).toBe((before ?? 0) - 277_500);
    const page = await w.owner.json<AutomationsAnswer>("GET", "Automations");
    expect(page.skipped).toEqual([
      expect.objectContaining({ automationId, userId: veteran, reason: AUTOMATION_SKIPS.amount(1_125_000, 45) }),
    ]);
    expect(page.skipped[0]?.reason).toContain("$11,250.00");
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("a start date more than 80 years back is refused on the API and in a CSV, naming the field", async () => {
    const w = await world("2026-06-14T20:00:00Z", 0);
    const m = await w.manager();
    const add = (email: string, startDate: string) =>
      m.go("POST", "Users/create-user", { firstName: "Sam", lastName: "Start", email, startDate });
    const refused = await expectProblem(await add("old@alpha.example", yearsBack(81)), 400);
    expect(refused.errors?.startDate).toEqual(["The start date can be at most 80 years ago."]);
    expect((await add("seventy-nine@alpha.example", yearsBack(79))).status).toBe(200);
    expect((await add("future@alpha.example", yearsBack(-1))).status).toBe(200);
    const csv = (date: string) =>
      w.ctx.api.request("/api/Imports?kind=team&fileName=team.csv", {
        method: "POST",
        headers: { authorization: `Bearer ${m.accessToken}`, "content-type": "text/csv" },
        body: `First Name,Last Name,Email Address,Start Date\r\nAda,Old,ada@alpha.example,${date}\r\n`,
      });
    const csvRefused = await expectProblem(await csv(yearsBack(81)), 400);
    expect(csvRefused.errors?.file).toEqual(["Row 1: Start Date can be at most 80 years ago"]);
    expect((await csv(yearsBack(79))).status).toBe(201);
    const names = await db().select({ email: users.email }).from(users).where(eq(users.role, "member"));
    expect(names.map((n) => n.email).sort()).toEqual(["future@alpha.example", "seventy-nine@alpha.example"]);
  });

  it("a line outside $1 to $10,000, or for a member no longer active, is never made, whichever door", async () => {
    const w = await world("2026-06-14T20:00:00Z", 2_000_000);
    const id = await member(w.owner.companyId, "Lin", {});
    const gone = await member(w.owner.companyId, "Gus", { isActive: false });
    // The doors refuse it first: the draft and an API order.
    await expectProblem(await w.owner.go("PUT", "RewardMyTeam/update-all-reward", { value: "10001" }), 400);
    const key = await w.owner.json<{ key: string }>("POST", "ApiKeys", { name: "Payroll" }, 201);
    const apiOrder = await w.ctx.api.request("/api/v1/orders", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.key}`,
        "content-type": "application/json",
        "idempotency-key": randomUUID(),
      },
      body: JSON.stringify({
        rewardName: "Too much",
        recipients: [{ email: "lin@alpha.example", firstName: "Lin", lastName: "Member", amount: 10_001 }],
      }),
    });
    await expectProblem(apiOrder, 400);
    // And the one writer refuses it whatever the door let through: nothing is written.
    const [order] = await db().select().from(orders);
    expect(order).toBeUndefined();
    const line = { firstName: "Lin", lastName: "Member", email: "lin@alpha.example" };
    for (const [lines, status] of [
      [[{ ...line, userId: id, amountCents: 1_000_001 }], 422],
      [[{ ...line, userId: id, amountCents: 99 }], 422],
      [
        [
          { ...line, userId: id, amountCents: 5000 },
          { ...line, userId: gone, amountCents: 5000 },
        ],
        409,
      ],
    ] as const) {
      // The refusal, with the status the API answers it with (refusals.ts) beside its kind.
      const answered = (error: unknown) => Object.assign(error as object, { status: problemOfRefusal(error)?.status });
      const attempt = db()
        .transaction(async (tx) => {
          const [o] = await tx
            .insert(orders)
            .values({
              companyId: w.owner.companyId,
              placedBy: w.owner.userId,
              rewardName: "x",
              message: "",
              senderName: "x",
              rewardsCents: 0,
              serviceFeeCents: 0,
              gstCents: 0,
              totalCents: 0,
              currency: "aud",
              status: "pending",
              processor: "balance",
            })
            .returning({ id: orders.id });
          await insertOrderLines(tx, w.owner.companyId, (o as { id: number }).id, lines);
        })
        .catch((error: unknown) => {
          throw answered(error);
        });
      await expect(attempt).rejects.toBeInstanceOf(OrderLineError);
      await expect(attempt).rejects.toMatchObject({ status });
    }
    expect(await db().select().from(orderLines)).toEqual([]);
    expect(await w.moneyFindings()).toEqual([]);
  });
});
