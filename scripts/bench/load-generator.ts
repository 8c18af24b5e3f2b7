// The load generator of the HTTP benchmark: wrk (Debian's `wrk` package) where it is installed,
// else autocannon. The app, the ceiling and the load generator share this machine's cores, so
// what the generator burns is taken from the server it measures: autocannon (JavaScript) needed
// most of a core at a few hundred signed-in requests/s, which capped a second HTTP worker; wrk
// (C, one thread, epoll) needs a few per cent of one at the same rate. Both report the same
// figures, and the report names the generator that made them.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

export interface LoadRun {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
}

export interface LoadResult {
  /** Responses completed within the run. */
  requests: number;
  /** How long the run took, in seconds. */
  durationSeconds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Responses with a status of 400 or above (wrk) / outside 2xx (autocannon). */
  non2xx: number;
  /** Bytes read, headers and bodies. */
  bytes: number;
}

export type LoadGeneratorName = "wrk" | "autocannon";

function wrkInstalled(): boolean {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // wrk prints its usage and exits 1 for --version: installed. ENOENT: not installed.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** `BENCH_LOAD_GENERATOR=autocannon` forces autocannon, e.g. to compare the two. */
export const LOAD_GENERATOR: LoadGeneratorName =
  process.env.BENCH_LOAD_GENERATOR === "autocannon" || !wrkInstalled() ? "autocannon" : "wrk";

export function runLoad(run: LoadRun): Promise<LoadResult> {
  return LOAD_GENERATOR === "wrk" ? wrk(run) : viaAutocannon(run);
}

async function viaAutocannon(run: LoadRun): Promise<LoadResult> {
  const r = await autocannon({
    url: run.url,
    connections: run.connections,
    duration: run.durationSeconds,
    headers: run.headers,
    timeout: 10,
  });
  return {
    requests: r.requests.total,
    durationSeconds: r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    bytes: r.throughput.total,
  };
}

// wrk's summary as one JSON line (its own text report rounds and mixes units). Latencies are µs.
const WRK_REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK_JSON {\\"requests\\":%d,\\"durationUs\\":%d,\\"bytes\\":%d,\\"errors\\":%d,\\"status\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"max\\":%d}\\n",
    summary.requests, summary.duration, summary.bytes, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

async function wrk(run: LoadRun): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "rewards-bench-wrk-"));
  try {
    const script = join(dir, "report.lua");
    writeFileSync(script, WRK_REPORT);
    const args = [
      "--threads",
      "1",
      "--connections",
      String(run.connections),
      "--duration",
      `${run.durationSeconds}s`,
      "--timeout",
      "10s",
      "--script",
      script,
      ...Object.entries(run.headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]),
      run.url,
    ];
    const output = await new Promise<string>((resolve, reject) => {
      execFile("wrk", args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
        error ? reject(new Error(`wrk failed: ${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    const line = output.split("\n").find((l) => l.startsWith("WRK_JSON "));
    if (!line) throw new Error(`wrk printed no summary:\n${output}`);
    const s = JSON.parse(line.slice("WRK_JSON ".length)) as {
      requests: number;
      durationUs: number;
      bytes: number;
      errors: number;
      status: number;
      p50: number;
      p99: number;
      max: number;
    };
    const ms = (us: number) => Math.round(us / 10) / 100;
    return {
      requests: s.requests,
      durationSeconds: s.durationUs / 1e6,
      p50Ms: ms(s.p50),
      p99Ms: ms(s.p99),
      maxMs: ms(s.max),
      errors: s.errors,
      non2xx: s.status,
      bytes: s.bytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
