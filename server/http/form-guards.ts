// The CSRF token and the honeypot that guard every form post (remix-utils, ADR 0007). One pair
// per application, signed with its secret: the root loader issues the token
// (app/lib/security.server.ts), the edge gives it to visitors of shared pages (./shared-pages.ts),
// and every action checks both.
import { randomBytes } from "node:crypto";
import { createCookie } from "react-router";
import { CSRF } from "remix-utils/csrf/server";
import { Honeypot } from "remix-utils/honeypot/server";

/**
 * remix-utils' CSRF with tokens from one `randomBytes` call. Its own generator asks WebCrypto for
 * randomness once per character, which was a third of a shared page's CPU (profiled under
 * autocannon). The token keeps the library's shape, `<random>.<signature>`, signed by the
 * library's own method, so `validate` is unchanged (form-guards.test.ts proves the round trip).
 */
class CsrfGuard extends CSRF {
  override generate(bytes = 32): string {
    const token = randomBytes(bytes).toString("base64url");
    return `${token}.${(this as unknown as { sign(token: string): string }).sign(token)}`;
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
