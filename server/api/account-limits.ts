// Per-account rate limits of the account calls (DESIGN.md §7), on top of the per-IP limits the
// edge applies (server/http/rate-limit.ts). Keyed by the account the call is about: lower(email)
// for register, login and the reset request; userId for the verification calls and the reset.
// RATE_LIMIT_FACTOR multiplies every budget. In memory, per process, like the edge limits.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { DETAILS } from "../../core/public-forms.ts";
import { ProblemError } from "../http/problem.ts";

export interface AccountRule {
  points: number;
  durationSeconds: number;
  /** "attempts": every call counts; "failures": only failed calls count (login, verify). */
  counts: "attempts" | "failures";
}

export const ACCOUNT_RULES = {
  /** Sign-ups per address. */
  register: { points: 5, durationSeconds: 60 * 60, counts: "attempts" },
  /** New codes per user: VerifyEmailRequest and ResendVerifyEmailRequest share the budget. */
  verifyRequest: { points: 5, durationSeconds: 10 * 60, counts: "attempts" },
  /** Wrong codes per user, across request tokens (each token also allows at most 5). */
  verify: { points: 10, durationSeconds: 10 * 60, counts: "failures" },
  /** Failed logins per address; a successful login clears the count. */
  login: { points: 10, durationSeconds: 15 * 60, counts: "failures" },
  /** Reset links per address (counted whether or not the address exists, so 429 reveals nothing). */
  resetRequest: { points: 5, durationSeconds: 60 * 60, counts: "attempts" },
  /** Password resets per user. */
  reset: { points: 5, durationSeconds: 60 * 60, counts: "attempts" },
} as const satisfies Record<string, AccountRule>;

export type AccountRuleName = keyof typeof ACCOUNT_RULES;

/** A 429 problem with a Retry-After header (the API's error handler adds it). */
export class RateLimitedError extends ProblemError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(429, DETAILS.tooManyAttempts);
    this.name = "RateLimitedError";
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }
}

export function createAccountLimits(factor: number) {
  const limiters = Object.fromEntries(
    Object.entries(ACCOUNT_RULES).map(([name, rule]) => [
      name,
      new RateLimiterMemory({
        keyPrefix: `account-${name}`,
        points: Math.max(1, Math.round(rule.points * factor)),
        duration: rule.durationSeconds,
      }),
    ]),
  ) as Record<AccountRuleName, RateLimiterMemory>;

  const keyOf = (key: string | number) => String(key).trim().toLowerCase();

  return {
    /** Counts one call; throws RateLimitedError once the budget is spent. */
    async consume(name: AccountRuleName, key: string | number): Promise<void> {
      try {
        await limiters[name].consume(keyOf(key));
      } catch (error) {
        if (error instanceof RateLimiterRes) throw new RateLimitedError(Math.ceil(error.msBeforeNext / 1000));
        throw error;
      }
    },
    /** Throws RateLimitedError when the budget is spent, without counting this call. */
    async ensureAllowed(name: AccountRuleName, key: string | number): Promise<void> {
      const limiter = limiters[name];
      const res = await limiter.get(keyOf(key));
      if (res && res.consumedPoints >= limiter.points) {
        throw new RateLimitedError(Math.ceil(res.msBeforeNext / 1000));
      }
    },
    /** Counts a failure (never throws: the caller answers the failure itself). */
    async countFailure(name: AccountRuleName, key: string | number): Promise<void> {
      await limiters[name].penalty(keyOf(key), 1);
    },
    async clear(name: AccountRuleName, key: string | number): Promise<void> {
      await limiters[name].delete(keyOf(key));
    },
  };
}

export type AccountLimits = ReturnType<typeof createAccountLimits>;
