// Where a company's OpenID Connect provider may be (ADR 0046, amended): the one rule both for
// the issuers single sign-on accepts (saving the settings, discovery) and for where the login
// page's form may send the browser (its Content-Security-Policy `form-action`, server/http/app.ts).
// One rule, so every issuer the product accepts is reachable from the login form without
// JavaScript: Chrome applies `form-action` to the redirect that answers the form's post.
//
// - https: any host (the providers are the companies' own).
// - Plain http: only to a loopback host (localhost, *.localhost, 127.0.0.0/8, ::1), and only in
//   a local run (APP_URL itself on loopback, as config.ts decides a deployment): the browser is
//   then on the machine too, and nothing sent leaves it. A deployment's browsers could not reach
//   a provider on the server's loopback anyway, and the server must not be pointed at itself.
//   A CSP source cannot name "any loopback address" (127.0.0.2, [::1], x.localhost), so a local
//   run's login page allows `http:`; in a deployment it never does.
import { isLoopbackHost } from "../../server/config.ts";

/** Whether `appUrl` (APP_URL, or the redirect URI built on it) is a local run's. */
export function ssoLocalRun(appUrl: string): boolean {
  return isLoopbackHost(new URL(appUrl).hostname);
}

/** Whether single sign-on accepts `issuer` in a run whose APP_URL is `appUrl`. */
export function ssoIssuerAllowed(issuer: URL, appUrl: string): boolean {
  if (issuer.protocol === "https:") return true;
  return issuer.protocol === "http:" && isLoopbackHost(issuer.hostname) && ssoLocalRun(appUrl);
}

/** The login page's `form-action` sources: every target ssoIssuerAllowed accepts, and this site. */
export function ssoLoginFormActionSources(appUrl: string): string[] {
  return ["'self'", "https:", ...(ssoLocalRun(appUrl) ? ["http:"] : [])];
}
