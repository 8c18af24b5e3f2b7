// Delivers the outbox: claims due messages, hands each to the transport, and on a transient
// failure schedules a retry with exponential backoff (capped), for as long as the retry window
// since the message was queued lasts. A permanent failure (the message itself was refused) is
// marked failed at once. Either way the reason stays in the row for the manager to see.
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { claimDueEmails, markFailed, markSentMany, scheduleRetry } from "./outbox.ts";
import { type MailTransport, PermanentMailError } from "./port.ts";

/**
 * How long transient failures are retried, counted from when the message was queued. A time, not
 * a number of attempts: an SMTP outage over a weekend must not lose a recipient's only copy of
 * their password (DESIGN.md §6), and with the 30-minute cap a count would mean a few hours.
 */
export const RETRY_WINDOW_MS = 72 * 60 * 60_000;
const BASE_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 30 * 60_000;

export function backoffMs(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
}

/**
 * The reason kept in the row and the log: the error's message only (never the message body),
 * without any credentials a connection URL in it might carry.
 */
function failureText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\/\/[^/\s@]+@/g, "//***@").slice(0, 1000);
}

function windowText(ms: number): string {
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000} hours` : `${Math.round(ms / 60_000)} minutes`;
}

export interface MailWorkerOptions {
  db: Db;
  transport: MailTransport;
  from: string;
  logger: Logger;
  pollMs?: number;
  batchSize?: number;
  leaseMs?: number;
  /** Messages of a batch in flight at once (default 4; the SMTP transport pools 5 connections). */
  concurrency?: number;
  /** Injected for tests that move time forward. */
  now?: () => Date;
  backoff?: (attempt: number) => number;
  retryWindowMs?: number;
}

export interface MailWorker {
  /** One pass over the due messages; resolves with how many were sent. */
  runOnce(): Promise<number>;
  /** Asks for a pass soon (after an enqueue), instead of waiting for the next poll. */
  nudge(): void;
  stop(): Promise<void>;
}

export function startMailWorker(options: MailWorkerOptions, autoStart = true): MailWorker {
  const { db, transport, from, logger } = options;
  const pollMs = options.pollMs ?? 2_000;
  const batchSize = options.batchSize ?? 20;
  const leaseMs = options.leaseMs ?? 60_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const now = options.now ?? (() => new Date());
  const backoff = options.backoff ?? backoffMs;
  const retryWindowMs = options.retryWindowMs ?? RETRY_WINDOW_MS;
  const redact = !transport.keepsBodies;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function pass(): Promise<number> {
    let sent = 0;
    for (;;) {
      // A stop (shutdown) ends the pass after the batch in hand, not after the whole outbox.
      if (stopped) return sent;
      const batch = await claimDueEmails(db, now(), batchSize, leaseMs);
      if (batch.length === 0) return sent;
      // The batch goes out a few messages at a time over the transport's pooled connections,
      // and the delivered ones are marked in ONE statement. Under load every database query
      // waits its turn (PGlite serialises them on the main thread): sending one message at a
      // time with a query each, delivery fell to ~1 message a second while 200 managers were
      // busy, and verification codes took over a minute (scripts/load.ts). A crash
      // between sending and marking re-sends those messages after the lease, as before (for one).
      const delivered: number[] = [];
      let next = 0;
      const lane = async () => {
        while (next < batch.length) {
          const row = batch[next++] as (typeof batch)[number];
          try {
            await transport.send({
              id: row.id,
              from,
              to: row.toAddress,
              subject: row.subject,
              html: row.html,
              text: row.text,
            });
            delivered.push(row.id);
            logger.info({ emailId: row.id, transport: transport.name, attempt: row.attempts }, "email sent");
          } catch (error) {
            const reason = failureText(error);
            const at = now();
            if (error instanceof PermanentMailError) {
              await markFailed(db, row.id, reason, { redact });
              logger.error({ emailId: row.id, attempt: row.attempts, err: reason }, "email refused for good");
            } else if (at.getTime() - row.createdAt.getTime() >= retryWindowMs) {
              // Only an attempt made after the whole window gives up, so every message is tried for
              // at least the window.
              await markFailed(db, row.id, `No delivery within ${windowText(retryWindowMs)}; last error: ${reason}`, {
                redact,
              });
              logger.error({ emailId: row.id, attempt: row.attempts, err: reason }, "email delivery given up");
            } else {
              const retryAt = new Date(at.getTime() + backoff(row.attempts));
              await scheduleRetry(db, row.id, reason, retryAt);
              logger.warn({ emailId: row.id, attempt: row.attempts, retryAt, err: reason }, "email delivery failed");
            }
          }
        }
      };
      const lanes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, batch.length) }, lane));
      await markSentMany(db, delivered, transport.name, now(), { redact });
      sent += delivered.length;
      const failed = lanes.find((l): l is PromiseRejectedResult => l.status === "rejected");
      if (failed) throw failed.reason;
      if (batch.length < batchSize) return sent;
    }
  }

  // Passes run one at a time: a caller during a pass waits for it, then runs its own.
  let chain: Promise<unknown> = Promise.resolve();
  function runOnce(): Promise<number> {
    const next = chain.then(pass, pass);
    chain = next.catch(() => undefined);
    return next;
  }

  // When the pending timer fires; a later request never postpones a sooner one. (Replacing it
  // unconditionally let the end of a pass, which schedules the next poll, cancel a nudge that had
  // not fired yet: the new mail then waited for the next poll, ~2 s; seen while looking into
  // slow verification emails under load with scripts/load.ts.)
  let timerDue = Number.POSITIVE_INFINITY;
  function schedule(delay: number) {
    if (stopped) return;
    const due = Date.now() + delay;
    if (timer && due >= timerDue) return;
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = undefined;
      timerDue = Number.POSITIVE_INFINITY;
      runOnce()
        .catch((error) =>
          logger.error({ err: error instanceof Error ? error.message : String(error) }, "mail worker pass failed"),
        )
        .finally(() => schedule(pollMs));
    }, delay);
    timer.unref();
  }

  if (autoStart) schedule(0);

  return {
    runOnce,
    nudge: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await chain;
      await transport.close?.();
    },
  };
}
