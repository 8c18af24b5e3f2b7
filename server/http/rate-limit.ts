// Per-IP rate limits on public posts, applied at the edge so the API and the web forms that
// call it share one budget. RATE_LIMIT_FACTOR multiplies every limit (tests and load runs).
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export interface RateRule {
  name: string;
  method: string;
  /** Matched case-insensitively against the path. */
  path: RegExp;
  points: number;
  durationSeconds: number;
}

/**
 * Each rule matches the API call and the web page whose form posts to it. A web path may end in
 * `.data`: React Router's single-fetch URL for a submission made with JavaScript.
 */
export const RATE_RULES: RateRule[] = [
  {
    name: "waitlist",
    method: "POST",
    path: /^\/(api\/waitlist|not-ready-yet(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 60,
  },
  {
    name: "contact",
    method: "POST",
    path: /^\/(api\/help\/create-help-anonymous|help(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 60,
  },
  // Accounts (issue 3). The per-account limits (by email or userId) live in server/api/account-limits.ts.
  {
    name: "register",
    method: "POST",
    path: /^\/(api\/register|corporate\/sign-up(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 10 * 60,
  },
  {
    // Verify, VerifyEmailRequest and Resend; the verify page posts both the code and "resend".
    name: "verify",
    method: "POST",
    path: /^\/(api\/identity\/(verifyemail|verifyemailrequest|resendverifyemailrequest)|corporate\/verify(\.data)?)\/?$/i,
    points: 30,
    durationSeconds: 10 * 60,
  },
  {
    name: "login",
    method: "POST",
    path: /^\/(api\/identity\/login|corporate\/login(\.data)?)\/?$/i,
    points: 30,
    durationSeconds: 5 * 60,
  },
  {
    name: "reset-request",
    method: "POST",
    path: /^\/(api\/identity\/resetpasswordrequest|corporate\/forgot-password-request(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 10 * 60,
  },
  {
    name: "reset",
    method: "POST",
    path: /^\/(api\/identity\/resetpassword|corporate\/forgot-password(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 10 * 60,
  },
  {
    // Card payments (issue 5): slows down anyone testing stolen card numbers through the form.
    name: "card-payment",
    method: "POST",
    path: /^\/(api\/stripepayment\/(confirm-simulated-payment|create-payment-intent|create-checkout-session)|portal\/reward-my-team-review(\.data)?)\/?$/i,
    points: 20,
    durationSeconds: 10 * 60,
  },
  {
    name: "contact-signed-in",
    method: "POST",
    path: /^\/(api\/help\/create-help|portal\/help(\.data)?)\/?$/i,
    points: 10,
    durationSeconds: 60,
  },
];

export interface RateLimitVerdict {
  allowed: boolean;
  retryAfterSeconds: number;
  rule?: string;
}

export function createRateLimiter(rules: RateRule[], factor: number) {
  const limiters = rules.map((rule) => ({
    rule,
    limiter: new RateLimiterMemory({
      keyPrefix: rule.name,
      points: Math.max(1, Math.round(rule.points * factor)),
      duration: rule.durationSeconds,
    }),
  }));
  return {
    async check(method: string, path: string, key: string): Promise<RateLimitVerdict> {
      for (const { rule, limiter } of limiters) {
        if (rule.method !== method || !rule.path.test(path)) continue;
        try {
          await limiter.consume(key);
        } catch (error) {
          if (error instanceof RateLimiterRes) {
            return { allowed: false, retryAfterSeconds: Math.ceil(error.msBeforeNext / 1000), rule: rule.name };
          }
          throw error;
        }
      }
      return { allowed: true, retryAfterSeconds: 0 };
    },
  };
}
