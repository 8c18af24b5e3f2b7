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
  "req.headers.authorization",
  "req.headers.cookie",
  "res.headers['set-cookie']",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: "[redacted]" }, base: undefined }, destination);
}

export type { Logger };
