// The reCAPTCHA adapter against msw standing in for Google's siteverify endpoint.
import { delay, HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testConfig } from "../../tests/support/config.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { recaptchaEndpoint, setupMswServer, TEST_VERIFY_URL } from "../../tests/support/msw.ts";
import { recaptcha, V3_MIN_SCORE } from "./recaptcha.ts";

const V3_SECRET = "v3-secret-6LcXXXXXXXXXXXXXXXXXXXX";
const V2_SECRET = "v2-secret-6LdYYYYYYYYYYYYYYYYYYYY";
const TOKEN = "03AFcWeA5-browser-token-zzzzzzzzzzzzzzzzzzzz";

const server = setupMswServer();
const logs = captureLogs("trace");

function adapter(overrides: { verifyUrl?: string; timeoutMs?: number } = {}) {
  return recaptcha({
    verifyUrl: overrides.verifyUrl ?? TEST_VERIFY_URL,
    v3Secret: V3_SECRET,
    v2Secret: V2_SECRET,
    logger: logs.logger,
    timeoutMs: overrides.timeoutMs,
  });
}

describe("recaptcha()", () => {
  beforeEach(() => logs.clear());
  afterEach(() => {
    // Whatever happened in the test, no secret and no token reached the log.
    expect(logs.leaked(V3_SECRET, V2_SECRET, TOKEN)).toEqual([]);
  });

  it("is enabled", () => {
    expect(adapter().enabled).toBe(true);
  });

  it("passes a v3 token with a good score for the expected action, sending the v3 secret", async () => {
    const endpoint = recaptchaEndpoint({ success: true, score: 0.9, action: "waitlist" });
    server.use(endpoint.handler);
    expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist", remoteIp: "203.0.113.7" })).toBe(
      true,
    );
    expect(endpoint.calls).toEqual([
      {
        secret: V3_SECRET,
        response: TOKEN,
        remoteip: "203.0.113.7",
        contentType: expect.stringMatching(/^application\/x-www-form-urlencoded/),
      },
    ]);
  });

  it(`passes a score of exactly ${V3_MIN_SCORE} and fails anything lower`, async () => {
    server.use(
      recaptchaEndpoint((call) => ({ success: true, score: call.response === "edge" ? 0.5 : 0.49, action: "login" }))
        .handler,
    );
    expect(await adapter().verify({ token: "edge", isV3: true, action: "login" })).toBe(true);
    expect(await adapter().verify({ token: "below", isV3: true, action: "login" })).toBe(false);
  });

  it("fails a v3 token with a low score", async () => {
    server.use(recaptchaEndpoint({ success: true, score: 0.1, action: "waitlist" }).handler);
    expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist" })).toBe(false);
  });

  it("fails a v3 token minted for another action", async () => {
    server.use(recaptchaEndpoint({ success: true, score: 0.9, action: "login" }).handler);
    expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist" })).toBe(false);
  });

  it("fails a token sent as v3 that carries no score (a v2 token)", async () => {
    server.use(recaptchaEndpoint({ success: true }).handler);
    expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist" })).toBe(false);
  });

  it("fails when Google says the token is not valid", async () => {
    server.use(recaptchaEndpoint({ success: false, "error-codes": ["timeout-or-duplicate"] }).handler);
    expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist" })).toBe(false);
    expect(await adapter().verify({ token: TOKEN, isV3: false, action: "waitlist" })).toBe(false);
  });

  it("passes a solved v2 challenge, checked with the v2 secret", async () => {
    const endpoint = recaptchaEndpoint({ success: true });
    server.use(endpoint.handler);
    expect(await adapter().verify({ token: TOKEN, isV3: false, action: "waitlist" })).toBe(true);
    expect(endpoint.calls).toHaveLength(1);
    expect(endpoint.calls[0]?.secret).toBe(V2_SECRET);
    expect(endpoint.calls[0]?.response).toBe(TOKEN);
    expect(endpoint.calls[0]?.remoteip).toBeNull();
  });

  it("fails an empty token without calling Google", async () => {
    const endpoint = recaptchaEndpoint({ success: true, score: 1, action: "waitlist" });
    server.use(endpoint.handler);
    expect(await adapter().verify({ token: "", isV3: true, action: "waitlist" })).toBe(false);
    expect(await adapter().verify({ token: "", isV3: false, action: "waitlist" })).toBe(false);
    expect(endpoint.calls).toHaveLength(0);
  });

  describe("fails closed when Google cannot answer", () => {
    it.each([
      ["a 500", { status: 500 }],
      ["a 503", { status: 503 }],
      ["a network error", "network-error"],
    ] as const)("%s", async (_label, answer) => {
      const endpoint = recaptchaEndpoint(answer);
      server.use(endpoint.handler);
      expect(await adapter().verify({ token: TOKEN, isV3: true, action: "waitlist" })).toBe(false);
      expect(await adapter().verify({ token: TOKEN, isV3: false, action: "waitlist" })).toBe(false);
      expect(endpoint.calls).toHaveLength(2);
      const warnings = logs.records().filter((r) => r.msg === "captcha verify unavailable");
      expect(warnings).toHaveLength(2);
    });

    it("an answer that is not JSON", async () => {
      server.use(http.post(TEST_VERIFY_URL, () => new HttpResponse("<html>oops</html>", { status: 200 })));
      expect(await adapter().verify({ token: TOKEN, isV3: false, action: "waitlist" })).toBe(false);
    });

    it("an endpoint slower than the timeout", async () => {
      server.use(
        http.post(TEST_VERIFY_URL, async () => {
          await delay(2_000);
          return HttpResponse.json({ success: true });
        }),
      );
      const started = performance.now();
      expect(await adapter({ timeoutMs: 100 }).verify({ token: TOKEN, isV3: false, action: "waitlist" })).toBe(false);
      expect(performance.now() - started).toBeLessThan(1_500);
    });
  });

  it("talks to Google's own siteverify URL by default (RECAPTCHA_VERIFY_URL unset)", async () => {
    const config = testConfig();
    const endpoint = recaptchaEndpoint({ success: true }, "https://www.google.com/recaptcha/api/siteverify");
    server.use(endpoint.handler);
    expect(
      await adapter({ verifyUrl: config.RECAPTCHA_VERIFY_URL }).verify({ token: TOKEN, isV3: false, action: "help" }),
    ).toBe(true);
    expect(endpoint.calls).toHaveLength(1);
  });
});
