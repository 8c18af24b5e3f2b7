// Automations (ADR 0035) through the API and the job, on PGlite and PostgreSQL, with a test clock:
// - each member's reward goes out at 9:00 in their own time zone (Perth and Sydney), once, as a
//   balance order released through the one release path (charged, invoiced, emailed);
// - across the daylight-saving changes (Sydney's start and end; Brisbane keeps none);
// - 29 February: on 28 February in a common year, on the day in a leap year;
// - a missed day is caught up once by the next run, and not at all past the catch-up window;
// - two runs at once (PostgreSQL: really concurrent) send once;
// - a short balance sends nothing, pauses the automations and emails the Owners once; topped up
//   and turned on again, the missed reward goes out once;
// - past the automation budget, the run waits for an Owner's approval, whose approval charges it;
// - anniversaries per year of service, the message's placeholders, the automation.run event;
// - the preview of the next 30 days; bad input and a Manager's call change nothing;
// - the money check finds nothing after each.
import { and, eq, isNotNull } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  automationRewards,
  automations,
  balanceEntries,
  emailOutbox,
  orderLines,
  orders,
  rewardReleases,
  users,
  webhookEvents,
} from "../../server/db/schema.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { addManager } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { CARD } from "../../tests/support/app-process.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call, testClock } from "../identity/accounts.testkit.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import type { AutomationRequest, AutomationsAnswer } from "./schema.ts";
import { celebratedDay, occasionIn, zonedInstant } from "./schema.ts";
import { type AutomationServices, runAutomations } from "./service.server.ts";

describe("the date math", () => {
  it("9:00 in each state, across Sydney's daylight-saving start and end", () => {
    // Sydney: AEST (+10) on 3 October 2026, AEDT (+11) from 4 October 2026 2:00.
    expect(zonedInstant(2026, 10, 3, 9, "Australia/Sydney").toISOString()).toBe("2026-10-02T23:00:00.000Z");
    expect(zonedInstant(2026, 10, 4, 9, "Australia/Sydney").toISOString()).toBe("2026-10-03T22:00:00.000Z");
    // Back to AEST on 4 April 2027 3:00.
    expect(zonedInstant(2027, 4, 3, 9, "Australia/Sydney").toISOString()).toBe("2027-04-02T22:00:00.000Z");
    expect(zonedInstant(2027, 4, 4, 9, "Australia/Sydney").toISOString()).toBe("2027-04-03T23:00:00.000Z");
    // Brisbane keeps no daylight saving; Perth is +8; Adelaide +10:30 in summer; Darwin +9:30.
    expect(zonedInstant(2026, 10, 4, 9, "Australia/Brisbane").toISOString()).toBe("2026-10-03T23:00:00.000Z");
    expect(zonedInstant(2026, 6, 15, 9, "Australia/Perth").toISOString()).toBe("2026-06-15T01:00:00.000Z");
    expect(zonedInstant(2027, 1, 15, 9, "Australia/Adelaide").toISOString()).toBe("2027-01-14T22:30:00.000Z");
    expect(zonedInstant(2027, 1, 15, 9, "Australia/Darwin").toISOString()).toBe("2027-01-14T23:30:00.000Z");
  });

  it("29 February is 28 February in a common year", () => {
    expect(celebratedDay(2027, 2, 29)).toBe(28);
    expect(celebratedDay(2028, 2, 29)).toBe(29);
    expect(celebratedDay(2100, 2, 29)).toBe(28);
    const leapling = { birthDay: 29, birthMonth: 2, startDate: null, state: "WA" as const };
    expect(occasionIn(leapling, "birthday", 2027)?.dueAt.toISOString()).toBe("2027-02-28T01:00:00.000Z");
    expect(occasionIn(leapling, "birthday", 2028)?.dueAt.toISOString()).toBe("2028-02-29T01:00:00.000Z");
    // An anniversary needs a whole year of service.
    const starter = { birthDay: null, birthMonth: null, startDate: "2026-03-10", state: null };
    expect(occasionIn(starter, "anniversary", 2026)).toBeNull();
    expect(occasionIn(starter, "anniversary", 2028)).toMatchObject({ years: 2 });
  });
});

const BIRTHDAY: AutomationRequest = {
  occasion: "birthday",
  amount: 50,
  rewardName: "Happy Birthday",
  message: "Happy birthday, {firstName}!",
  enabled: true,
};

