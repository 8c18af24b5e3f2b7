// A job every process runs on a timer (the payment reconciler, the scheduler): one pass at a
// time, a call of runOnce while a pass runs joins it, a failed pass is logged and the next one
// goes on, and a pending timer never keeps the process alive. Doing each item once across
// processes is the job's own business (row locks, advisory claims), not the timer's.
import type { Logger } from "../logger.ts";

export interface PeriodicJob<T> {
  /** One pass; a call while a pass runs joins it. */
  runOnce(): Promise<T>;
  /** Stops the timer and waits for a running pass. */
  stop(): Promise<void>;
}

/** Where a job reports each pass (server/metrics.ts observeJob; ADR 0033). */
export interface JobObserver {
  observeJob(job: string, seconds: number, succeeded: boolean): void;
}

export function startPeriodicJob<T>(options: {
  name: string;
  intervalMs: number;
  logger: Logger;
  pass: (isStopped: () => boolean) => Promise<T>;
  /** false: no timer (tests call runOnce by hand). */
  autoStart?: boolean;
  /** Told each pass's duration and outcome, by the job's name. */
  metrics?: JobObserver;
}): PeriodicJob<T> {
  let running: Promise<T> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function runOnce(): Promise<T> {
    if (!running) {
      const started = performance.now();
      const observe = (succeeded: boolean) =>
        options.metrics?.observeJob(options.name, (performance.now() - started) / 1000, succeeded);
      running = options
        .pass(() => stopped)
        .then(
          (result) => {
            observe(true);
            return result;
          },
          (error: unknown) => {
            observe(false);
            throw error;
          },
        )
        .finally(() => {
          running = undefined;
        });
    }
    return running;
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => options.logger.warn({ err: String(error) }, `${options.name}: pass failed`))
        .finally(() => schedule(options.intervalMs));
    }, delayMs);
    timer.unref();
  }

  if (options.autoStart ?? true) schedule(0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
