// The CSRF token and the honeypot that guard every form post (remix-utils, ADR 0007). One pair
// per application, signed with its secret: the root loader issues the token
// (app/lib/security.server.ts), the edge gives it to visitors of shared pages (./shared-pages.ts),
// and every action checks both.
import { createCookie } from "react-router";
import { CSRF } from "remix-utils/csrf/server";
import { Honeypot } from "remix-utils/honeypot/server";

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
    csrf: new CSRF({ cookie, secret, formDataKey: "csrf" }),
    // validFrom stays off: a person may fill a form as fast as they like; the name field catches bots.
    honeypot: new Honeypot({ encryptionSeed: secret, validFromFieldName: null }),
  };
}
