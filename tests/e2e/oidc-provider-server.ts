// The end-to-end run's OpenID Connect providers (playwright.config.ts starts them like the app):
// tests/support/oidc-provider.ts on E2E_OIDC_PORT, its client's redirect URI the app's callback,
// any address an account (each project signs in people of its own domain).
// A second one on another loopback address (127.0.0.2, same port) whose client authenticates with
// client_secret_post, whose email claims come from UserInfo only and whose discovery does not list
// the email claim (single-sign-on.spec.ts): reached from the login form without JavaScript too
// (ADR 0046, amended). Best effort: a machine whose loopback has only 127.0.0.1 (macOS) runs
// without it, and the spec skips that test.
import { startTestProvider, type TestProvider } from "../support/oidc-provider.ts";

const port = Number(process.env.E2E_OIDC_PORT ?? 3333);
const redirectUri = process.env.E2E_OIDC_REDIRECT_URI ?? "http://127.0.0.1:3150/corporate/sso/callback";
const providers: TestProvider[] = [
  await startTestProvider({ port, redirectUris: [redirectUri], accounts: [], anyAddress: true }),
];
try {
  providers.push(
    await startTestProvider({
      port,
      host: "127.0.0.2",
      redirectUris: [redirectUri],
      accounts: [],
      anyAddress: true,
      tokenEndpointAuthMethod: "client_secret_post",
      // As many are by default: the email claims at UserInfo only, and not listed in discovery.
      conformIdTokenClaims: true,
      discovery: (metadata) => ({
        ...metadata,
        claims_supported: ((metadata.claims_supported as string[] | undefined) ?? []).filter((c) => c !== "email"),
      }),
    }),
  );
} catch (error) {
  process.stdout.write(`no second test OpenID provider on 127.0.0.2: ${String(error)}\n`);
}
for (const provider of providers) process.stdout.write(`test OpenID provider at ${provider.issuer}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void Promise.all(providers.map((p) => p.close())).then(() => process.exit(0));
  });
}
