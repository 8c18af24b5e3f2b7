// Finds every production module that writes a table (docs/rules.md: each rule's chokepoint is
// the only writer of the tables it guards). A write is a Drizzle `.insert(t)`, `.update(t)` or
// `.delete(t)` on the table's schema name, or raw SQL `insert into ${t}` / `update ${t}` /
// `delete from ${t}` through the same name, or the same statements on its SQL name.
// Test files, test kits and the benchmark's fixtures (scripts/bench) are not production paths.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCANNED = ["app", "core", "modules", "server", "scripts"];
const SKIPPED_DIRS = new Set(["node_modules", "build", "migrations", "bench"]);

function productionFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(path);
      } else if (/\.(ts|tsx)$/.test(name) && !/\.(test|testkit)\.tsx?$/.test(name)) {
        out.push(path);
      }
    }
  };
  for (const dir of SCANNED) walk(join(ROOT, dir));
  return out;
}

let cache: Array<{ file: string; text: string }> | undefined;
function sources() {
  cache ??= productionFiles().map((path) => ({ file: relative(ROOT, path), text: readFileSync(path, "utf8") }));
  return cache;
}

export type WriteKind = "insert" | "update" | "delete";

/**
 * The modules (paths from the repository root) that write `table`, where `schemaName` is its
 * export in server/db/schema.ts and `sqlName` its name in SQL; `kinds` narrows the statements.
 */
export function writersOf(
  schemaName: string,
  sqlName: string,
  kinds: readonly WriteKind[] = ["insert", "update", "delete"],
): string[] {
  const patterns: RegExp[] = [];
  for (const kind of kinds) {
    patterns.push(new RegExp(`\\.${kind}\\(\\s*${schemaName}\\s*\\)`));
    const verb = kind === "insert" ? "insert\\s+into" : kind === "delete" ? "delete\\s+from" : "update";
    patterns.push(new RegExp(`${verb}\\s+\\$\\{\\s*${schemaName}\\s*\\}`, "i"));
    patterns.push(new RegExp(`${verb}\\s+"?${sqlName}"?\\b`, "i"));
  }
  return sources()
    .filter(({ text }) => patterns.some((p) => p.test(text)))
    .map(({ file }) => file)
    .sort();
}

/** The production modules whose text matches `pattern` (paths from the repository root). */
export function modulesMatching(pattern: RegExp): string[] {
  return sources()
    .filter(({ text }) => pattern.test(text))
    .map(({ file }) => file)
    .sort();
}
