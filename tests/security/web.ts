// The whole process (createApplication) with a React Router build made of the REAL route modules
// of app/routes.ts (their loaders and actions), and a tiny entry that renders the loader and
// action data as JSON instead of the React tree. So the security tests post to the real actions
// through the real edge (CSP, rate limits, CSRF, sessions) without `npm run build`.
import type { RouterContextProvider, ServerBuild } from "react-router";
import { webContext } from "../../app/context.ts";
import appRoutes from "../../app/routes.ts";
import { createApplication, type RunningApp } from "../../server/main.ts";
import { testConfig } from "../support/config.ts";
import { createPostgresDatabase, type DatabaseKind } from "../support/db.ts";
import { captureLogs, type LogCapture } from "../support/logs.ts";

export interface WebRoute {
  id: string;
  parentId: string;
  /** The URL path (params as in the config, e.g. /GiftCard/:code). */
  url: string;
  file: string;
  index: boolean;
  module: Record<string, unknown>;
  /** The path as the config gave it, relative to the parent (may hold several segments: approvals/:orderId). */
  path?: string;
}

interface ConfigEntry {
  id?: string;
  path?: string;
  index?: boolean;
  file: string;
  children?: ConfigEntry[];
}

const modules = import.meta.glob("../../app/features/*/*.{ts,tsx}");

/** Every route of app/routes.ts with its module, flattened (the root is not included). */
export async function loadWebRoutes(): Promise<WebRoute[]> {
  const out: WebRoute[] = [];
  const walk = async (entries: ConfigEntry[], parentId: string, base: string) => {
    for (const e of entries) {
      const id = e.id ?? e.file.replace(/\.(tsx?|jsx?)$/, "");
      const url = e.path ? `${base.replace(/\/$/, "")}/${e.path}` : base || "/";
      const load = modules[`../../app/${e.file}`];
      if (!load) throw new Error(`no module for ${e.file}`);
      const module = (await load()) as Record<string, unknown>;
      out.push({ id, parentId, url, file: e.file, index: Boolean(e.index), module, path: e.path });
      if (e.children) await walk(e.children, id, url);
    }
  };
  await walk(appRoutes as unknown as ConfigEntry[], "root", "");
  return out;
}

export interface Rendered {
  loaderData: Record<string, unknown>;
  actionData: Record<string, unknown> | null;
  errors: Record<string, unknown> | null;
}

export async function realRoutesBuild(): Promise<{ build: ServerBuild; routes: WebRoute[] }> {
  const routes = await loadWebRoutes();
  const root = (await import("../../app/root.tsx")) as Record<string, unknown>;
  const entryModule = {
    webContext,
    default(
      _request: Request,
      status: number,
      headers: Headers,
      entryContext: { staticHandlerContext: Rendered },
      load: RouterContextProvider,
    ) {
      const { nonce } = load.get(webContext);
      const { loaderData, actionData, errors } = entryContext.staticHandlerContext;
      headers.set("content-type", "text/html; charset=utf-8");
      const json = JSON.stringify({ loaderData, actionData, errors }).replace(/</g, "\\u003c");
      const nonceAttribute = nonce === undefined ? "" : ` nonce="${nonce}"`;
      const html = `<!doctype html><html><head><script${nonceAttribute} type="module">void 0</script></head><body><script type="application/json" id="data">${json}</script></body></html>`;
      return new Response(html, { status, headers });
    },
  };
  const buildRoutes: Record<string, unknown> = {
    root: { id: "root", path: "", module: root },
  };
  const assetRoutes: Record<string, unknown> = {
    root: { id: "root", path: "", module: "/assets/root.js", hasLoader: true, hasAction: false },
  };
  for (const r of routes) {
    const path = r.index ? undefined : configPath(r);
    buildRoutes[r.id] = { id: r.id, parentId: r.parentId, path, index: r.index || undefined, module: r.module };
    assetRoutes[r.id] = {
      id: r.id,
      parentId: r.parentId,
      path,
      index: r.index || undefined,
      module: `/assets/${r.id}.js`,
      hasLoader: typeof r.module.loader === "function",
      hasAction: typeof r.module.action === "function",
      hasClientLoader: false,
      hasClientAction: false,
      hasErrorBoundary: typeof r.module.ErrorBoundary === "function",
    };
  }
  const build = {
    entry: { module: entryModule },
    routes: buildRoutes,
    assets: {
      entry: { module: "/assets/entry.js", imports: [] },
      routes: assetRoutes,
      url: "/assets/m.js",
      version: "t",
    },
    publicPath: "/",
    assetsBuildDirectory: "build/client",
    future: {},
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
  } as unknown as ServerBuild;
  return { build, routes };
}

/** The route's own path segment relative to its parent, as the config gave it. */
function configPath(r: WebRoute): string {
  if (r.path !== undefined) return r.path;
  if (r.parentId === "root") return r.url.replace(/^\//, "");
  const parentUrl = r.url.slice(0, r.url.lastIndexOf("/"));
  return r.url.slice(parentUrl.length + 1);
}

export interface WebApplication extends RunningApp {
  logs: LogCapture;
  routes: WebRoute[];
  /** The site's own origin (APP_URL). */
  origin: string;
  /** A request through the edge (the Hono app's fetch), as a browser on `origin` would send it. */
  request(path: string, init?: RequestInit): Promise<Response>;
}

export async function startWebApplication(
  options: { kind?: DatabaseKind; env?: Record<string, string> } = {},
): Promise<WebApplication> {
  const logs = captureLogs("trace");
  const pg = options.kind === "postgres" ? await createPostgresDatabase() : undefined;
  const config = testConfig({ ...options.env, DATABASE_URL: pg?.url ?? "memory://" });
  const { build, routes } = await realRoutesBuild();
  const running = await createApplication({
    config,
    logger: logs.logger,
    build,
    mode: "production",
    startWorker: false,
  });
  const origin = config.APP_URL;
  return {
    ...running,
    logs,
    routes,
    origin: new URL(origin).origin,
    request: async (path, init) => running.app.request(new Request(new URL(path, origin), init)),
    async close() {
      await running.close();
      await pg?.drop();
    },
  };
}

/** The JSON the test entry rendered (loader and action data). */
export async function rendered(res: Response): Promise<Rendered> {
  const html = await res.text();
  const match = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html);
  if (!match?.[1]) throw new Error(`no data in the page (status ${res.status}): ${html.slice(0, 300)}`);
  return JSON.parse(match[1]) as Rendered;
}

/** A cookie jar: enough for one browser session. */
export class Jar {
  cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}
