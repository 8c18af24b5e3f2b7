// Vitest setup file (every test file of `npm test`): every line any captured logger writes
// (tests/support/logs.ts, at every level, whatever level the test asked for) is scanned for
// secrets; a file whose run logged one fails in its afterAll. Totals go to
// SECURITY_LOG_SCAN_FILE when set (scripts/security-report.ts reads them).
import { appendFileSync } from "node:fs";
import { afterAll, expect } from "vitest";
import { type Finding, findSecrets } from "./secret-scan.ts";

const sinkKey = Symbol.for("rewards.test.logSink");
let lines = 0;
const findings: Finding[] = [];

(globalThis as Record<symbol, unknown>)[sinkKey] = (line: string) => {
  lines++;
  if (findings.length < 50) findings.push(...findSecrets(line));
};

afterAll(() => {
  const file = expect.getState().testPath ?? "unknown";
  const out = process.env.SECURITY_LOG_SCAN_FILE;
  if (out) appendFileSync(out, `${JSON.stringify({ file, lines, leaks: findings.length })}\n`);
  if (findings.length > 0) {
    const list = findings
      .slice(0, 10)
      .map((f) => `${f.kind}: ${f.sample}`)
      .join("; ");
    throw new Error(`${findings.length} secret(s) in the logs of this test file: ${list}`);
  }
});
