// The webhook delivery worker (ADR 0045), on a timer in every process (WEBHOOK_INTERVAL_SECONDS)
// and nudged when a delivery is queued by hand. Each pass claims due deliveries with
// `FOR UPDATE SKIP LOCKED` and a lease (locked_until), so two processes never call one endpoint
// with one delivery at the same time, and a process that dies mid-call leaves its claims to the
// others when the lease ends. Each claimed delivery is POSTed once, signed
// (modules/webhooks/signature.ts: Rewards-Signature and the Standard Webhooks headers), without
// following redirects and with a timeout:
//   - a 2xx answer: delivered;
//   - anything else (another status, a refused connection, a timeout): attempts + 1 and the next
//     attempt after a backoff (30 s, 1 min, 2 min, … capped at 1 h, ±10 % jitter: the engine's
//     STANDARD_BACKOFF and nextAttemptAfter, server/jobs/engine.ts), or failed once the delivery's
//     give_up_at (72 hours after the event, or after a re-send by hand) has passed.
// The endpoint's status and the first 500 characters of its answer are kept either way.
//
// Delivery is at least once: a receiver that took the event but whose answer was lost gets it
// again, so receivers deduplicate by the event id (docs/API.md "Webhooks").
import { lookup } from "node:dns/promises";
import { and, asc, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../server/db/schema.ts";
import {
  claimDue,
  type JobObserver,
  type JobSpec,
  nextAttemptAfter,
  type PeriodicJob,
  retryOrGiveUp,
  startPeriodicJob,
} from "../../server/jobs/engine.ts";
import type { Logger } from "../../server/logger.ts";
import { resolveSessionSecret } from "../../server/secret.ts";
import {
  type AnyWebhookEventType,
  WEBHOOK_RESPONSE_KEPT_CHARS,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookPayload,
} from "./schema.ts";
import { isPublicAddress, type WebhookKeys, webhookKeys } from "./service.server.ts";
import { signWebhook, standardWebhookHeaders } from "./signature.ts";

export const WEBHOOK_WORKER_DEFAULTS = {
  batchSize: 20,
  concurrency: 4,
  timeoutMs: 10_000,
} as const;

/**
 * A claim's lease unless told otherwise: the whole batch's calls one after another on each lane
 * (each at most the timeout, after a name lookup of at most the timeout), with a minute to spare,
 * so a live worker's claim never runs out before its last delivery is settled.
 */
export function defaultLeaseMs(batchSize: number, concurrency: number, timeoutMs: number): number {
  return Math.ceil(batchSize / concurrency) * 2 * timeoutMs + 60_000;
}

export interface WebhookWorkerOptions {
  db: Db;
  config: Pick<Config, "SESSION_SECRET" | "isDeployment" | "WEBHOOK_INTERVAL_SECONDS">;
  logger: Logger;
  /** The clock of signatures, backoff and give-up; tests move it. */
  now?: () => Date;
  /** The seal's keys; unset: derived from the server secret (server/secret.ts). */
  keys?: WebhookKeys;
  /** false: no timer (tests call runOnce by hand). */
  autoStart?: boolean;
  /** Told each pass's duration and outcome (server/metrics.ts). */
  metrics?: JobObserver;
  batchSize?: number;
  concurrency?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** A number in [0, 1) for the jitter; tests may fix it. */
  random?: () => number;
}

export interface WebhookPassSummary {
  delivered: number;
  retried: number;
  failed: number;
}

export type WebhookWorker = PeriodicJob<WebhookPassSummary>;

/** The delivery worker as a job of the engine (server/jobs/engine.ts), every WEBHOOK_INTERVAL_SECONDS. */
export function webhookDeliveryJob(options: WebhookWorkerOptions): JobSpec<WebhookPassSummary> {
  const now = options.now ?? (() => new Date());
  let keys: Promise<WebhookKeys> | undefined = options.keys ? Promise.resolve(options.keys) : undefined;
  const keysOf = () => {
    keys ??= resolveSessionSecret(options.db, options.config.SESSION_SECRET).then(
      ({ secret }) => webhookKeys(secret),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    );
    return keys;
  };
  return {
    name: "webhook worker",
    intervalMs: options.config.WEBHOOK_INTERVAL_SECONDS * 1000,
    pass: async (isStopped) => runWebhookPass(options, await keysOf(), now, isStopped),
  };
}

/** The job on its own timer (tests; server/main.ts registers webhookDeliveryJob with the engine). */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  return startPeriodicJob({
    ...webhookDeliveryJob(options),
    logger: options.logger,
    autoStart: options.autoStart,
    metrics: options.metrics,
  });
}

