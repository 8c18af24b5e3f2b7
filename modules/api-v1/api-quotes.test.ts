// POST /api/v1/quotes (ADR 0044): the same body as POST /api/v1/orders answers
// what that order would cost and the balance it would leave, and keeps nothing. On PGlite and
// PostgreSQL: the figures are chargesFor's and equal what the order then charges; not a row is
// written (orders, members, lines, keys, balance entries, audit, events, emails) and the balance
// is unchanged; a short balance is still a 200 quote (below zero after, not covered); the
// threshold is reported; bad input gets the order's words (400); the key is required (401) and
// another company's key quotes its own balance.
import { randomUUID } from "node:crypto";
import { count } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import * as z from "zod/mini";
import { chargesFor } from "../../core/money.ts";
import type { Db } from "../../server/db/client.ts";
import {
  apiIdempotencyKeys,
  apiKeys,
  auditLog,
  balanceEntries,
  balanceTopUps,
  companies,
  emailOutbox,
  orderLines,
  orders,
  users,
  webhookEvents,
} from "../../server/db/schema.ts";
import { addManager } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { CreatedApiKey } from "../api-keys/schema.ts";
import { moveBalance } from "../balance/service.server.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import { type V1Order, v1QuoteSchema } from "./schema.ts";

const MINUTE = 60_000;

