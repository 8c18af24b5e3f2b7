import { type Config, isLoopbackHost, loadConfig } from "../../server/config.ts";

/**
 * A configuration as a test needs it: defaults, silent logs, and the given variables. A test that
 * plays a deployment (an APP_URL off this machine) runs it in demo mode unless it says otherwise:
 * the tests use the simulated card processor and their own mail transports.
 */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  const deployment = env.APP_URL !== undefined && !isLoopbackHost(new URL(env.APP_URL).hostname);
  const demo = deployment && env.DEMO_MODE === undefined ? { DEMO_MODE: "true" } : {};
  return loadConfig({ DATABASE_URL: "memory://", LOG_LEVEL: "silent", ...demo, ...env });
}
