// Finds secrets in log lines (docs/requirements.md §D7: "Nothing secret is logged", held for every log
// line of the whole test suite). Used by log-scan.setup.ts on every line any captured logger
// writes in every test file, and tested with deliberate leaks in secret-scan.test.ts.
import { luhnValid } from "../../core/card.ts";
import { NEW_PASSWORD, PASSWORD } from "../../modules/identity/accounts.testkit.ts";

export interface Finding {
  kind: string;
  /** The matched text, shortened so the report does not spread the secret further. */
  sample: string;
}

/** Passwords the tests use (the testkits' and the security suite's own). */
export const TEST_PASSWORDS = [PASSWORD, NEW_PASSWORD, "Fuzzing#2024", "Wrong#Password1", "Another$2025"];

const REDACTED = "[redacted]";

/** Keys whose values must always be redacted when they appear in a log record. */
const SECRET_KEYS =
  /"(password|newPassword|confirmPassword|token|accessToken|requestToken|passwordResetToken|verificationCode|captchaToken|clientSecret|cardNumber|cvc|authorization|cookie|set-cookie|secret|sessionId)"\s*:\s*"([^"]*)"/gi;

const PATTERNS: Array<{ kind: string; re: RegExp }> = [
  // 32 random bytes as base64url (43 characters): access, request and reset tokens, session ids.
  { kind: "random token (43-character base64url)", re: /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  // A company API key (ADR 0028): `rk_` and the same 43 characters (the `_` hides them from the pattern above).
  { kind: "company API key", re: /rk_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  { kind: "bearer credential", re: /Bearer\s+[A-Za-z0-9._~+/=-]{16,}/g },
  { kind: "session cookie", re: /(?:__Host-)?session=[A-Za-z0-9%._-]{16,}/g },
  { kind: "CSRF cookie", re: /(?:__Host-)?csrf=[A-Za-z0-9%._-]{16,}/g },
  { kind: "reset link token", re: /passwordResetToken=[A-Za-z0-9_%-]{16,}/g },
  { kind: "verification code", re: /(?:verification code|verificationCode)\W{1,4}\d{6}\b/gi },
  { kind: "payment client secret", re: /_secret_[A-Za-z0-9]{8,}/g },
  { kind: "password hash", re: /\$argon2(?:id|i|d)\$/g },
  { kind: "CVC in context", re: /\b(?:cvc|cvv|security code)\W{1,4}\d{3,4}\b/gi },
];

/** Card numbers: 13–19 digits (spaces or dashes between), Luhn-valid, starting like a card brand. */
const CARD = /(?<![\d.])[2-6](?:[ -]?\d){12,18}(?![\d.])/g;

const short = (s: string) => (s.length > 12 ? `${s.slice(0, 6)}…(${s.length} chars)` : `${s.slice(0, 3)}…`);

export function findSecrets(line: string, extra: string[] = []): Finding[] {
  const found: Finding[] = [];
  for (const m of line.matchAll(SECRET_KEYS)) {
    const value = m[2] ?? "";
    if (value !== "" && value !== REDACTED) found.push({ kind: `unredacted "${m[1]}"`, sample: short(value) });
  }
  for (const { kind, re } of PATTERNS) {
    for (const m of line.matchAll(re)) found.push({ kind, sample: short(m[0]) });
  }
  for (const m of line.matchAll(CARD)) {
    const digits = m[0].replace(/\D/g, "");
    if (luhnValid(digits)) found.push({ kind: "card number", sample: short(digits) });
  }
  for (const secret of [...TEST_PASSWORDS, ...extra]) {
    if (secret && line.includes(secret))
      found.push({ kind: "a password or secret used by the tests", sample: short(secret) });
  }
  return found;
}
