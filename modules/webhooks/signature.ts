// The webhook signature recipe (ADR 0045, docs/API.md "Webhooks"): what the delivery worker signs with
// and what a receiver checks with. Pure functions over node:crypto, no server imports, so a
// receiver written in Node can copy this file as it is.
//
//   Rewards-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, `${t}.${rawBody}`)>
//
// The timestamp is inside what is signed, so a captured delivery cannot be re-sent later with a
// fresh time; a receiver refuses one signed more than 5 minutes from its own clock, and
// deduplicates by the event id in the body (a delivery may arrive more than once).
//
// Every delivery also carries the Standard Webhooks headers (https://www.standardwebhooks.com;
// ADR 0045), so an off-the-shelf library can verify it:
//
//   webhook-id: <the event id>   webhook-timestamp: <unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${rawBody}`)>
//
// Their key is the bytes the secret encodes after `whsec_` (base64, as that spec has it), so the
// secret can be handed to such a library as it is. Secrets issued before were base64url; Node's
// base64 decoder reads both alphabets, so those keep the same key (docs/API.md "Webhooks").
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The hex HMAC-SHA256 of `${t}.${rawBody}` under the endpoint's secret (the whole `whsec_…` string). */
export function webhookSignature(secret: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${rawBody}`, "utf8").digest("hex");
}

/** The header value for a body signed at `now`. */
export function signWebhook(secret: string, rawBody: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${webhookSignature(secret, t, rawBody)}`;
}

const SECRET_PREFIX = "whsec_";

/** The Standard Webhooks key of an endpoint secret: the bytes base64-encoded after `whsec_`. */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}

/** The base64 HMAC-SHA256 of `${id}.${timestamp}.${rawBody}` under the secret's key. */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", standardWebhookKey(secret))
    .update(`${id}.${timestamp}.${rawBody}`, "utf8")
    .digest("base64");
}

/** The three Standard Webhooks headers for a body signed at `now`; `id` stays the same on every retry. */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  rawBody: string,
  now: Date,
): { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string } {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${standardWebhookSignature(secret, id, timestamp, rawBody)}`,
  };
}

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: "malformed" | "too_old" | "too_new" | "mismatch" };

/**
 * Checks a delivery: the header's `t` within `toleranceSeconds` of `now` (either way: a clock
 * ahead is as suspect as one behind) and one of its `v1` signatures equal, compared in constant
 * time, to the HMAC of `${t}.${rawBody}`. `rawBody` is the body exactly as received, before any
 * JSON parsing.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return { ok: false, reason: "malformed" };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t" && value && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: "malformed" };
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  if (age > toleranceSeconds) return { ok: false, reason: "too_old" };
  if (age < -toleranceSeconds) return { ok: false, reason: "too_new" };
  const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody), "hex");
  const match = signatures.some((s) => timingSafeEqual(Buffer.from(s, "hex"), expected));
  return match ? { ok: true, timestamp } : { ok: false, reason: "mismatch" };
}
