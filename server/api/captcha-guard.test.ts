// The bot check end to end: the application configured with reCAPTCHA keys, Google's verify
// endpoint played by msw, calls made through the edge as a browser's form would reach them.
import { count } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { expectProblem, postJson } from "../../tests/support/api.ts";
import { startTestApplication, type TestApplication } from "../../tests/support/app.ts";
import { describeEachDatabase } from "../../tests/support/db.ts";
import { recaptchaEndpoint, setupMswServer, TEST_VERIFY_URL, type VerifyCall } from "../../tests/support/msw.ts";
import { emailOutbox, helpRequests, waitlistEntries } from "../db/schema.ts";

const V3_SECRET = "v3-secret-for-the-test-aaaaaaaaaaaa";
const V2_SECRET = "v2-secret-for-the-test-bbbbbbbbbbbb";
const LOW_SCORE_TOKEN = "v3-token-of-a-likely-bot-cccccccccc";
const V2_TOKEN = "v2-token-of-a-solved-challenge-dddd";
const CLIENT_IP = "203.0.113.42";

const server = setupMswServer();

/** Google, as the test sees it: the v3 token scores low; the solved v2 challenge passes. */
function google(call: VerifyCall) {
  if (call.secret === V3_SECRET && call.response === LOW_SCORE_TOKEN) {
    return { success: true, score: 0.1, action: "waitlist" };
  }
  if (call.secret === V2_SECRET && call.response === V2_TOKEN) return { success: true };
  return { success: false, "error-codes": ["invalid-input-response"] };
}

describeEachDatabase("captcha on the public calls", ({ kind }) => {
  let running: TestApplication;
  let endpoint: ReturnType<typeof recaptchaEndpoint>;

  beforeAll(async () => {
    running = await startTestApplication({
      kind,
      trustProxy: 1,
      env: {
        RECAPTCHA_V3_SITE_KEY: "v3-site",
        RECAPTCHA_V3_SECRET_KEY: V3_SECRET,
        RECAPTCHA_V2_SITE_KEY: "v2-site",
        RECAPTCHA_V2_SECRET_KEY: V2_SECRET,
        RECAPTCHA_VERIFY_URL: TEST_VERIFY_URL,
      },
    });
  });
  afterAll(() => running.close());
  beforeEach(() => {
    endpoint = recaptchaEndpoint(google);
    server.use(endpoint.handler);
  });
  afterEach(() => {
    expect(running.logs.leaked(V3_SECRET, V2_SECRET, LOW_SCORE_TOKEN, V2_TOKEN)).toEqual([]);
  });

  const rows = async (table: typeof waitlistEntries | typeof helpRequests | typeof emailOutbox) =>
    (await running.database.db.select({ n: count() }).from(table))[0]?.n;

  const waitlist = {
    firstName: "Jane",
    lastName: "Citizen",
    email: "jane@captcha.example",
    companyName: "Acme",
    isOptedIn: true,
  };

  it("a low v3 score is refused with the captcha detail; the solved v2 challenge then gets through", async () => {
    const headers = { "x-forwarded-for": CLIENT_IP };
    const refused = await postJson(
      running.app,
      "/api/WaitList",
      { ...waitlist, captchaToken: LOW_SCORE_TOKEN, isCaptchaV3: true },
      headers,
    );
    const problem = await expectProblem(refused, 400);
    expect(problem.detail).toBe("Captcha verification failed. Please complete additional verification steps.");
    expect(await rows(waitlistEntries)).toBe(0);

    const accepted = await postJson(
      running.app,
      "/api/WaitList",
      { ...waitlist, captchaToken: V2_TOKEN, isCaptchaV3: false },
      headers,
    );
    expect(accepted.status).toBe(200);
    expect(await rows(waitlistEntries)).toBe(1);

    expect(endpoint.calls.map((c) => [c.secret, c.response])).toEqual([
      [V3_SECRET, LOW_SCORE_TOKEN],
      [V2_SECRET, V2_TOKEN],
    ]);
    // Google is told who the visitor is (the address the edge saw).
    expect(endpoint.calls.map((c) => c.remoteip)).toEqual([CLIENT_IP, CLIENT_IP]);
  });

  it("a missing token is refused without asking Google", async () => {
    const res = await postJson(running.app, "/api/WaitList", { ...waitlist, email: "no-token@captcha.example" });
    expect((await expectProblem(res, 400)).detail).toBe(DETAILS.captchaFailed);
    expect(endpoint.calls).toHaveLength(0);
  });

  it("the contact form: refused captcha stores nothing and sends nothing; a good one stores and queues", async () => {
    const help = { firstName: "Jo", lastName: "Bloggs", email: "jo@captcha.example", message: "Hi there" };
    const before = { help: await rows(helpRequests), email: await rows(emailOutbox) };
    const refused = await postJson(running.app, "/api/Help/create-help-anonymous", {
      ...help,
      captchaToken: "forged-token",
      isCaptchaV3: false,
    });
    expect((await expectProblem(refused, 400)).detail).toBe(DETAILS.captchaFailed);
    expect({ help: await rows(helpRequests), email: await rows(emailOutbox) }).toEqual(before);

    const accepted = await postJson(running.app, "/api/Help/create-help-anonymous", {
      ...help,
      captchaToken: V2_TOKEN,
      isCaptchaV3: false,
    });
    expect(accepted.status).toBe(200);
    expect(await rows(helpRequests)).toBe((before.help ?? 0) + 1);
    expect(await rows(emailOutbox)).toBe((before.email ?? 0) + 1);
  });

  it("when Google cannot be reached the call is refused (fail closed), not let through", async () => {
    server.use(recaptchaEndpoint("network-error").handler);
    const res = await postJson(running.app, "/api/WaitList", {
      ...waitlist,
      email: "unreachable@captcha.example",
      captchaToken: V2_TOKEN,
      isCaptchaV3: false,
    });
    expect((await expectProblem(res, 400)).detail).toBe(DETAILS.captchaFailed);
  });
});
