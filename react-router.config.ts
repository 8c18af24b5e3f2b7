import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  appDirectory: "app",
  // The benchmark's build with its floor route (app/routes.ts, scripts/bench/build-floor.ts) goes
  // to its own directory, so build/ is only ever the shipped build.
  buildDirectory: process.env.REWARDS_BENCH_FLOOR === "1" ? "build-bench/build" : "build",
} satisfies Config;
