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

/** The public posts of this issue; later issues add login, sign-up, verify and friends. */
export const RATE_RULES: RateRule[] = [
  { name: "waitlist", method: "POST", path: /^\/(api\/waitlist|not-ready-yet)\/?$/i, points: 10, durationSeconds: 60 },
  {
    name: "contact",
    method: "POST",
    path: /^\/(api\/help\/create-help-anonymous|help)\/?$/i,
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