interface Claimed {
  id: number;
  attempts: number;
  giveUpAt: Date;
  lockedUntil: Date;
  companyId: number;
  url: string;
  secretSealed: string;
  eventPublicId: string;
  eventType: string;
  eventCreatedAt: Date;
  payload: Record<string, unknown>;
}

/** Claims and sends due deliveries, batch after batch, until none is due or the worker stops. */
export async function runWebhookPass(
  options: WebhookWorkerOptions,
  keys: WebhookKeys,
  now: () => Date,
  isStopped: () => boolean = () => false,
): Promise<WebhookPassSummary> {
  const summary: WebhookPassSummary = { delivered: 0, retried: 0, failed: 0 };
  const batchSize = options.batchSize ?? WEBHOOK_WORKER_DEFAULTS.batchSize;
  const concurrency = options.concurrency ?? WEBHOOK_WORKER_DEFAULTS.concurrency;
  for (;;) {
    if (isStopped()) break;
    const timeoutMs = options.timeoutMs ?? WEBHOOK_WORKER_DEFAULTS.timeoutMs;
    const leaseMs = options.leaseMs ?? defaultLeaseMs(batchSize, concurrency, timeoutMs);
    const batch = await claimDueDeliveries(options.db, now(), batchSize, leaseMs);
    if (batch.length === 0) break;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, batch.length) }, async () => {
        for (let item = batch[next++]; item; item = batch[next++]) {
          const outcome = await deliverOne(options, keys, now, item);
          summary[outcome]++;
        }
      }),
    );
    if (batch.length < batchSize) break;
  }
  return summary;
}

/**
 * Takes up to `limit` due deliveries: pending, due, and not held by a live lease. The rows are
 * locked with SKIP LOCKED while the lease is written, so concurrent passes take disjoint sets.
 */
async function claimDueDeliveries(db: Db, at: Date, limit: number, leaseMs: number): Promise<Claimed[]> {
  const lockedUntil = new Date(at.getTime() + leaseMs);
  const ids = await claimDue<number, number>(
    db,
    {
      table: webhookDeliveries,
      id: webhookDeliveries.id,
      due: and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.nextAttemptAt, at),
        or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, at)),
      ),
      orderBy: [asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id)],
      limit,
    },
    async (tx, due) => {
      const claimed = await tx
        .update(webhookDeliveries)
        .set({ lockedUntil })
        .where(inArray(webhookDeliveries.id, due))
        .returning({ id: webhookDeliveries.id });
      return claimed.map((c) => c.id);
    },
  );
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      attempts: webhookDeliveries.attempts,
      giveUpAt: webhookDeliveries.giveUpAt,
      companyId: webhookDeliveries.companyId,
      url: webhookEndpoints.url,
      secretSealed: webhookEndpoints.secretSealed,
      eventPublicId: webhookEvents.publicId,
      eventType: webhookEvents.type,
      eventCreatedAt: webhookEvents.createdAt,
      payload: webhookEvents.payload,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.id, ids))
    .orderBy(asc(webhookDeliveries.id));
  return rows.map((r) => ({ ...r, lockedUntil }));
}

type Outcome = keyof WebhookPassSummary;

