// msw standing in for outside HTTP services (Google's reCAPTCHA verify endpoint). Any request
// without a handler is an error, so a test can never reach the real network by accident.
import { HttpResponse, http } from "msw";
import { type SetupServer, setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";

export const TEST_VERIFY_URL = "https://recaptcha.test/recaptcha/api/siteverify";

/** Starts an msw server for the current test file; handlers are reset after each test. */
export function setupMswServer(): SetupServer {
  const server = setupServer();
  // msw 3 renamed onUnhandledRequest to onUnhandledFrame (the old name is silently ignored).
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export interface VerifyCall {
  secret: string | null;
  response: string | null;
  remoteip: string | null;
  contentType: string | null;
}

export type VerifyAnswer =
  | { success: boolean; score?: number; action?: string; "error-codes"?: string[] }
  | { status: number }
  | "network-error";

/**
 * A fake siteverify endpoint: records every call (form fields) and answers with `answer`
 * (a function of the call, to answer per token).
 */
export function recaptchaEndpoint(answer: VerifyAnswer | ((call: VerifyCall) => VerifyAnswer), url = TEST_VERIFY_URL) {
  const calls: VerifyCall[] = [];
  const handler = http.post(url, async ({ request }) => {
    const form = new URLSearchParams(await request.text());
    const call: VerifyCall = {
      secret: form.get("secret"),
      response: form.get("response"),
      remoteip: form.get("remoteip"),
      contentType: request.headers.get("content-type"),
    };
    calls.push(call);
    const a = typeof answer === "function" ? answer(call) : answer;
    if (a === "network-error") return HttpResponse.error();
    if ("status" in a) return new HttpResponse("upstream trouble", { status: a.status });
    return HttpResponse.json(a);
  });
  return { handler, calls };
}
