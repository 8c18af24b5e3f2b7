// Collects what the app logs (pino JSON lines) so a test can read it and check that no secret
// (captcha tokens, passwords, codes) ever reaches the log.
import { createLogger, type Logger } from "../../server/logger.ts";

export interface LogCapture {
  logger: Logger;
  /** Raw lines as pino wrote them. */
  lines: string[];
  /** Parsed records. */
  records(): Array<Record<string, unknown>>;
  /** Everything logged so far, as one string. */
  text(): string;
  /** The secrets among `values` that appear anywhere in the log. */
  leaked(...values: string[]): string[];
  clear(): void;
}

/**
 * Set by the security suite's setup file (tests/security/log-scan.setup.ts): receives every line
 * any captured logger writes, at every level, so the whole run can be scanned for secrets.
 */
type LogSink = (line: string) => void;
const sinkKey = Symbol.for("rewards.test.logSink");
const PINO_LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

export function captureLogs(level = "trace"): LogCapture {
  const lines: string[] = [];
  const sink = (globalThis as Record<symbol, LogSink | undefined>)[sinkKey];
  const threshold = PINO_LEVELS[level] ?? Number.POSITIVE_INFINITY;
  // pino writes synchronously to a destination with a write() method. With a sink, the logger
  // logs everything; `lines` still keeps only what `level` asks for.
  const logger = createLogger(sink ? "trace" : level, {
    write(line: string) {
      sink?.(line);
      if (!sink || ((JSON.parse(line) as { level?: number }).level ?? 0) >= threshold) lines.push(line);
    },
  });
  return {
    logger,
    lines,
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    text: () => lines.join(""),
    leaked: (...values) => values.filter((v) => v.length > 0 && lines.some((l) => l.includes(v))),
    clear: () => {
      lines.length = 0;
    },
  };
}
