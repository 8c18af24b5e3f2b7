// The HTTP benchmark's own build (scripts/bench/http-load.ts, target `floor`): React Router's
// production build of the same app with the floor's routes more, /bench-floor (app/routes.ts,
// app/features/bench/), written to build-bench/build/ so build/ stays the shipped
// build. REWARDS_BENCH_FLOOR=1 is what adds the route and moves the build directory
// (react-router.config.ts); `npm run build` clears it (scripts/build.ts). Only build time reads it:
// the running server never does.
//
// The benchmark runs the shipped server bundle (build/server.js, ADR 0024) in build-bench/ as its
// working directory: server.ts loads React Router's build (build/server/index.js) and the client
// files (build/client) from the working directory, so that process serves this build with the
// same server code. Every target of a run that measures the floor runs on this process, so the
// floor and the pages it is the floor of are measured in the same process the same way.
//
//   node scripts/bench/build-floor.ts     (http-load.ts runs it itself when the build is missing or older than build/)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The working directory of the benchmark's app process: it holds build/ as the project's root does. */
export const BENCH_BUILD_ROOT = join(root, "build-bench");
const benchServerBuild = join(BENCH_BUILD_ROOT, "build/server/index.js");
const shippedServerBuild = join(root, "build/server/index.js");

/** Builds build-bench/ with the floor route. */
export function buildFloor(): void {
  const env = { ...process.env, NODE_ENV: "production", REWARDS_BENCH_FLOOR: "1" };
  const require = createRequire(import.meta.url);
  const routerDev = require.resolve("@react-router/dev/package.json");
  const { bin } = JSON.parse(readFileSync(routerDev, "utf8")) as { bin: { "react-router": string } };
  execFileSync(process.execPath, [join(dirname(routerDev), bin["react-router"]), "build"], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  // Pre-compressed client files, as `npm run build` makes them for build/client.
  execFileSync(process.execPath, ["scripts/compress-assets.ts", join(BENCH_BUILD_ROOT, "build/client")], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  const manifest = readFileSync(benchServerBuild, "utf8");
  if (!manifest.includes('"features/bench/bench-floor"'))
    throw new Error(`${benchServerBuild} has no floor route: was REWARDS_BENCH_FLOOR read by app/routes.ts?`);
}

/** Builds build-bench/ when it is missing or older than the shipped build (made after `npm run build`). */
export function ensureFloorBuild(): void {
  if (existsSync(benchServerBuild) && statSync(benchServerBuild).mtimeMs >= statSync(shippedServerBuild).mtimeMs)
    return;
  console.log("Building the benchmark's floor build into build-bench/…");
  buildFloor();
}

if (import.meta.main) buildFloor();
