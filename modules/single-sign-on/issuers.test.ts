// The one rule for where a single sign-on provider may be (ADR 0046, amended): every issuer it
// accepts is a target the login page's form-action allows (Chrome applies form-action to the
// redirect that answers the login form's post), in a local run and in a deployment.
import { describe, expect, it } from "vitest";
import { ssoIssuerAllowed, ssoLoginFormActionSources } from "./issuers.server.ts";

/** Whether a form-action source list (scheme sources and 'self' only, as the rule emits) allows `target`. */
function formActionAllows(sources: string[], target: URL, appUrl: string): boolean {
  return sources.some((source) => {
    if (source === "'self'") return target.origin === new URL(appUrl).origin;
    // A scheme source; CSP3 lets "http:" match https too.
    if (/^[a-z][a-z0-9+.-]*:$/.test(source))
      return target.protocol === source || (source === "http:" && target.protocol === "https:");
    throw new Error(`source the test cannot read: ${source}`);
  });
}

const ISSUERS = [
  "https://login.microsoftonline.com/tenant/v2.0",
  "https://idp.example.com:8443",
  "http://localhost:4000",
  "http://127.0.0.1:4000",
  "http://127.0.0.2:4000",
  "http://[::1]:4000",
  "http://idp.localhost:4000",
  "http://idp.example.com",
  "http://10.0.0.5",
];

describe("single sign-on issuers", () => {
  for (const appUrl of ["http://localhost:3000", "http://127.0.0.1:3150", "https://rewards.example.com"]) {
    it(`every issuer accepted with APP_URL ${appUrl} is reachable from the login form`, () => {
      const sources = ssoLoginFormActionSources(appUrl);
      for (const issuer of ISSUERS.map((i) => new URL(i))) {
        if (ssoIssuerAllowed(issuer, appUrl)) expect(formActionAllows(sources, issuer, appUrl), issuer.href).toBe(true);
      }
    });
  }

  it("a local run accepts https and loopback http; a deployment only https", () => {
    const accepted = (appUrl: string) => ISSUERS.filter((i) => ssoIssuerAllowed(new URL(i), appUrl));
    expect(accepted("http://127.0.0.1:3150")).toEqual(ISSUERS.slice(0, 7));
    expect(accepted("https://rewards.example.com")).toEqual(ISSUERS.slice(0, 2));
    expect(ssoLoginFormActionSources("https://rewards.example.com")).toEqual(["'self'", "https:"]);
  });
});
