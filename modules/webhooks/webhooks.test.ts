// A company's webhooks through the API (ADR 0045): an Owner registers an endpoint (the secret
// answered once, kept sealed), lists, deletes, pings and re-sends; a Manager gets 403 and another
// company's endpoint is 404, with nothing changed; a URL the server may not call is 400 with
// nothing changed. And the events: each happening (a release, a reward email's delivery or
// failure, a lot's reminder and forfeiture, a member's removal, a partner's redemption, an
// approval's request and decision) queues one event with one delivery per subscribed endpoint, in
// its own transaction; a repeat (a re-run job, a replayed redemption) makes none.
import { count, eq, isNotNull } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import { createApi } from "../../server/api/index.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  emailOutbox,
  orders,
  recipientAccounts,
  rewardLots,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from "../../server/db/schema.ts";
import { PermanentMailError } from "../../server/mail/port.ts";
import { startMailWorker } from "../../server/mail/worker.ts";
import { resolveSessionSecret } from "../../server/secret.ts";
import { addManager, snapshot } from "../../tests/security/fixtures.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call } from "../identity/accounts.testkit.ts";
import { runExpiryJob } from "../lots/service.server.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { releaseOrder } from "../orders/release.server.ts";
import { emitRewardEmailEvents } from "./events.server.ts";
import type { CreatedWebhookEndpoint, WebhookDeliveriesPage, WebhookEndpointView } from "./schema.ts";
import { webhookKeys } from "./service.server.ts";

const HOOK = "http://127.0.0.1:9/hook";
const DAY = 24 * 60 * 60_000;

