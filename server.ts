// The process entry: configuration, database and migrations, the provider API at /api and the
// web portal everywhere else. `node build/server.js` (this file bundled by `npm run build`, ADR 0024)
// or `node server.ts --dev`.
// With WEB_CONCURRENCY above 1 (PostgreSQL only) this process supervises that many workers, each
// of which runs the rest of this file (server/cluster.ts).
import cluster from "node:cluster";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";

const dev = process.argv.includes("--dev");
// The entry, not the shell, settles the mode: React and React Router pick their development or
// production build from NODE_ENV when first loaded, and a process that loads one of each answers
// 500 on every page. `node build/server.js` is production and `--dev` is development whatever the
// shell exports (unset, `test`, the other mode). Everything else is imported below this line, and
// the bundle keeps it so: scripts/build-server.ts splits each import() into its own chunk and
// refuses a bundle whose entry imports a package (ADR 0024, "Amendment: the entry settles NODE_ENV").
process.env.NODE_ENV = dev ? "development" : "production";

const { ConfigError, loadConfig } = await import("./server/config.ts");
const { createLogger } = await import("./server/logger.ts");

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
const logger = createLogger(config.LOG_LEVEL);
/** How long a stopping process waits for the requests in flight. */
const SHUTDOWN_GRACE_MS = 10_000;

if (!dev && cluster.isPrimary && config.WEB_CONCURRENCY > 1) {
  const { superviseWorkers } = await import("./server/cluster.ts");
  superviseWorkers(config.WEB_CONCURRENCY, logger);
} else {
  await serve();
}

async function serve() {
  const { getRequestListener } = await import("@hono/node-server");
  const { createApplication } = await import("./server/main.ts");
  const { DatabaseInUseError } = await import("./server/db/client.ts");
  const { askPrimaryForMetrics, followWorkerCount } = await import("./server/cluster.ts");

  let build: ServerBuild | (() => Promise<ServerBuild>);
  let viteMiddleware: ((req: IncomingMessage, res: ServerResponse, next: () => void) => void) | undefined;
  if (dev) {
    const vite = await import("vite");
    const viteServer = await vite.createServer({ server: { middlewareMode: true }, appType: "custom" });
    viteMiddleware = viteServer.middlewares;
    build = () => viteServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  } else {
    // React Router's build from `npm run build`, found from the working directory (the project's
    // root, where npm runs scripts), as build/client is: this file also runs bundled as build/server.js.
    build = (await import(pathToFileURL(resolve("build/server/index.js")).href)) as ServerBuild;
  }

  const running = await createApplication({
    config,
    logger,
    build,
    mode: dev ? "development" : "production",
    trustProxy: config.TRUST_PROXY,
    workerCount: followWorkerCount(),
    // A worker's scrape covers every worker: the primary aggregates them (server/cluster.ts).
    metricsFromPrimary: cluster.isWorker ? askPrimaryForMetrics : undefined,
  }).catch((error: unknown) => {
    // Another process has the PGlite directory: say so plainly and stop (no stack trace).
    if (error instanceof DatabaseInUseError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  });
  // Requests still being handled: a client that hangs up (a load balancer's timeout, a closed
  // tab) closes its connection, so server.close() can finish while its handler is still in the
  // database. The shutdown waits for these too before the pool closes.
  let inFlight = 0;
  let allDone: (() => void) | undefined;
  // A page answered from the cache (server/http/page-cache.ts) is written at once and never in flight.
  const listener = getRequestListener((request, env) => {
    const answer = running.fetch(request, env);
    if (!(answer instanceof Promise)) return answer;
    inFlight++;
    return answer.finally(() => {
      if (--inFlight === 0) allDone?.();
    });
  });
  const handlersDone = () =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          allDone = resolve;
        });
  // Once stopping, every answer closes its connection: a client that keeps its connections open
  // (a proxy's pool, a load generator) gets the answer to what it asked and reconnects elsewhere,
  // instead of asking again on a connection whose process is about to close its database.
  let stopping = false;
  const server = createServer((req, res) => {
    if (stopping) res.setHeader("connection", "close");
    if (viteMiddleware) viteMiddleware(req, res, () => listener(req, res));
    else listener(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(config.PORT, config.HOST, () => {
    logger.info(
      { url: config.APP_URL, database: running.database.kind },
      `listening on http://localhost:${config.PORT}`,
    );
  });

  async function shutdown(signal: string) {
    logger.info({ signal }, "shutting down");
    stopping = true;
    // Stop taking connections, let the requests in flight finish (at most 10 s), then close the
    // database: a request cut off from its pool would answer 500 during a rolling restart.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.race([
      closed.then(handlersDone),
      new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
    ]);
    server.closeAllConnections();
    // Handlers still running after the grace (their connections are gone now) finish before the
    // pool closes, or a query of theirs fails on the closed pool (tests/fault/shutdown.test.ts).
    await Promise.race([handlersDone(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
    // A background pass stuck on its database must not keep a stopping process alive: the
    // supervisor or the orchestrator waits for this exit.
    const closedInTime = await Promise.race([
      running.close().then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS).unref()),
    ]);
    if (!closedInTime) logger.warn("background jobs did not stop in time: exiting anyway");
    process.exit(0);
  }
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}
