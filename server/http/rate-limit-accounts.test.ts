// The per-IP edge rules of the account posts (issue 3): each matches the API call and the web
// page whose form posts to it (also React Router's `.data` URL), in any letter case.
import { describe, expect, it } from "vitest";
import { createRateLimiter, RATE_RULES } from "./rate-limit.ts";

const ruleFor = (method: string, path: string) =>
  RATE_RULES.filter((r) => r.method === method && r.path.test(path)).map((r) => r.name);

describe("account rate rules", () => {
  it.each([
    [
      "register",
      ["/api/Register", "/api/register/", "/corporate/sign-up", "/Corporate/Sign-Up", "/corporate/sign-up.data"],
    ],
    [
      "verify",
      [
        "/api/Identity/VerifyEmail",
        "/api/Identity/VerifyEmailRequest",
        "/api/Identity/ResendVerifyEmailRequest",
        "/corporate/verify",
        "/corporate/verify.data",
      ],
    ],
    [
      "login",
      ["/api/Identity/login", "/api/Identity/Login", "/corporate/login", "/Corporate/Login", "/corporate/login.data"],
    ],
    [
      "reset-request",
      [
        "/api/Identity/ResetPasswordRequest",
        "/corporate/forgot-password-request",
        "/corporate/forgot-password-request.data",
      ],
    ],
    ["reset", ["/api/Identity/ResetPassword", "/corporate/forgot-password", "/corporate/forgot-password.data"]],
    ["contact-signed-in", ["/api/Help/create-help", "/portal/help", "/Portal/Help", "/portal/help.data"]],
    [
      "card-payment",
      [
        "/api/StripePayment/confirm-simulated-payment",
        "/api/StripePayment/create-payment-intent",
        "/api/StripePayment/create-checkout-session",
        "/portal/reward-my-team-review",
        "/portal/reward-my-team-review.data",
      ],
    ],
    ["waitlist", ["/api/WaitList", "/not-ready-yet", "/not-ready-yet.data"]],
    ["contact", ["/api/Help/create-help-anonymous", "/help", "/Help", "/help.data"]],
  ])("%s covers its API call and its page", (name, paths) => {
    for (const path of paths) expect(ruleFor("POST", path), path).toEqual([name]);
  });

  it("leaves other paths and GETs alone", () => {
    for (const path of [
      "/api/Identity/logout",
      "/api/Users/MyDetails",
      "/corporate/sign-up/extra",
      "/portal/dashboard",
      "/api/Companies",
    ]) {
      expect(ruleFor("POST", path), path).toEqual([]);
    }
    expect(ruleFor("GET", "/corporate/login")).toEqual([]);
  });

  it("login allows 30 posts per IP in 5 minutes, scaled by RATE_LIMIT_FACTOR; API and page share the budget", async () => {
    const limiter = createRateLimiter(RATE_RULES, 0.1);
    for (let i = 0; i < 3; i++) {
      const path = i % 2 ? "/corporate/login" : "/api/Identity/login";
      expect((await limiter.check("POST", path, "203.0.113.7")).allowed).toBe(true);
    }
    const verdict = await limiter.check("POST", "/corporate/login.data", "203.0.113.7");
    expect(verdict).toMatchObject({ allowed: false, rule: "login" });
    expect(verdict.retryAfterSeconds).toBeGreaterThan(0);
    expect((await limiter.check("POST", "/corporate/login", "203.0.113.8")).allowed).toBe(true);
    // Another rule has its own budget.
    expect((await limiter.check("POST", "/corporate/sign-up", "203.0.113.7")).allowed).toBe(true);
  });
});
