// The login and verify pages' actions (docs/requirements.md §S2 login and verify pages, §S4 login and verify, §S8
// their errors) called directly, as React Router calls them inside the root's session middleware,
// against the real provider API in process over a real PGlite database (the code emails are read
// from its outbox). Proves that the right password of an unverified manager leads to the verify
// page with a fresh code, that a wrong one says what it says for any account, and which of SPEC's
// two resend failures shows: the API's refusal, or its failure (a 5xx, or out of reach).
import { RouterContextProvider } from "react-router";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../../core/public-forms.ts";
import {
  accountsApi,
  emailsTo,
  latestCode,
  PASSWORD,
  signUp,
  signUpVerified,
} from "../../../modules/identity/accounts.testkit.ts";
import { createFormGuards } from "../../../server/http/form-guards.ts";
import { testConfig } from "../../../tests/support/config.ts";
import { openTestDatabase, type TestDatabase, truncateAll } from "../../../tests/support/db.ts";
import { type RequestServices, webContext } from "../../context.ts";
import { ACCOUNT_MESSAGES } from "../../lib/forms.ts";
import { sessionMiddleware } from "../../lib/session.server.ts";
import { action as loginAction } from "./corporate.login.tsx";
import { action as verifyAction } from "./corporate.verify.tsx";

const APP_URL = "http://portal.test";
const SECRET = "a-test-secret-of-enough-length-0123456789";

type ApiFetch = RequestServices["apiFetch"];

function webServices(apiFetch: ApiFetch): RequestServices {
  const sessions = new Map<string, Record<string, unknown>>();
  let nextId = 1;
  return {
    config: {
      appUrl: APP_URL,
      isHttps: false,
      catalogueUrl: "https://catalogue.test/",
      voucherUrl: "https://vouchers.test/",
      companyProfileUrl: "https://profile.test/",
      onboardingVideoUrl: "https://video.test/a.mp4",
      howItWorksVideoUrl: "https://video.test/b.mp4",
      captcha: { enabled: false },
      supportEmail: "support@portal.test",
      payments: { kind: "simulated" },
      demoMode: false,
    },
    secret: SECRET,
    formGuards: createFormGuards(SECRET, false),
    apiFetch,
    logger: { info() {}, warn() {}, error() {} },
    sessionStore: {
      async create(data) {
        const id = String(nextId++);
        sessions.set(id, data);
        return id;
      },
      async read(id) {
        return sessions.get(id) ?? null;
      },
      async update(id, data) {
        sessions.set(id, data);
      },
      async delete(id) {
        sessions.delete(id);
      },
    },
    nonce: undefined,
    clientIp: "203.0.113.9",
  };
}

/** A page's action, as React Router calls it. */
type Action = (args: unknown) => Promise<unknown>;
const login: Action = (args) => loginAction(args as Parameters<typeof loginAction>[0]);
const verify: Action = (args) => verifyAction(args as Parameters<typeof verifyAction>[0]);

/**
 * Posts `fields` to `path` as a browser without a session does from one of our pages (its Origin,
 * the honeypot left empty), through the session middleware; answers what the action answered,
 * or the Response it threw (a redirect).
 */
async function post(apiFetch: ApiFetch, action: Action, path: string, fields: Record<string, string>) {
  const body = new FormData();
  body.set("name__confirm", "");
  for (const [key, value] of Object.entries(fields)) body.set(key, value);
  const request = new Request(`${APP_URL}${path}`, { method: "POST", body, headers: { origin: APP_URL } });
  const context = new RouterContextProvider();
  context.set(webContext, webServices(apiFetch));
  const args = { context, request, params: {} } as unknown as Parameters<typeof sessionMiddleware>[0];
  let answer: unknown;
  await sessionMiddleware(args, async () => {
    try {
      answer = await action(args);
    } catch (thrown) {
      answer = thrown;
    }
    return new Response(null);
  });
  return answer;
}

/** An action's `data(...)` answer: its status and the form's messages. */
function reply(answer: unknown) {
  const value = answer as { init?: { status?: number }; data?: { result?: { error?: Record<string, string[]> } } };
  expect(value?.data, `an answer with data, not ${String(answer)}`).toBeDefined();
  return { status: value.init?.status, formErrors: value.data?.result?.error?.[""] ?? [] };
}

function redirectTo(answer: unknown): string {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(302);
  return response.headers.get("location") ?? "";
}

const logIn = (apiFetch: ApiFetch, email: string, password = PASSWORD) =>
  post(apiFetch, login, "/corporate/login", { userName: email, password, captchaToken: "", isCaptchaV3: "true" });

