// The payment calls (docs/requirements.md §S7 StripePayment) with the simulated card processor: the
// order snapshot and its refusals, the card form (success, decline, authentication pass and
// fail, invalid fields), the release exactly once (concurrent checks, retries, a failure midway),
// recipient accounts, ledger, the emails, the draft, tenant isolation.
import { verify } from "@node-rs/argon2";
import { eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  companies,
  emailOutbox,
  orderLines,
  orders,
  recipientAccounts,
  rewardDraftLines,
  rewardDrafts,
  rewardLedger,
  rewardReleases,
  simulatedPayments,
} from "../../server/db/schema.ts";
import { CARD_MESSAGES } from "../../server/payments/simulated.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { RewardHistoryItem } from "../identity/schema.ts";
import { payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";
import { recipientBalanceCents } from "./release.server.ts";
import type {
  CheckPaymentIntentResponse,
  CreatePaymentIntentResponse,
  SimulatedPaymentInfo,
  SimulatedPaymentResponse,
} from "./schema.ts";
import { PAYMENT_DETAILS } from "./schema.ts";

const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };

describeEachDatabase("StripePayment calls with the simulated processor", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/", SUPPORT_EMAIL: "help@rewards.test" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function setup(amounts = [60, 40], opts: { onReleaseLine?: (i: number) => void } = {}) {
    const ctx = paymentsApi(db(), { config, onReleaseLine: opts.onReleaseLine });
    const manager = await payingManager(ctx.api, db());
    const members = await seedDraft(db(), manager, amounts);
    return { ...ctx, manager, members };
  }

  const count = async (table: Parameters<ReturnType<Db["select"]>["from"]>[0]) => {
    const [row] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(table as typeof orders);
    return row?.n ?? 0;
  };

  const rewardEmails = async () =>
    (await db().select().from(emailOutbox)).filter((e) => !/verification code/i.test(e.subject));

  type Manager = Awaited<ReturnType<typeof setup>>["manager"];

  const createIntent = (m: Manager, amount: number, rewardName?: string, status = 200) =>
    m.json<CreatePaymentIntentResponse>(
      "POST",
      "StripePayment/create-payment-intent",
      { amount, ...(rewardName === undefined ? {} : { rewardName }) },
      status,
    );
  const confirm = (m: Manager, intent: CreatePaymentIntentResponse, card = CARD, status = 200) =>
    m.json<SimulatedPaymentResponse>(
      "POST",
      "StripePayment/confirm-simulated-payment",
      { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...card },
      status,
    );
  const check = (m: Manager, paymentIntent: string, status = 200) =>
    m.json<CheckPaymentIntentResponse>("POST", "StripePayment/check-payment-intent", { paymentIntent }, status);

  it("create-payment-intent freezes the draft into an order and a payment for its total ($100 → $111.00)", async () => {
    const { manager, members } = await setup([60, 40]);
    const created = await createIntent(manager, 11100);
    expect(created).toMatchObject({ amount: 11100, processor: "simulated" });
    expect(created.paymentIntentId).toMatch(/^pi_sim_/);
    expect(created.clientSecret).toMatch(new RegExp(`^${created.paymentIntentId}_secret_`));
    const [order] = await db().select().from(orders).where(eq(orders.id, created.orderId));
    expect(order).toMatchObject({
      companyId: manager.companyId,
      placedBy: manager.userId,
      rewardName: "Quarterly Thanks",
      rewardsCents: 10000,
      serviceFeeCents: 1000,
      gstCents: 100,
      totalCents: 11100,
      status: "pending",
      processor: "simulated",
      paymentIntentId: created.paymentIntentId,
    });
    const lines = await db().select().from(orderLines).where(eq(orderLines.orderId, created.orderId));
    expect(lines.map((l) => [l.userId, l.amountCents]).sort()).toEqual(
      [
        [members[0], 6000],
        [members[1], 4000],
      ].sort(),
    );
    const [payment] = await db().select().from(simulatedPayments);
    expect(payment).toMatchObject({
      id: created.paymentIntentId,
      amountCents: 11100,
      currency: "aud",
      status: "requires_payment_method",
      metadata: { orderId: String(created.orderId) },
      idempotencyKey: `order-${created.orderId}-payment`,
    });
  });

  it("uses the rewardName sent with the call, and leaves recipients at $0 out of the order", async () => {
    const { manager } = await setup([100, 0]);
    const created = await createIntent(manager, 11100, "  Spring Bonus ");
    const [order] = await db().select().from(orders).where(eq(orders.id, created.orderId));
    expect(order?.rewardName).toBe("Spring Bonus");
    expect(await count(orderLines)).toBe(1);
  });

  it("saves the wording sent with the payment to the draft and freezes it, in one call; a refused send time saves nothing", async () => {
    const { manager, clock } = await setup([100]);
    const draftRow = async () => (await db().select().from(rewardDrafts))[0];
    const before = await draftRow();
    // A send time under 10 minutes ahead: refused against its field, and the name and message stay unsaved.
    const soon = new Date(clock.now().getTime() + 60_000).toISOString();
    const wording = {
      rewardName: "Summer thanks",
      message: "Well done,\r\nteam",
      senderName: "The Board",
      sendAt: soon,
    };
    const refused = await manager.go("POST", "StripePayment/create-payment-intent", { amount: 11100, wording });
    const problem = await expectProblem(refused, 400);
    expect((problem as { errors?: Record<string, string[]> }).errors?.sendAt).toEqual([problem.detail]);
    expect(await draftRow()).toMatchObject({ name: before?.name, message: before?.message, version: before?.version });
    expect(await count(orders)).toBe(0);

    const later = new Date(clock.now().getTime() + 60 * 60_000).toISOString();
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
      wording: { ...wording, sendAt: later },
    });
    expect(await draftRow()).toMatchObject({
      name: "Summer thanks",
      message: "Well done,\nteam",
      senderName: "The Board",
    });
    const [order] = await db().select().from(orders).where(eq(orders.id, created.orderId));
    expect(order).toMatchObject({
      rewardName: "Summer thanks",
      message: "Well done,\nteam",
      senderName: "The Board",
      sendAt: new Date(later),
    });
    // The same call again (a double click) reuses the order: the saved words changed nothing.
    const again = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
      wording: { ...wording, sendAt: later },
    });
    expect(again.orderId).toBe(created.orderId);
  });

  it("refuses an empty draft, a $0 total, a missing reward name, a total over the card limit, and a wrong amount", async () => {
    const { api, manager } = await setup([]);
    expect(
      (await manager.json<{ detail: string }>("POST", "StripePayment/create-payment-intent", { amount: 0 }, 400))
        .detail,
    ).toBe(PAYMENT_DETAILS.emptyDraft);
    await seedDraft(db(), manager, [0, 0]);
    expect((await createIntent(manager, 0, undefined, 400)) as unknown as { detail: string }).toMatchObject({
      detail: PAYMENT_DETAILS.zeroTotal,
    });
    await seedDraft(db(), manager, [10], "");
    expect(await createIntent(manager, 1110, undefined, 400)).toMatchObject({ detail: PAYMENT_DETAILS.nameRequired });
    expect(await createIntent(manager, 1110, "   ", 400)).toMatchObject({ detail: PAYMENT_DETAILS.nameRequired });
    // 91 × $10,000 = $910,000 → fee $91,000, GST $9,100: $1,010,100 is over $999,999.99.
    await seedDraft(db(), manager, Array(91).fill(10_000), "Big");
    expect(await createIntent(manager, 101_010_000 + 1110, undefined, 400)).toMatchObject({
      detail: PAYMENT_DETAILS.overLimit,
    });
    expect(await count(orders)).toBe(0);
    void api;
  });

  it("refuses an amount that differs from the server's total (the draft changed): 409, nothing created", async () => {
    const { manager } = await setup([100]);
    const res = await manager.go("POST", "StripePayment/create-payment-intent", { amount: 10000 });
    expect((await expectProblem(res, 409)).detail).toBe("The reward list has changed; please review the new total.");
    expect(await count(orders)).toBe(0);
    expect(await count(simulatedPayments)).toBe(0);
  });

  it("answers 400 for malformed bodies and 401 without a token", async () => {
    const { api, manager } = await setup([100]);
    for (const body of [{}, { amount: "111" }, { amount: 11.5 }, { amount: -1 }]) {
      await expectProblem(await manager.go("POST", "StripePayment/create-payment-intent", body), 400);
    }
    await expectProblem(await manager.go("POST", "StripePayment/check-payment-intent", {}), 400);
    for (const path of [
      "create-payment-intent",
      "check-payment-intent",
      "confirm-simulated-payment",
      "complete-simulated-authentication",
      "get-simulated-payment",
    ]) {
      const res = await call(api, "POST", `/api/StripePayment/${path}`, { amount: 1 });
      expect((await expectProblem(res, 401)).detail).toBe(DETAILS.unauthorized);
    }
  });

  it("reuses the pending order and payment for an unchanged draft; a changed draft supersedes it", async () => {
    const { api, manager, members } = await setup([100]);
    const first = await createIntent(manager, 11100);
    const again = await createIntent(manager, 11100);
    expect(again).toEqual(first);
    expect(await count(orders)).toBe(1);

    // The manager changes an amount: the old total is refused, the new one makes a new order.
    await call(api, "PUT", "/api/RewardMyTeam/update-reward", { userId: members[0], value: 200 }, manager.accessToken);
    expect(await createIntent(manager, 11100, undefined, 409)).toMatchObject({ detail: PAYMENT_DETAILS.amountChanged });
    const second = await createIntent(manager, 22200);
    expect(second.orderId).not.toBe(first.orderId);
    const [old] = await db().select().from(orders).where(eq(orders.id, first.orderId));
    expect(old).toMatchObject({ status: "failed", failureReason: "superseded" });
    const [oldPayment] = await db()
      .select()
      .from(simulatedPayments)
      .where(eq(simulatedPayments.id, first.paymentIntentId));
    expect(oldPayment?.status).toBe("canceled");

    // The old payment can no longer be paid at the old amount.
    expect(await confirm(manager, first, CARD, 409)).toMatchObject({ detail: PAYMENT_DETAILS.stale });
    expect(await count(rewardReleases)).toBe(0);
  });

  it("refuses to confirm a payment whose draft moved on after it was created", async () => {
    const { api, manager, members } = await setup([100]);
    const created = await createIntent(manager, 11100);
    await call(api, "PUT", "/api/RewardMyTeam/update-reward", { userId: members[0], value: 5 }, manager.accessToken);
    expect(await confirm(manager, created, CARD, 409)).toMatchObject({ detail: PAYMENT_DETAILS.stale });
    const [order] = await db().select().from(orders);
    expect(order?.status).toBe("failed");
    expect(await count(rewardReleases)).toBe(0);
  });

  it("pays with 4242: released at once; check answers succeeded with the amount; the draft is emptied", async () => {
    const { manager, members, onEmailQueued } = await setup([60, 40]);
    const created = await createIntent(manager, 11100);
    expect(await confirm(manager, created)).toEqual({ status: "succeeded", paymentIntentId: created.paymentIntentId });
    expect(onEmailQueued).toHaveBeenCalled();
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "succeeded" });

    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ status: "paid", invoiceNumber: `INV-${String(created.orderId).padStart(6, "0")}` });
    expect(order?.paidAt).toBeInstanceOf(Date);
    const releases = await db().select().from(rewardReleases);
    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatchObject({ orderId: created.orderId, rewardName: "Quarterly Thanks", amountCents: 10000 });
    for (const [i, cents] of [6000, 4000].entries()) {
      expect(await recipientBalanceCents(db(), manager.companyId, members[i] as number)).toBe(cents);
    }
    expect(await count(recipientAccounts)).toBe(2);
    const [payment] = await db().select().from(simulatedPayments);
    expect(payment?.cardLast4).toBe("4242");
    // The card number is stored nowhere.
    const dump = JSON.stringify(await db().select().from(simulatedPayments));
    expect(dump).not.toContain("4242424242424242");
    // The draft is empty again, name cleared.
    expect(await count(rewardDraftLines)).toBe(0);
    const [draft] = await db().select().from(rewardDrafts);
    expect(draft?.name).toBe("");
    const emails = await rewardEmails();
    expect(emails.map((e) => e.toAddress).sort()).toEqual(
      [manager.email, ...(await recipientEmails(created.orderId))].sort(),
    );
    const actions = (await db().select().from(auditLog)).map((a) => a.action).sort();
    // The payment's three, and the manager's onboarding (the company details).
    expect(actions).toEqual(["order.created", "order.paid", "reward.released", "settings.company_updated"]);

    const history = await manager.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history");
    expect(history).toEqual([
      {
        rewardReleaseId: releases[0]?.id,
        rewardDate: releases[0]?.releasedAt.toISOString(),
        rewardName: "Quarterly Thanks",
        amount: 100,
        invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      },
    ]);
  });

  async function recipientEmails(orderId: number) {
    return (await db().select().from(orderLines).where(eq(orderLines.orderId, orderId))).map((l) => l.email);
  }

  it("declines 4000 0000 0000 0002 with 'Your card was declined.'; another card then pays the same payment", async () => {
    const { manager } = await setup([100]);
    const created = await createIntent(manager, 11100);
    expect(await confirm(manager, created, { ...CARD, cardNumber: "4000 0000 0000 0002" })).toEqual({
      status: "failed",
      paymentIntentId: created.paymentIntentId,
      message: "Your card was declined.",
    });
    expect(await count(rewardReleases)).toBe(0);
    expect(await check(manager, created.paymentIntentId)).toEqual({
      amount: 111,
      status: "failed",
      message: "Your card was declined.",
    });
    expect((await db().select().from(orders))[0]?.status).toBe("failed");
    expect((await confirm(manager, created)).status).toBe("succeeded");
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
  });

  it("after a decline, paying again makes a new order and the declined payment can no longer be used", async () => {
    const { manager } = await setup([100]);
    const first = await createIntent(manager, 11100);
    await confirm(manager, first, { ...CARD, cardNumber: "4000000000000002" });
    expect((await check(manager, first.paymentIntentId)).status).toBe("failed");
    const second = await createIntent(manager, 11100);
    expect(second.orderId).not.toBe(first.orderId);
    const [old] = await db().select().from(orders).where(eq(orders.id, first.orderId));
    expect(old).toMatchObject({ status: "failed", failureReason: "superseded" });
    const [oldPayment] = await db()
      .select()
      .from(simulatedPayments)
      .where(eq(simulatedPayments.id, first.paymentIntentId));
    expect(oldPayment?.status).toBe("canceled");
    expect(await confirm(manager, first, CARD, 409)).toMatchObject({ detail: PAYMENT_DETAILS.stale });
    expect((await confirm(manager, second)).status).toBe("succeeded");
    expect(await count(rewardReleases)).toBe(1);
  });

  it("4000 0025 0000 3155 asks for authentication: complete → paid; fail → the processor's message", async () => {
    const { manager } = await setup([100]);
    const created = await createIntent(manager, 11100);
    const auth = { ...CARD, cardNumber: "4000002500003155" };
    expect(await confirm(manager, created, auth)).toEqual({
      status: "requires_action",
      paymentIntentId: created.paymentIntentId,
      nextAction: "authenticate",
    });
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "requires_action" });
    const info = await manager.json<SimulatedPaymentInfo>("POST", "StripePayment/get-simulated-payment", {
      paymentIntent: created.paymentIntentId,
      clientSecret: created.clientSecret,
    });
    expect(info).toEqual({
      paymentIntentId: created.paymentIntentId,
      status: "requires_action",
      amount: 111,
      rewardName: "Quarterly Thanks",
    });
    const failed = await manager.json<SimulatedPaymentResponse>(
      "POST",
      "StripePayment/complete-simulated-authentication",
      { paymentIntent: created.paymentIntentId, clientSecret: created.clientSecret, outcome: "fail" },
    );
    expect(failed).toMatchObject({ status: "failed", message: CARD_MESSAGES.authenticationFailed });
    expect((await check(manager, created.paymentIntentId)).status).toBe("failed");
    expect(await count(rewardReleases)).toBe(0);

    // Again with the same card, completed this time.
    expect((await confirm(manager, created, auth)).status).toBe("requires_action");
    const done = await manager.json<SimulatedPaymentResponse>(
      "POST",
      "StripePayment/complete-simulated-authentication",
      {
        paymentIntent: created.paymentIntentId,
        clientSecret: created.clientSecret,
        outcome: "complete",
      },
    );
    expect(done).toEqual({ status: "succeeded", paymentIntentId: created.paymentIntentId });
    expect(await count(rewardReleases)).toBe(1);
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "succeeded" });
  });

  it.each([
    [{ cardNumber: "4242 4242 4242 4241" }, "cardNumber", CARD_MESSAGES.invalidNumber],
    [{ cardNumber: "" }, "cardNumber", CARD_MESSAGES.invalidNumber],
    [{ expiry: "13/30" }, "expiry", CARD_MESSAGES.invalidExpiry],
    [{ expiry: "02/25" }, "expiry", CARD_MESSAGES.pastExpiry],
    [{ cvc: "12" }, "cvc", CARD_MESSAGES.invalidCvc],
    [{ nameOnCard: " " }, "nameOnCard", CARD_MESSAGES.nameRequired],
  ])("refuses an invalid card field %j with a clear message", async (change, field, message) => {
    const { manager } = await setup([100]);
    const created = await createIntent(manager, 11100);
    expect(await confirm(manager, created, { ...CARD, ...change })).toEqual({
      status: "failed",
      paymentIntentId: created.paymentIntentId,
      message,
      field,
    });
    const [payment] = await db().select().from(simulatedPayments);
    expect(payment).toMatchObject({ status: "requires_payment_method", cardLast4: null });
  });

  it("accepts the current month's expiry (the test clock is March 2025)", async () => {
    const { manager } = await setup([100]);
    const created = await createIntent(manager, 11100);
    expect((await confirm(manager, created, { ...CARD, expiry: "03/25" })).status).toBe("succeeded");
  });

  it("keeps companies apart: another company's payment is 404 on every call and its history is not shown", async () => {
    const { api, manager } = await setup([100]);
    const created = await createIntent(manager, 11100);
    const other = await payingManager(api, db(), "Other Co");
    await expectProblem(
      await other.go("POST", "StripePayment/check-payment-intent", { paymentIntent: created.paymentIntentId }),
      404,
    );
    const body = { paymentIntent: created.paymentIntentId, clientSecret: created.clientSecret };
    await expectProblem(await other.go("POST", "StripePayment/confirm-simulated-payment", { ...body, ...CARD }), 404);
    await expectProblem(
      await other.go("POST", "StripePayment/complete-simulated-authentication", { ...body, outcome: "complete" }),
      404,
    );
    await expectProblem(await other.go("POST", "StripePayment/get-simulated-payment", body), 404);
    expect((await db().select().from(simulatedPayments))[0]?.status).toBe("requires_payment_method");
    // A wrong client secret is 404 too.
    await expectProblem(
      await manager.go("POST", "StripePayment/confirm-simulated-payment", { ...body, clientSecret: "nope", ...CARD }),
      404,
    );
    await confirm(manager, created);
    expect(await other.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history")).toEqual([]);
    expect(await manager.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history")).toHaveLength(1);
  });

  it("releases once under 20 concurrent check calls and a double-clicked confirm", async () => {
    const { manager } = await setup([10, 20, 30]);
    const created = await createIntent(manager, 6660);
    // The processor says succeeded (as after Stripe's return), nobody has released yet.
    await db().update(simulatedPayments).set({ status: "succeeded" });
    const answers = await Promise.all(Array.from({ length: 20 }, () => check(manager, created.paymentIntentId)));
    expect(answers.every((a) => a.status === "succeeded" && a.amount === 66.6)).toBe(true);
    await Promise.all([confirm(manager, created), confirm(manager, created)]);
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(rewardLedger)).toBe(3);
    expect(await count(recipientAccounts)).toBe(3);
    const emails = await rewardEmails();
    expect(emails).toHaveLength(4);
    expect(new Set(emails.map((e) => e.toAddress)).size).toBe(4);
  });

  it("a failure midway through a release leaves nothing half-done; a retry completes it", async () => {
    let fail = true;
    const { api, manager } = await setup([10, 20, 30, 40], {
      onReleaseLine: (i) => {
        if (fail && i === 1) throw new Error("injected failure after half the recipients");
      },
    });
    const created = await createIntent(manager, 11100);
    await db().update(simulatedPayments).set({ status: "succeeded" });
    await expectProblem(
      await manager.go("POST", "StripePayment/check-payment-intent", { paymentIntent: created.paymentIntentId }),
      500,
    );
    expect(await count(rewardReleases)).toBe(0);
    expect(await count(rewardLedger)).toBe(0);
    expect(await count(recipientAccounts)).toBe(0);
    expect(await rewardEmails()).toHaveLength(0);
    expect(await count(rewardDraftLines)).toBe(4);
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ status: "pending", paidAt: null, releasedAt: null, invoiceNumber: null });

    fail = false;
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(rewardLedger)).toBe(4);
    expect(await rewardEmails()).toHaveLength(5);
    expect(await count(rewardDraftLines)).toBe(0);
    void api;
  });

  it("a payment that succeeded after the draft moved on is still released, and the new draft is kept", async () => {
    const { api, manager, members } = await setup([100]);
    const created = await createIntent(manager, 11100);
    await db().update(simulatedPayments).set({ status: "succeeded" });
    await call(api, "PUT", "/api/RewardMyTeam/update-reward", { userId: members[0], value: 7 }, manager.accessToken);
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
    const [line] = await db().select().from(rewardDraftLines);
    expect(line?.amountDollars).toBe(7);
    const [credit] = await db().select().from(rewardLedger);
    expect(credit?.amountCents).toBe(10000);
  });

  it("emails each recipient their amount, reward name, access code, password, catalogue link, expiry and the rules", async () => {
    const { manager, members, clock } = await setup([100]);
    const created = await createIntent(manager, 11100);
    await confirm(manager, created);
    const [line] = await db().select().from(orderLines);
    const [mail] = (await rewardEmails()).filter((e) => e.toAddress === line?.email);
    const [account] = await db()
      .select()
      .from(recipientAccounts)
      .where(eq(recipientAccounts.userId, members[0] as number));
    expect(account?.accessCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(account?.firstEmailAt?.toISOString()).toBe(clock.now().toISOString());
    // 1 March 2025 + 18 months = 1 September 2026.
    expect(account?.expiresAt?.toISOString()).toBe("2026-09-01T09:00:00.000Z");
    for (const part of [mail?.text ?? "", mail?.html ?? ""]) {
      expect(part).toContain("$100.00");
      expect(part).toContain("Quarterly Thanks");
      expect(part).toContain(account?.accessCode);
      expect(part).toContain("https://catalogue.test/");
      expect(part).toContain("1 September 2026");
      expect(part).toContain("next business day");
      expect(part).toContain("3 business days");
      expect(part).toContain("24 business hours");
      expect(part).toContain("help@rewards.test");
    }
    expect(mail?.subject).toBe("Congratulations! You have received $100.00 in Reward Dollars");
    const password = /Password: (\S+)/.exec(mail?.text ?? "")?.[1] ?? "";
    expect(password).toMatch(/^[A-Za-z2-9]{14}$/);
    expect(account?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(account?.passwordHash).not.toContain(password);
    expect(await verify(account?.passwordHash ?? "", password)).toBe(true);
  });

  it("freezes the sender's message and name into the order: every recipient's email carries them, a later edit does not", async () => {
    const { manager } = await setup([60, 40]);
    await manager.json("PUT", "RewardMyTeam/update-reward-message", {
      message: "Thank you all.\nSee you <at> the party!",
      senderName: "Pat from People & Culture",
    });
    const created = await createIntent(manager, 11100);
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({
      message: "Thank you all.\nSee you <at> the party!",
      senderName: "Pat from People & Culture",
    });
    await confirm(manager, created);
    const mails = (await rewardEmails()).filter((e) => e.subject.startsWith("Congratulations"));
    expect(mails).toHaveLength(2);
    for (const mail of mails) {
      expect(mail.text).toContain(
        "A message from Pat from People & Culture:\n> Thank you all.\n> See you <at> the party!",
      );
      expect(mail.html).toContain("Thank you all.<br>See you &lt;at&gt; the party!");
      expect(mail.html).toContain("Pat from People &amp; Culture");
    }
    // The next reward starts without the message; the sender's name stays.
    const draft = await manager.json<{ message: string; senderName: string }>("GET", "RewardMyTeam/get-reward-summary");
    expect(draft).toMatchObject({ message: "", senderName: "Pat from People & Culture" });
  });

  it("without a message the email has no quote, and names the manager as the sender", async () => {
    const { manager } = await setup([100]);
    await confirm(manager, await createIntent(manager, 11100));
    const [mail] = (await rewardEmails()).filter((e) => e.subject.startsWith("Congratulations"));
    expect(mail?.text).not.toContain("A message from");
    expect(mail?.text).toMatch(/From: \S+/);
  });

  it("a second reward keeps the recipient's access code and expiry and does not send a new password", async () => {
    const { manager, members, clock } = await setup([100]);
    await confirm(manager, await createIntent(manager, 11100));
    const [before] = await db().select().from(recipientAccounts);
    clock.advance(3600 * 1000);
    await db()
      .insert(rewardDraftLines)
      .values({
        draftId: (await db().select().from(rewardDrafts))[0]?.id as number,
        companyId: manager.companyId,
        userId: members[0] as number,
        amountDollars: 50,
      });
    await db()
      .update(rewardDrafts)
      .set({ name: "Second", version: sql`${rewardDrafts.version} + 1` });
    await confirm(manager, await createIntent(manager, 5550));
    const [after] = await db().select().from(recipientAccounts);
    expect(after).toEqual(before);
    const [address] = await recipientEmails(1);
    const mails = (await rewardEmails()).filter((e) => e.toAddress === address);
    const second = mails.find((m) => m.text.includes("Second"));
    expect(second?.text).toContain(before?.accessCode);
    expect(second?.text).toContain("The password sent in your first reward email");
    expect(await recipientBalanceCents(db(), manager.companyId, members[0] as number)).toBe(15000);
    const history = await manager.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history");
    expect(history.map((h) => [h.rewardName, h.amount])).toEqual([
      ["Second", 50],
      ["Quarterly Thanks", 100],
    ]);
  });

  it("sends the payer an Australian tax invoice", async () => {
    const { manager } = await setup([60, 40]);
    const created = await createIntent(manager, 11100);
    await confirm(manager, created);
    const invoices = (await rewardEmails()).filter((e) => e.toAddress === manager.email);
    expect(invoices).toHaveLength(1);
    const invoice = invoices[0];
    const number = `INV-${String(created.orderId).padStart(6, "0")}`;
    expect(invoice?.subject).toBe(`Tax Invoice ${number}: Quarterly Thanks`);
    for (const part of [invoice?.text ?? "", invoice?.html ?? ""]) {
      expect(part).toContain("Tax Invoice");
      expect(part).toContain("Reward Portal Pty Ltd (placeholder)");
      expect(part).toContain("51 824 753 556");
      expect(part).toContain(number);
      expect(part).toContain("1 March 2025");
      expect(part).toContain("Acme Pty Ltd");
      expect(part).toContain("53 004 085 616");
      expect(part).toContain("$100.00");
      expect(part).toContain("$10.00");
      expect(part).toContain("$1.00");
      expect(part).toContain("$111.00");
    }
    expect(invoice?.text).toMatch(/Reward Dollars: .+ \(2 recipients; no GST\): \$100\.00/);
    expect(invoice?.text).toContain("Service fee (10% of the Reward Dollars): $10.00");
    expect(invoice?.text).toContain("GST (10% of the service fee): $1.00");
    expect(invoice?.text).toContain("Total (including GST): $111.00");
  });

  it("puts the configured supplier on the invoice", async () => {
    const supplied = testConfig({ SUPPLIER_NAME: "Rewards Co Pty Ltd", SUPPLIER_ABN: "53004085616" });
    const ctx = paymentsApi(db(), { config: supplied });
    const manager = await payingManager(ctx.api, db());
    await seedDraft(db(), manager, [100]);
    const created = await manager.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", {
      amount: 11100,
    });
    await manager.json("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: created.paymentIntentId,
      clientSecret: created.clientSecret,
      ...CARD,
    });
    const [invoice] = (await rewardEmails()).filter((e) => e.toAddress === manager.email);
    expect(invoice?.text).toContain("Supplier: Rewards Co Pty Ltd");
    expect(invoice?.text).toContain("Supplier ABN: 53 004 085 616");
    expect(invoice?.text).not.toContain("placeholder");
  });

  it("check answers 404 for an unknown payment and failed for one never paid", async () => {
    const { manager } = await setup([100]);
    await expectProblem(
      await manager.go("POST", "StripePayment/check-payment-intent", { paymentIntent: "pi_sim_nope" }),
      404,
    );
    const created = await createIntent(manager, 11100);
    expect(await check(manager, created.paymentIntentId)).toEqual({ amount: 111, status: "failed" });
    // Never paid is not a decline: the order stays payable.
    expect((await db().select().from(orders))[0]?.status).toBe("pending");
  });

  it("has no Stripe-only calls with the simulated processor", async () => {
    const { manager } = await setup([100]);
    await expectProblem(await manager.go("POST", "StripePayment/create-checkout-session", { amount: 11100 }), 404);
    const res = await manager.go("POST", "StripePayment/webhook", {});
    expect(res.status).toBe(404);
  });

  it("refuses every payment call for a company without company details: 400, nothing stored", async () => {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), "No Details Pty Ltd", false);
    await seedDraft(db(), manager, [60, 40]);
    const refused = async (res: Response) =>
      expect((await expectProblem(res, 400)).detail).toBe(PAYMENT_DETAILS.companyDetailsRequired);
    await refused(await manager.go("POST", "StripePayment/create-payment-intent", { amount: 11100 }));
    for (const table of [orders, orderLines, simulatedPayments, rewardReleases, auditLog]) {
      expect(await count(table)).toBe(0);
    }

    // A company that lost its details after ordering (a row from before this rule) can neither
    // pay nor release through the API.
    const { manager: other } = await setup([100]);
    const intent = await createIntent(other, 11100);
    await db().update(companies).set({ abn: null, detailsUpdatedAt: null }).where(eq(companies.id, other.companyId));
    const payment = { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret };
    await refused(await other.go("POST", "StripePayment/confirm-simulated-payment", { ...payment, ...CARD }));
    await refused(
      await other.go("POST", "StripePayment/complete-simulated-authentication", { ...payment, outcome: "complete" }),
    );
    await refused(await other.go("POST", "StripePayment/get-simulated-payment", payment));
    await refused(
      await other.go("POST", "StripePayment/check-payment-intent", { paymentIntent: intent.paymentIntentId }),
    );
    const [row] = await db().select().from(simulatedPayments).where(eq(simulatedPayments.id, intent.paymentIntentId));
    expect(row?.status).toBe("requires_payment_method");
    expect(await count(rewardReleases)).toBe(0);
    expect(await count(rewardLedger)).toBe(0);
  });
});
