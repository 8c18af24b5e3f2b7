// POST /api/v1/orders (ADR 0044): a company's own system places an order with its API key, paid
// from the prepaid balance, safe to retry with an Idempotency-Key. On PGlite and PostgreSQL:
// released at once with the recipients' emails and the balance less the total exactly; members
// matched by address or created; 20 concurrent replays make one order and one charge; another
// body under the same key is 409; keys belong to the API key that sent them (two keys of one
// company reusing a value each get their own order; keys kept before that migration stay, under
// their order's API key); a short balance is 402 and changes nothing; an order at or above
// the threshold waits for an Owner, whose approval charges and releases it, even once its key is
// revoked; bad input is 400 and changes nothing; another company's key sees nothing; a revoked or
// expired key is 401; a charged order whose release never ran is released by the scheduler; a
// cancelled one is refunded to the balance; the key's Owner paying or asking approval for their own draft supersedes only the
// draft's orders, never the key's (an awaiting one is still approved, a charged one still
// released, the ledger reconciled).
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { and, count, eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  apiIdempotencyKeys,
  auditLog,
  balanceEntries,
  balanceTopUps,
  companies,
  emailOutbox,
  orderLines,
  orders,
  rewardReleases,
  users,
  webhookEvents,
} from "../../server/db/schema.ts";
import type { Payments } from "../../server/payments/port.ts";
import { addManager } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { captureLogs } from "../../tests/support/logs.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { balanceOf, moveBalance } from "../balance/service.server.ts";
import { checkMoney } from "../money-check/service.server.ts";
import {
  type PaymentsApiOptions,
  payDraftByCard,
  payingManager,
  paymentsApi,
  seedDraft,
} from "../orders/payments.testkit.ts";
import { releaseDueOrders } from "../scheduled-sends/service.server.ts";
import { type V1Order, v1OrderSchema } from "./schema.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describeEachDatabase("POST /api/v1/orders", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function world(options: Partial<PaymentsApiOptions> = {}) {
    const ctx = paymentsApi(db(), { config, ...options });
    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const b = await payingManager(ctx.api, db(), "Bravo Pty Ltd");
    const aKey = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    const bKey = await b.json<CreatedApiKey>("POST", "ApiKeys", { name: "Bravo sync" }, 201);
    const post = (body: unknown, idempotencyKey: string | null = randomUUID(), key = aKey.key) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      if (idempotencyKey !== null) headers["idempotency-key"] = idempotencyKey;
      return ctx.api.request("/api/v1/orders", {
        method: "POST",
        headers,
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    };
    const get = (orderId: number, key = aKey.key) =>
      ctx.api.request(`/api/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${key}` } });
    /** A paid card top-up credited to the company's balance (the top-up flow has its own tests). */
    const topUp = (companyId: number, requestedBy: number, amountCents: number) =>
      db().transaction(async (tx) => {
        const [row] = await tx
          .insert(balanceTopUps)
          .values({
            companyId,
            requestedBy,
            amountCents,
            status: "paid",
            processor: "simulated",
            paidAt: ctx.clock.now(),
          })
          .returning({ id: balanceTopUps.id });
        if (!row) throw new Error("no top-up");
        const moved = await moveBalance(tx, companyId, { kind: "top_up", topUpId: row.id, amountCents });
        expect(moved.moved).toBe(true);
      });
    return { ...ctx, a, b, aKey, bKey, post, get, topUp };
  }

  const order = (amounts: number[] = [60, 40], extra: Record<string, unknown> = {}) => ({
    rewardName: "Quarter Thanks",
    message: "Thank you for a great quarter!",
    recipients: amounts.map((amount, i) => ({
      email: `person${i + 1}@example.com`,
      firstName: `First${i + 1}`,
      lastName: `Last${i + 1}`,
      amount,
    })),
    ...extra,
  });

  /** What must not change when a call is refused. */
  async function counts() {
    const n = async (table: typeof orders | typeof users | typeof apiIdempotencyKeys | typeof balanceEntries) =>
      (await db().select({ n: count() }).from(table))[0]?.n ?? 0;
    return {
      orders: await n(orders),
      users: await n(users),
      keys: await n(apiIdempotencyKeys),
      entries: await n(balanceEntries),
      balances: await db()
        .select({ id: companies.id, balanceCents: companies.balanceCents })
        .from(companies)
        .orderBy(companies.id),
    };
  }

  it("places an order paid from the balance: 201, released at once, the recipients emailed, the balance less the total exactly, members matched by address or created", async () => {
    const { a, post, get, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const [existing] = await db()
      .insert(users)
      .values({
        companyId: a.companyId,
        firstName: "Sam",
        lastName: "Known",
        email: "Sam.Known@example.com",
        role: "member",
      })
      .returning({ id: users.id });
    const body = order([60, 40]);
    body.recipients[0] = { email: "sam.known@EXAMPLE.com", firstName: "Samuel", lastName: "Other", amount: 60 };
    const before = await balanceOf(db(), a.companyId);

    const res = await post(body);
    expect(res.status, await res.clone().text()).toBe(201);
    const placed = v1OrderSchema.parse(await res.json());
    const total = chargesFor([60, 40]).totalCents;
    expect(total).toBe(111_00);
    expect(placed).toMatchObject({
      state: "released",
      paidFrom: "balance",
      rewardName: "Quarter Thanks",
      recipientCount: 2,
      rewardsCents: 100_00,
      serviceFeeCents: 10_00,
      gstCents: 1_00,
      totalCents: total,
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      sendAt: null,
    });
    expect(await balanceOf(db(), a.companyId)).toBe(before - total);
    const entries = await db().select().from(balanceEntries).where(eq(balanceEntries.orderId, placed.orderId));
    expect(entries.map((e) => [e.kind, e.amountCents, e.balanceAfterCents])).toEqual([
      ["order", -total, before - total],
    ]);

    // The existing member keeps their id and names; the new address is a new active member.
    const lines = await db()
      .select()
      .from(orderLines)
      .where(eq(orderLines.orderId, placed.orderId))
      .orderBy(orderLines.id);
    expect(lines[0]).toMatchObject({ userId: existing?.id, firstName: "Sam", lastName: "Known", amountCents: 60_00 });
    const [created] = await db().select().from(users).where(eq(users.email, "person2@example.com"));
    expect(created).toMatchObject({ companyId: a.companyId, role: "member", isActive: true, firstName: "First2" });
    expect(lines[1]?.userId).toBe(created?.id);

    // Both recipients' emails are queued with the order (the delivery the answer shows), and the tax invoice.
    const outbox = await db().select().from(emailOutbox).where(eq(emailOutbox.orderId, placed.orderId));
    expect(outbox.map((e) => e.toAddress).sort()).toEqual(["Sam.Known@example.com", "person2@example.com"]);
    expect(placed.recipients?.map((r) => [r.email, r.amountCents, r.delivery?.state]).sort()).toEqual([
      ["Sam.Known@example.com", 60_00, "queued"],
      ["person2@example.com", 40_00, "queued"],
    ]);
    const invoices = await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, a.email));
    expect(invoices.some((e) => e.subject.includes(placed.invoiceNumber as string))).toBe(true);

    const [row] = await db().select().from(orders).where(eq(orders.id, placed.orderId));
    expect(row).toMatchObject({
      processor: "balance",
      apiKeyId: expect.any(Number),
      draftId: null,
      placedBy: a.userId,
    });
    expect(row?.senderName).toBe("Alpha Pty Ltd");
    // GET answers the same order.
    const read = await get(placed.orderId);
    expect(read.status).toBe(200);
    expect(v1OrderSchema.parse(await read.json())).toEqual(placed);
  });

  it("the same Idempotency-Key replayed 20 times at once makes one order and one charge; each answer is that order", async () => {
    const { a, post, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const before = await balanceOf(db(), a.companyId);
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(order([60, 40]), key)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as V1Order[];
    expect(new Set(bodies.map((b) => b.orderId)).size).toBe(1);
    expect(await db().select({ id: orders.id }).from(orders)).toHaveLength(1);
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toHaveLength(1);
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(await db().select().from(apiIdempotencyKeys)).toHaveLength(1);
    expect(await balanceOf(db(), a.companyId)).toBe(before - chargesFor([60, 40]).totalCents);

    // A replay later still answers the order, 200, and charges nothing.
    const again = await post({ ...order([60, 40]), rewardName: "  Quarter Thanks  " }, key);
    expect(again.status).toBe(200);
    expect(((await again.json()) as V1Order).orderId).toBe(bodies[0]?.orderId);
    expect(await balanceOf(db(), a.companyId)).toBe(before - chargesFor([60, 40]).totalCents);
  });

  it("another body under the same Idempotency-Key is 409 and changes nothing; another company may use the same key", async () => {
    const { a, b, post, topUp, bKey } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    await topUp(b.companyId, b.userId, 500_00);
    const key = "order-2025-03-01-0001";
    expect((await post(order([60, 40]), key)).status).toBe(201);
    const was = await counts();
    const problem = await expectProblem(await post(order([60, 41]), key), 409);
    expect(problem.detail).toBe("This Idempotency-Key was used with a different request.");
    expect(await counts()).toEqual(was);
    // Another company's key may use the same Idempotency-Key: it places its own order.
    expect((await post(order([60, 40]), key, bKey.key)).status).toBe(201);
  });

  it("two keys of one company sending the same Idempotency-Key each get their own order and charge; each replay answers its own; another body on one key is still 409", async () => {
    // Idempotency keys belong to the API key that sent them (docs/requirements.md §D7, ADR 0044):
    // two systems of one company that happen to pick the same key are two requests, not one.
    const { a, aKey, post, get, topUp } = await world();
    const hrKey = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "HR system" }, 201);
    await topUp(a.companyId, a.userId, 500_00);
    const key = "order-2025-03-01-0001";
    const payroll = await post(order([60, 40]), key, aKey.key);
    expect(payroll.status, await payroll.clone().text()).toBe(201);
    const hr = await post(order([10]), key, hrKey.key);
    expect(hr.status, await hr.clone().text()).toBe(201);
    const first = v1OrderSchema.parse(await payroll.json());
    const second = v1OrderSchema.parse(await hr.json());
    expect(second.orderId).not.toBe(first.orderId);
    expect(second).toMatchObject({ recipientCount: 1, totalCents: chargesFor([10]).totalCents, state: "released" });
    const charged = await db()
      .select({ orderId: balanceEntries.orderId, amountCents: balanceEntries.amountCents })
      .from(balanceEntries)
      .where(eq(balanceEntries.kind, "order"))
      .orderBy(balanceEntries.id);
    expect(charged).toEqual([
      { orderId: first.orderId, amountCents: -chargesFor([60, 40]).totalCents },
      { orderId: second.orderId, amountCents: -chargesFor([10]).totalCents },
    ]);
    expect(await balanceOf(db(), a.companyId)).toBe(
      500_00 - chargesFor([60, 40]).totalCents - chargesFor([10]).totalCents,
    );

    // A third key sending the first key's very body with the same key is a request of its own too.
    const crmKey = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "CRM" }, 201);
    const crm = await post(order([60, 40]), key, crmKey.key);
    expect(crm.status, await crm.clone().text()).toBe(201);
    const third = v1OrderSchema.parse(await crm.json());
    expect(new Set([first.orderId, second.orderId, third.orderId]).size).toBe(3);
    const total = 2 * chargesFor([60, 40]).totalCents + chargesFor([10]).totalCents;
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - total);

    // Each key's replay answers its own order (200) and charges nothing.
    const payrollAgain = await post(order([60, 40]), key, aKey.key);
    expect(payrollAgain.status).toBe(200);
    expect(((await payrollAgain.json()) as V1Order).orderId).toBe(first.orderId);
    const hrAgain = await post(order([10]), key, hrKey.key);
    expect(hrAgain.status).toBe(200);
    expect(((await hrAgain.json()) as V1Order).orderId).toBe(second.orderId);
    const crmAgain = await post(order([60, 40]), key, crmKey.key);
    expect(crmAgain.status).toBe(200);
    expect(((await crmAgain.json()) as V1Order).orderId).toBe(third.orderId);
    expect(await db().select().from(apiIdempotencyKeys)).toHaveLength(3);
    // Each key still reads the other's order by its id: orders belong to the company (ADR 0028).
    expect((await get(second.orderId, aKey.key)).status).toBe(200);

    // Another body under the same key on the same API key is still 409 and changes nothing.
    const was = await counts();
    const problem = await expectProblem(await post(order([10]), key, aKey.key), 409);
    expect(problem.detail).toBe("This Idempotency-Key was used with a different request.");
    await expectProblem(await post(order([60, 40]), key, hrKey.key), 409);
    expect(await counts()).toEqual(was);
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - total);
  });

  it("a key kept before the migration to per-API-key scope stays, under the API key of its order: its replay still answers it, another key of the company places its own", async () => {
    const { a, aKey, post, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const key = randomUUID();
    const placed = (await (await post(order([60, 40]), key)).json()) as V1Order;
    // Back to the table as it was before the migration (per company, no api_key_id), then the
    // migration itself, as an upgrade runs it.
    for (const statement of [
      `DROP INDEX "api_idempotency_keys_api_key_idx"`,
      `ALTER TABLE "api_idempotency_keys" DROP COLUMN "api_key_id"`,
      `CREATE UNIQUE INDEX "api_idempotency_keys_company_key_idx" ON "api_idempotency_keys" ("company_id", "idempotency_key")`,
    ]) {
      await db().execute(sql.raw(statement));
    }
    const dir = new URL("../../server/db/migrations/", import.meta.url);
    const file = readdirSync(dir).find((f) => f.endsWith("_api_key_idempotency.sql"));
    if (!file) throw new Error("no api_key_idempotency migration");
    for (const statement of readFileSync(new URL(file, dir), "utf8").split("--> statement-breakpoint")) {
      await db().execute(sql.raw(statement));
    }
    const kept = await db().select().from(apiIdempotencyKeys);
    expect(kept.map((k) => [k.idempotencyKey, k.orderId, k.apiKeyId])).toEqual([[key, placed.orderId, aKey.id]]);

    const replay = await post(order([60, 40]), key);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as V1Order).orderId).toBe(placed.orderId);
    const other = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "HR system" }, 201);
    const own = await post(order([60, 40]), key, other.key);
    expect(own.status).toBe(201);
    expect(((await own.json()) as V1Order).orderId).not.toBe(placed.orderId);
  });

  it("an order above the balance is refused (402) with the balance and the total, and changes nothing", async () => {
    const { a, post, topUp } = await world();
    await topUp(a.companyId, a.userId, 12_00);
    const was = await counts();
    const key = randomUUID();
    const problem = await expectProblem(await post(order([60, 40]), key), 402);
    expect(problem.detail).toBe(
      "The company balance ($12.00) does not cover this order ($111.00). An Owner can top it up in Settings → Balance.",
    );
    expect(await counts()).toEqual(was);
    expect(await db().select().from(users).where(eq(users.email, "person1@example.com"))).toEqual([]);
    // Nothing of the refused call was kept: after a top-up the same key places the order.
    await topUp(a.companyId, a.userId, 100_00);
    expect((await post(order([60, 40]), key)).status).toBe(201);
    expect(await balanceOf(db(), a.companyId)).toBe(1_00);
  });

  it("an order at or above the approval threshold waits for an Owner: 202, nothing charged, the Owners emailed; approval charges the balance (refused while it is short) and releases it", async () => {
    const { a, post, get, topUp } = await world();
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 111 });
    await topUp(a.companyId, a.userId, 50_00);
    await a.json(
      "POST",
      "Webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["approval.requested", "approval.decided"] },
      201,
    );
    const res = await post(order([60, 40]));
    expect(res.status, await res.clone().text()).toBe(202);
    const placed = v1OrderSchema.parse(await res.json());
    expect(placed).toMatchObject({ state: "awaiting_approval", paidAt: null, invoiceNumber: null, recipients: null });
    expect(await balanceOf(db(), a.companyId)).toBe(50_00);
    expect(await db().select().from(balanceEntries).where(eq(balanceEntries.kind, "order"))).toEqual([]);
    const asked = await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, a.email));
    expect(asked.map((e) => e.subject)).toContain("Approval requested: Quarter Thanks");
    expect(asked.find((e) => e.subject.startsWith("Approval requested"))?.text).toContain("Payroll sync");
    expect(await db().select().from(emailOutbox).where(eq(emailOutbox.orderId, placed.orderId))).toEqual([]);
    expect(((await (await get(placed.orderId)).json()) as V1Order).state).toBe("awaiting_approval");
    // The Owners' list shows it; the Owner who made the key may decide (the system asked, not them).
    const pending = await a.json<Array<{ orderId: number; requestedBy: { name: string }; viaApiKey: boolean }>>(
      "GET",
      "Approvals?status=pending",
    );
    expect(pending.map((p) => [p.orderId, p.requestedBy.name, p.viaApiKey])).toEqual([
      [placed.orderId, "API key “Payroll sync”", true],
    ]);

    // Approving while the balance is short is refused and changes nothing.
    const short = await expectProblem(await a.go("POST", `Approvals/${placed.orderId}/approve`), 402);
    expect(short.detail).toBe(
      "The company balance ($50.00) does not cover this order ($111.00). An Owner can top it up in Settings → Balance.",
    );
    const [still] = await db().select().from(orders).where(eq(orders.id, placed.orderId));
    expect(still).toMatchObject({ approvalStatus: "requested", status: "pending", paidAt: null });
    expect(await balanceOf(db(), a.companyId)).toBe(50_00);

    await topUp(a.companyId, a.userId, 100_00);
    expect((await a.go("POST", `Approvals/${placed.orderId}/approve`)).status).toBe(204);
    // The request (by the key) and the decision reached the company's webhook outbox once each.
    const emitted = await db().select().from(webhookEvents).orderBy(webhookEvents.id);
    expect(emitted.map((e) => [e.type, e.subject])).toEqual([
      ["approval.requested", `order:${placed.orderId}`],
      ["approval.decided", `order:${placed.orderId}`],
    ]);
    expect(emitted[0]?.payload).toMatchObject({
      orderId: placed.orderId,
      requestedBy: { apiKeyId: expect.any(Number) },
    });
    const after = v1OrderSchema.parse(await (await get(placed.orderId)).json());
    expect(after.state).toBe("released");
    expect(after.recipients).toHaveLength(2);
    expect(await balanceOf(db(), a.companyId)).toBe(150_00 - 111_00);
    // The approved order is paid: no card payment is offered for it.
    await expectProblem(await a.go("POST", `Approvals/${placed.orderId}/payment-intent`), 409);
  });

  it("an order awaiting approval whose key has since been revoked may still be approved: the Owner approves the order itself", async () => {
    // ADR 0044: revoking stops the key's
    // calls (401), not the orders it already placed; the Owner reviews and decides each one.
    const { a, aKey, post, get, topUp } = await world();
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    await topUp(a.companyId, a.userId, 500_00);
    const key = randomUUID();
    const placed = v1OrderSchema.parse(await (await post(order([60, 40]), key)).json());
    expect(placed.state).toBe("awaiting_approval");
    expect((await a.go("DELETE", `ApiKeys/${aKey.id}`)).status).toBe(204);
    // The revoked key can no longer replay it (401).
    await expectProblem(await post(order([60, 40]), key), 401);

    const pending = await a.json<Array<{ orderId: number; viaApiKey: boolean }>>("GET", "Approvals?status=pending");
    expect(pending.map((p) => [p.orderId, p.viaApiKey])).toEqual([[placed.orderId, true]]);
    expect((await a.go("POST", `Approvals/${placed.orderId}/approve`)).status).toBe(204);
    const [row] = await db().select().from(orders).where(eq(orders.id, placed.orderId));
    expect(row).toMatchObject({ approvalStatus: "approved", status: "paid" });
    expect(await db().select().from(rewardReleases).where(eq(rewardReleases.orderId, placed.orderId))).toHaveLength(1);
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - chargesFor([60, 40]).totalCents);
    await expectReconciled(a.companyId, [placed.orderId]);
    // Another key of the company reads it released.
    const other = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "Replacement" }, 201);
    expect(((await (await get(placed.orderId, other.key)).json()) as V1Order).state).toBe("released");
  });

  it("a declined order charges nothing and reads as declined", async () => {
    const { a, post, get, topUp } = await world();
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    await topUp(a.companyId, a.userId, 500_00);
    const placed = (await (await post(order([60, 40]))).json()) as V1Order;
    expect((await a.go("POST", `Approvals/${placed.orderId}/decline`, { reason: "Not this quarter" })).status).toBe(
      204,
    );
    expect(((await (await get(placed.orderId)).json()) as V1Order).state).toBe("declined");
    expect(await balanceOf(db(), a.companyId)).toBe(500_00);
    expect(await db().select().from(rewardReleases)).toEqual([]);
  });

  it("a Manager cannot approve; below the threshold an order is charged at once", async () => {
    const { a, api, post, topUp } = await world();
    const manager = await addManager(api, db(), a.companyId, "morgan@example.com");
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 200 });
    await topUp(a.companyId, a.userId, 500_00);
    expect((await post(order([60, 40]))).status).toBe(201);
    const big = (await (await post(order([100, 100]))).json()) as V1Order;
    expect(big.state).toBe("awaiting_approval");
    const res = await api.request(`/api/Approvals/${big.orderId}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${manager.accessToken}` },
    });
    expect(res.status).toBe(403);
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - 111_00);
  });

  it("refuses a bad body (400, field errors) or a missing Idempotency-Key and changes nothing", async () => {
    const { a, api, post, topUp, clock } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const manager = await addManager(api, db(), a.companyId, "morgan@example.com");
    const was = await counts();
    const soon = new Date(clock.now().getTime() + 5 * MINUTE).toISOString();
    const cases: Array<[unknown, string, string]> = [
      [{ ...order(), recipients: [] }, "recipients", "recipients must list at least one recipient."],
      [{ rewardName: "X" }, "recipients", "recipients must list at least one recipient."],
      [order([10.5]), "recipients.0.amount", "Amount must be a whole number of Reward Dollars from 1 to 10,000."],
      [order([0]), "recipients.0.amount", "Amount must be a whole number of Reward Dollars from 1 to 10,000."],
      [order([10_001]), "recipients.0.amount", "Amount must be a whole number of Reward Dollars from 1 to 10,000."],
      [{ ...order(), rewardName: "  " }, "rewardName", "Reward Name is required."],
      [{ ...order(), message: "x".repeat(501) }, "message", "Message must be at most 500 characters."],
      [
        {
          ...order([5, 5]),
          recipients: [order([5]).recipients[0], { ...order([5]).recipients[0], email: "PERSON1@example.com" }],
        },
        "recipients.1.email",
        "Recipient 2: Email Address repeats recipient 1; list each recipient once.",
      ],
      [
        { ...order(), recipients: [{ ...order([5]).recipients[0], email: "nope" }] },
        "recipients.0.email",
        "The email format is incorrect.",
      ],
      [
        { ...order(), sendAt: "tomorrow" },
        "sendAt",
        "sendAt must be an ISO 8601 instant with its offset, such as 2026-12-01T09:00:00+11:00.",
      ],
      [{ ...order(), sendAt: soon }, "sendAt", "Choose a time at least 10 minutes from now."],
      [{ ...order(), send_at: soon }, "body", ""],
      [
        { ...order(), recipients: [{ email: "morgan@example.com", firstName: "M", lastName: "M", amount: 5 }] },
        "recipients.0.email",
        "This email belongs to a program manager of your company; only team members can be rewarded.",
      ],
    ];
    for (const [body, field, message] of cases) {
      const problem = await expectProblem(await post(body), 400);
      const errors = (problem as { errors?: Record<string, string[]> }).errors ?? {};
      if (message) expect(errors[field], JSON.stringify(problem)).toEqual([message]);
      else expect(Object.keys(errors).length, JSON.stringify(problem)).toBeGreaterThan(0);
    }
    expect(manager.userId).toBeGreaterThan(0);
    for (const key of [null, "", "x".repeat(256), "naïve-key"]) {
      const problem = await expectProblem(await post(order(), key), 400);
      expect(problem.detail).toBe(
        "The Idempotency-Key header is required: 1 to 255 printable ASCII characters, a new one for each new order.",
      );
    }
    expect(await counts()).toEqual(was);
  });

  it("another company's key sees nothing (404); a revoked or expired key is refused (401) and places nothing", async () => {
    const { a, b, aKey, bKey, post, get, topUp, clock } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    await topUp(b.companyId, b.userId, 500_00);
    const placed = (await (await post(order([60, 40]))).json()) as V1Order;
    await expectProblem(await get(placed.orderId, bKey.key), 404);
    // An awaiting order of A is just as hidden from B.
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    const waiting = (await (await post(order([60, 40]))).json()) as V1Order;
    await expectProblem(await get(waiting.orderId, bKey.key), 404);

    const expiring = await a.json<CreatedApiKey>(
      "POST",
      "ApiKeys",
      { name: "Short-lived", expiresAt: new Date(clock.now().getTime() + DAY).toISOString() },
      201,
    );
    expect((await a.go("DELETE", `ApiKeys/${aKey.id}`)).status).toBe(204);
    const was = await counts();
    await expectProblem(await post(order([1]), randomUUID(), aKey.key), 401);
    clock.advance(DAY + MINUTE);
    await expectProblem(await post(order([1]), randomUUID(), expiring.key), 401);
    await expectProblem(await get(placed.orderId, expiring.key), 401);
    expect(await counts()).toEqual(was);
  });

  it("a send time ahead: charged now, scheduled, released by the scheduler at its time; a cancelled one is refunded to the balance", async () => {
    const { a, api, post, get, topUp, clock, logs } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const sendAt = new Date(clock.now().getTime() + 2 * DAY).toISOString();
    const first = v1OrderSchema.parse(await (await post(order([60, 40], { sendAt }))).json());
    expect(first).toMatchObject({ state: "scheduled", sendAt, invoiceNumber: expect.any(String), recipients: null });
    const second = v1OrderSchema.parse(await (await post(order([10], { sendAt }))).json());
    const total = chargesFor([60, 40]).totalCents + chargesFor([10]).totalCents;
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - total);
    expect(await db().select().from(emailOutbox).where(eq(emailOutbox.orderId, first.orderId))).toEqual([]);

    // The portal cancels the second: refunded to the balance, not to a card.
    const cancelled = await api.request(`/api/RewardOrders/${second.orderId}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.accessToken}` },
    });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    // The portal's view says where the money went back (its toast names the balance, not the card).
    expect(await cancelled.json()).toMatchObject({
      state: "cancelled",
      paidFrom: "balance",
      refundedAt: expect.any(String),
    });
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - chargesFor([60, 40]).totalCents);
    const refund = await db()
      .select()
      .from(balanceEntries)
      .where(and(eq(balanceEntries.orderId, second.orderId), eq(balanceEntries.kind, "refund")));
    expect(refund.map((r) => r.amountCents)).toEqual([chargesFor([10]).totalCents]);
    expect(((await (await get(second.orderId)).json()) as V1Order).refundedAt).not.toBeNull();
    const notice = (await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, a.email))).find((e) =>
      e.subject.startsWith("Cancelled and refunded"),
    );
    expect(notice?.text).toContain("in full to your company's balance");
    expect(notice?.text).not.toContain("card");

    clock.advance(2 * DAY + MINUTE);
    const services = scheduler(clock.now, logs.logger);
    expect((await releaseDueOrders(services, { advisoryLocks: false })).released).toBe(1);
    const released = v1OrderSchema.parse(await (await get(first.orderId)).json());
    expect(released.state).toBe("released");
    expect(released.recipients).toHaveLength(2);
    // Refunded once only, however often the scheduler passes.
    await releaseDueOrders(services, { advisoryLocks: false });
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - chargesFor([60, 40]).totalCents);
  });

  it("a charged order whose release never ran (the process died) is released by the scheduler, once, and a replay releases it too", async () => {
    let failRelease = true;
    const { a, post, get, topUp, clock, logs } = await world({
      onReleaseLine: () => {
        if (failRelease) throw new Error("the process died here");
      },
    });
    await topUp(a.companyId, a.userId, 500_00);
    const key = randomUUID();
    const res = await post(order([60, 40]), key);
    expect(res.status).toBe(201);
    const placed = (await res.json()) as V1Order;
    expect(placed.state).toBe("processing");
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - 111_00);
    expect(await db().select().from(rewardReleases)).toEqual([]);

    // Within the grace the scheduler leaves it to the call that charged it; after, it releases it.
    const services = scheduler(clock.now, logs.logger);
    failRelease = false;
    expect((await releaseDueOrders(services, { advisoryLocks: false })).released).toBe(0);
    clock.advance(2 * MINUTE);
    expect((await releaseDueOrders({ ...services, now: clock.now }, { advisoryLocks: false })).released).toBe(1);
    expect(((await (await get(placed.orderId)).json()) as V1Order).state).toBe("released");
    expect((await releaseDueOrders({ ...services, now: clock.now }, { advisoryLocks: false })).released).toBe(0);
    expect(await db().select().from(rewardReleases)).toHaveLength(1);
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - 111_00);

    // The other way back: a replay of the same request releases a charged, unreleased order at once.
    failRelease = true;
    const key2 = randomUUID();
    const stuck = (await (await post(order([5]), key2)).json()) as V1Order;
    expect(stuck.state).toBe("processing");
    failRelease = false;
    const replay = await post(order([5]), key2);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as V1Order).state).toBe("released");
    const audit = await db().select().from(auditLog).where(eq(auditLog.action, "reward.released"));
    expect(audit).toHaveLength(2);
  });

  /**
   * The company's money reconciles: the ledger's sum is the balance, and each order was charged
   * once and either released once or refunded once (docs/requirements.md §D5, ADR 0043 §1 and ADR 0043 §5).
   */
  async function expectReconciled(companyId: number, orderIds: readonly number[]) {
    const entries = await db().select().from(balanceEntries).where(eq(balanceEntries.companyId, companyId));
    expect(entries.reduce((sum, e) => sum + e.amountCents, 0)).toBe(await balanceOf(db(), companyId));
    for (const orderId of orderIds) {
      const mine = entries.filter((e) => e.orderId === orderId);
      expect(
        mine.filter((e) => e.kind === "order"),
        `order ${orderId} charged once`,
      ).toHaveLength(1);
      const refunds = mine.filter((e) => e.kind === "refund").length;
      const releases = (await db().select().from(rewardReleases).where(eq(rewardReleases.orderId, orderId))).length;
      expect({ releases, refunds }, `order ${orderId}: one release or one refund`).toSatisfy(
        (n: { releases: number; refunds: number }) => n.releases + n.refunds === 1,
      );
    }
    // And the operator's check agrees, a day on, when nothing may still be on its way.
    expect((await checkMoney(db(), { now: new Date(Date.now() + 24 * 60 * MINUTE) })).findings).toEqual([]);
  }

  it("the key's Owner paying their own draft by card leaves the company's API order awaiting approval alone: it is approved, charged once and released", async () => {
    const { a, post, get, topUp } = await world();
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    await topUp(a.companyId, a.userId, 500_00);
    const res = await post(order([100, 100]));
    expect(res.status, await res.clone().text()).toBe(202);
    const placed = v1OrderSchema.parse(await res.json());
    // The order is recorded as placed by the key's Owner (ADR 0044 §5), who now checks out a
    // small draft of their own by card: a draft's checkout supersedes only the draft's orders.
    await seedDraft(db(), a, [10], "Small thanks");
    expect((await payDraftByCard(a, [10])).status).toBe("succeeded");

    const [row] = await db().select().from(orders).where(eq(orders.id, placed.orderId));
    expect(row).toMatchObject({ status: "pending", failureReason: null, approvalStatus: "requested" });
    const pending = await a.json<Array<{ orderId: number }>>("GET", "Approvals?status=pending");
    expect(pending.map((p) => p.orderId)).toEqual([placed.orderId]);
    expect(((await (await get(placed.orderId)).json()) as V1Order).state).toBe("awaiting_approval");

    expect((await a.go("POST", `Approvals/${placed.orderId}/approve`)).status).toBe(204);
    const after = v1OrderSchema.parse(await (await get(placed.orderId)).json());
    expect(after.state).toBe("released");
    expect(after.recipients).toHaveLength(2);
    expect(await balanceOf(db(), a.companyId)).toBe(500_00 - chargesFor([100, 100]).totalCents);
    await expectReconciled(a.companyId, [placed.orderId]);
  });

  it("a charged API order not yet released survives its Owner's card checkout and, once demoted, their approval request; the scheduler releases it, charged once", async () => {
    let failRelease = true;
    const { a, api, post, get, topUp, clock, logs } = await world({
      onReleaseLine: () => {
        if (failRelease) throw new Error("the process died here");
      },
    });
    // Below the threshold a key's order is charged at once; the Manager's draft below is above it.
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 200 });
    await topUp(a.companyId, a.userId, 500_00);
    // Charged, then the process died before the release (as in the crash backstop test above).
    const first = (await (await post(order([60, 40]))).json()) as V1Order;
    expect(first.state).toBe("processing");
    failRelease = false;

    // The key's Owner checks out a draft of their own by card.
    await seedDraft(db(), a, [10], "Small thanks");
    expect((await payDraftByCard(a, [10])).status).toBe("succeeded");
    // The operator's reconciliation sees what the order's row shows next: a charged order failed
    // by someone else's checkout is money taken and nobody rewarded (modules/money-check/service.server.ts).
    expect((await checkMoney(db(), { now: clock.now() })).findings).toEqual([]);
    const [afterCheckout] = await db().select().from(orders).where(eq(orders.id, first.orderId));
    expect(afterCheckout).toMatchObject({ status: "pending", failureReason: null });

    // Another charged order stuck the same way; then a second Owner makes the key's Owner a
    // Manager, whose draft above the threshold asks for approval (approvals.ts requestApproval).
    failRelease = true;
    const second = (await (await post(order([20]))).json()) as V1Order;
    expect(second.state).toBe("processing");
    failRelease = false;
    const other = await addManager(api, db(), a.companyId, "olivia@example.com");
    await a.json("PUT", `Managers/${other.userId}/role`, { role: "owner" });
    const demoted = await api.request(`/api/Managers/${a.userId}/role`, {
      method: "PUT",
      headers: { authorization: `Bearer ${other.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ role: "manager" }),
    });
    expect(demoted.status, await demoted.clone().text()).toBe(200);
    await seedDraft(db(), a, [100, 100], "Big thanks");
    const asked = await a.json<{ created: boolean }>("POST", "Approvals/request", {
      amount: chargesFor([100, 100]).totalCents,
    });
    expect(asked.created).toBe(true);
    const stuck = await db()
      .select({ id: orders.id, status: orders.status, failureReason: orders.failureReason })
      .from(orders)
      .where(and(eq(orders.companyId, a.companyId), eq(orders.processor, "balance")))
      .orderBy(orders.id);
    expect(stuck).toEqual([
      { id: first.orderId, status: "pending", failureReason: null },
      { id: second.orderId, status: "pending", failureReason: null },
    ]);

    // After the grace the scheduler's backstop releases both, once each.
    clock.advance(2 * MINUTE);
    const services = scheduler(clock.now, logs.logger);
    expect((await releaseDueOrders(services, { advisoryLocks: false })).released).toBe(2);
    expect((await releaseDueOrders(services, { advisoryLocks: false })).released).toBe(0);
    for (const id of [first.orderId, second.orderId]) {
      expect(((await (await get(id)).json()) as V1Order).state).toBe("released");
    }
    expect(await balanceOf(db(), a.companyId)).toBe(
      500_00 - chargesFor([60, 40]).totalCents - chargesFor([20]).totalCents,
    );
    await expectReconciled(a.companyId, [first.orderId, second.orderId]);
  });

  function scheduler(now: () => Date, logger: ReturnType<typeof captureLogs>["logger"]) {
    return {
      db: db(),
      // A balance order never reaches the card processor: any call to it fails the test.
      payments: new Proxy({} as Payments, {
        get: (_, name) => (name === "kind" ? "simulated" : () => Promise.reject(new Error(`payments.${String(name)}`))),
      }),
      logger,
      now,
      release: { config },
    };
  }
});
