// Delivers the outbox: claims due messages, hands each to the transport, marks each delivered one
// sent as soon as the transport has it, and on a transient failure schedules a retry with
// exponential backoff (capped), for as long as the retry window since the message was queued
// lasts. A permanent failure (the message itself was refused) is marked failed at once. Either way
// the reason stays in the row for the manager to see.
import type { Db } from "../db/client.ts";
import {
  type BackoffSchedule,
  backoffMs,
  type JobSpec,
  type PeriodicJob,
  retryOrGiveUp,
  startPeriodicJob,
} from "../jobs/engine.ts";
import type { Logger } from "../logger.ts";
import {
  claimDueEmails,
  markFailed,
  markSentMany,
  type OnEmailSettled,
  type OutboxRow,
  renewLeases,
  scheduleRetry,
} from "./outbox.ts";
import { type MailTransport, PermanentMailError } from "./port.ts";

/**
 * How long transient failures are retried, counted from when the message was queued. A time, not
 * a number of attempts: an SMTP outage over a weekend must not lose a recipient's only copy of
 * their password (docs/requirements.md §D6), and with the 30-minute cap a count would mean a few hours.
 */
export const RETRY_WINDOW_MS = 72 * 60 * 60_000;
/** The outbox's backoff (server/jobs/engine.ts backoffMs): 5 s doubling, capped at 30 minutes. */
export const MAIL_BACKOFF: BackoffSchedule = { baseMs: 5_000, maxMs: 30 * 60_000 };

