// The route label of the HTTP figures (./route-label.ts): patterns from the route tables, never a
// raw path, whatever a client sends (docs/decisions/0033-metrics-for-operators.md).
import type { ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import { pathOfUrl, routeLabeler } from "./route-label.ts";

const route = (id: string, parentId: string | undefined, path?: string, index?: boolean) => ({
  id,
  parentId,
  path,
  index,
  caseSensitive: undefined,
  module: {},
});

// The shape of app/routes.ts in small: the root, an index, a layout with children, ids in paths,
// a file route, and the not-found splat.
const routes = Object.fromEntries(
  [
    route("root", undefined, ""),
    route("home", "root", undefined, true),
    route("help", "root", "help"),
    route("portal", "root", "portal"),
    route("portal-index", "portal", undefined, true),
    route("approvals", "portal", "approvals/:orderId"),
    route("settings", "portal", "settings"),
    route("webhook", "settings", "webhooks/:endpointId"),
    route("pdf", "root", "portal/invoices/:invoiceNumber/pdf"),
    route("template", "root", "portal/my-team/template.csv"),
    route("not-found", "root", "*"),
  ].map((r) => [r.id, r]),
) as unknown as ServerBuild["routes"];

const apiPaths = ["/api/Identity/login", "/api/Users/MyDetails", "/api/Users/:id", "/api/v1/orders/:id", "/api/*"];

describe("routeLabeler", () => {
  const label = routeLabeler(apiPaths, routes);

  it("labels pages by their route's pattern, ids and letter case left out", () => {
    expect(label("/")).toBe("/");
    expect(label("/help")).toBe("/help");
    expect(label("/portal")).toBe("/portal");
    expect(label("/portal/approvals/123456")).toBe("/portal/approvals/:orderId");
    expect(label("/Portal/Approvals/9")).toBe("/portal/approvals/:orderId");
    expect(label("/portal/settings/webhooks/77")).toBe("/portal/settings/webhooks/:endpointId");
    expect(label("/portal/invoices/INV-000123/pdf")).toBe("/portal/invoices/:invoiceNumber/pdf");
    expect(label("/portal/my-team/template.csv")).toBe("/portal/my-team/template.csv");
    expect(label("/no/such/page/42")).toBe("/*");
  });

  it("labels a data request by its page's pattern", () => {
    expect(label("/portal/approvals/5.data")).toBe("/portal/approvals/:orderId");
    expect(label("/_root.data")).toBe("/");
  });

  it("labels the API by its first segment from the API's routes, unknown ones together", () => {
    expect(label("/api/Identity/login")).toBe("/api/Identity");
    expect(label("/api/identity/LOGIN")).toBe("/api/Identity");
    expect(label("/api/Users/12345")).toBe("/api/Users");
    expect(label("/api/v1/orders/99")).toBe("/api/v1");
    expect(label("/api/x9f8e7d6")).toBe("/api/other");
    expect(label("/api")).toBe("/api/other");
  });

  it("labels the edge's own answers, assets and public files", () => {
    expect(label("/metrics")).toBe("/metrics");
    expect(label("/healthz")).toBe("/healthz");
    expect(label("/readyz")).toBe("/readyz");
    expect(label("/assets/entry.client-AbC123.js")).toBe("/assets");
    expect(label("/favicon.ico")).toBe("other");
    expect(label("/random-1234.png")).toBe("other");
  });

  it("without a page build (development) keeps to the sections", () => {
    const dev = routeLabeler(apiPaths);
    expect(dev("/")).toBe("/");
    expect(dev("/portal/approvals/5")).toBe("/portal");
    expect(dev("/corporate/login")).toBe("/corporate");
    expect(dev("/help")).toBe("other");
  });

  it("a thousand different paths make a handful of labels", () => {
    const labels = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      for (const path of [`/portal/approvals/${i}`, `/api/Users/${i}`, `/api/r${i}`, `/x/${i}`, `/f${i}.txt`]) {
        labels.add(label(path));
      }
    }
    expect([...labels].sort()).toEqual(["/*", "/api/Users", "/api/other", "/portal/approvals/:orderId", "other"]);
  });

  it("reads the path of a request's URL without its query or fragment", () => {
    expect(pathOfUrl("http://127.0.0.1:3000/portal/approvals/5?x=1#y")).toBe("/portal/approvals/5");
    expect(pathOfUrl("https://rewards.example.com/")).toBe("/");
    expect(pathOfUrl("http://localhost:3000")).toBe("/");
    expect(pathOfUrl("http://localhost:3000/a#b?c")).toBe("/a");
  });
});
