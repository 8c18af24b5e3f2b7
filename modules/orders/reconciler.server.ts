// The payment reconciler (docs/requirements.md §D5 "releasing a paid order happens exactly once, whichever
// comes first"): a buyer who paid but never came back to the confirmation page, whose webhook
// never arrived (or whose process died between the processor's success and the release), still
// gets the reward. At start and every few minutes it asks the processor about recent unreleased
// orders (Stripe: the PaymentIntent; the simulated processor: its own record) and releases each
// one whose payment succeeded and matches the frozen order (domain/orders.ts reconcileOrder).
//
// Safe with several processes on one PostgreSQL database: each order is claimed with a
// transaction-scoped advisory lock (pg_try_advisory_xact_lock), so two processes do not ask the
// processor and hash passwords for the same order at once; the claim holds no row lock, so the
// release's own transaction (which locks the draft and the order) is not blocked by it. The
// release itself is exactly once whatever happens (release.ts), so a claim that is lost, or a
// race with the check call or the webhook, changes nothing. PGlite is one process, and a pass
// never overlaps another pass of the same reconciler.
//
// Top-ups of the prepaid balance (ADR 0043) are reconciled the same way in the same pass: a
// pending (or declined, then paid with another card) top-up whose payment succeeded is credited
// once (domain/balance-top-ups.ts reconcileTopUp, under the top-up's row lock), claimed with
// their own advisory-lock namespace.
//
// Then the backstop for a second payment (ADR 0041 and
// 2026-11-28): every payment the processor made for an order is kept (order_payments), and those
// the order does not name as its payer (one written over by a later payment or by the release,
// a Checkout Session of an order another payment paid) are asked about until they can pay nothing
// more; a succeeded one releases the order, or is refunded once when another payment paid it
// (domain/orders.ts reconcileOrderPayment), whether or not its webhook ever came. Claimed in a
// third advisory-lock namespace.
//
// Bounded: only orders (and payments) older than minAgeMs (a buyer in the middle of paying is not
// raced) and younger than maxAgeMs, at most batchSize of each per pass, walking the ids from pass
// to pass.
import { and, asc, eq, gt, gte, isNotNull, isNull, lte, or } from "drizzle-orm";
import { orders } from "../../server/db/schema.ts";
import {
  type JobObserver,
  type JobSpec,
  type PeriodicJob,
  startPeriodicJob,
  withAdvisoryClaim,
} from "../../server/jobs/engine.ts";
import { reconcileTopUp, type TopUpReconcileOutcome, topUpsToReconcile } from "../balance/top-ups.server.ts";
import {
  orderPaymentsToReconcile,
  type PaymentReconcileOutcome,
  type PaymentServices,
  type ReconcileOutcome,
  reconcileOrder,
  reconcileOrderPayment,
} from "./service.server.ts";

export interface ReconcilerOptions {
  services: PaymentServices;
  /** PostgreSQL: claim each order with an advisory lock (several processes share one database). */
  advisoryLocks: boolean;
  /** Between passes; default 5 minutes. */
  intervalMs?: number;
  /** Orders younger than this are left to the buyer's own return and the webhook; default 2 minutes. */
  minAgeMs?: number;
  /** Orders older than this are not looked at any more; default 3 days. */
  maxAgeMs?: number;
  /** Orders per pass; default 100. */
  batchSize?: number;
  /** Told each pass's duration and outcome (server/metrics.ts). */
  metrics?: JobObserver;
}

export interface ReconcileSummary {
  scanned: number;
  released: number;
  /** Claimed by another process at the moment (it reconciles them). */
  skipped: number;
  mismatched: number;
  errors: number;
  /** Top-ups credited to a prepaid balance (their scans, skips, mismatches and errors are counted above). */
  credited: number;
  /**
   * Payments of orders looked at that their order does not name (the backstop; a release, skip,
   * mismatch or error among them is counted above).
   */
  payments: number;
  /** Second payments for an order found by the backstop: recorded and refunded (extra-payments.ts). */
  refunded: number;
}

/** One pass; a call while a pass runs joins it. */
export type Reconciler = PeriodicJob<ReconcileSummary>;

export const RECONCILE_DEFAULTS = {
  intervalMs: 5 * 60_000,
  minAgeMs: 2 * 60_000,
  maxAgeMs: 3 * 24 * 60 * 60_000,
  batchSize: 100,
} as const;

/** The advisory-lock namespace of the reconciler (the first key of the two-key form). */
const LOCK_NAMESPACE = 0x5245_4331; // "REC1"
/** The same for top-ups (their ids are another sequence). */
const TOP_UP_LOCK_NAMESPACE = 0x5245_4332; // "REC2"
/** The same for an order's other payments (order_payments ids). */
const PAYMENT_LOCK_NAMESPACE = 0x5245_4333; // "REC3"

