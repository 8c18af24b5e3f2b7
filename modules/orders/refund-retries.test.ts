// Refunds of cancelled scheduled orders that the processor refuses, retried by the scheduler with
// a simulated clock under the webhooks' retry policy (ADR 0041; ADR 0045 §2): growing delays instead of a call on every pass, a final failed state
// after 72 hours that emails the support address once and tells the company on the order's page
// (GET /RewardOrders/:id), and refunds taken by their due time, so refunds that keep failing
// never hold back a newer one that can be made.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { emailOutbox, orders } from "../../server/db/schema.ts";
import type { Payments } from "../../server/payments/port.ts";
import { simulatedProcessor } from "../../server/payments/simulated.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call, logIn, type TestClock } from "../identity/accounts.testkit.ts";
import { invoiceView, type TaxInvoice } from "../invoices/schema.ts";
import type { RewardOrderView } from "../scheduled-sends/schema.ts";
import { releaseDueOrders } from "../scheduled-sends/service.server.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "./payments.testkit.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const SUPPORT = "refund-desk@rewards.test";

describeEachDatabase("refund retries", ({ database, kind }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/", SUPPORT_EMAIL: SUPPORT });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /**
   * The simulated processor, except that refunds of the payments `refuses` names throw (as an
   * unreachable or refusing processor does); every refund call is recorded with its time.
   */
  function refusingProcessor(
    clock: TestClock,
    refuses: (paymentIntentId: string) => boolean,
    make?: Payments["refund"],
  ) {
    const real = simulatedProcessor(db(), clock.now);
    const calls: { paymentIntentId: string; idempotencyKey: string; at: number }[] = [];
    const payments: Payments = {
      ...real,
      refund: async (input) => {
        calls.push({ ...input, at: clock.now().getTime() });
        if (refuses(input.paymentIntentId)) throw new Error("processor unavailable");
        return (make ?? real.refund)(input);
      },
    };
    return { payments, calls };
  }

  /** A card order scheduled an hour ahead, paid, then cancelled by its Owner while refunds fail. */
  async function cancelledWhileRefusing() {
    const ctx = paymentsApi(db(), { config });
    let refusing = true;
    const processor = refusingProcessor(ctx.clock, () => refusing);
    const { api } = paymentsApi(db(), { config, payments: processor.payments, clock: ctx.clock });
    const owner = await payingManager(api, db());
    await seedDraft(db(), owner, [100]);
    const sendAt = new Date(ctx.clock.now().getTime() + HOUR).toISOString();
    await owner.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt });
    expect((await payDraftByCard(owner, [100])).status).toBe("succeeded");
    const [order] = await db().select().from(orders);
    if (!order) throw new Error("no order");
    const cancelled = await owner.json<RewardOrderView>("POST", `RewardOrders/${order.id}/cancel`);
    expect(cancelled).toMatchObject({ state: "cancelled", refundedAt: null });
    const services = {
      db: db(),
      payments: processor.payments,
      logger: captureLogs("silent").logger,
      now: ctx.clock.now,
      release: { config },
    };
    const pass = () => releaseDueOrders(services, { advisoryLocks: kind === "postgres" });
    // Signs the Owner in again: days on the clock outlive the sign-in the test began with.
    const ownerView = async () => {
      const login = await logIn(api, owner.email);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const res = await call(api, "GET", `/api/RewardOrders/${order.id}`, undefined, accessToken);
      expect(res.status).toBe(200);
      return (await res.json()) as RewardOrderView;
    };
    /** The order's tax invoice as its Owner reads it (page, PDF and email render one view of it). */
    const ownerInvoice = async () => {
      const login = await logIn(api, owner.email);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const res = await call(api, "GET", `/api/Invoices/${order.invoiceNumber}`, undefined, accessToken);
      expect(res.status).toBe(200);
      return (await res.json()) as TaxInvoice;
    };
    return {
      owner,
      ownerView,
      ownerInvoice,
      order,
      clock: ctx.clock,
      calls: processor.calls,
      pass,
      stopRefusing: () => {
        refusing = false;
      },
    };
  }

  const supportEmails = async () => (await db().select().from(emailOutbox)).filter((e) => e.toAddress === SUPPORT);

  it("retries a refused refund later and later (30 s, 1, 2, 4 minutes), not on every pass, then makes it", async () => {
    const { owner, order, clock, calls, pass, stopRefusing } = await cancelledWhileRefusing();
    // The cancel's own try.
    expect(calls).toHaveLength(1);
    const start = calls[0]?.at as number;
    // A pass every 5 seconds for 10 minutes.
    for (let t = 0; t < 10 * MINUTE; t += 5 * SECOND) {
      clock.advance(5 * SECOND);
      await pass();
    }
    const times = [start, ...calls.slice(1).map((c) => c.at)];
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // 120 passes, but only the tries the backoff allows: 30 s, 1, 2 and 4 minutes, ±10 %.
    expect(gaps.length).toBe(4);
    for (const [i, expected] of [30 * SECOND, MINUTE, 2 * MINUTE, 4 * MINUTE].entries()) {
      expect(gaps[i]).toBeGreaterThanOrEqual(0.9 * expected);
      expect(gaps[i]).toBeLessThanOrEqual(1.1 * expected + 5 * SECOND);
    }
    // The same refund each time: one idempotency key for the order.
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([`order-${order.id}-refund`]));
    expect(await owner.json<RewardOrderView>("GET", `RewardOrders/${order.id}`)).toMatchObject({
      refundedAt: null,
      refundFailedAt: null,
    });

    // The processor is back: the next due try makes the refund, once, and nothing is tried after.
    stopRefusing();
    clock.advance(9 * MINUTE);
    expect((await pass()).refunded).toBe(1);
    const made = calls.length;
    clock.advance(HOUR);
    expect((await pass()).refunded).toBe(0);
    expect(calls).toHaveLength(made);
    expect(await owner.json<RewardOrderView>("GET", `RewardOrders/${order.id}`)).toMatchObject({
      refundedAt: expect.any(String),
      refundFailedAt: null,
    });
    const notices = (await db().select().from(emailOutbox)).filter((e) =>
      e.subject.startsWith("Cancelled and refunded"),
    );
    expect(notices).toHaveLength(1);
    expect(await supportEmails()).toHaveLength(0);
  });

  it("marks the refund failed after its last try at 72 hours, emails support once, and shows the Owner", async () => {
    const { ownerView, ownerInvoice, order, clock, calls, pass } = await cancelledWhileRefusing();
    const cancelledAt = clock.now().getTime();
    const underWay = invoiceView(await ownerInvoice());
    expect(underWay.notes.at(-1)).toContain("the refund to the card is under way.");
    clock.advance(72 * HOUR - MINUTE);
    await pass();
    expect(await ownerView()).toMatchObject({ refundFailedAt: null });
    expect(await supportEmails()).toHaveLength(0);
    // The last try falls at the 72-hour limit itself; two passes racing there give up once.
    clock.advance(MINUTE);
    const tries = calls.length;
    await Promise.all([pass(), pass()]);
    expect(calls.length).toBeGreaterThan(tries);
    const view = await ownerView();
    expect(view).toMatchObject({ state: "cancelled", refundedAt: null, refundFailedAt: expect.any(String) });
    expect(new Date(view.refundFailedAt as string).getTime()).toBe(cancelledAt + 72 * HOUR);
    const [row] = await db().select().from(orders).where(eq(orders.id, order.id));
    expect(row).toMatchObject({ status: "cancelled", refundId: null, refundedAt: null });

    const mails = await supportEmails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toContain(`order ${order.id}`);
    expect(mails[0]?.text).toContain("Acme Pty Ltd");
    expect(mails[0]?.text).toContain("$111.00");
    expect(mails[0]?.text).toContain(order.paymentIntentId as string);
    expect(mails[0]?.text).toContain("processor unavailable");

    // Failed is final: later passes neither call the processor nor email again.
    const after = calls.length;
    clock.advance(24 * HOUR);
    await pass();
    expect(calls).toHaveLength(after);
    expect(await supportEmails()).toHaveLength(1);
    // The payer was never told it was refunded.
    const notices = (await db().select().from(emailOutbox)).filter((e) =>
      e.subject.startsWith("Cancelled and refunded"),
    );
    expect(notices).toHaveLength(0);
    // Nor does the tax invoice say it is under way: it says it failed and support will make it.
    const invoice = await ownerInvoice();
    expect(invoice.adjustment).toMatchObject({ refunded: false, refundFailed: true, amountCents: 11_100 });
    const shown = invoiceView(invoice);
    expect(shown.notes.at(-1)).toContain("The refund to the card failed; our support team has been told.");
    expect(JSON.stringify(shown)).not.toContain("under way");
  });

  it("takes refunds by their due time: 101 that keep failing do not hold back newer ones", async () => {
    const { clock, api } = paymentsApi(db(), { config });
    const owner = await payingManager(api, db());
    // Refunds of pi_stuck_… are always refused; any other is made.
    const processor = refusingProcessor(
      clock,
      (id) => id.startsWith("pi_stuck_"),
      async (input) => ({ refundId: `re_${input.paymentIntentId}` }),
    );
    const services = {
      db: db(),
      payments: processor.payments,
      logger: captureLogs("silent").logger,
      now: clock.now,
      release: { config },
    };
    const pass = () => releaseDueOrders(services, { advisoryLocks: kind === "postgres" });
    // Cancelled card orders whose refunds are owed (as after a crash between the cancel and its
    // refund): 101 the processor will always refuse, all older than one it will make.
    const cancelled = (paymentIntentId: string, cancelledAt: Date) => ({
      companyId: owner.companyId,
      placedBy: owner.userId,
      rewardName: "Thanks",
      sendAt: new Date(clock.now().getTime() + 24 * HOUR),
      rewardsCents: 10_000,
      serviceFeeCents: 1_000,
      gstCents: 100,
      totalCents: 11_100,
      status: "cancelled" as const,
      processor: "simulated" as const,
      paymentIntentId,
      paidAt: new Date(clock.now().getTime() - 4 * HOUR),
      cancelledAt,
    });
    const ago = (minutes: number) => new Date(clock.now().getTime() - minutes * MINUTE);
    await db()
      .insert(orders)
      .values(Array.from({ length: 101 }, (_, i) => cancelled(`pi_stuck_${i}`, ago(200 - i))));
    const [fresh] = await db()
      .insert(orders)
      .values(cancelled("pi_ok_1", ago(1)))
      .returning();
    if (!fresh) throw new Error("no order");

    // One pass: every due refund is tried, and the newer one is made.
    expect((await pass()).refunded).toBe(1);
    const [done] = await db().select().from(orders).where(eq(orders.id, fresh.id));
    expect(done?.refundId).toBe("re_pi_ok_1");
    expect(processor.calls.filter((c) => c.paymentIntentId.startsWith("pi_stuck_"))).toHaveLength(101);

    // The stuck ones wait for their backoff: a pass 10 s later calls the processor for none.
    clock.advance(10 * SECOND);
    const before = processor.calls.length;
    await pass();
    expect(processor.calls).toHaveLength(before);

    // Minutes later the stuck ones are due again, and a refund owed since just now is made too.
    clock.advance(5 * MINUTE);
    const [later] = await db().insert(orders).values(cancelled("pi_ok_2", clock.now())).returning();
    if (!later) throw new Error("no order");
    expect((await pass()).refunded).toBe(1);
    const [second] = await db().select().from(orders).where(eq(orders.id, later.id));
    expect(second?.refundId).toBe("re_pi_ok_2");
    // Each refund made once, under its order's key.
    const made = processor.calls.filter((c) => !c.paymentIntentId.startsWith("pi_stuck_"));
    expect(made.map((c) => c.idempotencyKey)).toEqual([`order-${fresh.id}-refund`, `order-${later.id}-refund`]);
  });
});
