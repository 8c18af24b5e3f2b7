// The CSRF token and the honeypot that guard form posts (remix-utils, ADR 0007; docs/requirements.md §D7).
// One pair per application, signed with its secret: the root loader gives a signed-in visitor
// their token (app/lib/security.server.ts) and every action checks the honeypot, and the token
// when the visitor is signed in.
import { createCookie } from "react-router";
import { CSRF } from "remix-utils/csrf/server";
import { Honeypot, type HoneypotInputProps } from "remix-utils/honeypot/server";

export interface FormGuards {
  csrf: CSRF;
  honeypot: Honeypot;
  /** The honeypot's inputs, the same for every form: made once (see below). */
  honeypotInputProps: Promise<HoneypotInputProps>;
}

export function createFormGuards(secret: string, secure: boolean): FormGuards {
  // The token is HMAC-signed by remix-utils (`secret` below) and its signature checked on every
  // signed-in post, so the cookie itself is not signed again.
  const cookie = createCookie(secure ? "__Host-csrf" : "csrf", { path: "/", httpOnly: true, secure, sameSite: "lax" });
  // validFrom stays off: a person may fill a form as fast as they like; the name field catches bots.
  // So the inputs never vary, and are made once rather than encrypting an unused timestamp per page.
  const honeypot = new Honeypot({ encryptionSeed: secret, validFromFieldName: null });
  return {
    csrf: new CSRF({ cookie, secret, formDataKey: "csrf" }),
    honeypot,
    honeypotInputProps: honeypot.getInputProps(),
  };
}