/** The reconciler as a job of the engine (server/jobs/engine.ts), every intervalMs (5 minutes). */
export function reconcilerJob(options: ReconcilerOptions): JobSpec<ReconcileSummary> {
  const s = options.services;
  const intervalMs = options.intervalMs ?? RECONCILE_DEFAULTS.intervalMs;
  const minAgeMs = options.minAgeMs ?? RECONCILE_DEFAULTS.minAgeMs;
  const maxAgeMs = options.maxAgeMs ?? RECONCILE_DEFAULTS.maxAgeMs;
  const batchSize = options.batchSize ?? RECONCILE_DEFAULTS.batchSize;
  let cursor = 0;
  let topUpCursor = 0;
  let paymentCursor = 0;

  async function pass(isStopped: () => boolean): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = {
      scanned: 0,
      released: 0,
      skipped: 0,
      mismatched: 0,
      errors: 0,
      credited: 0,
      payments: 0,
      refunded: 0,
    };
    const now = s.now().getTime();
    const candidates = await s.db
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          isNull(orders.releasedAt),
          // Paid already (scheduled, or cancelled and refunded): nothing to reconcile.
          isNull(orders.paidAt),
          eq(orders.processor, s.payments.kind),
          or(isNotNull(orders.paymentIntentId), isNotNull(orders.checkoutSessionId)),
          lte(orders.createdAt, new Date(now - minAgeMs)),
          gte(orders.createdAt, new Date(now - maxAgeMs)),
          gt(orders.id, cursor),
        ),
      )
      .orderBy(asc(orders.id))
      .limit(batchSize);
    // The next pass goes on after this batch; a short batch means the walk starts over.
    cursor = candidates.length < batchSize ? 0 : (candidates.at(-1)?.id ?? 0);
    for (const { id } of candidates) {
      if (isStopped()) break;
      summary.scanned++;
      try {
        const step = () => reconcileOrder(s, id);
        const outcome: ReconcileOutcome | null = options.advisoryLocks
          ? await withAdvisoryClaim(s.db, LOCK_NAMESPACE, id, step)
          : await step();
        if (outcome === null) summary.skipped++;
        else if (outcome === "released") summary.released++;
        else if (outcome === "mismatch") summary.mismatched++;
      } catch (error) {
        // The processor unreachable or a database hiccup: the next pass tries again.
        summary.errors++;
        s.logger.warn({ orderId: id, err: String(error) }, "reconciler: could not reconcile an order");
      }
    }
    const topUps = await topUpsToReconcile(s, {
      olderThan: new Date(now - minAgeMs),
      newerThan: new Date(now - maxAgeMs),
      afterId: topUpCursor,
      limit: batchSize,
    });
    topUpCursor = topUps.length < batchSize ? 0 : (topUps.at(-1) ?? 0);
    for (const id of topUps) {
      if (isStopped()) break;
      summary.scanned++;
      try {
        const step = () => reconcileTopUp(s, id);
        const outcome: TopUpReconcileOutcome | null = options.advisoryLocks
          ? await withAdvisoryClaim(s.db, TOP_UP_LOCK_NAMESPACE, id, step)
          : await step();
        if (outcome === null) summary.skipped++;
        else if (outcome === "credited") summary.credited++;
        else if (outcome === "mismatch") summary.mismatched++;
      } catch (error) {
        summary.errors++;
        s.logger.warn({ topUpId: id, err: String(error) }, "reconciler: could not reconcile a top-up");
      }
    }
    // After the orders: an order the scan above released in this pass has its other payments asked now.
    const payments = await orderPaymentsToReconcile(s, {
      olderThan: new Date(now - minAgeMs),
      newerThan: new Date(now - maxAgeMs),
      afterId: paymentCursor,
      limit: batchSize,
    });
    paymentCursor = payments.length < batchSize ? 0 : (payments.at(-1) ?? 0);
    for (const id of payments) {
      if (isStopped()) break;
      summary.payments++;
      try {
        const step = () => reconcileOrderPayment(s, id);
        const outcome: PaymentReconcileOutcome | null = options.advisoryLocks
          ? await withAdvisoryClaim(s.db, PAYMENT_LOCK_NAMESPACE, id, step)
          : await step();
        if (outcome === null) summary.skipped++;
        else if (outcome === "released") summary.released++;
        else if (outcome === "refunded") summary.refunded++;
        else if (outcome === "mismatch") summary.mismatched++;
      } catch (error) {
        summary.errors++;
        s.logger.warn({ orderPaymentId: id, err: String(error) }, "reconciler: could not reconcile an order's payment");
      }
    }
    if (
      summary.released + summary.credited + summary.refunded + summary.skipped + summary.errors + summary.mismatched >
      0
    ) {
      s.logger.info({ ...summary }, "reconciler pass");
    }
    return summary;
  }

  return { name: "reconciler", intervalMs, pass };
}

/** The job on its own timer (tests; server/main.ts registers reconcilerJob with the engine). */
export function startReconciler(options: ReconcilerOptions, autoStart = true): Reconciler {
  return startPeriodicJob({
    ...reconcilerJob(options),
    logger: options.services.logger,
    autoStart,
    metrics: options.metrics,
  });
}
