// Memory soak: the load journey at a steady rate for minutes on end, as a deployment runs for days,
// with each worker's resident memory read every few seconds. A worker whose memory at the last
// minute is above its memory at minute 2 (after the caches, the compiled code and the pool have
// settled) keeps something per request: a leak. Run by `npm run bench` (scripts/bench.ts,
// "soak"); alone: `node scripts/bench/soak.ts [--minutes 10] [--rate 20]`.
//
// Two set-ups side by side over the same minutes (the machine's two cores hold both at this
// rate): PostgreSQL with two HTTP workers, the production set-up (peak target under 250 MB per
// worker), and PGlite on a data directory, the default (one process; reported, no target). Each
// gets its own signed-in manager (scripts/bench/http-load.ts), then:
// - the page journey at `rate` requests/s (autocannon's overallRate, 4 connections): Dashboard,
//   My Team, Reward My Team, Settings, the release's delivery page, the API's team list, the
//   landing page, each in turn;
// - every 30 s an order paid and released (3 rewards, the simulated card): the rows, emails,
//   ledger entries and webhooks a working company makes;
// - at the end, the stop under load: SIGTERM while the journey still runs. Every request answered
//   must be a 2xx (a refused connection after the stop is not an answer), the process must exit 0,
//   and no error may be logged ("Cannot use a pool after calling end on the pool" was one).
// Resident memory per worker: the median of the samples in the 30 s before minute 2 and before
// the last minute's end; the peak is VmHWM, reset after the set-up.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import {
  CARD,
  ok,
  orderOverHttp,
  PRODUCTION_NODE_FLAGS,
  sleep,
  until,
  waitUntilReady,
} from "../../tests/support/app-process.ts";
import { findPostgresBinaries } from "../../tests/support/postgres-server.ts";
import { createSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import {
  type DatabaseKind,
  headersFor,
  memoryOf,
  postgresDatabase,
  processTree,
  resetPeak,
  type SignedInManager,
  signInManagerOverHttp,
  startApp,
  TARGETS,
  type TargetId,
} from "./http-load.ts";

/** Peak resident memory per PostgreSQL worker over the soak. */
export const SOAK_PEAK_TARGET_MB = 250;
/** Growth of a worker's resident memory from minute 2 to the last minute. */
export const SOAK_GROWTH_TARGET_PERCENT = 5;
const SAMPLE_EVERY_MS = 5_000;
const ORDER_EVERY_MS = 30_000;
const JOURNEY: TargetId[] = ["dashboard", "my-team", "reward-my-team", "settings", "delivery", "api-users", "landing"];

export interface SoakWorker {
  /** 1, 2…: the order the workers had when the soak began. */
  worker: number;
  rssAtMinute2Mb: number;
  rssAtEndMb: number;
  growthPercent: number;
  peakMb: number;
}

export interface SoakRun {
  database: DatabaseKind;
  description: string;
  workers: SoakWorker[];
  requests: number;
  requestsPerSecond: number;
  non2xx: number;
  errors: number;
  ordersPaid: number;
  orderFailures: number;
  /** The stop under load at the end. */
  stop: { answered: number; non2xx: number; exitCode: number | null; errorLines: number };
}

export interface SoakFigures {
  minutes: number;
  ratePerSecond: number;
  runs: SoakRun[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? (sorted[Math.floor((sorted.length - 1) / 2)] as number) : Number.NaN;
};

/** The journey's requests, in turn, with the headers each needs. */
function journey(manager: SignedInManager) {
  return JOURNEY.map((id) => {
    const t = TARGETS[id];
    return { method: "GET", path: t.url ? t.url(manager) : t.path, headers: headersFor(t, manager) };
  });
}

/** Pays one order of three rewards with the simulated card; resolves once it is released. */
async function payOneOrder(base: string, token: string, n: number): Promise<void> {
  const { intent } = await orderOverHttp(base, token, [5, 3, 2], `Soak order ${n}`);
  const card = { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD };
  await ok(base, "POST", "/api/StripePayment/confirm-simulated-payment", card, token);
  await ok(base, "POST", "/api/StripePayment/check-payment-intent", { paymentIntent: intent.paymentIntentId }, token);
}

async function soakOne(
  database: DatabaseKind,
  databaseUrl: string,
  description: string,
  workers: number,
  smtp: TestSmtpServer,
  minutes: number,
  rate: number,
  log: (line: string) => void,
): Promise<SoakRun> {
  let errorLines = 0;
  const app = await startApp(databaseUrl, smtp.url, false, PRODUCTION_NODE_FLAGS, workers, undefined, (chunk) => {
    const text = chunk.toString();
    errorLines += text.match(/"level":(50|60)|Cannot use a pool after calling end/g)?.length ?? 0;
    process.stdout.write(text);
  });
  try {
    await waitUntilReady(app, 180_000);
    if (workers > 1) {
      await until(
        async () => {
          const body = (await (await fetch(`${app.base}/readyz`)).json()) as { workers?: { listening: number } };
          return body.workers?.listening === workers;
        },
        60_000,
        `${workers} workers listening`,
      );
    }
    const manager = await signInManagerOverHttp(app.base, smtp);
    const pid = app.child.pid;
    if (!pid) throw new Error("no pid for the app process");
    const workerPids = workers > 1 ? processTree(pid).slice(1) : [pid];
    for (const w of workerPids) resetPeak(w);
    const samples = workerPids.map(() => [] as { atS: number; rssMb: number }[]);
    const t0 = Date.now();
    const sampler = setInterval(() => {
      workerPids.forEach((w, i) => {
        try {
          samples[i]?.push({ atS: (Date.now() - t0) / 1000, rssMb: memoryOf(w).rssMb });
        } catch {
          // a worker gone (restarted): its samples stop, and the report shows it
        }
      });
    }, SAMPLE_EVERY_MS);
    let ordersPaid = 0;
    let orderFailures = 0;
    let ordering = true;
    const orders = (async () => {
      for (let n = 1; ordering; n++) {
        await sleep(ORDER_EVERY_MS);
        if (!ordering) break;
        try {
          await payOneOrder(app.base, manager.accessToken, n);
          ordersPaid++;
        } catch (error) {
          orderFailures++;
          log(`  soak ${database}: order ${n} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    const durationS = minutes * 60;
    const result = await autocannon({
      url: app.base,
      connections: 4,
      overallRate: rate,
      duration: durationS,
      requests: journey(manager),
    });
    clearInterval(sampler);
    ordering = false;
    await orders;
    const runWorkers = workerPids.map((w, i): SoakWorker => {
      const s = samples[i] ?? [];
      const window = (endS: number) => median(s.filter((x) => x.atS > endS - 30 && x.atS <= endS).map((x) => x.rssMb));
      const atTwo = window(120);
      const atEnd = window(durationS);
      let peakMb = Number.NaN;
      try {
        peakMb = memoryOf(w).peakMb;
      } catch {
        // gone
      }
      return {
        worker: i + 1,
        rssAtMinute2Mb: atTwo,
        rssAtEndMb: atEnd,
        growthPercent: Math.round(((atEnd - atTwo) / atTwo) * 1000) / 10,
        peakMb,
      };
    });
    for (const w of runWorkers)
      log(
        `  soak ${database} worker ${w.worker}: ${w.rssAtMinute2Mb} MB at minute 2, ${w.rssAtEndMb} MB at minute ${minutes} (${w.growthPercent} %), peak ${w.peakMb} MB`,
      );

    // The stop under load: the journey goes on, SIGTERM a second in.
    const stopping = autocannon({ url: app.base, connections: 10, duration: 5, requests: journey(manager) });
    await sleep(1000);
    await app.stop(30_000);
    const stopResult = await stopping;
    const exit = await app.exited;
    const run: SoakRun = {
      database,
      description,
      workers: runWorkers,
      requests: result.requests.total,
      requestsPerSecond: Math.round((result.requests.total / durationS) * 10) / 10,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      ordersPaid,
      orderFailures,
      stop: {
        answered: stopResult["2xx"] + stopResult.non2xx,
        non2xx: stopResult.non2xx,
        exitCode: exit.code,
        errorLines,
      },
    };
    log(
      `  soak ${database}: ${run.requests} requests (${run.requestsPerSecond}/s), non-2xx ${run.non2xx}, errors ${run.errors}, ${ordersPaid} orders paid (${orderFailures} failed); stop under load: ${run.stop.answered} answered, non-2xx ${run.stop.non2xx}, exit ${run.stop.exitCode}, ${errorLines} errors logged`,
    );
    return run;
  } finally {
    await app.kill("SIGKILL");
  }
}

export async function benchSoak(
  options: { minutes?: number; ratePerSecond?: number; log?: (line: string) => void } = {},
): Promise<SoakFigures> {
  const minutes = options.minutes ?? 10;
  const rate = options.ratePerSecond ?? 20;
  const log = options.log ?? ((line: string) => console.log(line));
  if (minutes < 3) throw new Error("the soak needs at least 3 minutes (it compares minute 2 with the last)");
  const smtp = await createSmtpServer();
  const pgliteDir = mkdtempSync(join(tmpdir(), "rewards-soak-pglite-"));
  const postgres = findPostgresBinaries() ? await postgresDatabase("bench_soak") : undefined;
  try {
    const runs = await Promise.all([
      ...(postgres
        ? [soakOne("postgres", postgres.url, `${postgres.description}, 2 workers`, 2, smtp, minutes, rate, log)]
        : []),
      soakOne("pglite", pgliteDir, "PGlite (data directory), 1 process", 1, smtp, minutes, rate, log),
    ]);
    return { minutes, ratePerSecond: rate, runs };
  } finally {
    await postgres?.stop();
    rmSync(pgliteDir, { recursive: true, force: true });
    await smtp.stop();
  }
}

/** Targets missed, in words (empty when all are met). */
export function soakMisses(f: SoakFigures): string[] {
  const misses: string[] = [];
  for (const run of f.runs) {
    for (const w of run.workers) {
      if (!(w.growthPercent <= SOAK_GROWTH_TARGET_PERCENT))
        misses.push(`${run.database} worker ${w.worker} grew ${w.growthPercent} % (> ${SOAK_GROWTH_TARGET_PERCENT} %)`);
      if (run.database === "postgres" && !(w.peakMb < SOAK_PEAK_TARGET_MB))
        misses.push(`${run.database} worker ${w.worker} peak ${w.peakMb} MB (≥ ${SOAK_PEAK_TARGET_MB} MB)`);
    }
    if (run.non2xx > 0 || run.errors > 0)
      misses.push(`${run.database} soak: ${run.non2xx} non-2xx, ${run.errors} errors`);
    if (run.orderFailures > 0) misses.push(`${run.database} soak: ${run.orderFailures} orders failed`);
    if (run.stop.non2xx > 0 || run.stop.exitCode !== 0 || run.stop.errorLines > 0)
      misses.push(
        `${run.database} stop under load: ${run.stop.non2xx} non-2xx, exit ${run.stop.exitCode}, ${run.stop.errorLines} errors logged`,
      );
  }
  return misses;
}

/** The BENCHMARKS table. */
export function soakTable(f: SoakFigures): string {
  const rows = f.runs.flatMap((run) =>
    run.workers.map(
      (w) =>
        `| ${run.description} | ${w.worker} | ${w.rssAtMinute2Mb} MB | ${w.rssAtEndMb} MB | ${w.growthPercent} %: ${w.growthPercent <= SOAK_GROWTH_TARGET_PERCENT ? "met" : "**missed**"} | ${w.peakMb} MB${run.database === "postgres" ? `: ${w.peakMb < SOAK_PEAK_TARGET_MB ? "met" : "**missed**"}` : " (no target)"} | ${run.requests} (${run.requestsPerSecond}/s), ${run.non2xx} non-2xx, ${run.errors} errors; ${run.ordersPaid} orders paid | ${run.stop.answered} answered during the stop, ${run.stop.non2xx} non-2xx, exit ${run.stop.exitCode}, ${run.stop.errorLines} errors logged |`,
    ),
  );
  return [
    `| set-up | worker | resident at minute 2 | at minute ${f.minutes} | growth (≤ ${SOAK_GROWTH_TARGET_PERCENT} %) | peak (PostgreSQL < ${SOAK_PEAK_TARGET_MB} MB) | requests | SIGTERM under load |`,
    "|---|--:|--:|--:|--:|--:|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { minutes: { type: "string", default: "10" }, rate: { type: "string", default: "20" } },
  });
  const figures = await benchSoak({ minutes: Number(values.minutes), ratePerSecond: Number(values.rate) });
  console.log(soakTable(figures));
  const misses = soakMisses(figures);
  console.log(misses.length ? `Missed: ${misses.join("; ")}` : "Every soak target met.");
}