describe("login and verify pages against the API", () => {
  let database: TestDatabase;
  let api: ReturnType<typeof accountsApi>["api"];
  let apiFetch: ApiFetch;
  beforeAll(async () => {
    database = await openTestDatabase("pglite");
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await truncateAll(database.db);
    ({ api } = accountsApi(database.db, { config: testConfig({ APP_URL }) }));
    apiFetch = async (request) => api.fetch(request);
  });

  it("the right password of an unverified manager: a new code emailed, the verify page, then the dashboard", async () => {
    const account = await signUp(api, database.db);
    const location = redirectTo(await logIn(apiFetch, account.email));
    const target = new URL(location, APP_URL);
    expect(target.pathname).toBe("/corporate/verify");
    expect([...target.searchParams.keys()]).toEqual(["userId", "requestToken"]);
    expect(target.searchParams.get("userId")).toBe(account.publicId);
    const requestToken = target.searchParams.get("requestToken") ?? "";
    expect(requestToken).not.toBe(account.requestToken);
    expect(await emailsTo(database.db, account.email)).toHaveLength(2);

    const code = await latestCode(database.db, account.email);
    const verified = await post(apiFetch, verify, `${target.pathname}${target.search}`, {
      intent: "verify",
      verificationCode: code,
    });
    expect(redirectTo(verified)).toBe("/portal/dashboard");
  });

  it("a wrong password of an unverified manager says what a wrong password says for any account", async () => {
    const unverified = await signUp(api, database.db);
    const verified = await signUpVerified(api, database.db);
    const forUnverified = reply(await logIn(apiFetch, unverified.email, "Wrong#Pass1"));
    expect(forUnverified).toEqual({ status: 400, formErrors: [ACCOUNT_MESSAGES.incorrectLogin] });
    expect(reply(await logIn(apiFetch, verified.email, "Wrong#Pass1"))).toEqual(forUnverified);
    expect(reply(await logIn(apiFetch, "nobody@example.com", "Wrong#Pass1"))).toEqual(forUnverified);
    expect(await emailsTo(database.db, unverified.email)).toHaveLength(1);
  });

  it("past the user's code budget the login says so, and stays on the login page", async () => {
    const account = await signUp(api, database.db);
    for (let i = 0; i < 5; i++) redirectTo(await logIn(apiFetch, account.email));
    expect(reply(await logIn(apiFetch, account.email))).toEqual({
      status: 429,
      formErrors: [DETAILS.tooManyAttempts],
    });
    expect(await emailsTo(database.db, account.email)).toHaveLength(6);
  });

  describe("resend", () => {
    const resend = async (fetcher: ApiFetch) => {
      const account = await signUp(api, database.db);
      const page = `/corporate/verify?${new URLSearchParams({ userId: account.publicId, requestToken: account.requestToken })}`;
      return post(fetcher, verify, page, { intent: "resend" });
    };

    it("works: a new token in the address and the green message's flag", async () => {
      const location = new URL(redirectTo(await resend(apiFetch)), APP_URL);
      expect(location.searchParams.get("resent")).toBe("1");
    });

    it("refused by the API (too many codes): 'Failed to resend code. Please try again later.'", async () => {
      const account = await signUp(api, database.db);
      const page = `/corporate/verify?${new URLSearchParams({ userId: account.publicId, requestToken: account.requestToken })}`;
      for (let i = 0; i < 5; i++) redirectTo(await post(apiFetch, verify, page, { intent: "resend" }));
      expect(reply(await post(apiFetch, verify, page, { intent: "resend" }))).toEqual({
        status: 429,
        formErrors: ["Failed to resend code. Please try again later."],
      });
    });

    it.each([
      ["answers 500", async () => Response.json({ detail: DETAILS.internal }, { status: 500 }), 500],
      ["answers 503", async () => Response.json({ detail: DETAILS.unavailable }, { status: 503 }), 503],
      [
        "cannot be reached",
        async () => {
          throw new TypeError("fetch failed");
        },
        503,
      ],
    ])("when the API %s: 'An error occurred while resending the verification code.'", async (_name, fail, status) => {
      const failing: ApiFetch = async (request) =>
        new URL(request.url).pathname.endsWith("/ResendVerifyEmailRequest") ? fail() : api.fetch(request);
      expect(reply(await resend(failing))).toEqual({
        status,
        formErrors: ["An error occurred while resending the verification code."],
      });
    });
  });
});
