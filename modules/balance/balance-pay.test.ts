// The portal's reward list paid from the company's prepaid balance (ADR 0043), through the API, on PGlite and PostgreSQL:
// - a Manager pays from the balance: one charge (a ledger entry), the order released once, the
//   tax invoice "Paid from the prepaid balance"; a repeat of the post answers the same order;
// - a short balance is 402 with both amounts, and nothing changes;
// - two posts at once (PostgreSQL: really concurrent) charge once; a portal payment and a system's
//   API order at once never overdraw the balance together;
// - a card payment racing a balance payment: exactly one of them pays;
// - a card payment already made refuses the balance (409);
// - a charged order whose release failed: the card refused, a late card failure fails nothing,
//   and the scheduler releases it;
// - over the approval threshold, the balance pays only the approved order;
// - a scheduled balance order cancelled is credited back to the balance once;
// - the money check finds nothing after each.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  balanceEntries,
  companies,
  orders,
  rewardDrafts,
  rewardLedger,
  rewardReleases,
  simulatedPayments,
} from "../../server/db/schema.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { addManager, snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { CARD } from "../../tests/support/app-process.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { TaxInvoice } from "../invoices/schema.ts";
import { checkMoney } from "../money-check/service.server.ts";
import { payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { PAYMENT_DETAILS, type PayOrderResponse } from "../orders/schema.ts";
import { handlePaymentEvent } from "../orders/service.server.ts";
import { releaseDueOrders } from "../scheduled-sends/service.server.ts";

const TOTAL = chargesFor([100]).totalCents; // $111.00

describeEachDatabase("paying from the prepaid balance", ({ kind, database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** An Owner who tops up `topUpCents` by the simulated card, and a Manager of the same company with a $100 draft. */
  async function world(topUpCents: number, onReleaseLine?: () => void) {
    const ctx = paymentsApi(db(), { config, onReleaseLine });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    if (topUpCents > 0) {
      const created = await owner.json<{ topUpId: number }>("POST", "Balance/TopUps", { amount: topUpCents }, 201);
      await owner.json("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    }
    const m = await addManager(ctx.api, db(), owner.companyId, "morgan.manager@alpha.example");
    const go = (method: string, path: string, body?: unknown) =>
      call(ctx.api, method, `/api/${path}`, body, m.accessToken);
    const manager = { ...m, go };
    await seedDraft(db(), manager, [100]);
    return { ...ctx, owner, manager };
  }

  const balanceOf = async (companyId: number) =>
    (await db().select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, companyId)))[0]?.c;
  const orderCharges = () => db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"));
  const releases = () => db().select().from(rewardReleases);
  const credits = () => db().select().from(rewardLedger).where(eq(rewardLedger.kind, "credit"));
  const moneyFindings = async (now: Date) => (await checkMoney(db(), { now })).findings;
  const pay = (manager: { go: (m: string, p: string, b?: unknown) => Promise<Response> | Response }, amount = TOTAL) =>
    manager.go("POST", "Balance/pay-order", { amount });

  it("a Manager pays from the balance: charged once, released once, the invoice says how it was paid", async () => {
    const { owner, manager, clock } = await world(20000);
    const wording = { rewardName: "Balance Stars", message: "Thank you", senderName: "Morgan", sendAt: null };
    const post = () => manager.go("POST", "Balance/pay-order", { amount: TOTAL, rewardName: "Balance Stars", wording });
    const res = await post();
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const paid = JSON.parse(text) as PayOrderResponse;
    expect(paid).toEqual({ orderId: expect.any(Number), amount: TOTAL, balance: 20000 - TOTAL, sendAt: null });

    expect(await balanceOf(owner.companyId)).toBe(20000 - TOTAL);
    const charges = await orderCharges();
    expect(charges).toEqual([
      expect.objectContaining({ orderId: paid.orderId, amountCents: -TOTAL, balanceAfterCents: 20000 - TOTAL }),
    ]);
    expect(await releases()).toHaveLength(1);
    expect(await credits()).toEqual([expect.objectContaining({ amountCents: 10000 })]);
    const [order] = await db().select().from(orders).where(eq(orders.id, paid.orderId));
    expect(order).toMatchObject({
      status: "paid",
      processor: "balance",
      paymentPath: "balance",
      paymentIntentId: null,
    });
    // No card payment was made for it.
    expect(await db().select().from(simulatedPayments)).toHaveLength(1); // the top-up's

    // The tax invoice (page, PDF and email are made from this one view: modules/invoices/schema.ts).
    const invoice = (await (await manager.go("GET", `Invoices/${order?.invoiceNumber}`)).json()) as TaxInvoice;
    expect(invoice.paidFrom).toBe("balance");
    expect(invoice.totalCents).toBe(TOTAL);

    // The same post again (a double submit once the first was released): the same order, nothing more.
    const again = await post();
    expect(again.status).toBe(200);
    expect(((await again.json()) as PayOrderResponse).orderId).toBe(paid.orderId);
    expect(await orderCharges()).toHaveLength(1);
    expect(await releases()).toHaveLength(1);
    // The emptied draft is left as the release left it (the repeat's wording is not written back).
    const [draft] = await db().select().from(rewardDrafts).where(eq(rewardDrafts.userId, manager.userId));
    expect(draft).toMatchObject({ name: "", message: "", version: (order?.draftVersion ?? 0) + 1 });
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a short balance is 402 with both amounts, and nothing changes", async () => {
    const { owner, manager, clock } = await world(5000);
    const before = await snapshot(db(), ["rate_limit_counters"]);
    expect((await expectProblem(await pay(manager), 402)).detail).toBe(
      "The company balance ($50.00) does not cover this order ($111.00). An Owner can top it up in Settings → Balance.",
    );
    expect(await snapshot(db(), ["rate_limit_counters"])).toEqual(before);
    expect(await balanceOf(owner.companyId)).toBe(5000);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("the total the page showed must be the draft's: another amount is 409 and nothing is charged", async () => {
    const { owner, manager } = await world(20000);
    expect((await expectProblem(await pay(manager, TOTAL - 1), 409)).detail).toBe(PAYMENT_DETAILS.amountChanged);
    expect(await balanceOf(owner.companyId)).toBe(20000);
    expect(await orderCharges()).toEqual([]);
  });

  it("two posts at once charge the balance once and release once", async () => {
    const { owner, manager, clock } = await world(50000);
    const answers = await Promise.all([pay(manager), pay(manager), pay(manager)]);
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: await r.text() })));
    // Each post answers the one order (a double submit shows the confirmation), or a conflict.
    const ok = bodies.filter((b) => b.status === 200).map((b) => (JSON.parse(b.body) as PayOrderResponse).orderId);
    expect(ok.length, JSON.stringify(bodies)).toBeGreaterThan(0);
    expect(new Set(ok).size).toBe(1);
    for (const b of bodies) expect([200, 409], b.body).toContain(b.status);
    expect(await orderCharges()).toHaveLength(1);
    expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);
    expect(await releases()).toHaveLength(1);
    expect(await credits()).toHaveLength(1);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a portal balance payment and a system's API order at once, each $111 on a $150 balance: one is charged, the other 402, never overdrawn", async () => {
    const { api, owner, manager, clock } = await world(15000);
    const key = await owner.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    const apiOrder = () =>
      api.request("/api/v1/orders", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.key}`,
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify({
          rewardName: "From payroll",
          recipients: [{ email: "payroll.person@example.com", firstName: "Pat", lastName: "Payroll", amount: 100 }],
        }),
      });
    const [portal, system] = await Promise.all([pay(manager), apiOrder()]);
    const statuses = [portal.status, system.status].sort();
    // The portal answers 200 when paid; the API 201 (released) or 202 (accepted); the loser 402.
    expect(
      statuses.filter((s) => s === 402),
      statuses.join(","),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s >= 200 && s < 300),
      statuses.join(","),
    ).toHaveLength(1);
    expect(await orderCharges()).toHaveLength(1);
    expect(await balanceOf(owner.companyId)).toBe(15000 - TOTAL);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a card payment racing a balance payment: exactly one of them pays", async () => {
    for (let round = 0; round < (kind === "postgres" ? 3 : 1); round++) {
      await truncateAll(db());
      const { owner, manager, clock } = await world(50000);
      const byCard = async () => {
        const intent = await manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL });
        if (intent.status !== 200) return { card: "refused", status: intent.status };
        const { paymentIntentId, clientSecret } = (await intent.json()) as {
          paymentIntentId: string;
          clientSecret: string;
        };
        const confirmed = await manager.go("POST", "StripePayment/confirm-simulated-payment", {
          paymentIntent: paymentIntentId,
          clientSecret,
          ...CARD,
        });
        return { card: confirmed.status === 200 ? ((await confirmed.json()) as { status: string }).status : "refused" };
      };
      const [card, balance] = await Promise.all([byCard(), pay(manager)]);
      const paidByCard = (await db().select().from(simulatedPayments)).filter(
        (p) => p.status === "succeeded" && p.metadata.orderId !== undefined,
      );
      const charged = await orderCharges();
      // One payment in all: the card's or the balance's.
      expect(paidByCard.length + charged.length, JSON.stringify({ card, balance: balance.status })).toBe(1);
      if (charged.length === 1) {
        expect(balance.status).toBe(200);
        expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);
      } else {
        expect(balance.status).toBe(409);
        expect(await balanceOf(owner.companyId)).toBe(50000);
      }
      expect(await releases()).toHaveLength(1);
      expect(await credits()).toHaveLength(1);
      expect(await moneyFindings(clock.now())).toEqual([]);
    }
  });

  it("a card payment made first (not yet released) refuses the balance", async () => {
    const { owner, manager } = await world(50000);
    // A card payment confirmed but not yet released (the release is a separate step with Stripe).
    const intent = (await (
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL })
    ).json()) as {
      paymentIntentId: string;
    };
    await db()
      .update(simulatedPayments)
      .set({ status: "succeeded" })
      .where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect((await expectProblem(await pay(manager), 409)).detail).toBe(PAYMENT_DETAILS.cardUnderWay);
    expect(await balanceOf(owner.companyId)).toBe(50000);
    expect(await orderCharges()).toEqual([]);
  });

  it("a balance payment charged but not released refuses the card; the scheduler releases it", async () => {
    let failRelease = true;
    const { owner, manager, clock } = await world(50000, () => {
      if (failRelease) throw new Error("the release fails this time");
    });
    const res = await pay(manager);
    expect(res.status, await res.clone().text()).toBe(200);
    const { orderId } = (await res.json()) as PayOrderResponse;
    expect(await releases()).toEqual([]);
    expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);
    // Another tab's card: the reward list is being paid from the balance.
    const card = await manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL });
    expect((await expectProblem(card, 409)).detail).toBe(PAYMENT_DETAILS.paidFromBalance);
    expect(await db().select().from(simulatedPayments)).toHaveLength(1); // the top-up's
    // A card's failure reported late for the order (a webhook of a payment it once had) fails nothing.
    const services = {
      db: db(),
      payments: simulatedProcessor(db(), clock.now),
      logger: captureLogs("silent").logger,
      now: clock.now,
      release: { config },
    };
    const failed = {
      paymentIntentId: "pi_sim_old",
      status: "requires_payment_method" as const,
      amountCents: TOTAL,
      currency: "aud",
      metadata: { orderId: String(orderId), companyId: String(owner.companyId) },
      lastError: "Your card was declined.",
    };
    await handlePaymentEvent(services, { type: "payment_intent.payment_failed", payment: failed });
    expect((await db().select().from(orders).where(eq(orders.id, orderId)))[0]?.status).toBe("pending");
    failRelease = false;
    clock.advance(2 * 60_000);
    await releaseDueOrders(services, { advisoryLocks: kind === "postgres" });
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ status: "paid" });
    expect(await releases()).toHaveLength(1);
    expect(await orderCharges()).toHaveLength(1);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a card payment of a superseded order of the same list, whose cancel failed then, refuses the balance", async () => {
    const { owner, manager } = await world(50000);
    const intent = (await (
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL })
    ).json()) as { paymentIntentId: string; orderId: number };
    // Superseded by another way of paying the same list (ADR 0041), its cancel lost: it paid later.
    await db()
      .update(orders)
      .set({ status: "failed", failureReason: "superseded" })
      .where(eq(orders.id, intent.orderId));
    await db()
      .update(simulatedPayments)
      .set({ status: "succeeded" })
      .where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect((await expectProblem(await pay(manager), 409)).detail).toBe(PAYMENT_DETAILS.cardUnderWay);
    expect(await balanceOf(owner.companyId)).toBe(50000);
    expect(await orderCharges()).toEqual([]);
  });

  it("a declined card's payment is cancelled and the balance pays instead; that card can no longer pay", async () => {
    const { owner, manager, clock } = await world(50000);
    const intent = (await (
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: TOTAL })
    ).json()) as {
      paymentIntentId: string;
      clientSecret: string;
    };
    const declined = await manager.go("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: intent.paymentIntentId,
      clientSecret: intent.clientSecret,
      ...CARD,
      cardNumber: "4000000000000002",
    });
    expect(((await declined.json()) as { status: string }).status).toBe("failed");
    const res = await pay(manager);
    expect(res.status, await res.clone().text()).toBe(200);
    const [card] = await db().select().from(simulatedPayments).where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect(card?.status).toBe("canceled");
    // The old tab tries the good card: refused, nothing paid twice.
    const retry = await manager.go("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: intent.paymentIntentId,
      clientSecret: intent.clientSecret,
      ...CARD,
    });
    expect(retry.status).toBe(409);
    expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);
    expect(await releases()).toHaveLength(1);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("over the threshold the balance pays only the approved order, as the card does", async () => {
    const { owner, manager, clock } = await world(50000);
    await owner.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    await expectProblem(await pay(manager), 403);
    const asked = (await (await manager.go("POST", "Approvals/request", { amount: TOTAL })).json()) as {
      orderId: number;
    };
    await expectProblem(await pay(manager), 409);
    expect(await orderCharges()).toEqual([]);
    const approved = await owner.go("POST", `Approvals/${asked.orderId}/approve`);
    expect(approved.status).toBe(204);
    // Approving charged nothing: the requester pays, from the card or the balance.
    expect(await balanceOf(owner.companyId)).toBe(50000);
    const res = await pay(manager);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as PayOrderResponse).orderId).toBe(asked.orderId);
    const [order] = await db().select().from(orders).where(eq(orders.id, asked.orderId));
    expect(order).toMatchObject({ status: "paid", processor: "balance", approvalStatus: "approved" });
    expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });

  it("a scheduled balance order cancelled is credited back to the balance once", async () => {
    const { owner, manager, clock } = await world(50000);
    const sendAt = new Date(clock.now().getTime() + 2 * 24 * 3600_000).toISOString();
    const res = await manager.go("POST", "Balance/pay-order", {
      amount: TOTAL,
      rewardName: "Quarterly Thanks",
      wording: { rewardName: "Quarterly Thanks", message: "", senderName: "Morgan", sendAt },
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const paid = JSON.parse(text) as PayOrderResponse;
    expect(paid.sendAt).toBe(sendAt);
    expect(await releases()).toEqual([]);
    expect(await balanceOf(owner.companyId)).toBe(50000 - TOTAL);

    const cancels = await Promise.all([
      manager.go("POST", `RewardOrders/${paid.orderId}/cancel`),
      manager.go("POST", `RewardOrders/${paid.orderId}/cancel`),
    ]);
    expect(cancels.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await balanceOf(owner.companyId)).toBe(50000);
    const refunds = await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "refund"));
    expect(refunds).toEqual([expect.objectContaining({ orderId: paid.orderId, amountCents: TOTAL })]);
    const [order] = await db().select().from(orders).where(eq(orders.id, paid.orderId));
    expect(order).toMatchObject({ status: "cancelled", refundId: `balance:${paid.orderId}` });
    expect(order?.refundedAt).toBeInstanceOf(Date);
    expect(await moneyFindings(clock.now())).toEqual([]);
  });
});
