// The CSRF token and the honeypot that guard every form post (remix-utils, ADR 0007). One pair
// per application, signed with its secret: the root loader issues the token
// (app/lib/security.server.ts), the edge gives it to visitors of shared pages (./shared-pages.ts),
// and every action checks both.
import { randomBytes } from "node:crypto";
import { hmac } from "@oslojs/crypto/hmac";
import { SHA256 } from "@oslojs/crypto/sha2";
import { encodeBase64url } from "@oslojs/encoding";
import { createCookie } from "react-router";
import { CSRF } from "remix-utils/csrf/server";
import { Honeypot } from "remix-utils/honeypot/server";

/**
 * remix-utils' CSRF with tokens from one `randomBytes` call. Its own generator asks WebCrypto for
 * randomness once per character, which was a third of a shared page's CPU (profiled under
 * autocannon). The token keeps the library's documented shape, `<random>.<signature>`, the
 * signature being HMAC-SHA256 of the random part with the secret in base64url, made here with the
 * same @oslojs functions the library uses, so its `validate` is unchanged. form-guards.test.ts
 * proves the round trip and fails if an upgrade changes the format.
 */
class CsrfGuard extends CSRF {
  readonly #key: Uint8Array;
  constructor(options: ConstructorParameters<typeof CSRF>[0] & { secret: string }) {
    super(options);
    this.#key = new TextEncoder().encode(options.secret);
  }
  override generate(bytes = 32): string {
    const token = randomBytes(bytes).toString("base64url");
    const signature = encodeBase64url(hmac(SHA256, this.#key, new TextEncoder().encode(token)));
    return `${token}.${signature}`;
  }
}

export interface FormGuards {
  csrf: CSRF;
  honeypot: Honeypot;
}

export function createFormGuards(secret: string, secure: boolean): FormGuards {
  // The token is HMAC-signed by remix-utils (`secret` below) and checked on every post, so the
  // cookie itself is not signed again: React Router's cookie signing costs an async WebCrypto call
  // per page for nothing (measured: a fifth of a shared page's CPU).
  const cookie = createCookie(secure ? "__Host-csrf" : "csrf", { path: "/", httpOnly: true, secure, sameSite: "lax" });
  return {
    csrf: new CsrfGuard({ cookie, secret, formDataKey: "csrf" }),
    // validFrom stays off: a person may fill a form as fast as they like; the name field catches bots.
    honeypot: new Honeypot({ encryptionSeed: secret, validFromFieldName: null }),
  };
}