describeEachDatabase("webhook endpoints and events", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function world() {
    const ctx = paymentsApi(db(), { config });
    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const b = await payingManager(ctx.api, db(), "Bravo Pty Ltd");
    const register = (owner: typeof a, body: Record<string, unknown> = { url: HOOK, events: ["order.released"] }) =>
      owner.json<CreatedWebhookEndpoint>("POST", "Webhooks", body, 201);
    const release = async (owner: typeof a, amounts = [60, 40]) => {
      await seedDraft(db(), owner, amounts, "Quarterly Thanks");
      expect((await payDraftByCard(owner, amounts)).status).toBe("succeeded");
    };
    return { ...ctx, a, b, register, release };
  }

  const events = () => db().select().from(webhookEvents).orderBy(webhookEvents.id);
  const deliveries = () => db().select().from(webhookDeliveries).orderBy(webhookDeliveries.id);

  it("an Owner registers an endpoint: the secret answered once and kept sealed, listed without it, audited", async () => {
    const { a, register, clock } = await world();
    const created = await register(a, {
      url: `  ${HOOK}  `,
      events: ["email.failed", "order.released", "email.failed"],
    });
    expect(created).toEqual({
      id: expect.any(Number),
      url: HOOK,
      // In the listed order, once each.
      events: ["order.released", "email.failed"],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: clock.now().toISOString(),
    });
    const rows = await db().select().from(webhookEndpoints);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(created.secret.slice(6));
    // Sealed for this company under the server secret: it opens to the secret, and for no other company.
    const keys = webhookKeys((await resolveSessionSecret(db(), config.SESSION_SECRET)).secret);
    expect(keys.openSecret(rows[0]!.secretSealed, a.companyId)).toBe(created.secret);
    expect(keys.openSecret(rows[0]!.secretSealed, a.companyId + 1)).toBeNull();

    const list = await a.json<WebhookEndpointView[]>("GET", "Webhooks");
    expect(list).toEqual([
      {
        id: created.id,
        url: HOOK,
        events: ["order.released", "email.failed"],
        createdAt: created.createdAt,
        createdBy: { id: a.userId, name: expect.any(String) },
        lastDelivery: null,
      },
    ]);
    expect(JSON.stringify(list)).not.toContain("whsec_");
    const audit = await db().select().from(auditLog).where(eq(auditLog.action, "webhook.registered"));
    expect(audit).toMatchObject([{ companyId: a.companyId, actorUserId: a.userId, subject: `webhook:${created.id}` }]);
    expect(JSON.stringify(audit)).not.toContain("whsec_");
  });

  it("refuses a URL it may not call, or no events, with a clear message and nothing changed", async () => {
    const { a } = await world();
    const before = await snapshot(db());
    const cases: [unknown, string][] = [
      [{ url: "not a url", events: ["order.released"] }, "URL must be a full https:// address"],
      [{ url: "ftp://example.com/hook", events: ["order.released"] }, "URL must be a full https:// address"],
      [{ url: "http://example.com/hook", events: ["order.released"] }, "URL must start with https://."],
      [{ url: "https://user:pw@example.com/hook", events: ["order.released"] }, "must not contain a user name"],
      [{ url: "", events: ["order.released"] }, "URL is required."],
      [{ url: "https://example.com/hook", events: [] }, "Choose at least one event."],
      [{ url: "https://example.com/hook", events: ["order.paid"] }, "Events must be among the listed events."],
      [{ url: "https://example.com/hook", events: ["ping"] }, "Events must be among the listed events."],
    ];
    for (const [body, detail] of cases) {
      const problem = await expectProblem(await a.go("POST", "Webhooks", body), 400);
      expect(JSON.stringify(problem), JSON.stringify(body)).toContain(detail);
    }
    expect(await snapshot(db())).toEqual(before);
  });

  it("in a deployment: https to a public address only (no loopback, private or link-local address)", async () => {
    const deployed = testConfig({ APP_URL: "https://rewards.example.com", CATALOGUE_URL: "https://catalogue.test/" });
    const clock = paymentsApi(db(), { config }).clock;
    const api = createApi({
      db: db(),
      config: deployed,
      logger: captureLogs("silent").logger,
      captcha: { enabled: false, verify: async () => true },
      now: clock.now,
    });
    const a = await payingManager(api, db(), "Alpha Pty Ltd");
    const before = await snapshot(db());
    for (const url of [
      "http://127.0.0.1:9/hook",
      "https://127.0.0.1/hook",
      "https://localhost/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://intranet/hook",
    ]) {
      const problem = await expectProblem(await a.go("POST", "Webhooks", { url, events: ["order.released"] }), 400);
      expect(problem.detail, url).toMatch(/^URL must (start with https|be a public address)/);
    }
    expect(await snapshot(db())).toEqual(before);
    const ok = await a.go("POST", "Webhooks", { url: "https://hooks.example.com/rewards", events: ["order.released"] });
    expect(ok.status).toBe(201);
  });

  it("a Manager gets 403 on every webhook call, another company's endpoint is 404, and nothing changes", async () => {
    const { api, a, b, register, release } = await world();
    const endpoint = await register(a);
    await release(a);
    const [delivery] = await deliveries();
    if (!delivery) throw new Error("no delivery");
    const manager = await addManager(api, db(), a.companyId, `morgan.${a.userId}@example.com`);
    const before = await snapshot(db());
    const calls = [
      ["GET", "Webhooks", undefined],
      ["POST", "Webhooks", { url: HOOK, events: ["order.released"] }],
      ["DELETE", `Webhooks/${endpoint.id}`, undefined],
      ["GET", `Webhooks/${endpoint.id}/deliveries`, undefined],
      ["POST", `Webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`, undefined],
      ["POST", `Webhooks/${endpoint.id}/ping`, undefined],
    ] as const;
    for (const [method, path, body] of calls) {
      const problem = await expectProblem(await call(api, method, `/api/${path}`, body, manager.accessToken), 403);
      expect(problem.detail).toBe("Only an Owner of your company can do this.");
    }
    for (const [method, path, body] of calls.slice(2)) {
      const problem = await expectProblem(await b.go(method, path, body), 404);
      expect(problem.detail).toMatch(/was not found/);
    }
    expect(await b.json("GET", "Webhooks")).toEqual([]);
    await expectProblem(await a.go("GET", "Webhooks/abc/deliveries"), 404);
    expect(await snapshot(db())).toEqual(before);
    // A delivery of A's under B's own endpoint is not found either.
    const bEndpoint = await register(b);
    await expectProblem(await b.go("POST", `Webhooks/${bEndpoint.id}/deliveries/${delivery.id}/resend`), 404);
    expect((await deliveries()).map((d) => d.status)).toEqual(["pending"]);
  });

  it("deleting an endpoint stops its waiting deliveries and new ones; its past deliveries stay visible", async () => {
    const { a, register, release } = await world();
    const endpoint = await register(a);
    await release(a);
    expect((await deliveries()).map((d) => d.status)).toEqual(["pending"]);
    await a.json("DELETE", `Webhooks/${endpoint.id}`, undefined, 204);
    expect(await deliveries()).toMatchObject([
      { status: "failed", lastResponse: "Not sent: the endpoint was deleted." },
    ]);
    expect(await a.json("GET", "Webhooks")).toEqual([]);
    const page = await a.json<WebhookDeliveriesPage>("GET", `Webhooks/${endpoint.id}/deliveries`);
    expect(page.endpoint.deleted).toBe(true);
    expect(page.deliveries).toHaveLength(1);
    await release(a, [25]);
    expect(await deliveries()).toHaveLength(1);
    await expectProblem(await a.go("DELETE", `Webhooks/${endpoint.id}`), 404);
    await expectProblem(await a.go("POST", `Webhooks/${endpoint.id}/ping`), 404);
    expect(await db().select().from(auditLog).where(eq(auditLog.action, "webhook.deleted"))).toHaveLength(1);
  });

  it("a release emits one order.released per subscribed endpoint; a repeat release emits nothing more", async () => {
    const { a, b, register, release, clock } = await world();
    const first = await register(a);
    const second = await register(a, { url: `${HOOK}/2`, events: ["order.released", "email.delivered"] });
    await register(a, { url: `${HOOK}/3`, events: ["email.failed"] });
    await register(b);
    await release(a);
    const [order] = await db().select().from(orders).where(eq(orders.companyId, a.companyId));
    if (!order) throw new Error("no order");
    expect(await events()).toMatchObject([
      {
        companyId: a.companyId,
        type: "order.released",
        subject: `order:${order.id}`,
        publicId: expect.stringMatching(/^evt_/),
        payload: {
          orderId: order.id,
          invoiceNumber: order.invoiceNumber,
          rewardName: "Quarterly Thanks",
          currency: "AUD",
          rewardsCents: 10_000,
          totalCents: chargesFor([60, 40]).totalCents,
          recipients: 2,
          releasedAt: clock.now().toISOString(),
        },
      },
    ]);
    expect((await deliveries()).map((d) => [d.endpointId, d.status, d.attempts])).toEqual([
      [first.id, "pending", 0],
      [second.id, "pending", 0],
    ]);
    const config2 = { config, now: clock.now() };
    expect(await releaseOrder(db(), { orderId: order.id, source: "retry" }, config2)).toEqual({
      released: false,
      reason: "already_released",
    });
    expect(await events()).toHaveLength(1);
    expect(await deliveries()).toHaveLength(2);
    // The deliveries page lists it for the endpoint, newest first.
    const page = await a.json<WebhookDeliveriesPage>("GET", `Webhooks/${first.id}/deliveries`);
    expect(page.deliveries).toMatchObject([{ eventType: "order.released", status: "pending", attempts: 0 }]);
  });

  it("no endpoint subscribed: no event is stored", async () => {
    const { a, register, release } = await world();
    await register(a, { url: HOOK, events: ["reward.expired"] });
    await release(a);
    expect(await events()).toEqual([]);
  });

  it("a reward email delivered or given up on emits email.delivered / email.failed (not the tax invoice)", async () => {
    const { a, register, release, clock } = await world();
    const endpoint = await register(a, { url: HOOK, events: ["email.delivered", "email.failed"] });
    await release(a, [60, 40]);
    const refused = (await events()).length;
    expect(refused).toBe(0);
    const [first] = await db().select().from(orders);
    const lines = await db().select({ n: count() }).from(rewardLots);
    expect(lines[0]?.n).toBe(2);
    // The first reward email (a recipient's, not the tax invoice) is refused for good; the rest go.
    const [refusedEmail] = await db()
      .select({ id: emailOutbox.id })
      .from(emailOutbox)
      .where(isNotNull(emailOutbox.recipientUserId))
      .orderBy(emailOutbox.id)
      .limit(1);
    const worker = startMailWorker(
      {
        db: db(),
        from: "Rewards <no-reply@rewards.test>",
        logger: captureLogs("silent").logger,
        now: clock.now,
        // What server/main.ts hands the mail worker: the reward emails' webhook events.
        onSettled: emitRewardEmailEvents,
        transport: {
          name: "smtp",
          keepsBodies: false,
          async send(email) {
            if (email.id === refusedEmail?.id) throw new PermanentMailError("550 no such user");
          },
        },
      },
      false,
    );
    await worker.runOnce();
    await worker.stop();
    const got = await events();
    expect(got.map((e) => e.type).sort()).toEqual(["email.delivered", "email.failed"]);
    const failed = got.find((e) => e.type === "email.failed");
    expect(failed?.payload).toMatchObject({
      orderId: first?.id,
      recipient: { userId: expect.any(Number), email: expect.stringContaining("@example.com") },
      failedAt: clock.now().toISOString(),
      reason: "550 no such user",
    });
    expect(JSON.stringify(got)).not.toMatch(/password|accessCode/i);
    expect(failed?.subject).toBe(`email:${refusedEmail?.id}`);
    expect((await deliveries()).every((d) => d.endpointId === endpoint.id)).toBe(true);
    expect(await deliveries()).toHaveLength(2);
  });

  it("the expiry job emits reward.expiring per reminded lot and reward.expired per forfeited lot, once", async () => {
    const { a, register, release } = await world();
    await register(a, { url: HOOK, events: ["reward.expiring", "reward.expired"] });
    await release(a, [60, 40]);
    const lots = await db().select().from(rewardLots).orderBy(rewardLots.id);
    const expiresAt = lots[0]!.expiresAt;
    const soon = new Date(expiresAt.getTime() - 10 * DAY);
    await runExpiryJob(db(), { now: soon, config });
    await runExpiryJob(db(), { now: soon, config });
    expect((await events()).map((e) => [e.type, e.subject])).toEqual([
      ["reward.expiring", `lot:${lots[0]!.id}`],
      ["reward.expiring", `lot:${lots[1]!.id}`],
    ]);
    expect((await events())[0]?.payload).toMatchObject({
      lotId: lots[0]!.id,
      remainingCents: lots[0]!.remainingCents,
      expiresAt: expiresAt.toISOString(),
      recipient: { userId: lots[0]!.userId },
    });
    const after = new Date(expiresAt.getTime() + DAY);
    await runExpiryJob(db(), { now: after, config });
    await runExpiryJob(db(), { now: after, config });
    const expired = (await events()).filter((e) => e.type === "reward.expired");
    expect(expired.map((e) => e.subject).sort()).toEqual([`lot:${lots[0]!.id}`, `lot:${lots[1]!.id}`].sort());
    expect(expired.find((e) => e.subject === `lot:${lots[1]!.id}`)?.payload).toMatchObject({
      forfeitedCents: lots[1]!.remainingCents,
      forfeitedAt: after.toISOString(),
    });
    expect(await deliveries()).toHaveLength(4);
  });

  it("the expiry job also emits reward.expiry_reminder_sent and reward.forfeited per lot, once however often it runs", async () => {
    const { a, register, release } = await world();
    await register(a, { url: HOOK, events: ["reward.expiry_reminder_sent", "reward.forfeited"] });
    await release(a, [60, 40]);
    const lots = await db().select().from(rewardLots).orderBy(rewardLots.id);
    const expiresAt = lots[0]!.expiresAt;
    const soon = new Date(expiresAt.getTime() - 10 * DAY);
    await runExpiryJob(db(), { now: soon, config });
    await runExpiryJob(db(), { now: soon, config });
    expect((await events()).map((e) => [e.type, e.subject])).toEqual([
      ["reward.expiry_reminder_sent", `lot:${lots[0]!.id}`],
      ["reward.expiry_reminder_sent", `lot:${lots[1]!.id}`],
    ]);
    expect((await events())[0]?.payload).toEqual({
      lotId: lots[0]!.id,
      orderId: lots[0]!.orderId,
      recipient: { userId: lots[0]!.userId, email: expect.stringContaining("@") },
      remainingCents: lots[0]!.remainingCents,
      expiresAt: expiresAt.toISOString(),
      remindedAt: soon.toISOString(),
    });
    const after = new Date(expiresAt.getTime() + DAY);
    await runExpiryJob(db(), { now: after, config });
    await runExpiryJob(db(), { now: after, config });
    const forfeited = (await events()).filter((e) => e.type === "reward.forfeited");
    expect(forfeited.map((e) => e.subject)).toEqual([`lot:${lots[0]!.id}`, `lot:${lots[1]!.id}`]);
    expect(forfeited[1]?.payload).toEqual({
      lotId: lots[1]!.id,
      orderId: lots[1]!.orderId,
      recipient: { userId: lots[1]!.userId },
      reason: "expired",
      forfeitedCents: lots[1]!.remainingCents,
      expiresAt: lots[1]!.expiresAt.toISOString(),
      forfeitedAt: after.toISOString(),
    });
    expect(await deliveries()).toHaveLength(4);
    // Later runs find nothing left to remind or forfeit: still one event each.
    await runExpiryJob(db(), { now: new Date(after.getTime() + DAY), config });
    expect(await events()).toHaveLength(4);
  });

  it("removing a member emits reward.forfeited per lot with something left (reason member_removed), once", async () => {
    const { a, register, release, clock } = await world();
    await register(a, { url: HOOK, events: ["reward.forfeited", "reward.expired"] });
    await release(a, [60, 40]);
    const [lot] = await db().select().from(rewardLots).orderBy(rewardLots.id);
    await a.json("DELETE", `Users/${lot!.userId}`, undefined, 204);
    const got = await events();
    expect(got.map((e) => [e.type, e.subject])).toEqual([["reward.forfeited", `lot:${lot!.id}`]]);
    expect(got[0]?.payload).toMatchObject({
      lotId: lot!.id,
      recipient: { userId: lot!.userId },
      reason: "member_removed",
      forfeitedCents: lot!.remainingCents,
      forfeitedAt: clock.now().toISOString(),
    });
    // The expiry job later finds the lot empty: no second forfeiture of it, no reward.expired.
    await runExpiryJob(db(), { now: new Date(lot!.expiresAt.getTime() + DAY), config });
    expect((await events()).filter((e) => e.subject === `lot:${lot!.id}`)).toHaveLength(1);
  });

  it("a partner's redemption emits reward.redeemed with the amount and the balance left; a replay emits nothing more", async () => {
    const partnerKey = "partner-key-0123456789-abcdefghijklmnop";
    const ctx = paymentsApi(db(), {
      config: testConfig({ CATALOGUE_URL: "https://catalogue.test/", PARTNER_API_KEY: partnerKey }),
    });
    const a = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    await a.json<CreatedWebhookEndpoint>("POST", "Webhooks", { url: HOOK, events: ["reward.redeemed"] }, 201);
    const [ann] = await seedDraft(db(), a, [60, 40], "Quarterly Thanks");
    expect((await payDraftByCard(a, [60, 40])).status).toBe("succeeded");
    const [account] = await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, ann!));
    const [lot] = await db().select().from(rewardLots).where(eq(rewardLots.userId, ann!));
    const redeem = (amountCents: number, idempotencyKey: string) =>
      call(
        ctx.api,
        "POST",
        "/api/Redemptions",
        { accessCode: account!.accessCode, amountCents, idempotencyKey },
        partnerKey,
      );
    const first = await redeem(25_50, "redeem-1");
    expect(first.status).toBe(201);
    const { redemptionId } = (await first.json()) as { redemptionId: number };
    expect((await redeem(25_50, "redeem-1")).status).toBe(200);
    // Refused (above the balance): nothing happened, no event.
    expect((await redeem(99_00, "redeem-2")).status).toBe(422);
    const got = await events();
    expect(got.map((e) => [e.type, e.subject])).toEqual([["reward.redeemed", `redemption:${redemptionId}`]]);
    expect(got[0]?.payload).toEqual({
      redemptionId,
      recipient: { userId: ann },
      currency: "AUD",
      amountCents: 25_50,
      balanceCents: 60_00 - 25_50,
      lots: [{ lotId: lot!.id, amountCents: 25_50, expiresAt: lot!.expiresAt.toISOString() }],
      redeemedAt: ctx.clock.now().toISOString(),
    });
    expect(JSON.stringify(got[0]?.payload)).not.toContain(account!.accessCode);
    expect(await deliveries()).toHaveLength(1);
  });

  it("an approval request and its decision emit approval.requested and approval.decided", async () => {
    const { api, a, register } = await world();
    await register(a, { url: HOOK, events: ["approval.requested", "approval.decided"] });
    await a.json("PUT", "Approvals/threshold", { thresholdDollars: 50 });
    const manager = await addManager(api, db(), a.companyId, `morgan.${a.userId}@example.com`);
    const asManager = (method: string, path: string, body?: unknown) =>
      call(api, method, `/api/${path}`, body, manager.accessToken);
    // seedDraft adds to the draft: `whole` is the draft's lines after it.
    const ask = async (amounts: number[], whole = amounts) => {
      await seedDraft(db(), { companyId: a.companyId, userId: manager.userId }, amounts, "Team Thanks");
      const res = await asManager("POST", "Approvals/request", { amount: chargesFor(whole).totalCents });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { orderId: number }).orderId;
    };
    const declined = await ask([100]);
    await a.json("POST", `Approvals/${declined}/decline`, { reason: "Over budget" }, 204);
    const approved = await ask([120], [100, 120]);
    await a.json("POST", `Approvals/${approved}/approve`, undefined, 204);
    expect((await events()).map((e) => [e.type, e.subject, e.payload.decision ?? null])).toEqual([
      ["approval.requested", `order:${declined}`, null],
      ["approval.decided", `order:${declined}`, "declined"],
      ["approval.requested", `order:${approved}`, null],
      ["approval.decided", `order:${approved}`, "approved"],
    ]);
    expect((await events())[0]?.payload).toMatchObject({
      orderId: declined,
      rewardName: "Team Thanks",
      recipients: 1,
      requestedBy: { userId: manager.userId },
    });
    expect((await events())[1]?.payload).toMatchObject({ reason: "Over budget", decidedBy: { userId: a.userId } });
  });

  it("a ping queues a ping event to that endpoint only", async () => {
    const { a, register } = await world();
    const one = await register(a);
    await register(a, { url: `${HOOK}/2`, events: ["order.released"] });
    const sent = await a.json<{ eventId: string; deliveryId: number }>(
      "POST",
      `Webhooks/${one.id}/ping`,
      undefined,
      202,
    );
    expect(sent.eventId).toMatch(/^evt_/);
    expect(await deliveries()).toMatchObject([{ id: sent.deliveryId, endpointId: one.id, status: "pending" }]);
    expect(await events()).toMatchObject([{ type: "ping", publicId: sent.eventId }]);
  });
});
