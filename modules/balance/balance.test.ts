// The prepaid balance's card top-ups (ADR 0043) through the API, on PGlite and PostgreSQL: an
// Owner tops up by the simulated card (4242… credits once, 4000 0000 0000 0002 is declined and
// changes nothing, 4000 0025 0000 3155 needs the authentication step); ten concurrent checks, the
// webhook's handler and the reconciler credit one payment exactly once; a payment that does not
// match its top-up credits nothing; a Manager reads the balance but cannot top up (403, nothing
// changes); another company's top-up is a 404; bad amounts are a clear 400 and change nothing.
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  balanceEntries,
  balanceTopUps,
  companies,
  orders,
  simulatedPayments,
} from "../../server/db/schema.ts";
import { confirmSimulatedCard, simulatedProcessor, TEST_CARDS } from "../../server/payments/simulated.ts";
import { addManager, snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { CARD } from "../../tests/support/app-process.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call } from "../identity/accounts.testkit.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { startReconciler } from "../orders/reconciler.server.ts";
import {
  type BalanceView,
  type CreatedTopUp,
  entryLabel,
  TOP_UP_DETAILS,
  type TopUpCheck,
  type TopUpView,
} from "./schema.ts";
import { moveBalance } from "./service.server.ts";
import { checkTopUp, handleTopUpEvent, reconcileTopUp } from "./top-ups.server.ts";

const MINUTE = 60_000;

type SimulatedAnswer = { status: string; message?: string; field?: string; check: TopUpCheck };

describeEachDatabase("prepaid balance top-ups", ({ kind, database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** A (an Owner and a Manager of the same company) and B (another company's Owner). */
  async function world() {
    const ctx = paymentsApi(db(), { config });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const b = await payingManager(ctx.api, db(), "Bravo Pty Ltd");
    const m = await addManager(ctx.api, db(), owner.companyId, "morgan.manager@alpha.example");
    const manager = {
      ...m,
      go: (method: string, path: string, body?: unknown) => call(ctx.api, method, `/api/${path}`, body, m.accessToken),
    };
    const services = {
      db: db(),
      payments: simulatedProcessor(db(), ctx.clock.now),
      logger: captureLogs("silent").logger,
      now: ctx.clock.now,
    };
    const caller = { companyId: owner.companyId, userId: owner.userId };
    return { ...ctx, owner, manager, b, services, caller };
  }

  const balanceOfCompany = async (companyId: number) =>
    (await db().select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, companyId)))[0]?.c;
  const entries = () => db().select().from(balanceEntries);
  const toppedUpAudits = () => db().select().from(auditLog).where(eq(auditLog.action, "balance.topped_up"));

  it("an Owner tops up $50 with 4242…: credited once, the top-up paid, the statement and the audit say so", async () => {
    const { owner, manager } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 5000 }, 201);
    expect(created).toEqual({
      topUpId: expect.any(Number),
      paymentIntentId: expect.stringMatching(/^pi_sim_/),
      clientSecret: expect.stringContaining("_secret_"),
      amount: 5000,
      processor: "simulated",
    });
    // The payment names the top-up, not an order, and is for exactly the amount (no fee, no GST).
    const [payment] = await db().select().from(simulatedPayments);
    expect(payment?.metadata).toEqual({ topUpId: String(created.topUpId), companyId: String(owner.companyId) });
    expect(payment?.amountCents).toBe(5000);
    expect(payment?.idempotencyKey).toBe(`top-up-${created.topUpId}-payment`);
    expect((await owner.json<TopUpView>("GET", `Balance/TopUps/${created.topUpId}`)).status).toBe("pending");

    const paid = await owner.json<SimulatedAnswer>("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    expect(paid.status).toBe("succeeded");
    expect(paid.check).toMatchObject({ topUpId: created.topUpId, amount: 5000, status: "succeeded", balance: 5000 });
    // The check after the card form: idempotent, no second credit.
    const again = await owner.json<TopUpCheck>("POST", `Balance/TopUps/${created.topUpId}/check`);
    expect(again).toEqual({ topUpId: created.topUpId, amount: 5000, status: "succeeded", balance: 5000 });

    expect(await balanceOfCompany(owner.companyId)).toBe(5000);
    const [topUp] = await db().select().from(balanceTopUps);
    expect(topUp).toMatchObject({ status: "paid", paymentIntentId: created.paymentIntentId, failureReason: null });
    expect(topUp?.paidAt).toBeInstanceOf(Date);
    expect(await toppedUpAudits()).toEqual([
      expect.objectContaining({
        actorUserId: owner.userId,
        subject: `top_up:${created.topUpId}`,
        data: expect.objectContaining({ amountCents: 5000, balanceAfterCents: 5000, source: "simulated-confirm" }),
      }),
    ]);

    const view = await owner.json<BalanceView>("GET", "Balance");
    expect(view).toMatchObject({ balance: 5000, canTopUp: true, processor: "simulated" });
    expect(view.entries).toEqual([
      {
        id: expect.any(Number),
        kind: "top_up",
        amount: 5000,
        balanceAfter: 5000,
        at: expect.any(String),
        topUpId: created.topUpId,
        order: null,
      },
    ]);
    // A Manager reads the same balance, without the top-up form.
    const res = await manager.go("GET", "Balance");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ balance: 5000, canTopUp: false, entries: view.entries });
  });

  it("credits exactly once when ten checks, the webhook and the reconciler race for one paid top-up", async () => {
    const { owner, services, caller, clock } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 12_300 }, 201);
    // Paid at the processor; nobody has been told yet.
    const paid = await confirmSimulatedCard(
      db(),
      { paymentIntentId: created.paymentIntentId, clientSecret: created.clientSecret, ...CARD },
      clock.now(),
    );
    expect(paid?.status).toBe("succeeded");
    const payment = await services.payments.retrieve(created.paymentIntentId);
    if (!payment) throw new Error("no payment");
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => owner.go("POST", `Balance/TopUps/${created.topUpId}/check`)),
      handleTopUpEvent(services, { type: "payment_intent.succeeded", payment }),
      reconcileTopUp(services, created.topUpId),
      checkTopUp(services, caller, created.topUpId),
    ]);
    for (const res of results.slice(0, 10) as Response[]) {
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: "succeeded", balance: 12_300 });
    }
    expect(await balanceOfCompany(owner.companyId)).toBe(12_300);
    expect(await entries()).toHaveLength(1);
    expect(await toppedUpAudits()).toHaveLength(1);
    // And later, again: nothing more.
    expect(await handleTopUpEvent(services, { type: "payment_intent.succeeded", payment })).toBe("already_credited");
    expect(await reconcileTopUp(services, created.topUpId)).toBe("already_credited");
    expect(await balanceOfCompany(owner.companyId)).toBe(12_300);
  });

  it("a declined card (4000 0000 0000 0002) fails the top-up with the processor's message and credits nothing", async () => {
    const { owner } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 2000 }, 201);
    const declined = await owner.json<SimulatedAnswer>("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, {
      ...CARD,
      cardNumber: TEST_CARDS.declined,
    });
    expect(declined).toMatchObject({ status: "failed", message: "Your card was declined." });
    expect(declined.check).toMatchObject({ status: "failed", balance: 0 });
    expect(await owner.json<TopUpView>("GET", `Balance/TopUps/${created.topUpId}`)).toMatchObject({
      status: "failed",
      failureReason: "Your card was declined.",
    });
    expect(await balanceOfCompany(owner.companyId)).toBe(0);
    expect(await entries()).toEqual([]);
    expect(await toppedUpAudits()).toEqual([]);
    // A card the form refuses (a bad number) does not touch the payment at all.
    const invalid = await owner.json<SimulatedAnswer>("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, {
      ...CARD,
      cardNumber: "4242 4242 4242 4241",
    });
    expect(invalid).toMatchObject({ status: "failed", field: "cardNumber" });
    expect(await balanceOfCompany(owner.companyId)).toBe(0);
    // The same top-up paid with another card is credited (once) and marked paid.
    const paid = await owner.json<SimulatedAnswer>("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    expect(paid.check).toMatchObject({ status: "succeeded", balance: 2000 });
    expect((await db().select().from(balanceTopUps))[0]).toMatchObject({ status: "paid", failureReason: null });
  });

  it("4000 0025 0000 3155 asks for authentication: Fail credits nothing, Complete credits once", async () => {
    const { owner } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 1000 }, 201);
    const path = `Balance/TopUps/${created.topUpId}`;
    const asked = await owner.json<SimulatedAnswer>("POST", `${path}/pay-simulated`, {
      ...CARD,
      cardNumber: TEST_CARDS.authentication,
    });
    expect(asked).toMatchObject({ status: "requires_action", check: { status: "requires_action", balance: 0 } });
    const failed = await owner.json<SimulatedAnswer>("POST", `${path}/authenticate-simulated`, { outcome: "fail" });
    expect(failed.status).toBe("failed");
    expect(await balanceOfCompany(owner.companyId)).toBe(0);
    await owner.json("POST", `${path}/pay-simulated`, { ...CARD, cardNumber: TEST_CARDS.authentication });
    const done = await owner.json<SimulatedAnswer>("POST", `${path}/authenticate-simulated`, { outcome: "complete" });
    expect(done).toMatchObject({ status: "succeeded", check: { status: "succeeded", balance: 1000 } });
    expect(await entries()).toHaveLength(1);
  });

  it("a Manager cannot top up, check or pay a top-up (403) and nothing changes", async () => {
    const { owner, manager } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 5000 }, 201);
    const before = await snapshot(db());
    for (const [method, path, body] of [
      ["POST", "Balance/TopUps", { amount: 5000 }],
      ["POST", "Balance/TopUps", { amount: "nonsense" }],
      ["GET", `Balance/TopUps/${created.topUpId}`, undefined],
      ["POST", `Balance/TopUps/${created.topUpId}/check`, undefined],
      ["POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD],
      ["POST", `Balance/TopUps/${created.topUpId}/authenticate-simulated`, { outcome: "complete" }],
    ] as const) {
      const problem = await expectProblem(await manager.go(method, path, body), 403);
      expect(problem.detail).toBe(DETAILS.ownerOnly);
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("another company's top-up is a 404 on every call, and nothing changes", async () => {
    const { owner, b } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 5000 }, 201);
    const before = await snapshot(db());
    for (const [method, path, body] of [
      ["GET", `Balance/TopUps/${created.topUpId}`, undefined],
      ["POST", `Balance/TopUps/${created.topUpId}/check`, undefined],
      ["POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD],
      ["POST", `Balance/TopUps/${created.topUpId}/authenticate-simulated`, { outcome: "complete" }],
      ["POST", "Balance/TopUps/999999/check", undefined],
    ] as const) {
      const problem = await expectProblem(await b.go(method, path, body), 404);
      expect(problem.detail).toBe(TOP_UP_DETAILS.notFound);
    }
    expect(await snapshot(db())).toEqual(before);
    expect((await b.json<BalanceView>("GET", "Balance")).entries).toEqual([]);
  });

  it("a succeeded payment that does not match its top-up (amount, metadata, company, payment) credits nothing", async () => {
    const { owner, b, services, clock } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 5000 }, 201);
    await confirmSimulatedCard(
      db(),
      { paymentIntentId: created.paymentIntentId, clientSecret: created.clientSecret, ...CARD },
      clock.now(),
    );
    const payment = await services.payments.retrieve(created.paymentIntentId);
    if (!payment) throw new Error("no payment");
    const topUpId = String(created.topUpId);
    for (const wrong of [
      { ...payment, amountCents: 500_000 },
      { ...payment, currency: "usd" },
      { ...payment, metadata: { topUpId, companyId: String(b.companyId) } },
      { ...payment, paymentIntentId: "pi_sim_someone_else" },
      { ...payment, status: "requires_payment_method" as const },
    ]) {
      expect(await handleTopUpEvent(services, { type: "payment_intent.succeeded", payment: wrong })).toBe("mismatch");
    }
    // An order's payment (its metadata names an order) is not a top-up's.
    const orderPayment = { ...payment, metadata: { orderId: topUpId, companyId: String(owner.companyId) } };
    expect(await handleTopUpEvent(services, { type: "payment_intent.succeeded", payment: orderPayment })).toBe(
      "ignored",
    );
    // The check reads the processor's record: tampered with, it is refused as well.
    await db()
      .update(simulatedPayments)
      .set({ amountCents: 4000 })
      .where(eq(simulatedPayments.id, created.paymentIntentId));
    const checked = await owner.json<TopUpCheck>("POST", `Balance/TopUps/${created.topUpId}/check`);
    expect(checked).toMatchObject({ status: "failed", message: TOP_UP_DETAILS.mismatch, balance: 0 });
    expect(await balanceOfCompany(owner.companyId)).toBe(0);
    expect(await entries()).toEqual([]);
    expect((await db().select().from(balanceTopUps))[0]?.status).toBe("pending");
  });

  it("the statement names an order's charge and refund by its invoice number and reward name, newest first", async () => {
    const { owner, b } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 50_000 }, 201);
    await owner.json("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, CARD);
    // An order of A's (paid by card here; a system's order charges the balance the same way).
    await seedDraft(db(), owner, [100], "Holiday thanks");
    expect((await payDraftByCard(owner, [100])).status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order) throw new Error("no order");
    await db().transaction(async (tx) => {
      await moveBalance(tx, owner.companyId, { kind: "order", orderId: order.id, amountCents: 11_100 });
      await moveBalance(tx, owner.companyId, { kind: "refund", orderId: order.id, amountCents: 11_100 });
    });
    const view = await owner.json<BalanceView>("GET", "Balance");
    expect(view.balance).toBe(50_000);
    const named = { id: order.id, invoiceNumber: order.invoiceNumber, rewardName: "Holiday thanks" };
    expect(view.entries.map((e) => [e.kind, e.amount, e.balanceAfter, e.order])).toEqual([
      ["refund", 11_100, 50_000, named],
      ["order", -11_100, 38_900, named],
      ["top_up", 50_000, 50_000, null],
    ]);
    expect(order.invoiceNumber).toMatch(/^INV/);
    expect(entryLabel(view.entries[1] as (typeof view.entries)[number])).toBe(
      `Order ${order.invoiceNumber} · Holiday thanks`,
    );
    // Another company's statement holds none of it.
    expect(await b.json<BalanceView>("GET", "Balance")).toMatchObject({ balance: 0, entries: [] });
  });

  it("card attempts on top-ups are limited per company (cardPayment's budget): the 21st in ten minutes is a 429", async () => {
    const { owner } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 1000 }, 201);
    const attempt = () =>
      owner.go("POST", `Balance/TopUps/${created.topUpId}/pay-simulated`, { ...CARD, cardNumber: TEST_CARDS.declined });
    for (let i = 0; i < 20; i++) expect((await attempt()).status).toBe(200);
    await expectProblem(await attempt(), 429);
    expect(await balanceOfCompany(owner.companyId)).toBe(0);
  });

  it("starting top-ups is limited per company: the 21st in an hour is a 429 and makes no top-up; another company has its own", async () => {
    const { owner, b } = await world();
    for (let i = 0; i < 20; i++) await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 1000 }, 201);
    await expectProblem(await owner.go("POST", "Balance/TopUps", { amount: 1000 }), 429);
    const rows = await db().select().from(balanceTopUps).where(eq(balanceTopUps.companyId, owner.companyId));
    expect(rows).toHaveLength(20);
    await b.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 1000 }, 201);
  });

  it("bad amounts are a 400 with a clear detail, and nothing changes", async () => {
    const { owner } = await world();
    const before = await snapshot(db());
    for (const [body, detail] of [
      [{}, TOP_UP_DETAILS.amountRequired],
      [{ amount: "5000" }, TOP_UP_DETAILS.amountRequired],
      [{ amount: 5050 }, TOP_UP_DETAILS.amountWholeDollars],
      [{ amount: 5000.5 }, TOP_UP_DETAILS.amountWholeDollars],
      [{ amount: 0 }, TOP_UP_DETAILS.amountRange],
      [{ amount: -5000 }, TOP_UP_DETAILS.amountRange],
      [{ amount: 900 }, TOP_UP_DETAILS.amountRange],
      [{ amount: 10_000_100 }, TOP_UP_DETAILS.amountRange],
      [{ amount: 1e20 }, TOP_UP_DETAILS.amountWholeDollars],
    ] as const) {
      const problem = await expectProblem(await owner.go("POST", "Balance/TopUps", body), 400);
      expect(problem.detail, JSON.stringify(body)).toContain(detail);
    }
    // The limits themselves are accepted.
    expect(TOP_UP_DETAILS.amountRange).toBe("Top up at least $10.00 and at most $100,000.00.");
    expect(await snapshot(db())).toEqual(before);
  });

  it("the reconciler credits a top-up paid but never confirmed, once it is old enough", async () => {
    const { owner, services, clock } = await world();
    const created = await owner.json<CreatedTopUp>("POST", "Balance/TopUps", { amount: 3000 }, 201);
    await confirmSimulatedCard(
      db(),
      { paymentIntentId: created.paymentIntentId, clientSecret: created.clientSecret, ...CARD },
      clock.now(),
    );
    const r = startReconciler(
      { services: { ...services, release: { config } }, advisoryLocks: kind === "postgres" },
      false,
    );
    try {
      expect(await r.runOnce()).toMatchObject({ scanned: 0, credited: 0 });
      clock.advance(3 * MINUTE);
      expect(await r.runOnce()).toMatchObject({ scanned: 1, credited: 1, errors: 0 });
      expect(await r.runOnce()).toMatchObject({ scanned: 0, credited: 0 });
    } finally {
      await r.stop();
    }
    expect(await balanceOfCompany(owner.companyId)).toBe(3000);
    expect((await toppedUpAudits())[0]?.data).toMatchObject({ source: "reconcile" });
    const [n] = await db().select({ n: sql<number>`count(*)::int` }).from(balanceEntries);
    expect(n?.n).toBe(1);
  });
});
