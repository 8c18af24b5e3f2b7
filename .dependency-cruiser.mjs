// Imports run one way (docs/decisions/0030-imports-run-one-way.md): routes and features → app/lib,
// app/ui → (the typed client) → server/api (the edge) → a module's API (modules/<resource>/
// *api.server.ts) → its rules (modules/<resource>/*.server.ts) → the platform (server/db, the
// ports) and core/ below them all; a module's browser-safe files (no `.server`) import only other
// browser-safe files and core/. `npm run check:imports` checks these rules over app/, server/,
// modules/ and core/; `npm test` runs it.
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
      from: { path: "^(server|modules)/", pathNot: TESTS },
      to: { path: "^app/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "module-rules-not-to-http-or-api",
      comment:
        "A module's rules (modules/<resource>/*.server.ts but its API) know nothing of HTTP or of the API " +
        "over them: they reach the platform below (server/db and the ports) and other modules' rules.",
      severity: "error",
      from: { path: "^modules/", pathNot: `${TESTS}|api\\.server\\.ts$` },
      to: { path: "^server/(http|api)/|^modules/.*api\\.server\\.ts$" },
    },
    {
      name: "browser-safe-stays-browser-safe",
      comment:
        "A module's browser-safe files (its schemas, without `.server`) run in the browser too: they import " +
        "only core/ and other modules' browser-safe files, never the server or a `.server` file.",
      severity: "error",
      from: { path: "^modules/", pathNot: `${TESTS}|\\.server\\.tsx?$` },
      to: { path: "^server/|^app/|\\.server\\.tsx?$" },
    },
    {
      name: "platform-not-to-modules",
      comment:
        "The platform under the modules (the job engine, the database, mail, payments, captcha, metrics, " +
        "logging, sessions) knows no module: a module's job, rule or event is handed to it by the edge " +
        "(server/main.ts registers each module's jobs with the engine; docs/decisions/0040-one-job-engine.md). " +
        "The edge (server/api, server/http, server/main.ts) may import modules. Left for later: " +
        "server/config.ts (the ABN check of modules/companies/abn.ts) and the mail templates " +
        "(server/mail/templates, the modules' browser-safe texts).",
      severity: "error",
      from: {
        path: "^server/",
        pathNot: `${TESTS}|^server/(api|http)/|^server/main\\.ts$|^server/config\\.ts$|^server/mail/templates/`,
      },
      to: { path: "^modules/" },
    },
    {
      name: "db-not-upward",
      comment: "The database layer knows nothing of the modules, the API or HTTP.",
      severity: "error",
      from: { path: "^server/db/", pathNot: TESTS },
      to: { path: "^modules/|^server/(api|http)/" },
    },
    {
      name: "ports-not-to-module-rules",
      comment: "The ports to outside services (card processor, captcha) know no module's rules: a module calls them.",
      severity: "error",
      from: { path: "^server/(captcha|payments/(port|simulated|stripe|index))", pathNot: TESTS },
      to: { path: "^modules/.*\\.server\\.ts$" },
    },
    {
      name: "app-to-server-through-api",
      comment:
        "The web app reaches the server through the typed API client (ADR 0016): of the server it imports " +
        "only server/api's types and its handed-in services' types.",
      severity: "error",
      from: { path: "^app/", pathNot: TESTS },
      to: {
        path: "^server/|^modules/.*\\.server\\.tsx?$",
        pathNot: "^server/api/|^modules/.*api\\.server\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
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
        "core/ is pure shared code that everyone may import; it imports nothing of app/, server/, modules/, " +
        "scripts/ or tests/.",
      severity: "error",
      from: { path: "^core/", pathNot: TESTS },
      to: { path: "^(app|server|modules|scripts|tests)/" },
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
