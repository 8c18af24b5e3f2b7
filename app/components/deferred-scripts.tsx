// React Router's <Scripts>, loaded after the first paint (Lighthouse mobile performance; ADR 0011).
//
// <Scripts> renders a <link rel="modulepreload"> per script file (React hoists them into <head>)
// and a module script that imports the route modules at once. On a fast connection the files
// arrive before the first paint, and Lighthouse's simulation then counts all of them as needed
// for that paint: FCP and LCP near 2.2 s on simulated slow 4G instead of about 0.9 s. Every page
// is complete server HTML that works without JavaScript, so hydrating a frame later costs
// nothing: this renders the same hand-off as <Scripts> without the preload hints, and a classic
// script (with the CSP nonce) that imports the route modules and the client entry right after
// the first frame. Scripts imported by a nonced script are allowed by 'strict-dynamic'.
// In development (HMR runtime, on-demand modules) and with subresource integrity (an import map),
// React Router's own <Scripts> is used.
import { useContext } from "react";
import { Scripts, UNSAFE_DataRouterContext, UNSAFE_FrameworkContext } from "react-router";

export function DeferredScripts({ nonce }: { nonce: string | undefined }) {
  const framework = useContext(UNSAFE_FrameworkContext);
  const dataRouter = useContext(UNSAFE_DataRouterContext);
  if (import.meta.env.DEV || !framework || !dataRouter || typeof framework.manifest.sri === "object")
    return <Scripts nonce={nonce} />;
  // Tells React Router's streamed loader data (<StreamTransfer>) that the hand-off script exists.
  if (framework.renderMeta) framework.renderMeta.didRenderScripts = true;
  // The browser keeps the server's script text; on the client the elements only have to match.
  const [handoff, loader] = import.meta.env.SSR ? serverScripts(framework, dataRouter) : ["", ""];
  return (
    <>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: React Router's hand-off, built on the server */}
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: handoff }} />
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our loader, built on the server from the manifest */}
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: loader }} />
    </>
  );
}

type Framework = NonNullable<React.ContextType<typeof UNSAFE_FrameworkContext>>;
type DataRouter = NonNullable<React.ContextType<typeof UNSAFE_DataRouterContext>>;

/** JSON that is safe inside a <script> element. */
function js(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function serverScripts(framework: Framework, { router, staticContext }: DataRouter): [string, string] {
  const { manifest, serverHandoffString, routeDiscovery, ssr } = framework;
  // Same hand-off as <Scripts>: the server context and the stream the loader data arrives on.
  const handoff = staticContext
    ? `window.__reactRouterContext = ${serverHandoffString};window.__reactRouterContext.stream = new ReadableStream({start(controller){window.__reactRouterContext.streamController = controller;}}).pipeThrough(new TextEncoderStream());`
    : " ";
  const lazyDiscovery = routeDiscovery.mode === "lazy" && ssr;
  const matches = router.state.matches;
  // Every chunk of each matched route module (split client loaders/actions), merged like <Scripts> does.
  const routes = matches.map((match) => {
    const entry = manifest.routes[match.route.id];
    if (!entry) throw new Error(`Route ${match.route.id} not found in the manifest`);
    const modules = [
      entry.clientActionModule,
      entry.clientLoaderModule,
      entry.clientMiddlewareModule,
      entry.hydrateFallbackModule,
      entry.module,
    ].filter((m): m is string => Boolean(m));
    return [match.route.id, modules] as const;
  });
  const load = [
    lazyDiscovery ? `window.__reactRouterManifest=${js(partialManifest(framework, router))};` : "",
    `var r=${js(routes)};`,
    `(${lazyDiscovery ? "Promise.resolve()" : `import(${js(manifest.url)})`})`,
    ".then(function(){return Promise.all(r.map(function(x){return Promise.all(x[1].map(function(m){return import(m)}))}))})",
    ".then(function(l){var o={};r.forEach(function(x,i){o[x[0]]=Object.assign.apply(null,[{}].concat(l[i]))});",
    // A task boundary before the client entry: evaluating React DOM then runs as its own task
    // instead of lengthening the one that evaluated the route modules (less blocking time).
    "window.__reactRouterRouteModules=o;return new Promise(function(y){setTimeout(y)})})",
    `.then(function(){return import(${js(manifest.entry.module)})})`,
  ].join("");
  // After the first frame (requestAnimationFrame, then a task); a hidden tab paints no frame, hence the timeout.
  const loader = `(function(){var d=0;function go(){if(d)return;d=1;${load}}requestAnimationFrame(function(){setTimeout(go)});setTimeout(go,1000)})();`;
  return [handoff, loader];
}

/** The routes the client starts with under lazy route discovery (React Router's getPartialManifest). */
function partialManifest({ manifest }: Framework, router: DataRouter["router"]) {
  const { sri, ...rest } = manifest;
  const ids = new Set(router.state.matches.map((m) => m.route.id));
  const segments = router.state.location.pathname.split("/").filter(Boolean);
  const paths = ["/"];
  segments.pop();
  while (segments.length > 0) {
    paths.push(`/${segments.join("/")}`);
    segments.pop();
  }
  for (const path of paths) for (const m of router.match(path) ?? []) ids.add(m.route.id);
  const routes = Object.fromEntries([...ids].map((id) => [id, manifest.routes[id]]));
  return { ...rest, routes, sri: sri ? true : undefined };
}