describeEachDatabase("POST /api/v1/quotes", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function world() {
    const ctx = paymentsApi(db(), { config });
    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const b = await payingManager(ctx.api, db(), "Bravo Pty Ltd");
    const aKey = await a.json<CreatedApiKey>("POST", "ApiKeys", { name: "Payroll sync" }, 201);
    const bKey = await b.json<CreatedApiKey>("POST", "ApiKeys", { name: "Bravo sync" }, 201);
    const send = (path: string, body: unknown, key: string | null = aKey.key, headers: Record<string, string> = {}) =>
      ctx.api.request(`/api/v1/${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const quote = (body: unknown, key: string | null = aKey.key) => send("quotes", body, key);
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
        await moveBalance(tx, companyId, { kind: "top_up", topUpId: row.id, amountCents });
      });
    // Each key used once: its hourly api_key.used audit entry (ADR 0028 §6) is written before the counts.
    for (const key of [aKey.key, bKey.key]) {
      await ctx.api.request("/api/v1/orders", { headers: { authorization: `Bearer ${key}` } });
    }
    return { ...ctx, a, b, aKey, bKey, send, quote, topUp };
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

  /** Every table a quote must leave alone, and the balances. */
  async function counts() {
    const tables = {
      orders,
      orderLines,
      users,
      apiIdempotencyKeys,
      balanceEntries,
      auditLog,
      webhookEvents,
      emailOutbox,
    } as const;
    const out: Record<string, unknown> = {};
    for (const [name, table] of Object.entries(tables)) {
      out[name] = (await db().select({ n: count() }).from(table))[0]?.n ?? 0;
    }
    out.balances = await db()
      .select({ id: companies.id, balanceCents: companies.balanceCents })
      .from(companies)
      .orderBy(companies.id);
    out.keys = await db().select().from(apiKeys).orderBy(apiKeys.id);
    return out;
  }

  it("answers the order's cost and the balance after, writes nothing, and the order then charges exactly that", async () => {
    const { a, quote, send, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    const was = await counts();
    const res = await quote(order([60, 40, 7]));
    expect(res.status).toBe(200);
    const answer = z.parse(v1QuoteSchema, await res.json());
    const charges = chargesFor([60, 40, 7]);
    expect(answer).toEqual({
      recipientCount: 3,
      rewardsCents: 107_00,
      serviceFeeCents: 10_70,
      gstCents: 1_07,
      totalCents: 118_77,
      balanceCents: 500_00,
      balanceAfterCents: 500_00 - 118_77,
      coveredByBalance: true,
      approvalRequired: false,
    });
    expect(answer).toMatchObject(charges);
    // The same quote again: the same answer; nothing written by either.
    expect(await (await quote(order([60, 40, 7]))).json()).toEqual(answer);
    expect(await counts()).toEqual(was);

    // The order with the same body charges what the quote said and leaves what it said.
    const placed = (await (
      await send("orders", order([60, 40, 7]), undefined, { "idempotency-key": randomUUID() })
    ).json()) as V1Order;
    expect(placed).toMatchObject({
      rewardsCents: answer.rewardsCents,
      serviceFeeCents: answer.serviceFeeCents,
      gstCents: answer.gstCents,
      totalCents: answer.totalCents,
    });
    const after = z.parse(v1QuoteSchema, await (await quote(order([1]))).json());
    expect(after.balanceCents).toBe(answer.balanceAfterCents);
  });

  it("a short balance is still a quote: below zero after, not covered; the approval threshold is reported", async () => {
    const { a, quote, topUp } = await world();
    await topUp(a.companyId, a.userId, 12_00);
    const was = await counts();
    const short = z.parse(v1QuoteSchema, await (await quote(order([100]))).json());
    expect(short).toMatchObject({
      totalCents: 111_00,
      balanceCents: 12_00,
      balanceAfterCents: 12_00 - 111_00,
      coveredByBalance: false,
      approvalRequired: false,
    });
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 100 });
    const before = await counts();
    expect(before.auditLog).not.toBe(was.auditLog);
    expect(z.parse(v1QuoteSchema, await (await quote(order([100]))).json()).approvalRequired).toBe(true);
    expect(z.parse(v1QuoteSchema, await (await quote(order([80]))).json()).approvalRequired).toBe(false);
    expect(await counts()).toEqual(before);
  });

  it("refuses bad input with the order's words (400) and changes nothing", async () => {
    const { a, api, quote, clock, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    await addManager(api, db(), a.companyId, "morgan@example.com");
    const was = await counts();
    const soon = new Date(clock.now().getTime() + 5 * MINUTE).toISOString();
    const cases: Array<[unknown, string, string]> = [
      [{ ...order(), recipients: [] }, "recipients", "recipients must list at least one recipient."],
      [order([10.5]), "recipients.0.amount", "Amount must be a whole number of Reward Dollars from 1 to 10,000."],
      [order([10_001]), "recipients.0.amount", "Amount must be a whole number of Reward Dollars from 1 to 10,000."],
      [{ ...order(), rewardName: "  " }, "rewardName", "Reward Name is required."],
      [
        {
          ...order([5, 5]),
          recipients: [order([5]).recipients[0], { ...order([5]).recipients[0], email: "PERSON1@example.com" }],
        },
        "recipients.1.email",
        "Recipient 2: Email Address repeats recipient 1; list each recipient once.",
      ],
      [{ ...order(), sendAt: soon }, "sendAt", "Choose a time at least 10 minutes from now."],
      [{ ...order(), send_at: soon }, "body", ""],
      [
        {
          ...order([5, 5]),
          recipients: [
            order([5]).recipients[0],
            { email: "Morgan@example.com", firstName: "M", lastName: "M", amount: 5 },
          ],
        },
        "recipients.1.email",
        "This email belongs to a program manager of your company; only team members can be rewarded.",
      ],
    ];
    for (const [body, field, message] of cases) {
      const problem = await expectProblem(await quote(body), 400);
      const errors = (problem as { errors?: Record<string, string[]> }).errors ?? {};
      if (message) expect(errors[field], JSON.stringify(problem)).toEqual([message]);
      else expect(Object.keys(errors).length, JSON.stringify(problem)).toBeGreaterThan(0);
    }
    await expectProblem(await quote("{not json"), 400);
    expect(await counts()).toEqual(was);
  });

  it("needs a key (401); another company's key quotes its own balance", async () => {
    const { a, b, bKey, quote, topUp } = await world();
    await topUp(a.companyId, a.userId, 500_00);
    await topUp(b.companyId, b.userId, 20_00);
    const was = await counts();
    await expectProblem(await quote(order(), null), 401);
    await expectProblem(await quote(order(), "rk_not_a_key"), 401);
    const theirs = z.parse(v1QuoteSchema, await (await quote(order([10]), bKey.key)).json());
    expect(theirs).toMatchObject({ balanceCents: 20_00, totalCents: 11_10, balanceAfterCents: 8_90 });
    expect(await counts()).toEqual(was);
  });
});
