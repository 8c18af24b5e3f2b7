// Structured JSON logs. Anything that could carry a secret is redacted by path.
import { type Logger, pino } from "pino";

export const redactPaths = [
  "password",
  "*.password",
  "token",
  "*.token",
  "captchaToken",
  "*.captchaToken",
  "accessToken",
  "*.accessToken",
  "verificationCode",
  "*.verificationCode",
  "passwordResetToken",
  "*.passwordResetToken",
  // Payments: the simulated card form's fields and a payment's client secret.
  "cardNumber",
  "*.cardNumber",
  "cvc",
  "*.cvc",
  "clientSecret",
  "*.clientSecret",
  "req.headers.authorization",
  "req.headers.cookie",
  "res.headers['set-cookie']",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: "[redacted]" }, base: undefined }, destination);
}

export type { Logger };

/**
 * An error as it may be logged. A failed Drizzle query's message lists every query parameter
 * (user input, hashes, tokens): log the SQL text and the database's own error instead.
 */
export function errorForLog(error: unknown): { err: string; stack?: string; query?: string } {
  if (error instanceof Error && "query" in error && "params" in error) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    return {
      err: cause ? cause.message : "database query failed",
      stack: cause?.stack,
      query: String(error.query),
    };
  }
  if (error instanceof Error) return { err: error.message, stack: error.stack };
  return { err: String(error) };
}
