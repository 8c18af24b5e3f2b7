// The webhook history is bounded (ADR 0045, docs/API.md "Webhooks"): the periodic prune job
// deletes deliveries settled (delivered or failed) more than 30 days ago and then events older
// than 30 days that no delivery refers to any more. A delivery still pending (due, or re-sent by
// hand) is kept, whatever its age, with its event; so is one settled within the 30 days.
import { eq, inArray } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { webhookDeliveries, webhookEvents } from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { payingManager, paymentsApi } from "../orders/payments.testkit.ts";
import { startWebhookPruneJob } from "./prune.server.ts";
import type { CreatedWebhookEndpoint, WebhookDeliveriesPage } from "./schema.ts";
import { newEventId } from "./service.server.ts";

const DAY = 24 * 60 * 60_000;

describeEachDatabase("webhook history pruning", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(async () => {
    await truncateAll(db());
  });

  it("deletes deliveries settled more than 30 days ago and the events left without one; keeps newer and still-due ones", async () => {
    const ctx = paymentsApi(db(), { config });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const register = async (path: string) =>
      (
        await owner.json<CreatedWebhookEndpoint>(
          "POST",
          "Webhooks",
          { url: `http://127.0.0.1:9${path}`, events: ["order.released"] },
          201,
        )
      ).id;
    const first = await register("/one");
    const second = await register("/two");
    const now = ctx.clock.now();
    const ago = (days: number) => new Date(now.getTime() - days * DAY);

    let subject = 0;
    const event = async (at: Date) => {
      const [row] = await db()
        .insert(webhookEvents)
        .values({
          publicId: newEventId(),
          companyId: owner.companyId,
          type: "order.released",
          subject: `order:${++subject}`,
          payload: { orderId: subject },
          createdAt: at,
        })
        .returning({ id: webhookEvents.id });
      return row?.id as number;
    };
    const delivery = async (
      eventId: number,
      endpointId: number,
      d: { status: "pending" | "delivered" | "failed"; createdAt: Date; lastAttemptAt: Date | null; dueAt?: Date },
    ) => {
      const [row] = await db()
        .insert(webhookDeliveries)
        .values({
          eventId,
          endpointId,
          companyId: owner.companyId,
          status: d.status,
          attempts: d.lastAttemptAt ? 1 : 0,
          nextAttemptAt: d.dueAt ?? d.lastAttemptAt ?? d.createdAt,
          giveUpAt: new Date((d.lastAttemptAt ?? d.createdAt).getTime() + 3 * DAY),
          lastAttemptAt: d.lastAttemptAt,
          deliveredAt: d.status === "delivered" ? d.lastAttemptAt : null,
          createdAt: d.createdAt,
        })
        .returning({ id: webhookDeliveries.id });
      return row?.id as number;
    };

    // Gone: delivered 31 days ago; failed 37 days ago; an event of 31 days with no delivery left.
    const oldEvent = await event(ago(31));
    const oldDelivered = await delivery(oldEvent, first, {
      status: "delivered",
      createdAt: ago(31),
      lastAttemptAt: ago(31),
    });
    const failedEvent = await event(ago(40));
    const oldFailed = await delivery(failedEvent, first, {
      status: "failed",
      createdAt: ago(40),
      lastAttemptAt: ago(37),
    });
    const orphan = await event(ago(31));
    // Kept: delivered 29 days ago; an old event re-sent by hand 2 days ago; an old one pending
    // (re-sent, due in a minute); an event of a day ago with no delivery; an old event one of
    // whose deliveries is old (gone) and the other recent (kept, so the event stays).
    const recentEvent = await event(ago(29));
    const recent = await delivery(recentEvent, first, {
      status: "delivered",
      createdAt: ago(29),
      lastAttemptAt: ago(29),
    });
    const resentEvent = await event(ago(40));
    const resent = await delivery(resentEvent, first, {
      status: "delivered",
      createdAt: ago(40),
      lastAttemptAt: ago(2),
    });
    const pendingEvent = await event(ago(45));
    const pending = await delivery(pendingEvent, first, {
      status: "pending",
      createdAt: ago(45),
      lastAttemptAt: ago(1),
      dueAt: new Date(now.getTime() + 60_000),
    });
    const newOrphan = await event(ago(1));
    const sharedEvent = await event(ago(35));
    const sharedOld = await delivery(sharedEvent, first, {
      status: "delivered",
      createdAt: ago(35),
      lastAttemptAt: ago(35),
    });
    const sharedNew = await delivery(sharedEvent, second, {
      status: "failed",
      createdAt: ago(35),
      lastAttemptAt: ago(1),
    });

    const logs = captureLogs("silent");
    // One row a batch: the pass goes on until nothing is left to prune.
    const job = startWebhookPruneJob({ db: db(), logger: logs.logger, now: () => now, batchSize: 1 }, false);
    expect(await job.runOnce()).toEqual({ deliveries: 3, events: 3 });
    await job.stop();

    const deliveriesLeft = await db()
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, [oldDelivered, oldFailed, recent, resent, pending, sharedOld, sharedNew]));
    expect(deliveriesLeft.map((d) => d.id).sort((a, b) => a - b)).toEqual(
      [recent, resent, pending, sharedNew].sort((a, b) => a - b),
    );
    const eventsLeft = await db()
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(eq(webhookEvents.companyId, owner.companyId));
    expect(eventsLeft.map((e) => e.id).sort((a, b) => a - b)).toEqual(
      [recentEvent, resentEvent, pendingEvent, newOrphan, sharedEvent].sort((a, b) => a - b),
    );
    expect(eventsLeft.map((e) => e.id)).not.toContain(orphan);

    // The Owner's page lists what is left.
    const page = await owner.json<WebhookDeliveriesPage>("GET", `Webhooks/${first}/deliveries`);
    expect(page.deliveries.map((d) => d.id).sort((a, b) => a - b)).toEqual(
      [recent, resent, pending].sort((a, b) => a - b),
    );

    // A second pass finds nothing more.
    const again = startWebhookPruneJob({ db: db(), logger: logs.logger, now: () => now }, false);
    expect(await again.runOnce()).toEqual({ deliveries: 0, events: 0 });
    await again.stop();
  });
});
