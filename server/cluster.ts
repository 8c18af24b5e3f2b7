// WEB_CONCURRENCY HTTP workers under one supervisor (node:cluster; docs/requirements.md §D3): the primary
// process serves nothing itself. It forks the workers, which share the port, restarts one that
// dies, and tells every worker how many are listening, so each worker's /readyz can say so. A
// worker is a whole app process (database pool, mail worker, reconciler): the background jobs
// already claim their rows with SKIP LOCKED or advisory locks, so any number of them is safe.
//
// GET /metrics (ADR 0033): the worker that receives a scrape asks the primary over IPC; the
// primary collects every worker's figures with prom-client's AggregatorRegistry (which asks each
// worker over the same channel) and sends the aggregated text back to the asking worker.
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Logger } from "./logger.ts";

/** What the primary tells each worker: how many workers are listening, of how many wanted. */
export interface WorkerCount {
  listening: number;
  wanted: number;
}

interface WorkerCountMessage extends WorkerCount {
  type: "worker-count";
}

/** A worker asks the primary for every worker's figures (GET /metrics). */
interface MetricsRequest {
  type: "metrics-request";
  id: number;
}

/** The primary's answer: the aggregated text, or why there is none. */
interface MetricsAnswer {
  type: "metrics-answer";
  id: number;
  text?: string;
  error?: string;
}

/** A worker gives up on the primary's answer after this (prom-client's own wait for a worker is 5 s). */
const METRICS_ANSWER_TIMEOUT_MS = 10_000;

/** A worker that dies sooner than this after its start counts as a crash loop: wait before the next. */
const QUICK_DEATH_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/** Starts `wanted` workers and keeps that many running until SIGTERM or SIGINT. */
export function superviseWorkers(wanted: number, logger: Logger): void {
  const listening = new Set<number>();
  let stopping = false;
  let restartDelayMs = 0;

  const broadcast = () => {
    const message: WorkerCountMessage = { type: "worker-count", listening: listening.size, wanted };
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker?.isConnected()) worker.send(message);
    }
  };

  const fork = () => {
    const worker = cluster.fork();
    const startedAt = Date.now();
    worker.on("listening", () => {
      listening.add(worker.id);
      restartDelayMs = 0;
      broadcast();
    });
    worker.on("exit", (code, signal) => {
      listening.delete(worker.id);
      broadcast();
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
        return;
      }
      const quick = Date.now() - startedAt < QUICK_DEATH_MS;
      restartDelayMs = quick ? Math.min(MAX_RESTART_DELAY_MS, Math.max(1_000, restartDelayMs * 2)) : 0;
      logger.error(
        { pid: worker.process.pid, code, signal, restartInMs: restartDelayMs },
        "worker died: starting another",
      );
      setTimeout(fork, restartDelayMs);
    });
  };

  // Made before the first fork, so the primary listens for the workers' figures from the start.
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker: Worker, message: unknown) => {
    const m = message as Partial<MetricsRequest> | null;
    if (m?.type !== "metrics-request" || typeof m.id !== "number") return;
    const id = m.id;
    const answer = (reply: Omit<MetricsAnswer, "type" | "id">) => {
      if (worker.isConnected()) worker.send({ type: "metrics-answer", id, ...reply } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: unknown) => {
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, "metrics: aggregating failed");
        answer({ error: error instanceof Error ? error.message : String(error) });
      },
    );
  });

  logger.info({ workers: wanted }, "starting HTTP workers");
  for (let i = 0; i < wanted; i++) fork();

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping the workers");
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker.process.kill("SIGTERM");
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/**
 * In a worker: the latest count the primary sent (undefined in a process that is not a cluster
 * worker, or before the first message).
 */
export function followWorkerCount(): () => WorkerCount | undefined {
  let latest: WorkerCount | undefined;
  if (cluster.isWorker) {
    process.on("message", (message: unknown) => {
      const m = message as Partial<WorkerCountMessage> | null;
      if (m?.type === "worker-count" && typeof m.listening === "number" && typeof m.wanted === "number") {
        latest = { listening: m.listening, wanted: m.wanted };
      }
    });
  }
  return () => latest;
}

/**
 * In a worker: every worker's figures, aggregated by the primary (one Prometheus text). Rejects
 * when the primary does not answer in time or could not aggregate (GET /metrics then answers 503).
 */
export function askPrimaryForMetrics(): Promise<string> {
  const send = process.send?.bind(process);
  if (!cluster.isWorker || !send) return Promise.reject(new Error("not a cluster worker"));
  if (!answerListener) {
    answerListener = (message: unknown) => {
      const m = message as Partial<MetricsAnswer> | null;
      if (m?.type !== "metrics-answer" || typeof m.id !== "number") return;
      const waiting = pendingScrapes.get(m.id);
      if (!waiting) return;
      pendingScrapes.delete(m.id);
      if (typeof m.text === "string") waiting.resolve(m.text);
      else waiting.reject(new Error(m.error ?? "no figures from the primary"));
    };
    process.on("message", answerListener);
  }
  const id = nextScrapeId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pendingScrapes.delete(id);
      reject(new Error(`the primary did not answer within ${METRICS_ANSWER_TIMEOUT_MS / 1000} s`));
    }, METRICS_ANSWER_TIMEOUT_MS);
    timer.unref();
    pendingScrapes.set(id, {
      resolve: (text) => {
        clearTimeout(timer);
        resolve(text);
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    send({ type: "metrics-request", id } satisfies MetricsRequest);
  });
}

let nextScrapeId = 1;
let answerListener: ((message: unknown) => void) | undefined;
const pendingScrapes = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
