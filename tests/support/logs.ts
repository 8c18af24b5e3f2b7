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

export function captureLogs(level = "trace"): LogCapture {
  const lines: string[] = [];
  // pino writes synchronously to a destination with a write() method.
  const logger = createLogger(level, {
    write(line: string) {
      lines.push(line);
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
