// WEB_CONCURRENCY HTTP workers under one supervisor (node:cluster; docs/requirements.md §D3): the primary
// process serves nothing itself. It forks the workers, which share the port, restarts one that
// dies, and tells every worker how many are listening, so each worker's /readyz can say so. A
// worker is a whole app process (database pool, mail worker, reconciler): the background jobs
// already claim their rows with SKIP LOCKED or advisory locks, so any number of them is safe.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "./logger.ts";

/** What the primary tells each worker: how many workers are listening, of how many wanted. */
export interface WorkerCount {
  listening: number;
  wanted: number;
}

interface WorkerCountMessage extends WorkerCount {
  type: "worker-count";
}

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
