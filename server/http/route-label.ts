// The `route` label of the HTTP figures (server/metrics.ts): a pattern, never the raw path, so the
// number of series stays bounded whatever paths clients send
// (docs/decisions/0033-metrics-for-operators.md, "The label rule"):
//   - the edge's own answers: `/healthz`, `/readyz`, `/metrics`; built assets: `/assets`;
//   - the provider API: `/api/<first segment>` for a segment the API's route table has
//     (`/api/Identity`, `/api/v1`), else `/api/other`;
//   - pages: the React Router route's pattern from the build's route manifest
//     (`/portal/approvals/:orderId`, `/*` for the not-found route), a data request
//     (`….data`) under its page's pattern; in development, where the build changes under the
//     server, only `/`, `/portal`, `/corporate` or `other`;
//   - anything else (public files, unknown paths without a page build): `other`.
import type { ServerBuild } from "react-router";

interface PagePattern {
  label: string;
  regex: RegExp;
  score: number;
}

/** The full path patterns of a React Router build's routes, most specific first. */
function pagePatterns(routes: ServerBuild["routes"]): PagePattern[] {
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return route.path ? `${parent}/${route.path}`.replace(/\/+/g, "/") : parent;
  };
  const labels = new Set<string>();
  for (const id of Object.keys(routes)) {
    const route = routes[id];
    // A layout without a path of its own (the root) answers no URL by itself.
    if (!route || (!route.path && !route.index && route.parentId)) continue;
    labels.add(fullPath(id) || "/");
  }
  return [...labels]
    .map((label) => {
      const segments = label.split("/").filter(Boolean);
      let score = segments.length;
      const parts = segments.map((segment) => {
        if (segment === "*") {
          score -= 100;
          return "(?:/.*)?";
        }
        if (segment.startsWith(":")) {
          score += 1;
          return "/[^/]+";
        }
        score += 10;
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      });
      return { label, score, regex: new RegExp(`^${parts.join("")}/?$`, "i") };
    })
    .sort((a, b) => b.score - a.score);
}

/**
 * Makes the labeler. `apiPaths`: the provider API's route paths (`/api/Identity/login`, …);
 * `pageRoutes`: the production build's route manifest (unset in development).
 */
export function routeLabeler(apiPaths: readonly string[], pageRoutes?: ServerBuild["routes"]) {
  const apiSections = new Map<string, string>();
  for (const path of apiPaths) {
    const first = /^\/api\/([^/:*?]+)/.exec(path)?.[1];
    if (first) apiSections.set(first.toLowerCase(), first);
  }
  const patterns = pageRoutes ? pagePatterns(pageRoutes) : undefined;
  // The labels of the paths seen lately: matching costs about 3 µs, a page from the page cache
  // about 30 µs (docs/BENCHMARKS.md). Bounded: emptied once full, whatever paths clients send.
  const seen = new Map<string, string>();

  const labelOf = (pathname: string): string => {
    if (pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics") return pathname;
    if (pathname.startsWith("/assets/")) return "/assets";
    if (pathname === "/api" || pathname.startsWith("/api/")) {
      const first = pathname.split("/")[2] ?? "";
      const known = apiSections.get(first.toLowerCase());
      return known ? `/api/${known}` : "/api/other";
    }
    // React Router's data requests: `/portal/my-team.data` for /portal/my-team, `/_root.data` for /.
    const page = pathname === "/_root.data" ? "/" : pathname.replace(/\.data$/, "");
    // A path that names a file is a public file (favicon, brand tiles), not a page.
    if (
      page === pathname &&
      /\.[A-Za-z0-9]+$/.test(pathname) &&
      !patterns?.some((p) => p.score > 0 && p.regex.test(page))
    ) {
      return "other";
    }
    if (!patterns) {
      const first = page.split("/")[1]?.toLowerCase() ?? "";
      if (first === "") return "/";
      return first === "portal" || first === "corporate" ? `/${first}` : "other";
    }
    return patterns.find((p) => p.regex.test(page))?.label ?? "other";
  };
  return (pathname: string): string => {
    let label = seen.get(pathname);
    if (label === undefined) {
      label = labelOf(pathname);
      if (seen.size >= MEMO_SIZE) seen.clear();
      seen.set(pathname, label);
    }
    return label;
  };
}

const MEMO_SIZE = 2_000;

/** The path of a request's URL, as Hono reads it (no URL object made): from the first `/` after the host to `?` or `#`. */
export function pathOfUrl(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start === -1) return "/";
  let end = url.length;
  for (const mark of ["?", "#"]) {
    const at = url.indexOf(mark, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}
