// The end-to-end run's OpenID Connect provider (playwright.config.ts starts it like the app):
// tests/support/oidc-provider.ts on E2E_OIDC_PORT, its client's redirect URI the app's callback,
// any address an account (each project signs in people of its own domain).
import { startTestProvider } from "../support/oidc-provider.ts";

const port = Number(process.env.E2E_OIDC_PORT ?? 3333);
const redirectUri = process.env.E2E_OIDC_REDIRECT_URI ?? "http://127.0.0.1:3150/corporate/sso/callback";
const provider = await startTestProvider({ port, redirectUris: [redirectUri], accounts: [], anyAddress: true });
process.stdout.write(`test OpenID provider at ${provider.issuer}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void provider.close().then(() => process.exit(0));
  });
}
