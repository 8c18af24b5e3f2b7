// The production server, build/server.js (ADR 0024): server.ts with our server code and
// drizzle-orm bundled by esbuild, every other package loaded from node_modules as usual.
// `npm run build` runs it after React Router's build; `npm start`, the Dockerfile, the tests'
// production processes and the benchmark run `node build/server.js`. `node server.ts --dev` runs
// the sources.
import { cpSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
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

const CHUNKS = "build/server-chunks";
rmSync("build/server.js", { force: true });
rmSync(CHUNKS, { recursive: true, force: true });
rmSync("build/migrations", { recursive: true, force: true });

// Splitting keeps server.ts's import() calls as imports that run when they are reached. Without it
// esbuild hoists every package the imported modules use to the top of the one file, so React
// loaded before server.ts's first line settled NODE_ENV (ADR 0024, "Amendment: the entry settles
// NODE_ENV").
const result = await build({
  entryPoints: { server: "server.ts" },
  outdir: "build",
  chunkNames: "server-chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node24",
  external,
  metafile: true,
  logLevel: "warning",
});

// The guard: the entry may import Node's own modules before its first line runs, nothing else.
const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const early = (result.metafile.outputs["build/server.js"]?.imports ?? [])
  .filter((entry) => entry.kind === "import-statement" && !builtins.has(entry.path))
  .map((entry) => entry.path);
if (early.length > 0) {
  console.error(
    `build/server.js imports ${early.join(", ")} before server.ts settles NODE_ENV: ` +
      "import them with import() below that line (ADR 0024).",
  );
  process.exit(1);
}

// The database client finds its migrations beside its own module (server/db/client.ts), which is
// in a chunk.
cpSync("server/db/migrations", `${CHUNKS}/migrations`, { recursive: true });