describeEachDatabase("automations", ({ kind, database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** An Owner of Alpha (details given) who topped up `topUpCents`, on a clock starting at `start`. */
  async function world(start: string, topUpCents: number) {
    const clock = testClock(new Date(start));
    const ctx = paymentsApi(db(), { config, clock });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const topUp = async (cents: number) => {
      const created = await owner.json<{ topUpId: number }>("POST", "Balance/TopUps", { amount: cents }, 201);
      await owner.json("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    };
    if (topUpCents > 0) await topUp(topUpCents);
    const services: AutomationServices = {
      db: db(),
      payments: simulatedProcessor(db(), clock.now),
      logger: captureLogs("silent").logger,
      now: clock.now,
      release: { config },
      appUrl: config.APP_URL,
    };
    let n = 0;
    const member = async (
      firstName: string,
      dates: {
        birthDay?: number;
        birthMonth?: number;
        startDate?: string;
        state?: "NSW" | "VIC" | "QLD" | "SA" | "WA" | "TAS" | "NT" | "ACT";
      },
    ) => {
      const [row] = await db()
        .insert(users)
        .values({
          companyId: owner.companyId,
          firstName,
          lastName: `Member${++n}`,
          email: `${firstName.toLowerCase()}.${n}@alpha.example`,
          role: "member",
          birthDay: dates.birthDay ?? null,
          birthMonth: dates.birthMonth ?? null,
          startDate: dates.startDate ?? null,
          state: dates.state ?? null,
        })
        .returning({ id: users.id, email: users.email });
      return row as { id: number; email: string };
    };
    const create = async (body: AutomationRequest = BIRTHDAY) =>
      (await owner.json<{ automationId: number }>("POST", "Automations/create-automation", body, 201)).automationId;
    const at = (iso: string) => {
      clock.advance(new Date(iso).getTime() - clock.now().getTime());
    };
    const run = () => runAutomations(services);
    const rewardEmailsTo = async (email: string) =>
      db()
        .select({ id: emailOutbox.id, text: emailOutbox.text })
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, email), isNotNull(emailOutbox.recipientUserId)));
    const moneyFindings = async () => (await checkMoney(db(), { now: clock.now() })).findings;
    return { clock, ctx, owner, topUp, services, member, create, at, run, rewardEmailsTo, moneyFindings };
  }

  it("sends at 9:00 in each member's own time zone, once, through the release path", async () => {
    const w = await world("2026-06-14T20:00:00Z", 50_000);
    await w.create();
    const sydney = await w.member("Sam", { birthDay: 15, birthMonth: 6, state: "NSW" });
    const perth = await w.member("Pia", { birthDay: 15, birthMonth: 6, state: "WA" });
    await w.member("Nobody", { birthDay: 16, birthMonth: 6, state: "NSW" });

    w.at("2026-06-14T22:59:59Z"); // 8:59:59 in Sydney
    expect((await w.run()).rewards).toBe(0);
    w.at("2026-06-14T23:00:00Z"); // 9:00 in Sydney, 7:00 in Perth
    expect(await w.run()).toMatchObject({ rewards: 1, ordersCharged: 1 });
    expect(await w.rewardEmailsTo(sydney.email)).toHaveLength(1);
    expect(await w.rewardEmailsTo(perth.email)).toHaveLength(0);
    expect((await w.rewardEmailsTo(sydney.email))[0]?.text).toContain("Happy birthday, Sam!");

    w.at("2026-06-15T00:59:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2026-06-15T01:00:00Z"); // 9:00 in Perth
    expect((await w.run()).rewards).toBe(1);
    w.at("2026-06-15T05:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    expect(await w.rewardEmailsTo(perth.email)).toHaveLength(1);
    expect(await w.rewardEmailsTo(sydney.email)).toHaveLength(1);

    // Ordinary balance orders: placed by the Owner, marked with the automation, charged, released.
    const placed = await db().select().from(orders).where(isNotNull(orders.automationId));
    expect(placed).toHaveLength(2);
    for (const o of placed) {
      expect(o).toMatchObject({ status: "paid", processor: "balance", placedBy: w.owner.userId, rewardsCents: 5000 });
      expect(o.invoiceNumber).toMatch(/^INV-/);
    }
    expect(await db().select().from(rewardReleases)).toHaveLength(2);
    // Placed by the Owner, but counted against the automation budget only, never the Owner's own
    // monthly budget (ADR 0034 §2): it would hold them if they were made a Manager.
    await w.owner.json("PUT", `Managers/${w.owner.userId}/budget`, { budgetDollars: 60 });
    const overview = await w.owner.json<{ managers: Array<{ userId: number; usedCents: number }> }>("GET", "Budgets");
    expect(overview.managers.find((m) => m.userId === w.owner.userId)?.usedCents).toBe(0);
    const charges = await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"));
    expect(charges.map((c) => -c.amountCents)).toEqual([chargesFor([50]).totalCents, chargesFor([50]).totalCents]);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("follows Sydney across the daylight-saving start and end; Brisbane keeps its time", async () => {
    const w = await world("2026-10-02T12:00:00Z", 50_000);
    await w.create();
    const before = await w.member("Bea", { birthDay: 3, birthMonth: 10, state: "NSW" });
    const after = await w.member("Aki", { birthDay: 4, birthMonth: 10, state: "NSW" });
    const brisbane = await w.member("Bri", { birthDay: 4, birthMonth: 10, state: "QLD" });
    w.at("2026-10-02T22:59:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2026-10-02T23:00:00Z"); // 9:00 AEST, 3 October
    await w.run();
    expect(await w.rewardEmailsTo(before.email)).toHaveLength(1);
    w.at("2026-10-03T21:59:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2026-10-03T22:00:00Z"); // 9:00 AEDT, 4 October: an hour earlier in UTC
    await w.run();
    expect(await w.rewardEmailsTo(after.email)).toHaveLength(1);
    expect(await w.rewardEmailsTo(brisbane.email)).toHaveLength(0);
    w.at("2026-10-03T23:00:00Z"); // 9:00 in Brisbane
    await w.run();
    expect(await w.rewardEmailsTo(brisbane.email)).toHaveLength(1);

    // The end of daylight saving: 4 April 2027, 9:00 AEST is 23:00 UTC again.
    const april = await w.member("Ava", { birthDay: 4, birthMonth: 4, state: "NSW" });
    w.at("2027-04-03T22:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2027-04-03T23:00:00Z");
    await w.run();
    expect(await w.rewardEmailsTo(april.email)).toHaveLength(1);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("celebrates 29 February on 28 February in a common year, on the day in a leap year, once a year", async () => {
    const w = await world("2027-02-27T00:00:00Z", 50_000);
    await w.create();
    const leapling = await w.member("Lee", { birthDay: 29, birthMonth: 2, state: "WA" });
    w.at("2027-02-28T00:59:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2027-02-28T01:00:00Z");
    expect((await w.run()).rewards).toBe(1);
    w.at("2027-03-01T01:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2028-02-28T01:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    w.at("2028-02-29T01:00:00Z");
    expect((await w.run()).rewards).toBe(1);
    expect(await w.rewardEmailsTo(leapling.email)).toHaveLength(2);
    const years = await db().select({ year: automationRewards.year }).from(automationRewards);
    expect(years.map((y) => y.year).sort()).toEqual([2027, 2028]);
  });

  it("catches a missed day up once, the next morning, and not past the catch-up window", async () => {
    const w = await world("2026-06-01T00:00:00Z", 50_000);
    await w.create();
    const missed = await w.member("Mia", { birthDay: 10, birthMonth: 6, state: "VIC" });
    const tooOld = await w.member("Old", { birthDay: 3, birthMonth: 6, state: "VIC" });
    // Every process was down from 2 to 11 June: the run at 11 June 9:00 sends 10 June's reward.
    w.at("2026-06-10T23:00:00Z");
    expect((await w.run()).rewards).toBe(1);
    expect((await w.run()).rewards).toBe(0);
    w.at("2026-06-11T23:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    expect(await w.rewardEmailsTo(missed.email)).toHaveLength(1);
    // 3 June's was more than three days before: not sent late.
    expect(await w.rewardEmailsTo(tooOld.email)).toHaveLength(0);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("two runs at once send each reward once", async () => {
    const w = await world("2026-06-14T22:00:00Z", 100_000);
    await w.create();
    const members = await Promise.all(
      ["Ann", "Ben", "Cat", "Dan"].map((name) => w.member(name, { birthDay: 15, birthMonth: 6, state: "NSW" })),
    );
    w.at("2026-06-14T23:00:00Z");
    const other: AutomationServices = { ...w.services, logger: captureLogs("silent").logger };
    const [a, b] = await Promise.all([runAutomations(w.services), runAutomations(other)]);
    expect(a.rewards + b.rewards).toBe(4);
    expect(a.errors + b.errors).toBe(0);
    for (const m of members) expect(await w.rewardEmailsTo(m.email)).toHaveLength(1);
    expect(await db().select().from(orders)).toHaveLength(1);
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toHaveLength(1);
    expect(await w.moneyFindings()).toEqual([]);
    void kind;
  });

  it("a short balance sends nothing, pauses, emails the Owners once; topped up and on again, sends once", async () => {
    // $111 covers two $50 rewards with fees ($55.50 each), not the three due together ($166.50).
    const w = await world("2026-06-14T22:00:00Z", 11_100);
    const automationId = await w.create();
    const ms = await Promise.all(
      ["Ann", "Ben", "Cat"].map((name) => w.member(name, { birthDay: 15, birthMonth: 6, state: "NSW" })),
    );
    w.at("2026-06-14T23:00:00Z");
    expect(await w.run()).toMatchObject({ rewards: 0, paused: 1 });
    expect(await w.run()).toMatchObject({ rewards: 0, paused: 0 });
    w.at("2026-06-14T23:30:00Z");
    await w.run();
    for (const m of ms) expect(await w.rewardEmailsTo(m.email)).toHaveLength(0);
    expect(await db().select().from(orders)).toHaveLength(0);
    expect(await db().select().from(automationRewards)).toHaveLength(0);
    const pausedMail = await db()
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.subject, "Automated rewards paused: the balance is too low"));
    expect(pausedMail.map((m) => m.toAddress)).toEqual([w.owner.email]);
    const list = await w.owner.json<AutomationsAnswer>("GET", "Automations");
    expect(list.automations[0]?.pausedAt).not.toBeNull();

    // Topped up and turned on again: the missed rewards go out once.
    await w.topUp(20_000);
    w.at("2026-06-15T00:00:00Z");
    await w.owner.json("PUT", `Automations/${automationId}/set-automation-enabled`, { enabled: true }, 204);
    expect(await w.run()).toMatchObject({ rewards: 3, ordersCharged: 1 });
    expect(await w.run()).toMatchObject({ rewards: 0 });
    for (const m of ms) expect(await w.rewardEmailsTo(m.email)).toHaveLength(1);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("a run past the automation budget waits for an Owner's approval, which charges and releases it", async () => {
    const w = await world("2026-06-14T22:00:00Z", 100_000);
    await w.create();
    await w.owner.json("PUT", "Automations/update-automation-budget", { budget: 100 }, 204);
    const ms = await Promise.all(
      ["Ann", "Ben"].map((name) => w.member(name, { birthDay: 15, birthMonth: 6, state: "NSW" })),
    );
    w.at("2026-06-14T23:00:00Z");
    expect(await w.run()).toMatchObject({ rewards: 2, ordersCharged: 0, ordersAwaitingApproval: 1 });
    expect(await w.run()).toMatchObject({ rewards: 0 });
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ approvalStatus: "requested", status: "pending", paidAt: null });
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toHaveLength(0);
    for (const m of ms) expect(await w.rewardEmailsTo(m.email)).toHaveLength(0);
    const asked = await db()
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.subject, "Approval requested: Happy Birthday"));
    expect(asked.map((m) => m.toAddress)).toEqual([w.owner.email]);

    const pending = await w.owner.json<Array<{ orderId: number; requestedBy: { name: string } }>>(
      "GET",
      "Approvals?status=pending",
    );
    expect(pending).toEqual([
      expect.objectContaining({
        orderId: order?.id,
        requestedBy: expect.objectContaining({ name: "Automation “Happy Birthday”" }),
      }),
    ]);
    await w.owner.json("POST", `Approvals/${order?.id}/approve`, undefined, 204);
    for (const m of ms) expect(await w.rewardEmailsTo(m.email)).toHaveLength(1);
    const [paid] = await db().select().from(orders);
    expect(paid).toMatchObject({ status: "paid" });
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("anniversaries: per year of service, the message filled in, and the automation.run event", async () => {
    const w = await world("2026-03-09T00:00:00Z", 100_000);
    await w.owner.json(
      "POST",
      "Webhooks",
      { url: "https://hooks.alpha.example/rewards", events: ["automation.run"] },
      201,
    );
    await w.create({
      occasion: "anniversary",
      amount: 10,
      perYear: true,
      rewardName: "Work Anniversary",
      message: "{firstName}, thank you for {years} years!",
      enabled: true,
    });
    const six = await w.member("Sia", { startDate: "2020-03-10", state: "SA" });
    const fresh = await w.member("New", { startDate: "2026-03-10", state: "SA" });
    w.at("2026-03-09T22:30:00Z"); // 9:00 in Adelaide (ACDT, +10:30)
    expect(await w.run()).toMatchObject({ rewards: 1 });
    const [line] = await db().select().from(orderLines).where(eq(orderLines.userId, six.id));
    expect(line).toMatchObject({ amountCents: 6000, message: "Sia, thank you for 6 years!" });
    expect((await w.rewardEmailsTo(six.email))[0]?.text).toContain("Sia, thank you for 6 years!");
    expect(await w.rewardEmailsTo(fresh.email)).toHaveLength(0);
    const [event] = await db().select().from(webhookEvents).where(eq(webhookEvents.type, "automation.run"));
    expect(event?.payload).toMatchObject({
      rewards: 1,
      anniversaries: 1,
      birthdays: 0,
      ordersCharged: 1,
      ordersAwaitingApproval: 0,
      rewardsCents: 6000,
      totalCents: chargesFor([60]).totalCents,
    });
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("where it meets the rest: a removed member, an automation turned off, a declined approval", async () => {
    const w = await world("2026-06-15T12:00:00Z", 100_000);
    const automationId = await w.create();
    const removed = await w.member("Rex", { birthDay: 16, birthMonth: 6, state: "NSW" });
    const kept = await w.member("Kim", { birthDay: 16, birthMonth: 6, state: "NSW" });
    await db().update(users).set({ isActive: false }).where(eq(users.id, removed.id));
    // Turned off before Kim's 9:00: nothing, even when it is due.
    await w.owner.json("PUT", `Automations/${automationId}/set-automation-enabled`, { enabled: false }, 204);
    w.at("2026-06-15T23:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    expect(await w.rewardEmailsTo(removed.email)).toHaveLength(0);
    expect(await w.rewardEmailsTo(kept.email)).toHaveLength(0);

    // On again with a budget below the reward: Kim's reward waits for approval; declined, it is never sent.
    await w.owner.json("PUT", "Automations/update-automation-budget", { budget: 10 }, 204);
    await w.owner.json("PUT", `Automations/${automationId}/set-automation-enabled`, { enabled: true }, 204);
    w.at("2026-06-15T23:30:00Z");
    expect(await w.run()).toMatchObject({ rewards: 1, ordersAwaitingApproval: 1 });
    const [order] = await db().select().from(orders);
    await w.owner.json("POST", `Approvals/${order?.id}/decline`, { reason: "Not this month" }, 204);
    w.at("2026-06-16T02:00:00Z");
    expect((await w.run()).rewards).toBe(0);
    expect(await w.rewardEmailsTo(kept.email)).toHaveLength(0);
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toHaveLength(0);
    expect(await w.moneyFindings()).toEqual([]);
  });

  it("previews the next 30 days; refuses bad input and a Manager, changing nothing", async () => {
    const w = await world("2026-06-01T00:00:00Z", 0);
    await w.create();
    await w.member("Soon", { birthDay: 20, birthMonth: 6, state: "WA" });
    await w.member("Later", { birthDay: 20, birthMonth: 8, state: "WA" });
    await w.member("None", {});
    const answer = await w.owner.json<AutomationsAnswer>("GET", "Automations");
    expect(answer.preview.entries.map((e) => [e.firstName, e.sendAt, e.timeZone])).toEqual([
      ["Soon", "2026-06-20T01:00:00.000Z", "Australia/Perth"],
    ]);
    expect(answer.preview).toMatchObject({ rewardsCents: 5000, totalCents: chargesFor([50]).totalCents });

    const bad = [
      { ...BIRTHDAY, amount: 0 },
      { ...BIRTHDAY, amount: 10.5 },
      { ...BIRTHDAY, rewardName: " " },
      { ...BIRTHDAY, occasion: "wedding" },
      { ...BIRTHDAY, perYear: true },
    ];
    for (const body of bad) {
      const res = await w.owner.go("POST", "Automations/create-automation", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const badBudget = await w.owner.go("PUT", "Automations/update-automation-budget", { budget: "12.50" });
    await expectProblem(badBudget, 400);
    const manager = await addManager(w.ctx.api, db(), w.owner.companyId, "morgan.manager@alpha.example");
    const refused = await call(w.ctx.api, "POST", "/api/Automations/create-automation", BIRTHDAY, manager.accessToken);
    expect(refused.status).toBe(403);
    expect(await db().select().from(automations)).toHaveLength(1);
  });
});
