// When a release may pay a member (docs/rules.md; modules/orders/release-rules.server.ts), through the
// real API on PGlite and PostgreSQL: removal is refused while the member is on a scheduled order
// (the 409 names the order), and allowed once it is cancelled; a member removed while their card
// payment was in flight is never credited (the order is cancelled and refunded, the payer told,
// the member not emailed, their code redeems nothing); an API order awaiting approval does not
// block removal, but its approval is then refused before anything is charged; a removal racing a
// release either is refused or the release never credits. Each ends with the money check clean.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  balanceEntries,
  balanceTopUps,
  emailOutbox,
  orders,
  recipientAccounts,
  rewardLots,
  simulatedPayments,
  users,
} from "../../server/db/schema.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { balanceOf, moveBalance } from "../balance/service.server.ts";
import { checkMoney } from "../money-check/service.server.ts";
import type { RewardOrderView } from "../scheduled-sends/schema.ts";
import { releaseDueOrders } from "../scheduled-sends/service.server.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";

const MINUTE = 60_000;
const PARTNER_KEY = "p".repeat(40);

describeEachDatabase("when a release may pay a member", ({ database, kind }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/", PARTNER_API_KEY: PARTNER_KEY });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function world() {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    const services = {
      db: db(),
      payments: simulatedProcessor(db(), ctx.clock.now),
      logger: captureLogs("warn").logger,
      now: ctx.clock.now,
      release: { config },
    };
    const redeem = (accessCode: string, amountCents: number) =>
      ctx.api.request("/api/Redemptions", {
        method: "POST",
        headers: { authorization: `Bearer ${PARTNER_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ accessCode, amountCents, idempotencyKey: randomUUID() }),
      });
    const member = async (id: number) => {
      const [row] = await db().select().from(users).where(eq(users.id, id));
      if (!row) throw new Error("no member");
      return row;
    };
    const mailTo = (address: string) => db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, address));
    const clean = async (at = ctx.clock.now()) => expect((await checkMoney(db(), { now: at })).findings).toEqual([]);
    return { ...ctx, manager, services, redeem, member, mailTo, clean };
  }

  it("refuses to remove a member of a scheduled reward, naming the order; once it is cancelled the removal goes through", async () => {
    const w = await world();
    const [x] = await seedDraft(db(), w.manager, [40], "Holiday thanks");
    const sendAt = new Date(w.clock.now().getTime() + 20 * MINUTE);
    await w.manager.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt: sendAt.toISOString() });
    expect((await payDraftByCard(w.manager, [40])).status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order || x === undefined) throw new Error("no order");
    expect(order.status).toBe("scheduled");
    const who = await w.member(x);

    const refused = await expectProblem(await w.manager.go("DELETE", `Users/${x}`), 409);
    expect(refused.detail).toBe(
      `${who.firstName} ${who.lastName} is in a reward scheduled for Sat, 1 Mar 2025, 8:20 pm AEDT (order #${order.id}). Cancel that scheduled send on its page, or wait until it is sent, then remove them.`,
    );
    expect((await w.member(x)).isActive).toBe(true);
    expect(await db().select().from(auditLog).where(eq(auditLog.action, "member.removed"))).toEqual([]);

    // Cancelled (and refunded): the removal goes through; the time passing releases nothing.
    await w.manager.json("POST", `RewardOrders/${order.id}/cancel`);
    expect((await w.manager.go("DELETE", `Users/${x}`)).status).toBe(204);
    w.clock.advance(30 * MINUTE);
    await releaseDueOrders(w.services, { advisoryLocks: kind === "postgres" });
    expect(await db().select().from(rewardLots)).toEqual([]);
    expect(await w.mailTo(who.email)).toEqual([]);
    await w.clean();
  });

  it("a member removed while the card payment is in flight is never credited: the order is cancelled and refunded, the payer told, the code redeems nothing", async () => {
    const w = await world();
    const [x] = await seedDraft(db(), w.manager, [40]);
    if (x === undefined) throw new Error("no member");
    const who = await w.member(x);
    const intent = await w.manager.json<{ paymentIntentId: string; orderId: number }>(
      "POST",
      "StripePayment/create-payment-intent",
      { amount: Number(chargesFor([40]).totalCents) },
    );
    // Paid at the processor, not yet released here: removal cannot see it as paid.
    await db()
      .update(simulatedPayments)
      .set({ status: "succeeded" })
      .where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect((await w.manager.go("DELETE", `Users/${x}`)).status).toBe(204);

    const checked = await w.manager.json<{ status: string }>("POST", "StripePayment/check-payment-intent", {
      paymentIntent: intent.paymentIntentId,
    });
    void checked;
    const [order] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(order).toMatchObject({ status: "cancelled", releasedAt: null, failureReason: "member_removed" });
    expect(await db().select().from(rewardLots)).toEqual([]);
    expect(await db().select().from(recipientAccounts)).toEqual([]);
    expect(await w.mailTo(who.email)).toEqual([]);

    // The scheduler's pass refunds it to the card and tells the payer why; the page says so too.
    await releaseDueOrders(w.services, { advisoryLocks: kind === "postgres" });
    const [refunded] = await db().select().from(orders).where(eq(orders.id, intent.orderId));
    expect(refunded?.refundedAt).not.toBeNull();
    const [payment] = await db()
      .select()
      .from(simulatedPayments)
      .where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect(payment?.refundId).toBeTruthy();
    const told = (await w.mailTo(w.manager.email)).find((e) => e.subject.startsWith("Cancelled and refunded"));
    expect(told?.text).toContain(
      `because ${who.firstName} ${who.lastName} was removed from the team after it was paid`,
    );
    const view = await w.manager.json<RewardOrderView>("GET", `RewardOrders/${intent.orderId}`);
    expect(view).toMatchObject({
      state: "cancelled",
      cancelledForRemoved: [`${who.firstName} ${who.lastName}`],
      refundedAt: expect.any(String),
    });
    const cancelled = await db().select().from(auditLog).where(eq(auditLog.action, "order.cancelled"));
    expect(cancelled.map((a) => a.data)).toEqual([
      expect.objectContaining({ reason: "member_removed", removedUserIds: [x] }),
    ]);
    // A webhook arriving late changes nothing.
    await releaseDueOrders(w.services, { advisoryLocks: kind === "postgres" });
    expect(await db().select().from(rewardLots)).toEqual([]);
    await w.clean();
  });

  it("a removed member's access code redeems nothing (404, as an unknown code)", async () => {
    const w = await world();
    const [x] = await seedDraft(db(), w.manager, [40]);
    expect((await payDraftByCard(w.manager, [40])).status).toBe("succeeded");
    if (x === undefined) throw new Error("no member");
    const [account] = await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, x));
    if (!account) throw new Error("no account");
    expect((await w.redeem(account.accessCode, 5_00)).status).toBe(201);
    expect((await w.manager.go("DELETE", `Users/${x}`)).status).toBe(204);
    // Un-forfeit the lot by hand: the refusal must not rest on the forfeited balance alone.
    const [lot] = await db().select().from(rewardLots).where(eq(rewardLots.userId, x));
    if (!lot) throw new Error("no lot");
    await db().update(rewardLots).set({ remainingCents: 35_00, forfeitedAt: null }).where(eq(rewardLots.id, lot.id));
    const refused = await expectProblem(await w.redeem(account.accessCode, 5_00), 404);
    expect(refused.detail).toBe("No reward account has this access code.");
    await db()
      .update(rewardLots)
      .set({ remainingCents: lot.remainingCents, forfeitedAt: lot.forfeitedAt })
      .where(eq(rewardLots.id, lot.id));
    await w.clean();
  });

  it("an API order awaiting approval does not block removal; its approval is then refused and nothing is charged", async () => {
    const w = await world();
    const key = await w.manager.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    await w.manager.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    await db().transaction(async (tx) => {
      const [row] = await tx
        .insert(balanceTopUps)
        .values({
          companyId: w.manager.companyId,
          requestedBy: w.manager.userId,
          amountCents: 500_00,
          status: "paid",
          processor: "simulated",
          paidAt: w.clock.now(),
        })
        .returning({ id: balanceTopUps.id });
      if (!row) throw new Error("no top-up");
      await moveBalance(tx, w.manager.companyId, { kind: "top_up", topUpId: row.id, amountCents: 500_00 });
    });
    const res = await w.api.request("/api/v1/orders", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.key}`,
        "content-type": "application/json",
        "idempotency-key": randomUUID(),
      },
      body: JSON.stringify({
        rewardName: "Big thanks",
        recipients: [{ email: "olivia@example.com", firstName: "Olivia", lastName: "Nguyen", amount: 150 }],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { orderId } = (await res.json()) as { orderId: number };
    const [x] = await db().select().from(users).where(eq(users.email, "olivia@example.com"));
    if (!x) throw new Error("no member");
    expect((await w.manager.go("DELETE", `Users/${x.id}`)).status).toBe(204);

    const refused = await expectProblem(await w.manager.go("POST", `Approvals/${orderId}/approve`), 409);
    expect(refused.detail).toBe(
      "Olivia Nguyen was removed from the team after this request was made. Decline it and ask for a new one.",
    );
    expect(await balanceOf(db(), w.manager.companyId)).toBe(500_00);
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toEqual([]);
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ approvalStatus: "requested", status: "pending", paidAt: null });
    expect(await db().select().from(rewardLots)).toEqual([]);
    expect(await w.mailTo("olivia@example.com")).toEqual([]);
    // Declining still works.
    expect((await w.manager.go("POST", `Approvals/${orderId}/decline`, { reason: "Olivia left" })).status).toBe(204);
    await w.clean();
  });

  it.runIf(kind === "postgres")(
    "a removal racing the release of a due scheduled order: either it is refused or the release never credits",
    async () => {
      for (let round = 0; round < 4; round++) {
        await truncateAll(db());
        const w = await world();
        const [x] = await seedDraft(db(), w.manager, [40]);
        if (x === undefined) throw new Error("no member");
        const sendAt = new Date(w.clock.now().getTime() + 20 * MINUTE);
        await w.manager.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt: sendAt.toISOString() });
        expect((await payDraftByCard(w.manager, [40])).status).toBe("succeeded");
        w.clock.advance(21 * MINUTE);
        const [removal] = await Promise.all([
          w.manager.go("DELETE", `Users/${x}`),
          releaseDueOrders(w.services, { advisoryLocks: true }),
        ]);
        const active = (await w.member(x)).isActive;
        const lots = await db().select().from(rewardLots).where(eq(rewardLots.userId, x));
        if (removal.status === 409) {
          expect(active).toBe(true);
        } else {
          expect(removal.status).toBe(204);
          expect(active).toBe(false);
          // Released first, then removed: whatever it credited is forfeited.
          expect(lots.every((l) => l.remainingCents === 0)).toBe(true);
        }
        await w.clean();
      }
    },
  );
});
