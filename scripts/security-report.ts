// Runs the security suite (tests/security, inside `npm test` too) with vitest's JSON reporter and
// rewrites the results section of docs/SECURITY.md: tests per file, the log scan's totals, the
// dependency audit, the date and the command. With --all it runs the whole unit suite, so the
// log scan covers every test file (as in CI).
//   node scripts/security-report.ts [--all]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const all = process.argv.includes("--all");
const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "security-report-"));
const jsonFile = join(dir, "vitest.json");
const scanFile = join(dir, "log-scan.jsonl");
const command = `npx vitest run${all ? "" : " tests/security"} --reporter=json`;

const started = Date.now();
const run = spawnSync(
  "npx",
  ["vitest", "run", ...(all ? [] : ["tests/security"]), "--reporter=json", `--outputFile=${jsonFile}`],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, SECURITY_LOG_SCAN_FILE: scanFile } },
);
const seconds = Math.round((Date.now() - started) / 1000);
if (!existsSync(jsonFile)) {
  console.error("vitest wrote no JSON report");
  process.exit(1);
}

interface Assertion {
  status: string;
  title: string;
  ancestorTitles: string[];
}
interface FileResult {
  name: string;
  assertionResults: Assertion[];
}
const report = JSON.parse(readFileSync(jsonFile, "utf8")) as {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: FileResult[];
};

const rows = report.testResults
  .filter((f) => relative(root, f.name).startsWith("tests/security/"))
  .map((f) => {
    const count = (s: string) => f.assertionResults.filter((a) => a.status === s).length;
    return `| \`${relative(root, f.name)}\` | ${count("passed")} | ${count("failed")} | ${count("pending") + count("skipped")} |`;
  });
const failed = report.testResults.flatMap((f) =>
  f.assertionResults
    .filter((a) => a.status === "failed")
    .map((a) => `- ${relative(root, f.name)} › ${[...a.ancestorTitles, a.title].join(" › ")}`),
);

const scans = existsSync(scanFile)
  ? readFileSync(scanFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { file: string; lines: number; leaks: number })
  : [];
const scannedLines = scans.reduce((n, s) => n + s.lines, 0);
const leaks = scans.filter((s) => s.leaks > 0);

let audit: string;
try {
  const out = execFileSync("npm", ["audit", "--omit=dev", "--json"], { cwd: root, encoding: "utf8", stdio: "pipe" });
  const v = (JSON.parse(out) as { metadata?: { vulnerabilities?: Record<string, number> } }).metadata?.vulnerabilities;
  audit = v ? `npm audit --omit=dev: ${JSON.stringify(v)}` : "npm audit --omit=dev: no report";
} catch (error) {
  const e = error as { stdout?: string; stderr?: string };
  const parsed = (() => {
    try {
      return JSON.parse(e.stdout ?? "") as {
        metadata?: { vulnerabilities?: Record<string, number> };
        error?: { summary?: string };
        message?: string;
      };
    } catch {
      return undefined;
    }
  })();
  audit = parsed?.metadata?.vulnerabilities
    ? `npm audit --omit=dev: ${JSON.stringify(parsed.metadata.vulnerabilities)}`
    : `npm audit --omit=dev could not run: ${(parsed?.message ?? parsed?.error?.summary ?? e.stderr ?? "unknown error").split("\n").find((l) => l.trim() && !l.includes("nodedir")) ?? "unknown error"}`;
}

const when = new Date()
  .toISOString()
  .replace(/\.\d+Z$/, " UTC")
  .replace("T", " ");
const section = [
  "<!-- results:start (written by scripts/security-report.ts; do not edit by hand) -->",
  `Run on ${when} with \`node scripts/security-report.ts${all ? " --all" : ""}\` (\`${command}\`, ${seconds} s; PostgreSQL ${databaseNote(report)}).`,
  "",
  `**${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped** of ${report.numTotalTests} tests in ${report.testResults.length} files${all ? " (the whole unit suite)" : ""}; the security files:`,
  "",
  "| File | Passed | Failed | Skipped |",
  "|---|---:|---:|---:|",
  ...rows,
  "",
  failed.length ? `Failed:\n\n${failed.join("\n")}\n` : "No test failed.",
  "",
  `Log scan: ${scannedLines.toLocaleString("en-AU")} log lines from ${scans.length} test files scanned; ${leaks.length === 0 ? "no secret found" : `secrets in ${leaks.map((l) => relative(root, l.file)).join(", ")}`}.`,
  "",
  `Dependencies: ${audit}.`,
  "<!-- results:end -->",
].join("\n");

function databaseNote(r: typeof report): string {
  const skippedPg = r.testResults.some((f) =>
    f.assertionResults.some(
      (a) => a.status !== "passed" && a.ancestorTitles.some((t) => t.includes("[postgres] (skipped")),
    ),
  );
  return skippedPg ? "tests skipped (no server on this machine)" : "and PGlite both ran";
}

const docPath = join(root, "docs/SECURITY.md");
const doc = readFileSync(docPath, "utf8");
const next = doc.replace(/<!-- results:start[\s\S]*?<!-- results:end -->/, section);
if (next === doc && !doc.includes("<!-- results:start")) throw new Error("docs/SECURITY.md has no results markers");
writeFileSync(docPath, next);
console.log(section);
process.exit(run.status ?? 1);
