import { type Config, loadConfig } from "../../server/config.ts";

/** A configuration as a test needs it: defaults, silent logs, and the given variables. */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({ DATABASE_URL: "memory://", LOG_LEVEL: "silent", ...env });
}
