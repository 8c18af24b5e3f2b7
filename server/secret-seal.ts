// The one seal of secrets the server must read back (docs/requirements.md §D7): webhook endpoint
// secrets (ADR 0045), single sign-on client secrets (ADR 0046), TOTP secrets (ADR 0042) and the web
// sessions' data (server/web-sessions.ts). Each is encrypted with AES-256-GCM under a key derived
// by HKDF-SHA-256 from the server secret with the use's own label, and authenticated with the id
// of the row it belongs to (the additional data), so a sealed value copied to another row, or read
// with another server secret, does not open.
//
// The stored form is base64url(iv ‖ tag ‖ ciphertext), 12-byte iv and 16-byte tag: rows written
// before this module existed open with it (secret-seal.test.ts holds vectors sealed by the code it
// replaced), so neither a label nor the layout may change.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A seal keyed by `label` (the HKDF info) under the server secret; `aad` names the owning row. */
export function secretSeal(serverSecret: string, label: string) {
  const key = Buffer.from(hkdfSync("sha256", serverSecret, "", label, 32));
  return {
    seal(plaintext: string, aad: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    /** The plaintext, or null when it was sealed under another server secret or for another row. */
    open(sealed: string, aad: string): string | null {
      const raw = Buffer.from(sealed, "base64url");
      if (raw.length < IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(aad));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}

/** What names one use of a company's sealed secret: its HKDF label and its additional data's prefix. */
export interface CompanySecretPurpose {
  label: string;
  /** The additional data is `${scope}:company:${companyId}`. */
  scope: string;
}

/** A company's secret sealed for one purpose (webhook endpoints, single sign-on): opens only for that company. */
export function companySecretSeal(serverSecret: string, purpose: CompanySecretPurpose) {
  const seal = secretSeal(serverSecret, purpose.label);
  const aad = (companyId: number) => `${purpose.scope}:company:${companyId}`;
  return {
    sealSecret(secret: string, companyId: number): string {
      return seal.seal(secret, aad(companyId));
    },
    /** The secret, or null when it was sealed under another server secret or for another company. */
    openSecret(sealed: string, companyId: number): string | null {
      return seal.open(sealed, aad(companyId));
    },
  };
}

export type CompanySecretSeal = ReturnType<typeof companySecretSeal>;
