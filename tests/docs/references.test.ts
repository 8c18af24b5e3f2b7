// References that resolve inside the repository. The product specification and the design notes
// live outside it; docs/requirements.md restates them with stable section numbers (§S… and §D…),
// and every comment, test, script and document cites that page instead. This test keeps it so:
// - every §S…/§D… reference names a section that docs/requirements.md has;
// - no reference to the outside documents by their own names is left (scripts/repoint-references.ts
//   rewrites them mechanically);
// - every repository path cited by a decision record, the README or docs/*.md exists, unless the
//   text right after it says it is gone ("(removed …", ", removed …", "(now `…`)"), and the index
//   docs/decisions/README.md lists every decision record.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repoint } from "../../scripts/repoint-references.ts";

const REQUIREMENTS = "docs/requirements.md";

/** The repository's files (tracked, so work in progress beside them is not judged), without build output. */
function repositoryFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  }).split("\0");
  return [...new Set(listed)].filter(
    (path) =>
      path !== "" &&
      !path.startsWith("node_modules/") &&
      !path.startsWith("build/") &&
      existsSync(path) &&
      statSync(path).isFile(),
  );
}

const files = repositoryFiles();
const texts = new Map<string, string>();
for (const path of files) {
  if (statSync(path).size > 2 * 1024 * 1024) continue;
  const text = readFileSync(path, "utf8");
  if (!text.includes("\0")) texts.set(path, text);
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** The section numbers docs/requirements.md defines: its "## §S5 …" and "## §D7 …" headings. */
function sections(): Set<string> {
  const text = readFileSync(REQUIREMENTS, "utf8");
  return new Set([...text.matchAll(/^#{2,4} §([SD]\d+(?:\.\d+)*)\b/gm)].map((m) => m[1] as string));
}

describe("docs/requirements.md references", () => {
  it("has parts S and D with the sections every reference maps onto", () => {
    const defined = sections();
    for (let n = 1; n <= 9; n++) {
      expect(defined).toContain(`S${n}`);
      expect(defined).toContain(`D${n}`);
    }
  });

  it("every §S…/§D… reference names a section that exists", () => {
    const defined = sections();
    const broken: string[] = [];
    for (const [path, text] of texts) {
      for (const m of text.matchAll(/§([SD]\d+(?:\.\d+)*)(?![\w])/g)) {
        if (!defined.has(m[1] as string)) broken.push(`${path}:${lineOf(text, m.index)}: §${m[1]}`);
      }
    }
    expect(broken, `sections missing from ${REQUIREMENTS}`).toEqual([]);
  });

  it("no reference to the outside specification or design notes is left", () => {
    // Their names followed by a section, or their file names. The pattern is built from parts so
    // this file does not match itself.
    const names = ["SPEC", "DESIGN"].join("|");
    const byName = new RegExp(String.raw`\b(?:${names})(?:\.md)?(?:\s|//|#|\*)*§|\b(?:${names})\.md\b`, "g");
    const left: string[] = [];
    for (const [path, text] of texts) {
      for (const m of text.matchAll(byName)) left.push(`${path}:${lineOf(text, m.index)}: ${m[0].trim()}`);
    }
    expect(left, "run `node scripts/repoint-references.ts` (see docs/requirements.md)").toEqual([]);
  });

  it("the re-pointing script leaves nothing to re-point", () => {
    const pending = [...texts].filter(([, text]) => repoint(text).count > 0).map(([path]) => path);
    expect(pending).toEqual([]);
  });

  it("re-points a reference, its continuations and no other document's sections", () => {
    const spec = ["SP", "EC"].join("");
    const design = ["DES", "IGN.md"].join("");
    expect(repoint(`// Login (${spec} §2 login page, §4 captcha, §8; ${design} §7), ADR 0022 §6.`)).toEqual({
      text: "// Login (docs/requirements.md §S2 login page, §S4 captcha, §S8; §D7), ADR 0022 §6.",
      count: 4,
    });
    expect(repoint(`// the amounts of ${design}\n// §5 ($100 → $111)`).text).toBe(
      "// the amounts of docs/requirements.md\n// §D5 ($100 → $111)",
    );
    expect(repoint("see docs/SECURITY.md §11 and (§5)").count).toBe(0);
  });
});

describe("repository paths cited in the documents", () => {
  const known = new Set(files);
  const ignored = readFileSync(".gitignore", "utf8")
    .split("\n")
    .map((line) => line.trim().replace(/^\//, "").replace(/\/$/, ""))
    .filter((line) => line !== "" && !line.startsWith("#") && !line.includes("*"));
  const topLevel = new Set(files.filter((f) => f.includes("/")).map((f) => f.split("/")[0] as string));
  // The README and ADR 0019 name app/ folders by their short names.
  for (const short of ["features", "ui", "lib"]) topLevel.add(short);

  const exists = (path: string): boolean => {
    const p = path.replace(/\/$/, "");
    if (known.has(p) || existsSync(p)) return true;
    // A directory, an app-relative short name, or a route id or import without its extension.
    for (const f of files) {
      if (f.startsWith(`${p}/`) || f.endsWith(`/${p}`) || f.includes(`/${p}/`)) return true;
      if (f.startsWith(`${p}.`) || f.includes(`/${p}.`)) return true;
    }
    return false;
  };
  /** Words right after a path that say it is no longer there. */
  const gone = /^`?\)?\s*(?:[(,;—-]\s*)?(?:since\s+)?(?:removed|gone|deleted|renamed|now\b)/i;
  const PATH = /(?<![\w@/.:~$<{-])((?:[\w.-]+\/)+[\w.-]*)/g;

  const documents = files.filter(
    (f) => /^docs\/decisions\/[^/]+\.md$/.test(f) || /^docs\/[^/]+\.md$/.test(f) || f === "README.md",
  );

  it("finds the decision records, and their index lists each of them", () => {
    const records = documents.filter((f) => /^docs\/decisions\/\d{4}-.*\.md$/.test(f));
    expect(records.length).toBeGreaterThan(20);
    const index = readFileSync("docs/decisions/README.md", "utf8");
    const unlisted = records
      .map((f) => f.slice("docs/decisions/".length))
      .filter((name) => !index.includes(`(${name})`));
    expect(unlisted, "add a line to docs/decisions/README.md").toEqual([]);
  });

  it("every cited repository path exists, or is marked as gone", () => {
    const dead: string[] = [];
    for (const path of documents) {
      const text = readFileSync(path, "utf8");
      for (const m of text.matchAll(PATH)) {
        const cited = (m[1] as string).replace(/[.,:;]+$/, "");
        const first = cited.split("/")[0] as string;
        if (!topLevel.has(first) || ignored.includes(first)) continue;
        if (exists(cited)) continue;
        if (gone.test(text.slice(m.index + (m[1] as string).length))) continue;
        dead.push(`${path}:${lineOf(text, m.index)}: ${cited}`);
      }
    }
    expect(dead, "point them at the current file (git log --follow) or say they are gone").toEqual([]);
  });
});