async function deliverOne(
  options: WebhookWorkerOptions,
  keys: WebhookKeys,
  now: () => Date,
  d: Claimed,
): Promise<Outcome> {
  const secret = keys.openSecret(d.secretSealed, d.companyId);
  const body: WebhookPayload = {
    id: d.eventPublicId,
    type: d.eventType as AnyWebhookEventType,
    createdAt: d.eventCreatedAt.toISOString(),
    data: d.payload,
  };
  const rawBody = JSON.stringify(body);
  let status: number | null = null;
  let response: string;
  if (!secret) {
    // A changed SESSION_SECRET: the endpoint must be registered again (nothing else can sign).
    response = "Not sent: the endpoint's secret cannot be read (the server secret changed). Register it again.";
  } else {
    try {
      const timeoutMs = options.timeoutMs ?? WEBHOOK_WORKER_DEFAULTS.timeoutMs;
      const refused = options.config.isDeployment ? await privateAddressOf(d.url, timeoutMs) : null;
      if (refused) {
        response = `Not sent: ${new URL(d.url).hostname} resolves to ${refused}, a private address.`;
      } else {
        const signedAt = now();
        const res = await fetch(d.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "RewardPortal-Webhooks/1",
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, rawBody, signedAt),
            "rewards-event-id": d.eventPublicId,
            "rewards-event-type": d.eventType,
            // The event id is the Standard Webhooks message id: the same on every retry and re-send.
            ...standardWebhookHeaders(secret, d.eventPublicId, rawBody, signedAt),
          },
          body: rawBody,
          // A redirect is the endpoint's answer (3xx: not delivered), never followed to wherever it points.
          redirect: "manual",
          // Covers the answer's body too: a slow trickle is cut off like a silent endpoint.
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        response = await readPrefix(res, WEBHOOK_RESPONSE_KEPT_CHARS);
      }
    } catch (error) {
      response = `Could not reach the endpoint: ${reasonOf(error)}`;
    }
  }
  const at = now();
  const delivered = status !== null && status >= 200 && status < 300;
  const attempts = d.attempts + 1;
  const common = { attempts, lastAttemptAt: at, lastStatus: status, lastResponse: response, lockedUntil: null };
  let outcome: Outcome;
  let set: Partial<typeof webhookDeliveries.$inferInsert>;
  if (delivered) {
    outcome = "delivered";
    set = { ...common, status: "delivered", deliveredAt: at };
  } else {
    const decision = retryOrGiveUp(at, d.giveUpAt, () => nextAttemptAfter(attempts, at, d.giveUpAt, options.random));
    if (decision.outcome === "failed") {
      outcome = "failed";
      set = { ...common, status: "failed" };
    } else {
      outcome = "retried";
      set = { ...common, nextAttemptAt: decision.at };
    }
  }
  // Only while this claim holds: a re-send by hand meanwhile (a new window) is not overwritten
  // with this attempt's give-up.
  await options.db
    .update(webhookDeliveries)
    .set(set)
    .where(
      and(
        eq(webhookDeliveries.id, d.id),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.lockedUntil, d.lockedUntil),
      ),
    );
  if (outcome === "failed") {
    options.logger.warn({ deliveryId: d.id, status, attempts }, "webhook delivery given up after its retry window");
  }
  return outcome;
}

/**
 * The first address a host name resolves to that is not public, or null (deployments only; see
 * webhookUrlProblem). fetch resolves the name again, so a name that changes its answer between
 * the two (DNS rebinding) is not stopped by this alone: an egress firewall is the complete answer
 * (docs/API.md "Webhooks").
 */
async function privateAddressOf(url: string, timeoutMs: number): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from DNS for ${host} within the timeout`)), timeoutMs);
  });
  try {
    const addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return addresses.find((a) => !isPublicAddress(a.address))?.address ?? null;
  } finally {
    clearTimeout(timer);
  }
}

/** The first `chars` characters of an answer, reading no more of the body than that needs. */
async function readPrefix(res: Response, chars: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < chars) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body cut off mid-way: what arrived is enough to show.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.slice(0, chars);
}

function reasonOf(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "no answer within the timeout";
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const text = cause ?? (error instanceof Error ? error.message : String(error));
  return text.slice(0, 300);
}
