// The production server as one file, build/server.js (ADR 0024): server.ts with our server code
// and drizzle-orm bundled by esbuild, every other package loaded from node_modules as usual.
// `npm run build` runs it after React Router's build; `npm start`, the Dockerfile, the tests'
// production processes and the benchmark run `node build/server.js`. `node server.ts --dev` runs
// the sources.
import { cpSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

// Node's module loader reads a package's package.json for every module of it that it loads:
// drizzle-orm's hundreds of modules each parsed its 179 KB package.json again, garbage that
// left the heap a hundred megabytes larger. Bundled, it is one module.
const BUNDLED_PACKAGES = new Set(["drizzle-orm"]);

const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]
  .filter((name) => !BUNDLED_PACKAGES.has(name))
  .flatMap((name) => [name, `${name}/*`]);

await build({
  entryPoints: ["server.ts"],
  outfile: "build/server.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  external,
  logLevel: "warning",
});

// The database client finds its migrations beside itself (server/db/client.ts): beside the bundle too.
rmSync("build/migrations", { recursive: true, force: true });
cpSync("server/db/migrations", "build/migrations", { recursive: true });
