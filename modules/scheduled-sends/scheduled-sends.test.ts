// Scheduled sends through the API with a test clock: the draft's send time (10 minutes to 90 days
// ahead), payment that schedules instead of releasing, the scheduler releasing each due order once
// (also with two passes racing), rescheduling, and cancelling with a full refund that is never
// released. Company-scoped: another company's order is a 404.
import { and, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  emailOutbox,
  orders,
  rewardLedger,
  rewardReleases,
  simulatedPayments,
} from "../../server/db/schema.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import type { RewardHistoryPage } from "../identity/schema.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { RewardOrderView } from "./schema.ts";
import { releaseDueOrders } from "./service.server.ts";

const MINUTE = 60_000;

describeEachDatabase("scheduled sends", ({ database, kind }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function scheduled(aheadMs = 10 * MINUTE) {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    await seedDraft(db(), manager, [100], "Holiday thanks");
    const sendAt = new Date(ctx.clock.now().getTime() + aheadMs);
    await manager.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt: sendAt.toISOString() });
    const paid = await payDraftByCard(manager, [100]);
    expect(paid.status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order) throw new Error("no order");
    const services = {
      db: db(),
      payments: simulatedProcessor(db(), ctx.clock.now),
      logger: captureLogs("warn").logger,
      now: ctx.clock.now,
      release: { config },
    };
    return { ...ctx, manager, sendAt, order, services };
  }

  const releases = () => db().select().from(rewardReleases);

  it("refuses a send time under 10 minutes or over 90 days ahead, and an unreadable one, changing nothing", async () => {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db());
    await seedDraft(db(), manager, [10]);
    const now = ctx.clock.now().getTime();
    for (const [sendAt, detail] of [
      [new Date(now + 9 * MINUTE).toISOString(), "Choose a time at least 10 minutes from now."],
      [new Date(now + 91 * 24 * 60 * MINUTE).toISOString(), "Choose a time no more than 90 days from now."],
    ] as const) {
      const problem = await expectProblem(
        await manager.go("PUT", "RewardMyTeam/update-reward-schedule", { sendAt }),
        400,
      );
      expect(problem.detail).toBe(detail);
    }
    await expectProblem(
      await manager.go("PUT", "RewardMyTeam/update-reward-schedule", { sendAt: "2026-12-01T09:00" }),
      400,
    );
    const summary = await manager.json<{ sendAt: string | null }>("GET", "RewardMyTeam/get-reward-summary");
    expect(summary.sendAt).toBeNull();
  });

  it("pays now and releases at the time, exactly once, even with two scheduler passes racing", async () => {
    const { manager, sendAt, order, services, clock } = await scheduled();
    expect(order).toMatchObject({ status: "scheduled", invoiceNumber: expect.stringMatching(/^INV-/) });
    expect(order.paidAt).not.toBeNull();
    expect(order.releasedAt).toBeNull();
    expect(await releases()).toHaveLength(0);
    // Only the payer's tax invoice so far: no recipient is emailed before the time.
    const early = (await db().select().from(emailOutbox)).filter((e) => !e.subject.startsWith("Your verification"));
    expect(early.map((e) => e.subject)).toEqual([expect.stringMatching(/^Tax Invoice INV-/)]);
    expect(early[0]?.text).toContain("Emails will be sent to your 1 reward recipient on");
    // The invoice the email links to is there before the release.
    expect(await manager.json("GET", `Invoices/${order.invoiceNumber}`)).toMatchObject({ totalCents: 11_100 });

    // Before the time: nothing.
    clock.advance(9 * MINUTE);
    expect((await releaseDueOrders(services, { advisoryLocks: kind === "postgres" })).released).toBe(0);

    clock.advance(sendAt.getTime() - clock.now().getTime());
    const options = { advisoryLocks: kind === "postgres", concurrency: 2 };
    const [a, b] = await Promise.all([releaseDueOrders(services, options), releaseDueOrders(services, options)]);
    expect(a.released + b.released).toBe(1);
    expect(await releases()).toHaveLength(1);
    const credits = await db().select().from(rewardLedger).where(eq(rewardLedger.kind, "credit"));
    expect(credits).toHaveLength(1);
    const rewardEmails = await db()
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.orderId, order.id)));
    expect(rewardEmails).toHaveLength(1);
    // No second tax invoice at the release.
    expect((await db().select().from(emailOutbox)).filter((e) => e.subject.startsWith("Tax Invoice"))).toHaveLength(1);

    const view = await manager.json<RewardOrderView>("GET", `RewardOrders/${order.id}`);
    expect(view).toMatchObject({ state: "released", rewardReleaseId: expect.any(Number) });
    const history = await manager.json<RewardHistoryPage>("GET", "RewardHistory?pageNumber=1&pageSize=20");
    expect(history.items.map((i) => i.state)).toEqual(["released"]);
    expect((await releaseDueOrders(services, options)).released).toBe(0);
  });

  it("reschedules while waiting, within the same limits; a released order cannot be", async () => {
    const { manager, order, services, clock } = await scheduled(60 * MINUTE);
    const later = new Date(clock.now().getTime() + 3 * 60 * MINUTE);
    const moved = await manager.json<RewardOrderView>("PUT", `RewardOrders/${order.id}/schedule`, {
      sendAt: later.toISOString(),
    });
    expect(moved).toMatchObject({ state: "scheduled", sendAt: later.toISOString() });
    const soon = await expectProblem(
      await manager.go("PUT", `RewardOrders/${order.id}/schedule`, {
        sendAt: new Date(clock.now().getTime() + MINUTE).toISOString(),
      }),
      400,
    );
    expect(soon.detail).toBe("Choose a time at least 10 minutes from now.");
    // The old time passes: nothing goes out.
    clock.advance(61 * MINUTE);
    expect((await releaseDueOrders(services, { advisoryLocks: kind === "postgres" })).released).toBe(0);
    clock.advance(2 * 60 * MINUTE);
    expect((await releaseDueOrders(services, { advisoryLocks: kind === "postgres" })).released).toBe(1);
    await expectProblem(
      await manager.go("PUT", `RewardOrders/${order.id}/schedule`, {
        sendAt: new Date(clock.now().getTime() + 20 * MINUTE).toISOString(),
      }),
      409,
    );
    await expectProblem(await manager.go("POST", `RewardOrders/${order.id}/cancel`), 409);
  });

  it("cancels with a full refund recorded by the processor, emails the payer, and never releases", async () => {
    const { manager, order, services, clock, sendAt } = await scheduled(30 * MINUTE);
    const cancelled = await manager.json<RewardOrderView>("POST", `RewardOrders/${order.id}/cancel`);
    expect(cancelled).toMatchObject({ state: "cancelled", refundedAt: expect.any(String), paidFrom: "card" });
    const [payment] = await db().select().from(simulatedPayments);
    expect(payment?.refundId).toMatch(/^re_sim_/);
    const [row] = await db().select().from(orders);
    expect(row).toMatchObject({ status: "cancelled", refundId: payment?.refundId });
    const notice = (await db().select().from(emailOutbox)).find((e) => e.subject.startsWith("Cancelled and refunded"));
    expect(notice?.text).toContain("$111.00");
    clock.advance(sendAt.getTime() - clock.now().getTime() + MINUTE);
    expect((await releaseDueOrders(services, { advisoryLocks: kind === "postgres" })).released).toBe(0);
    expect(await releases()).toHaveLength(0);
    // A second cancel is refused and refunds nothing more.
    await expectProblem(await manager.go("POST", `RewardOrders/${order.id}/cancel`), 409);
    const actions = (await db().select().from(auditLog)).map((a) => a.action);
    expect(actions.filter((a) => a === "order.refunded")).toHaveLength(1);
    const history = await manager.json<RewardHistoryPage>("GET", "RewardHistory?pageNumber=1&pageSize=20");
    expect(history.items).toMatchObject([{ state: "cancelled", refunded: true, rewardReleaseId: null }]);
    const csv = await (await manager.go("GET", "RewardHistory/export")).text();
    expect(csv).toContain("Cancelled · Refunded");
  });

  it("a refund the processor refuses is retried by the scheduler after its backoff until it goes through; the payer is emailed once", async () => {
    const ctx = paymentsApi(db(), { config });
    const real = simulatedProcessor(db(), ctx.clock.now);
    let refusing = true;
    const flaky = {
      ...real,
      refund: async (input: Parameters<typeof real.refund>[0]) => {
        if (refusing) throw new Error("processor unavailable");
        return real.refund(input);
      },
    };
    const api = paymentsApi(db(), { config, payments: flaky, clock: ctx.clock });
    const manager = await payingManager(api.api, db());
    await seedDraft(db(), manager, [100]);
    const sendAt = new Date(ctx.clock.now().getTime() + 60 * MINUTE).toISOString();
    await manager.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt });
    expect((await payDraftByCard(manager, [100])).status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order) throw new Error("no order");
    const cancelled = await manager.json<RewardOrderView>("POST", `RewardOrders/${order.id}/cancel`);
    expect(cancelled).toMatchObject({ state: "cancelled", refundedAt: null });
    const services = {
      db: db(),
      payments: flaky,
      logger: captureLogs("warn").logger,
      now: ctx.clock.now,
      release: { config },
    };
    expect((await releaseDueOrders(services, { advisoryLocks: false })).refunded).toBe(0);
    refusing = false;
    // Not before its backoff (30 s after the failed try, ±10 %: modules/orders/refund-retries.test.ts).
    expect((await releaseDueOrders(services, { advisoryLocks: false })).refunded).toBe(0);
    ctx.clock.advance(MINUTE);
    expect((await releaseDueOrders(services, { advisoryLocks: false })).refunded).toBe(1);
    expect((await releaseDueOrders(services, { advisoryLocks: false })).refunded).toBe(0);
    expect(await manager.json<RewardOrderView>("GET", `RewardOrders/${order.id}`)).toMatchObject({
      state: "cancelled",
      refundedAt: expect.any(String),
    });
    const notices = (await db().select().from(emailOutbox)).filter((e) =>
      e.subject.startsWith("Cancelled and refunded"),
    );
    expect(notices).toHaveLength(1);
  });

  it("answers 404 for another company's order and 401 without a token", async () => {
    const { order, api, clock } = await scheduled();
    const other = await payingManager(api, db(), "Other Pty Ltd");
    await expectProblem(await other.go("GET", `RewardOrders/${order.id}`), 404);
    await expectProblem(await other.go("POST", `RewardOrders/${order.id}/cancel`), 404);
    await expectProblem(
      await other.go("PUT", `RewardOrders/${order.id}/schedule`, {
        sendAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
      }),
      404,
    );
    const anonymous = await api.request(`/api/RewardOrders/${order.id}`);
    expect(anonymous.status).toBe(401);
    const [row] = await db().select().from(orders);
    expect(row?.status).toBe("scheduled");
  });
});
