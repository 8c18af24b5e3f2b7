// The Review page with the Stripe adapter (e2e cannot reach Stripe): the route's loader and action
// called directly, with the web services of server.ts faked around them (an in-memory session
// store; the provider API answered by a stub that records the calls). Proves that the page offers
// the Payment Element's settings, that the no-JavaScript button saves the reward name and goes to
// the Stripe Checkout page the API made, that the Payment Element's post gets a client secret for
// the total the page showed, and that the API's refusal (the draft changed) is shown word for word.
// Paying from the company balance (ADR 0043) goes through the same action with either
// processor: the balance the loader reads, the one call, the redirect and the 402's banner.
import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { createFormGuards } from "../../../server/http/form-guards.ts";
import { type RequestServices, webContext } from "../../context.ts";
import { sessionMiddleware, startNewSession } from "../../lib/session.server.ts";
import { portalUserMiddleware } from "../portal/portal.server.ts";
import { CONFIRMATION_PATH } from "./payment.ts";
import { action, loader } from "./portal.reward-my-team-review.tsx";

/**
 * Runs `fn` (a loader or action of a portal page) inside the middleware of the root and the
 * portal, as React Router does; answers what `fn` answered (or throws what it threw).
 */
async function inPortal<T>(context: RouterContextProvider, request: Request, fn: () => Promise<T>): Promise<T> {
  const args = { context, request, params: {} } as unknown as Parameters<typeof sessionMiddleware>[0];
  let result: T | undefined;
  await sessionMiddleware(args, async () => {
    await portalUserMiddleware(args, async () => {
      result = await fn();
      return new Response(null);
    });
    return new Response(null);
  });
  return result as T;
}

const APP_URL = "http://portal.test";
const CHECKOUT_URL = "https://checkout.stripe.com/c/pay/cs_test_123";

const SUMMARY = {
  rewards: [
    { userId: 1, fullName: "Rita Recipient", reward: 60 },
    { userId: 2, fullName: "Ravi Recipient", reward: 40 },
  ],
  totalRewards: 100,
  serviceFee: 10,
  gst: 1,
  total: 111,
  rewardName: "",
  recipientCount: 2,
  version: 1,
};

type Call = { method: string; path: string; body: unknown; auth: string | null };

function harness(answers: Record<string, { status?: number; body: unknown }> = {}) {
  const calls: Call[] = [];
  const rows = new Map<string, Record<string, unknown>>();
  let nextId = 1;
  const services: RequestServices = {
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
      payments: { kind: "stripe", publishableKey: "pk_test_123" },
      demoMode: false,
    },
    secret: "a-test-secret-of-enough-length-0123456789",
    formGuards: createFormGuards("a-test-secret-of-enough-length-0123456789", false),
    async apiFetch(request) {
      const path = new URL(request.url).pathname.replace(/^\/api\//, "");
      const text = await request.text();
      calls.push({
        method: request.method,
        path,
        body: text ? JSON.parse(text) : undefined,
        auth: request.headers.get("authorization"),
      });
      const defaults: Record<string, unknown> = {
        "Identity/app-settings": { hasProvidedCompanyDetails: true, hasWatchedOnboardingVideo: true },
        "RewardMyTeam/get-reward-summary": SUMMARY,
        "StripePayment/create-checkout-session": { url: CHECKOUT_URL, orderId: 7, amount: 11100 },
        Balance: {
          balance: 20000,
          entries: [],
          canTopUp: false,
          processor: "stripe",
          minTopUp: 1000,
          maxTopUp: 10000000,
        },
        "Balance/pay-order": { orderId: 8, amount: 11100, balance: 8900, sendAt: null },
        "StripePayment/create-payment-intent": {
          clientSecret: "pi_123_secret_456",
          paymentIntentId: "pi_123",
          orderId: 7,
          amount: 11100,
          processor: "stripe",
        },
      };
      const answer = answers[path] ?? {
        body: defaults[path] ?? { detail: "not stubbed" },
        status: defaults[path] ? 200 : 404,
      };
      const status = answer.status ?? 200;
      return new Response(JSON.stringify(answer.body), {
        status,
        headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json" },
      });
    },
    logger: { info() {}, warn() {}, error() {} },
    sessionStore: {
      async create(data) {
        const id = String(nextId++);
        rows.set(id, data);
        return id;
      },
      async read(id) {
        return rows.get(id) ?? null;
      },
      async update(id, data) {
        rows.set(id, data);
      },
      async delete(id) {
        rows.delete(id);
      },
    },
    // Not used by these pages.
    nonce: "nonce",
    clientIp: "127.0.0.1",
  };
  const context = () => {
    const provider = new RouterContextProvider();
    provider.set(webContext, services);
    return provider;
  };
  return { calls, context };
}

