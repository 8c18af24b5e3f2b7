// Keeps the webhook history bounded (ADR 0045; docs/API.md "Webhooks"): every process runs this job hourly. A pass deletes the
// deliveries settled (delivered or failed) more than WEBHOOK_HISTORY_DAYS ago, by their last
// attempt (a re-send by hand starts their clock again), and then the events older than that which
// no delivery refers to any more. A pending delivery is still due (the worker will try it or give
// it up, worker.server.ts), so it and its event stay whatever their age.
//
// Deleting is idempotent, so processes running it at once need no claim: one deletes a row, the
// others find it gone. Rows go in batches, so a first pass over a long history holds no lock
// for long.
import { and, eq, inArray, lt, ne, notExists, sql } from "drizzle-orm";
import type { Db } from "../../server/db/client.ts";
import { webhookDeliveries, webhookEvents } from "../../server/db/schema.ts";
import { type JobObserver, type JobSpec, type PeriodicJob, startPeriodicJob } from "../../server/jobs/engine.ts";
import type { Logger } from "../../server/logger.ts";

/** How long a settled delivery, and an event with none left, is kept. */
export const WEBHOOK_HISTORY_DAYS = 30;
export const WEBHOOK_PRUNE_INTERVAL_MS = 60 * 60_000;
const BATCH_SIZE = 1_000;

export interface WebhookPruneSummary {
  deliveries: number;
  events: number;
}

export interface WebhookPruneServices {
  db: Db;
  logger: Logger;
  now: () => Date;
  intervalMs?: number;
  /** Rows deleted per statement (tests make it small). */
  batchSize?: number;
  /** Told each pass's duration and outcome (server/metrics.ts). */
  metrics?: JobObserver;
}

/** The prune as a job of the engine (server/jobs/engine.ts), hourly. */
export function webhookPruneJob(s: WebhookPruneServices): JobSpec<WebhookPruneSummary> {
  return {
    name: "webhook history prune",
    intervalMs: s.intervalMs ?? WEBHOOK_PRUNE_INTERVAL_MS,
    pass: async (isStopped) => {
      const summary = await pruneWebhookHistory(s.db, s.now(), { batchSize: s.batchSize, isStopped });
      if (summary.deliveries + summary.events > 0) s.logger.info({ ...summary }, "webhook history pruned");
      return summary;
    },
  };
}

/** The job on its own timer (tests; server/main.ts registers webhookPruneJob with the engine). */
export function startWebhookPruneJob(s: WebhookPruneServices, autoStart = true): PeriodicJob<WebhookPruneSummary> {
  return startPeriodicJob({ ...webhookPruneJob(s), logger: s.logger, autoStart, metrics: s.metrics });
}

/** Deletes what is older than WEBHOOK_HISTORY_DAYS before `now` and no longer due; answers how many rows went. */
export async function pruneWebhookHistory(
  db: Db,
  now: Date,
  options: { batchSize?: number; isStopped?: () => boolean } = {},
): Promise<WebhookPruneSummary> {
  const cutoff = new Date(now.getTime() - WEBHOOK_HISTORY_DAYS * 24 * 60 * 60_000);
  const limit = options.batchSize ?? BATCH_SIZE;
  const stopped = options.isStopped ?? (() => false);
  const summary: WebhookPruneSummary = { deliveries: 0, events: 0 };

  // The last time a delivery did anything: its last attempt, or its creation when never tried.
  const lastActivity = sql`coalesce(${webhookDeliveries.lastAttemptAt}, ${webhookDeliveries.createdAt})`;
  while (!stopped()) {
    const settled = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(ne(webhookDeliveries.status, "pending"), lt(lastActivity, cutoff)))
      .limit(limit);
    const gone = await db
      .delete(webhookDeliveries)
      // Checked again on the row itself: a re-send between the select and the delete keeps it.
      .where(
        and(inArray(webhookDeliveries.id, settled), ne(webhookDeliveries.status, "pending"), lt(lastActivity, cutoff)),
      )
      .returning({ id: webhookDeliveries.id });
    summary.deliveries += gone.length;
    if (gone.length < limit) break;
  }

  const anyDelivery = db
    .select({ one: sql`1` })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.eventId, webhookEvents.id));
  while (!stopped()) {
    const unreferenced = db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(and(lt(webhookEvents.createdAt, cutoff), notExists(anyDelivery)))
      .limit(limit);
    const gone = await db
      .delete(webhookEvents)
      .where(and(inArray(webhookEvents.id, unreferenced), notExists(anyDelivery)))
      .returning({ id: webhookEvents.id });
    summary.events += gone.length;
    if (gone.length < limit) break;
  }
  return summary;
}
