// Random secrets of the account flows and how they are stored (docs/requirements.md §D7): access tokens,
// verification request tokens and reset tokens are 32 random bytes (base64url) stored as their
// SHA-256; a 6-digit verification code is stored as an HMAC-SHA-256 keyed by its request token,
// so a copy of the database reveals neither the tokens nor the codes. Comparisons run in
// constant time.
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/** 32 random bytes, base64url (43 characters): access tokens, request tokens, reset tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Six random digits, leading zeros kept ("000123"), from the CSPRNG (replaceable in tests). */
export function generateVerificationCode(random: (min: number, max: number) => number = randomInt): string {
  return random(0, 1_000_000).toString().padStart(6, "0");
}

/** The stored form of a code: HMAC-SHA-256 keyed by the request token it was issued with. */
export function hashVerificationCode(requestToken: string, code: string): string {
  return createHmac("sha256", requestToken).update(code, "utf8").digest("hex");
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, "hex");
  const b = Buffer.from(bHex, "hex");
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}
