// The whole process as server.ts builds it (createApplication), on a test database, with a tiny
// React Router build standing in for `npm run build`, and the mail worker run by hand.
import type { Captcha } from "../../server/captcha/port.ts";
import { createServerApp } from "../../server/http/app.ts";
import { createFormGuards } from "../../server/http/form-guards.ts";
import type { MailTransport } from "../../server/mail/port.ts";
import { createApplication, type RunningApp } from "../../server/main.ts";
import { webSessionStore } from "../../server/web-sessions.ts";
import { testConfig } from "./config.ts";
import { createPostgresDatabase, type DatabaseKind } from "./db.ts";
import { captureLogs, type LogCapture } from "./logs.ts";
import { type FakeBuildSeen, fakeServerBuild } from "./server-build.ts";

export interface TestApplication extends RunningApp {
  logs: LogCapture;
  seen: FakeBuildSeen;
}

export async function startTestApplication(
  options: {
    kind?: DatabaseKind;
    env?: Record<string, string>;
    mode?: "production" | "development";
    captcha?: Captcha;
    mailTransport?: MailTransport;
    trustProxy?: number;
  } = {},
): Promise<TestApplication> {
  const logs = captureLogs("trace");
  const pg = options.kind === "postgres" ? await createPostgresDatabase() : undefined;
  const config = testConfig({ ...options.env, DATABASE_URL: pg?.url ?? "memory://" });
  const { build, seen } = fakeServerBuild();
  let running: RunningApp;
  try {
    running = await createApplication({
      config,
      logger: logs.logger,
      build,
      mode: options.mode ?? "production",
      startWorker: false,
      captcha: options.captcha,
      mailTransport: options.mailTransport,
      trustProxy: options.trustProxy,
    });
  } catch (error) {
    await pg?.drop();
    throw error;
  }
  let closed = false;
  return {
    ...running,
    logs,
    seen,
    async close() {
      if (closed) return;
      closed = true;
      await running.close();
      await pg?.drop();
    },
  };
}

/**
 * Another edge in front of an already running application's API: for edge behaviour that
 * depends on configuration (HSTS, rate limits) without opening another database.
 */
export function edgeFor(
  running: TestApplication,
  options: {
    env?: Record<string, string>;
    ready?: () => Promise<undefined>;
    trustProxy?: number;
    mode?: "production" | "development";
    /** The built client files (production mode serves them); default build/client. */
    clientDir?: string;
  } = {},
) {
  const config = testConfig(options.env);
  const { build, seen } = fakeServerBuild();
  const logs = captureLogs("trace");
  const app = createServerApp({
    config,
    logger: logs.logger,
    api: running.api,
    web: {
      config: {
        appUrl: config.APP_URL,
        isHttps: config.isHttps,
        catalogueUrl: config.CATALOGUE_URL,
        voucherUrl: config.VOUCHER_URL,
        companyProfileUrl: config.COMPANY_PROFILE_URL,
        onboardingVideoUrl: config.ONBOARDING_VIDEO_URL,
        howItWorksVideoUrl: config.HOW_IT_WORKS_VIDEO_URL,
        captcha: { enabled: false },
        supportEmail: config.SUPPORT_EMAIL,
        payments: { kind: "simulated" },
        demoMode: false,
      },
      secret: "test-secret-test-secret-test-secret",
      formGuards: createFormGuards("test-secret-test-secret-test-secret", false),
      apiFetch: async (request) => running.api.fetch(request),
      logger: logs.logger,
      sessionStore: webSessionStore(running.database.db, "test-secret-test-secret-test-secret"),
    },
    build,
    mode: options.mode ?? "production",
    clientDir: options.clientDir,
    ready: options.ready ?? (() => running.database.ping().then(() => undefined)),
    trustProxy: options.trustProxy,
  });
  return { app, seen, logs, config };
}
