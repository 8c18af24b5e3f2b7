// `npm run build`: React Router's production build, the pre-compressed client files, and the server
// bundle (scripts/build-server.ts, ADR 0024). Vite builds React's development runtime into the
// client whenever NODE_ENV says development or test, so the build settles NODE_ENV itself instead
// of taking the shell's (ADR 0024, "Amendment: the entry settles NODE_ENV").
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// REWARDS_BENCH_FLOOR makes the benchmark's build (scripts/bench/build-floor.ts): never this one,
// whatever the shell exports, so build/ never holds the benchmark's floor route (app/routes.ts).
const { REWARDS_BENCH_FLOOR: _benchOnly, ...shellEnv } = process.env;
const env = { ...shellEnv, NODE_ENV: "production" };
const run = (script: string, args: string[] = []) =>
  execFileSync(process.execPath, [script, ...args], { stdio: "inherit", env });

const require = createRequire(import.meta.url);
const routerDev = require.resolve("@react-router/dev/package.json");
const { bin } = JSON.parse(readFileSync(routerDev, "utf8")) as { bin: { "react-router": string } };

run(join(dirname(routerDev), bin["react-router"]), ["build"]);
run("scripts/compress-assets.ts");
run("scripts/build-server.ts");
