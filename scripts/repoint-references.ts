// Re-points section references to the two shared documents that live outside the repository
// (the product specification and the design notes) at docs/requirements.md, which restates
// them with stable numbers: part S keeps the specification's section numbers, part D the
// design notes'. A reference "<specification> §5" becomes "docs/requirements.md §S5", one to
// the design notes' §7 becomes "docs/requirements.md §D7", and the bare "§n" that continue such a
// reference ("§2 My Team, §4 team list, §5 …", across a comment's line break too) follow it.
// References to other documents (an ADR's §3, docs/SECURITY.md's §11) are left alone.
//
//   node scripts/repoint-references.ts            rewrites every tracked text file
//   node scripts/repoint-references.ts --check    lists what it would change, exit 1 if anything
//   node scripts/repoint-references.ts FILE…      only those files
//
// tests/docs/references.test.ts keeps the result: it fails on any reference left to re-point.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";

export const REQUIREMENTS_PATH = "docs/requirements.md";

const DOCUMENTS: Record<string, "S" | "D"> = { SPEC: "S", DESIGN: "D" };

/**
 * A reference with its document's name (the name, optionally ".md", then spaces or a comment's
 * line break, then "§n"), or a bare "§n" that may continue the reference before it.
 */
const TOKEN =
  /\b(?<doc>SPEC|DESIGN)(?:\.md)?(?<gap>(?:[ \t\u00a0]|\r?\n[ \t]*(?:\/\/|#|\*|--)?[ \t]*)*)§(?<num>\d+)|§(?<bare>\d+)/g;

/** A bare "§n" continues the reference before it only this close, with none of these between. */
const CHAIN_MAX_CHARS = 80;
const CHAIN_BREAK = /\bADR\b|\.md\b|\bREADME\b|\bsection\b|\n[ \t]*(?:\/\/|#|\*|--)?[ \t]*\n/i;

export interface Repointed {
  text: string;
  /** How many "§n" references now point at docs/requirements.md. */
  count: number;
}

export function repoint(text: string): Repointed {
  let count = 0;
  let part: "S" | "D" | null = null;
  let lastEnd = -1;
  const out = text.replace(TOKEN, (match, ...args) => {
    const offset = args.at(-3) as number;
    const groups = args.at(-1) as { doc?: string; gap?: string; num?: string; bare?: string };
    const between = lastEnd < 0 ? "" : text.slice(lastEnd, offset);
    const chained = lastEnd >= 0 && between.length <= CHAIN_MAX_CHARS && !CHAIN_BREAK.test(between);
    lastEnd = offset + match.length;
    if (groups.doc !== undefined) {
      const inChain = chained && part !== null;
      part = DOCUMENTS[groups.doc] ?? null;
      count++;
      // A second reference in the same run ("§S5, §S9; §D9") needs no second file name.
      return inChain && !groups.gap?.includes("\n")
        ? `§${part}${groups.num}`
        : `${REQUIREMENTS_PATH}${groups.gap}§${part}${groups.num}`;
    }
    if (!chained || part === null) {
      part = null;
      return match;
    }
    count++;
    return `§${part}${groups.bare}`;
  });
  return { text: out, count };
}

function trackedTextFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" }).split("\0");
  return listed.filter(
    (path) =>
      path !== "" &&
      !path.startsWith("node_modules/") &&
      !path.startsWith("build/") &&
      existsSync(path) &&
      statSync(path).isFile(),
  );
}

function main(argv: string[]): void {
  const check = argv.includes("--check");
  const paths = argv.filter((arg) => !arg.startsWith("--"));
  let files = 0;
  let references = 0;
  for (const path of paths.length > 0 ? paths : trackedTextFiles()) {
    const before = readFileSync(path, "utf8");
    if (before.includes("\0")) continue;
    const { text, count } = repoint(before);
    if (text === before) continue;
    files++;
    references += count;
    if (check) console.log(`${path}: ${count}`);
    else writeFileSync(path, text);
  }
  console.log(`${check ? "would re-point" : "re-pointed"} ${references} references in ${files} files`);
  if (check && files > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
