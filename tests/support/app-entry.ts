// The test entry of the process harness (tests/support/app-process.ts): what server.ts does
// (configuration from the environment, createApplication, an HTTP server), but with the small
// test ServerBuild, so the fault and security tests need no `npm run build`. A process the tests
// can SIGKILL.
//
//   FAULT_RELEASE_LINE_DELAY_MS=n   sleep n ms after each line of a release, inside its
//                                   transaction, and report progress on stderr as
//                                   "fault:release-line <index>" (only this test entry reads it)
//   FAULT_RECONCILE_INTERVAL_MS=n   run the payment reconciler every n ms (default: its own)
//   FAULT_RECONCILE_MIN_AGE_MS=n    let it look at orders n ms old (default: its own)
import { createServer } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { loadConfig } from "../../server/config.ts";
import { DatabaseInUseError } from "../../server/db/client.ts";
import { createLogger } from "../../server/logger.ts";
import { createApplication } from "../../server/main.ts";
import { fakeServerBuild } from "./server-build.ts";

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const delay = Number(process.env.FAULT_RELEASE_LINE_DELAY_MS ?? 0);
const { FAULT_RECONCILE_INTERVAL_MS: reconcileEvery, FAULT_RECONCILE_MIN_AGE_MS: reconcileAge } = process.env;
const reconciler = {
  ...(reconcileEvery ? { intervalMs: Number(reconcileEvery) } : {}),
  ...(reconcileAge ? { minAgeMs: Number(reconcileAge) } : {}),
};

const running = await createApplication({
  config,
  logger,
  build: fakeServerBuild().build,
  mode: "production",
  reconciler,
  onReleaseLine:
    delay > 0
      ? async (index) => {
          if (index % 10 === 0) process.stderr.write(`fault:release-line ${index}\n`);
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      : undefined,
}).catch((error: unknown) => {
  // As server.ts: the plain message and a failed exit when the PGlite directory is taken.
  if (error instanceof DatabaseInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
});
const server = createServer(getRequestListener(running.app.fetch));
server.listen(config.PORT, config.HOST, () => process.stderr.write(`fault:listening ${config.PORT}\n`));

async function shutdown() {
  server.close();
  server.closeAllConnections();
  await running.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