/** A signed-in, onboarded browser: the session and CSRF cookies, and the form token. */
async function browser(h: ReturnType<typeof harness>) {
  const blank = new Request(`${APP_URL}/`);
  const signIn = h.context();
  let sessionCookie: string | null = null;
  const args = { context: signIn, request: blank, params: {} } as unknown as Parameters<typeof sessionMiddleware>[0];
  const signedIn = await sessionMiddleware(args, async () => {
    await startNewSession(signIn, {
      accessToken: "token-abc",
      user: {
        id: 1,
        companyId: 1,
        firstName: "Paula",
        lastName: "Payer",
        fullName: "Paula Payer",
        email: "paula@example.com",
        companyName: "Payers Pty Ltd",
      },
      appSettings: { hasProvidedCompanyDetails: true, hasWatchedOnboardingVideo: true },
    });
    return new Response(null);
  });
  if (signedIn instanceof Response) sessionCookie = signedIn.headers.get("set-cookie");
  const [token, csrfCookie] = await h.context().get(webContext).formGuards.csrf.commitToken(blank);
  const cookie = [sessionCookie, csrfCookie]
    .filter(Boolean)
    .map((c) => String(c).split(";")[0])
    .join("; ");
  return { cookie, token };
}

async function post(h: ReturnType<typeof harness>, fields: Record<string, string>) {
  const { cookie, token } = await browser(h);
  const body = new FormData();
  body.set("csrf", token);
  body.set("name__confirm", "");
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  const request = new Request(`${APP_URL}/portal/reward-my-team-review`, { method: "POST", body, headers: { cookie } });
  try {
    const context = h.context();
    return await inPortal(context, request, async () =>
      action({ context, request, params: {} } as unknown as Parameters<typeof action>[0]),
    );
  } catch (thrown) {
    return thrown;
  }
}

