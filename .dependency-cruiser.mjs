// Imports run one way (docs/decisions/0030-imports-run-one-way.md): routes and features → app/lib,
// app/ui → (the typed client) → server/api → server/domain → server/db, and core/ below them all.
// `npm run check:imports` checks these rules over app/, server/ and core/; `npm test` runs it.
// Tests (*.test.ts, *.testkit.ts) may reach across layers to set up and inspect a case, so the
// rules look at application code only. Cycles between feature folders: .dependency-cruiser-features.mjs.

const TESTS = "\\.test\\.tsx?$|\\.testkit\\.ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "server-not-to-app",
      comment:
        "The server never loads the web app's modules at run time: a second copy of one that creates a React " +
        "Router context key breaks the services handed to the routes (ADR 0004). Shared names live in core/. " +
        "Types the server hands to the app (app/context.ts) may be imported as types.",
      severity: "error",
      from: { path: "^server/", pathNot: TESTS },
      to: { path: "^app/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "domain-not-to-http-or-api",
      comment: "The domain knows nothing of HTTP or of the API over it: server/domain → server/db only.",
      severity: "error",
      from: { path: "^server/domain/", pathNot: TESTS },
      to: { path: "^server/(http|api)/" },
    },
    {
      name: "db-not-upward",
      comment: "The database layer knows nothing of the domain, the API or HTTP.",
      severity: "error",
      from: { path: "^server/db/", pathNot: TESTS },
      to: { path: "^server/(domain|api|http)/" },
    },
    {
      name: "app-to-server-through-api",
      comment:
        "The web app reaches the server through the typed API client (ADR 0016): of the server it imports " +
        "only server/api's types and its handed-in services' types.",
      severity: "error",
      from: { path: "^app/", pathNot: TESTS },
      to: { path: "^server/", pathNot: "^server/api/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "lib-not-to-ui",
      comment: "app/lib is infrastructure without UI (ADR 0019): it never imports app/ui.",
      severity: "error",
      from: { path: "^app/lib/", pathNot: TESTS },
      to: { path: "^app/ui/" },
    },
    {
      name: "lib-and-ui-not-to-features",
      comment: "app/lib and app/ui serve every screen and belong to none (ADR 0019): they never import a feature.",
      severity: "error",
      from: { path: "^app/(lib|ui)/", pathNot: TESTS },
      to: { path: "^app/features/" },
    },
    {
      name: "core-imports-nothing-of-ours",
      comment:
        "core/ is pure shared code that everyone may import; it imports nothing of app/, server/, scripts/ or tests/.",
      severity: "error",
      from: { path: "^core/" },
      to: { path: "^(app|server|scripts|tests)/" },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses the
    // .ts/.tsx sources and tells `import type` apart (dependency type "type-only").
    parser: "swc",
    moduleSystems: ["es6"],
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(build|\\.react-router|node_modules|test-results|public)/" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
    },
    cache: false,
  },
};