export function mailBackoffMs(attempt: number): number {
  return backoffMs(attempt, MAIL_BACKOFF);
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

/** What a worker uses when not told otherwise (tests/fault/scale-out.test.ts checks against these). */
export const MAIL_WORKER_DEFAULTS = { pollMs: 2_000, batchSize: 20, leaseMs: 30_000, concurrency: 4 } as const;

export interface MailWorkerOptions {
  db: Db;
  transport: MailTransport;
  from: string;
  logger: Logger;
  pollMs?: number;
  batchSize?: number;
  /**
   * How long a claim holds a message (default 30 s), renewed every third of it while the batch is
   * in hand: a process that dies leaves its claimed messages to the others after at most this.
   */
  leaseMs?: number;
  /** Messages of a batch in flight at once (default 4; the SMTP transport pools 5 connections). */
  concurrency?: number;
  /** Injected for tests that move time forward. */
  now?: () => Date;
  backoff?: (attempt: number) => number;
  retryWindowMs?: number;
  /**
   * Told the emails marked sent or failed, in the marking transaction: server/main.ts hands in
   * the reward emails' webhook events (modules/webhooks/events.server.ts), which mail knows nothing of.
   */
  onSettled?: OnEmailSettled;
}

/**
 * One pass over the due messages resolves with how many were sent; a pass asked for while one
 * runs waits for it and then runs its own (the "queue" overlap of server/jobs/engine.ts).
 */
export type MailWorker = PeriodicJob<number>;

/** The outbox's delivery as a job of the engine (server/jobs/engine.ts), polling every pollMs. */
export function mailJob(options: MailWorkerOptions): JobSpec<number> {
  const { db, transport, from, logger } = options;
  const pollMs = options.pollMs ?? MAIL_WORKER_DEFAULTS.pollMs;
  const batchSize = options.batchSize ?? MAIL_WORKER_DEFAULTS.batchSize;
  const leaseMs = options.leaseMs ?? MAIL_WORKER_DEFAULTS.leaseMs;
  const renewEveryMs = leaseMs / 3;
  const concurrency = Math.max(1, options.concurrency ?? MAIL_WORKER_DEFAULTS.concurrency);
  const now = options.now ?? (() => new Date());
  const backoff = options.backoff ?? mailBackoffMs;
  const retryWindowMs = options.retryWindowMs ?? RETRY_WINDOW_MS;
  const redact = !transport.keepsBodies;
  const settle = { redact, onSettled: options.onSettled };

  async function pass(isStopped: () => boolean): Promise<number> {
    let sent = 0;
    for (;;) {
      // A stop (shutdown) ends the pass after the batch in hand, not after the whole outbox.
      if (isStopped()) return sent;
      const claimedAt = now();
      const batch = await claimDueEmails(db, claimedAt, batchSize, leaseMs);
      if (batch.length === 0) return sent;
      const outcome = await deliver(batch, claimedAt.getTime() + leaseMs);
      sent += outcome.sent;
      if (outcome.failure) throw outcome.failure.error;
      if (batch.length < batchSize || outcome.leaseLost) return sent;
    }
  }

  /**
   * Sends one claimed batch and settles each message in the database as soon as its fate is known.
   *
   * The batch goes out a few messages at a time (`concurrency` lanes) over the transport's pooled
   * connections, and a delivered message is marked sent (its body redacted in the same statement)
   * as soon as its send returns: a process killed mid-batch then sends again (after the lease,
   * under the same Message-ID) only what the SMTP server accepted while its mark was still on its
   * way, not everything delivered since the claim. The marks are coalesced rather than one
   * statement per message: under load every database query waits its turn (PGlite serialises them
   * on the main thread), and sending one message at a time with a query each, delivery fell to ~1
   * message a second while 200 managers were busy and verification codes took over a minute
   * (scripts/load.ts). So one mark statement is in flight at a time, and the ids delivered
   * meanwhile go together in the next one: with a quick database each message is marked within
   * milliseconds of its acceptance; with a slow one, marks group themselves. The lanes do not wait
   * for their marks: a lane that did would cap delivery at about `concurrency` messages per
   * statement's wait (with statements queued 20–100 ms each, a simulation delivered 2.5–3.5 times
   * fewer messages a second than with the lanes going on). So what a kill can have sent twice is
   * bounded by the batch in hand (no batch is claimed before the marks of the last one are written,
   * unless one failed, which fails the pass and is logged), and in practice is what was accepted
   * while the last statement or two were on their way (tests/fault/scale-out.test.ts reports it).
   */
  async function deliver(
    batch: OutboxRow[],
    claimedUntil: number,
  ): Promise<{ sent: number; leaseLost: boolean; failure?: { error: unknown } }> {
    let sent = 0;
    let markError: unknown;
    let hasMarkError = false;

    // The lease: rows this batch still holds (claimed, not yet settled, including those delivered
    // and waiting for their mark) are renewed while the batch is in hand, so a live worker never
    // loses a message it may still be sending: one send can last minutes (nodemailer's defaults:
    // 2 min to connect, 30 s for the greeting, 10 min of socket inactivity per step) and the pool
    // queues sends beyond its connections. A lane starts a send only while at least one renewal
    // period of confirmed lease is left; if renewals keep failing (the database unreachable from
    // here), the lanes stop taking messages and the rest of the batch goes back to the outbox when
    // the lease runs out. A process that dies leaves its claims to the others after at most one
    // lease (30 s by default, from its last renewal) instead of the fixed minute a batch had to fit in.
    const held = new Set(batch.map((r) => r.id));
    let leaseUntil = claimedUntil;
    let renewing: Promise<void> | undefined;
    const renew = async () => {
      const until = now().getTime() + leaseMs;
      try {
        await renewLeases(db, [...held], new Date(until));
        leaseUntil = Math.max(leaseUntil, until);
      } catch (error) {
        logger.warn({ err: failureText(error), held: held.size }, "email lease renewal failed");
      }
    };
    const renewal = setInterval(() => {
      if (renewing || held.size === 0) return;
      renewing = renew().finally(() => {
        renewing = undefined;
      });
    }, renewEveryMs);
    renewal.unref();
    let leaseLost = false;
    const leaseHolds = () => {
      if (leaseUntil - now().getTime() > renewEveryMs) return true;
      leaseLost = true;
      return false;
    };

    // Delivered ids waiting for the next mark statement, and the flush in flight, if any.
    const pending: number[] = [];
    let marking: Promise<void> | undefined;
    const flushMarks = async () => {
      while (pending.length > 0) {
        const ids = pending.splice(0);
        try {
          await markSentMany(db, ids, transport.name, now(), settle);
          sent += ids.length;
          for (const id of ids) held.delete(id);
          logger.debug({ emails: ids.length }, "emails marked sent");
        } catch (error) {
          // These stay `sending` (delivered, not marked): sent again after their lease, as after a kill.
          if (!hasMarkError) markError = error;
          hasMarkError = true;
        }
      }
      // Cleared in the same synchronous step that found nothing pending, so an id pushed after it
      // starts a new flush and none is left behind.
      marking = undefined;
    };
    const markSent = (id: number) => {
      pending.push(id);
      marking ??= flushMarks();
    };

    let next = 0;
    const lane = async () => {
      // After a failed mark statement no further message is sent: it could not be marked either.
      while (next < batch.length && !hasMarkError && leaseHolds()) {
        const row = batch[next++] as OutboxRow;
        let delivered = false;
        try {
          await transport.send({
            id: row.id,
            from,
            to: row.toAddress,
            subject: row.subject,
            html: row.html,
            text: row.text,
          });
          delivered = true;
        } catch (error) {
          const reason = failureText(error);
          const at = now();
          if (error instanceof PermanentMailError) {
            await markFailed(db, row.id, reason, settle, at);
            logger.error({ emailId: row.id, attempt: row.attempts, err: reason }, "email refused for good");
          } else {
            const giveUpAt = new Date(row.createdAt.getTime() + retryWindowMs);
            const decision = retryOrGiveUp(at, giveUpAt, () => new Date(at.getTime() + backoff(row.attempts)));
            if (decision.outcome === "failed") {
              // Only an attempt made after the whole window gives up, so every message is tried for
              // at least the window.
              const why = `No delivery within ${windowText(retryWindowMs)}; last error: ${reason}`;
              await markFailed(db, row.id, why, settle, at);
              logger.error({ emailId: row.id, attempt: row.attempts, err: reason }, "email delivery given up");
            } else {
              await scheduleRetry(db, row.id, reason, decision.at);
              logger.warn(
                { emailId: row.id, attempt: row.attempts, retryAt: decision.at, err: reason },
                "email delivery failed",
              );
            }
          }
          held.delete(row.id);
        }
        if (delivered) {
          logger.info({ emailId: row.id, transport: transport.name, attempt: row.attempts }, "email sent");
          markSent(row.id);
        }
      }
    };

    try {
      const lanes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, batch.length) }, lane));
      // The batch ends only when every mark has been written.
      while (marking) await marking;
      if (hasMarkError) return { sent, leaseLost, failure: { error: markError } };
      const failed = lanes.find((l): l is PromiseRejectedResult => l.status === "rejected");
      if (failed) return { sent, leaseLost, failure: { error: failed.reason } };
      if (leaseLost && next < batch.length) {
        logger.warn(
          { left: batch.length - next },
          "email lease could not be renewed: the rest of the batch goes back to the outbox when it runs out",
        );
      }
      return { sent, leaseLost };
    } finally {
      clearInterval(renewal);
      // No statement of this batch outlives it (stop() is followed by closing the database).
      await renewing;
    }
  }

  // Passes run one at a time: a caller during a pass waits for it, then runs its own ("queue").
  // The engine's timer never lets a later request postpone a sooner one: replacing it
  // unconditionally let the end of a pass, which schedules the next poll, cancel a nudge that had
  // not fired yet, and the new mail then waited for the next poll, ~2 s (seen while looking into
  // slow verification emails under load with scripts/load.ts).
  return {
    name: "mail worker",
    intervalMs: pollMs,
    overlap: "queue",
    observed: false,
    pass,
    onPassError: (error) =>
      logger.error({ err: error instanceof Error ? error.message : String(error) }, "mail worker pass failed"),
    onStop: async () => {
      await transport.close?.();
    },
  };
}

/** The job on its own timer (tests; server/main.ts registers mailJob with the engine). */
export function startMailWorker(options: MailWorkerOptions, autoStart = true): MailWorker {
  return startPeriodicJob({ ...mailJob(options), logger: options.logger, autoStart });
}
