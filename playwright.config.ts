// End-to-end tests: Debian's Chromium against the production build (`npm run test:e2e` builds
// first), in four projects: desktop 1280 px and phone 360 px, each with JavaScript on and off.
import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_URLS } from "./tests/e2e/env.ts";
import { MAIL_API_PORT, MAIL_APP_PORT, MAIL_APP_URL } from "./tests/e2e/mail.ts";

const CI = Boolean(process.env.CI);
/** A fixed port of its own, away from the dev servers (3000, 3201, 3202). */
const PORT = Number(process.env.E2E_PORT ?? 3150);
const baseURL = `http://127.0.0.1:${PORT}`;
/** The test OpenID Connect provider's port (tests/e2e/oidc-provider-server.ts, single-sign-on.spec.ts). */
const OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 3333);

const desktop = { width: 1280, height: 800 };
const phone = { width: 360, height: 740 };

/**
 * A long journey across several screens (tagged "@journey": paying, releasing, signing in through
 * a provider, a scheduled send) checks what the server does along it; each screen on the way has
 * its own tests in all four projects. So a journey runs twice, at both widths and both JavaScript
 * states between them (desktop with JavaScript, phone without), not four times
 * (docs/decisions/0037-end-to-end-projects.md).
 */
const JOURNEY = /@journey/;

/** The four projects: desktop 1280 px and phone 360 px, each with JavaScript on and off. */
const PROJECTS = [
  { name: "desktop-js", use: { viewport: desktop, javaScriptEnabled: true } },
  { name: "desktop-nojs", use: { viewport: desktop, javaScriptEnabled: false }, grepInvert: JOURNEY },
  { name: "phone-js", use: { viewport: phone, javaScriptEnabled: true }, grepInvert: JOURNEY },
  { name: "phone-nojs", use: { viewport: phone, javaScriptEnabled: false } },
];
/** Specs that move the mail app's clock by hours (see projects below). */
const CLOCK_SPECS = /automations\.spec\.ts$/;

/** What both test servers share (see webServer below). */
const serverOptions = {
  reuseExistingServer: false,
  timeout: 60_000,
  stdout: "ignore",
  stderr: "pipe",
  gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
} as const;

// Only variables a user sets too (docs/OPERATIONS.md "Configuration"); NODE_ENV is the entry's own (ADR 0024).
const serverEnv = {
  HOST: "127.0.0.1",
  DATABASE_URL: "memory://",
  RATE_LIMIT_FACTOR: "1000",
  LOG_LEVEL: "warn",
  CATALOGUE_URL: E2E_URLS.catalogue,
  VOUCHER_URL: E2E_URLS.voucher,
  COMPANY_PROFILE_URL: E2E_URLS.companyProfile,
  // Hermetic: whatever the shell exports, mail goes to the dev mailbox (the second server: to the
  // run's own SMTP server), captcha is off and the API runs in process (empty values count as unset).
  SMTP_URL: "",
  RECAPTCHA_V3_SITE_KEY: "",
  RECAPTCHA_V3_SECRET_KEY: "",
  RECAPTCHA_V2_SITE_KEY: "",
  RECAPTCHA_V2_SECRET_KEY: "",
  STRIPE_SECRET_KEY: "",
  STRIPE_PUBLISHABLE_KEY: "",
  STRIPE_WEBHOOK_SECRET: "",
  TRUST_PROXY: "0",
  // A webhook goes out within a second of its event (integrations.spec.ts waits for it).
  WEBHOOK_INTERVAL_SECONDS: "1",
};

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: true,
  forbidOnly: CI,
  // 2 cores: the server, two browsers and the runner already share them.
  workers: 2,
  // Locally a failure should be seen at once. In CI one retry absorbs a rare stall of a loaded
  // 2-core runner (the carousel and smooth-scroll tests wait on real timers); a test that passes
  // only on retry is still reported as "flaky" in the summary line and keeps its trace.
  retries: CI ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL,
    browserName: "chromium",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
    actionTimeout: 10_000,
    navigationTimeout: 15_000,
    locale: "en-AU",
    timezoneId: "Australia/Sydney",
    trace: "on-first-retry",
    screenshot: "only-on-failure",
  },
  projects: [
    ...PROJECTS.map((project) => ({ ...project, testIgnore: CLOCK_SPECS })),
    // The specs that move the mail app's shared clock by up to a day (a birthday's 9:00 in Perth)
    // would expire other specs' codes and sessions: they run after the four projects, one project
    // at a time (each depends on the one before), alone on that server.
    ...PROJECTS.map(({ name, ...project }, i) => ({
      ...project,
      name: `${name}-clock`,
      testMatch: CLOCK_SPECS,
      dependencies: i === 0 ? PROJECTS.map((p) => p.name) : [`${PROJECTS[i - 1]?.name}-clock`],
    })),
  ],
  webServer: [
    {
      // A real OpenID Connect provider (oidc-provider) for single sign-on (ADR 0046).
      command: `"${process.execPath}" tests/e2e/oidc-provider-server.ts`,
      url: `http://127.0.0.1:${OIDC_PORT}/.well-known/openid-configuration`,
      ...serverOptions,
      env: {
        E2E_OIDC_PORT: String(OIDC_PORT),
        E2E_OIDC_REDIRECT_URI: `${baseURL}/corporate/sso/callback`,
      },
    },
    {
      // The production build, as `npm start` serves it (test:e2e runs `npm run build` first).
      // process.execPath keeps the server on the same Node 24 that runs Playwright.
      command: `"${process.execPath}" build/server.js`,
      url: `${baseURL}/readyz`,
      ...serverOptions,
      env: { ...serverEnv, PORT: String(PORT), APP_URL: baseURL },
    },
    {
      // The same build sending REAL email by SMTP to a server the run starts (tests/e2e/smtp-app.ts),
      // for the account specs, which read the emails. Its own database.
      command: `"${process.execPath}" tests/e2e/smtp-app.ts`,
      url: `${MAIL_APP_URL}/readyz`,
      ...serverOptions,
      env: {
        ...serverEnv,
        PORT: String(MAIL_APP_PORT),
        APP_URL: MAIL_APP_URL,
        E2E_MAIL_API_PORT: String(MAIL_API_PORT),
        // A scheduled reward goes out within a second of the test clock passing its time.
        SCHEDULER_INTERVAL_SECONDS: "1",
      },
    },
  ],
});
