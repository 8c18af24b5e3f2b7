// A tiny but real React Router ServerBuild for edge tests: one root route with a loader, and an
// entry module that exports `webContext` (as app/entry.server.tsx does) and renders a small HTML
// page carrying the per-request CSP nonce (when it has one) and the client address it was given. It goes through
// React Router's own request handler, so the edge app is tested with the wiring it uses in
// production, without needing `npm run build`.
import type { RouterContextProvider, ServerBuild } from "react-router";
import { webContext } from "../../app/context.ts";
import { SHARED_PAGE_CACHE_CONTROL } from "../../core/shared-page.ts";

export interface FakeBuildSeen {
  /** Paths the web handler was asked for (after the edge let them through). */
  paths: string[];
}

export function fakeServerBuild(): { build: ServerBuild; seen: FakeBuildSeen } {
  const seen: FakeBuildSeen = { paths: [] };
  const entryModule = {
    webContext,
    default(request: Request, status: number, headers: Headers, _entryContext: unknown, load: RouterContextProvider) {
      const services = load.get(webContext);
      seen.paths.push(new URL(request.url).pathname);
      headers.set("content-type", "text/html; charset=utf-8");
      // Paths under /policies/ stand for the routes that mark their page shareable (core/shared-page.ts).
      // They are long enough to be worth compressing.
      const shareable = new URL(request.url).pathname.startsWith("/policies/");
      if (shareable) headers.set("Cache-Control", SHARED_PAGE_CACHE_CONTROL);
      const nonce = services.nonce === undefined ? "" : ` nonce="${services.nonce}"`;
      const html = `<!doctype html><html><head><script${nonce} type="module">void 0</script></head><body><p id="ip">${services.clientIp}</p><p id="path">${new URL(request.url).pathname}</p>${shareable ? `<p>${"Policy text. ".repeat(200)}</p>` : ""}</body></html>`;
      return new Response(html, { status, headers });
    },
  };
  const rootModule = {
    loader: () => ({ ok: true }),
    default: () => null,
  };
  const build = {
    entry: { module: entryModule },
    routes: {
      root: { id: "root", path: "", module: rootModule },
      catchAll: {
        id: "catchAll",
        parentId: "root",
        path: "*",
        module: { loader: () => null, action: () => null, default: () => null },
      },
    },
    assets: {
      entry: { module: "/assets/entry.js", imports: [] },
      routes: {
        root: { id: "root", path: "", module: "/assets/root.js", hasLoader: true, hasAction: false },
        catchAll: {
          id: "catchAll",
          parentId: "root",
          path: "*",
          module: "/assets/c.js",
          hasLoader: true,
          hasAction: true,
        },
      },
      url: "/assets/manifest.js",
      version: "test",
    },
    publicPath: "/",
    assetsBuildDirectory: "build/client",
    future: {},
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
  } as unknown as ServerBuild;
  return { build, seen };
}