describe("Review page with Stripe", () => {
  it("the loader gives the Payment Element its key, the return address and the figures", async () => {
    const h = harness();
    const { cookie } = await browser(h);
    const request = new Request(`${APP_URL}/portal/reward-my-team-review`, { headers: { cookie } });
    const context = h.context();
    const data = await inPortal(context, request, async () =>
      loader({ context, request, params: {} } as unknown as Parameters<typeof loader>[0]),
    );
    expect(data.payments).toEqual({
      kind: "stripe",
      publishableKey: "pk_test_123",
      returnUrl: `${APP_URL}${CONFIRMATION_PATH}`,
    });
    expect(data.review).toMatchObject({ totalCents: 11100, rewardsCents: 10000, recipientCount: 2 });
    // The company balance, for the "Pay from the company balance" option; a Manager cannot top up.
    expect(data.review).toMatchObject({ balance: { balanceCents: 20000, canTopUp: false } });
  });

  it("Pay from the company balance: one call for the shown total with its wording, then the order's confirmation", async () => {
    const h = harness();
    const answer = await post(h, {
      intent: "pay-order",
      amount: "11100",
      rewardName: " Stars ",
      message: "Thanks",
      senderName: "Pat",
      // The card's fields of the same form are not read.
      cardNumber: "4242",
    });
    expect((answer as Response).status).toBe(302);
    expect((answer as Response).headers.get("location")).toBe(`${CONFIRMATION_PATH}?order=8`);
    const sent = h.calls.filter((c) => c.method !== "GET").map(({ path, body }) => ({ path, body }));
    expect(sent).toEqual([
      {
        path: "Balance/pay-order",
        body: {
          amount: 11100,
          rewardName: "Stars",
          wording: { rewardName: "Stars", message: "Thanks", senderName: "Pat", sendAt: null },
        },
      },
    ]);
  });

  it("a short balance: the API's detail in the form's banner, no redirect", async () => {
    const detail =
      "The company balance ($50.00) does not cover this order ($111.00). An Owner can top it up in Settings → Balance.";
    const h = harness({ "Balance/pay-order": { status: 402, body: { detail } } });
    const answer = (await post(h, { intent: "pay-order", amount: "11100", rewardName: "Stars" })) as {
      data: { result: { error: Record<string, string[]> } };
      init: { status: number } | null;
    };
    expect(answer.init?.status).toBe(400);
    expect(answer.data.result.error[""]).toEqual([detail]);
  });

  it("without JavaScript: one call makes the Checkout page for the shown total with the wording it freezes, then redirects there", async () => {
    const h = harness();
    const answer = await post(h, {
      intent: "checkout",
      amount: "11100",
      rewardName: " Stars ",
      message: "Well done!\r\nAll of you.",
      senderName: " Pat ",
    });
    expect(answer).toBeInstanceOf(Response);
    const response = answer as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(CHECKOUT_URL);
    const sent = h.calls.filter((c) => c.method !== "GET").map(({ path, body }) => ({ path, body }));
    expect(sent).toEqual([
      {
        path: "StripePayment/create-checkout-session",
        body: {
          amount: 11100,
          rewardName: "Stars",
          wording: { rewardName: "Stars", message: "Well done!\nAll of you.", senderName: "Pat", sendAt: null },
        },
      },
    ]);
    expect(h.calls.every((c) => c.auth === "Bearer token-abc")).toBe(true);
  });

  it("with JavaScript: the Payment Element's post answers the client secret", async () => {
    const h = harness();
    const answer = await post(h, { intent: "stripe-intent", amount: "11100", rewardName: "Stars" });
    expect(answer).toEqual({ clientSecret: "pi_123_secret_456" });
    expect(h.calls.find((c) => c.path === "StripePayment/create-payment-intent")?.body).toEqual({
      amount: 11100,
      rewardName: "Stars",
      wording: { rewardName: "Stars", message: "", senderName: "", sendAt: null },
    });
  });

  it("a changed draft: the API's detail in the form's banner, no redirect", async () => {
    const detail = "The reward list has changed; please review the new total.";
    const h = harness({ "StripePayment/create-checkout-session": { status: 409, body: { detail } } });
    const answer = (await post(h, { intent: "checkout", amount: "9999", rewardName: "Stars" })) as {
      data: { result: { error: Record<string, string[]> } };
      init: { status: number } | null;
    };
    // 409 is kept: the page reloads its figures (shouldRevalidate).
    expect(answer.init?.status).toBe(409);
    expect(answer.data.result.error[""]).toEqual([detail]);
  });

  it("a scheduled send: the Sydney time posted is saved as its instant before the Checkout page", async () => {
    const h = harness();
    const answer = await post(h, {
      intent: "checkout",
      amount: "11100",
      rewardName: "Stars",
      sendWhen: "later",
      sendAt: "2026-12-01T09:00",
    });
    expect((answer as Response).status).toBe(302);
    const body = h.calls.find((c) => c.path === "StripePayment/create-checkout-session")?.body as {
      wording: { sendAt: string };
    };
    expect(body.wording.sendAt).toBe("2026-11-30T22:00:00.000Z");
  });

  it("a send time the API refuses: its detail next to the field, no redirect", async () => {
    const detail = "Choose a time at least 10 minutes from now.";
    const h = harness({
      "StripePayment/create-checkout-session": { status: 400, body: { detail, errors: { sendAt: [detail] } } },
    });
    const answer = (await post(h, {
      intent: "checkout",
      amount: "11100",
      rewardName: "Stars",
      sendWhen: "later",
      sendAt: "2026-12-01T09:00",
    })) as { data: { result: { error: Record<string, string[]> } } };
    expect(answer.data.result.error.sendAt).toEqual([detail]);
    expect(answer).not.toBeInstanceOf(Response);
  });

  it("the reward name is required before anything is sent", async () => {
    const h = harness();
    await post(h, { intent: "checkout", amount: "11100", rewardName: "  " });
    expect(h.calls.filter((c) => c.method !== "GET")).toEqual([]);
  });
});
