// The rate limits of docs/requirements.md §D7, bound to the API operation they guard rather than to a URL:
// the web forms reach the same operations through the typed client, so a limit holds whatever
// path (`/_.data`, `.data`, a trailing slash, other letter case, percent-encoding) reached it.
// Every attempt is counted the moment it arrives, before the work it guards, so N concurrent
// attempts are N attempts. RATE_LIMIT_FACTOR multiplies every budget (tests and load runs).
// On PostgreSQL the counters live in the database (one atomic upsert per attempt), so a budget
// holds across every app process and machine; PGlite is one process and counts in memory.
// The PostgreSQL store talks to node-postgres's pool directly: the library's Drizzle store loads
// the whole drizzle-orm package beside the server bundle's copy, 100 MB per process (ADR 0020).
import { getTableName, lt } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import ipaddr from "ipaddr.js";
import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { DETAILS } from "../../core/public-forms.ts";
import type { Db } from "../db/client.ts";
import { rateLimitCounters } from "../db/schema.ts";
import { ProblemError } from "../http/problem.ts";
import type { ApiEnv } from "./deps.ts";

export interface RateRule {
  points: number;
  durationSeconds: number;
  /** What the key is: the client's address, or the account the call is about. */
  per: "client" | "account" | "account+client";
}

export const RATE_RULES = {
  // Per client address (IPv6 clients by their /64).
  waitlist: { points: 10, durationSeconds: 60, per: "client" },
  contact: { points: 10, durationSeconds: 60, per: "client" },
  contactSignedIn: { points: 10, durationSeconds: 60, per: "client" },
  register: { points: 10, durationSeconds: 10 * 60, per: "client" },
  /** VerifyEmail, VerifyEmailRequest and ResendVerifyEmailRequest share it. */
  verify: { points: 30, durationSeconds: 10 * 60, per: "client" },
  login: { points: 30, durationSeconds: 5 * 60, per: "client" },
  resetRequest: { points: 10, durationSeconds: 10 * 60, per: "client" },
  reset: { points: 10, durationSeconds: 10 * 60, per: "client" },
  /** Slows down anyone testing stolen card numbers. */
  cardPayment: { points: 20, durationSeconds: 10 * 60, per: "client" },
  /** An invitation link's preview and accept (ADR 0022 §5): the token is unguessable; this slows a sweep. */
  managerInviteLink: { points: 30, durationSeconds: 10 * 60, per: "client" },

  // Per account (lower-cased email, or the user).
  /** Sign-ups per address. */
  registerEmail: { points: 5, durationSeconds: 60 * 60, per: "account" },
  /** Code emails per user: VerifyEmailRequest and ResendVerifyEmailRequest share the budget. */
  verifyRequestUser: { points: 5, durationSeconds: 10 * 60, per: "account" },
  /** Code attempts per user across all of their codes (each code also allows at most 5). */
  verifyUser: { points: 10, durationSeconds: 10 * 60, per: "account" },
  /** Reset links per address (counted whether or not the address exists, so 429 reveals nothing). */
  resetRequestEmail: { points: 5, durationSeconds: 60 * 60, per: "account" },
  /** Password resets per user. */
  resetUser: { points: 5, durationSeconds: 60 * 60, per: "account" },
  /** Password attempts per account from one client address; a successful login clears it. */
  loginAccountClient: { points: 10, durationSeconds: 15 * 60, per: "account+client" },
  /**
   * Password attempts per account from everywhere. Past it a login is not refused but slowed
   * (loginTrickle): a flood from many addresses cannot lock the owner out, only make them wait.
   */
  loginAccount: { points: 50, durationSeconds: 60 * 60, per: "account" },
  /** Invitations an Owner sends (each emails an address they typed): plenty for a team, not for a mailer. */
  managerInvite: { points: 20, durationSeconds: 60 * 60, per: "account" },
  /** A manager's resends of recipients' reward emails (each hashes a new password and sends an email). */
  rewardResend: { points: 30, durationSeconds: 60 * 60, per: "account" },
  /**
   * The catalogue partner's redemptions (POST /api/Redemptions), all of them under its one key: room
   * for a busy catalogue, a ceiling for a runaway client.
   */
  partnerRedemption: { points: 1200, durationSeconds: 60, per: "account" },
  /**
   * Calls to /api/v1 under one company API key (ADR 0028), keyed by the key's id: room for a
   * payroll run, a ceiling for a runaway script; each key has its own budget.
   */
  apiKey: { points: 600, durationSeconds: 60, per: "account" },
  /**
   * Top-ups an Owner starts, per company (ADR 0043): each makes a payment at the processor, so a
   * script cannot flood it; room for any real use (a top-up is for hundreds of dollars or more).
   */
  topUpCreate: { points: 20, durationSeconds: 60 * 60, per: "account" },
  /**
   * Reward lists paid from the prepaid balance, per company (ADR 0043): no card is tried, so cardPayment's budget does not fit; each post locks
   * the draft and may stop card payments at the processor, so a script cannot loop it.
   */
  balancePayment: { points: 30, durationSeconds: 10 * 60, per: "account" },
  /**
   * Webhook test pings and re-sends by hand, together, per endpoint (ADR 0045): each makes
   * the server call the endpoint's address, retried for 72 hours, so unlimited they would make it a
   * traffic amplifier against any address an Owner registers. Room for testing a receiver by hand.
   */
  webhookSendEndpoint: { points: 10, durationSeconds: 60 * 60, per: "account" },
  /** The same, per company across all of its endpoints (at most 10 live ones, ADR 0045 §5). */
  webhookSendCompany: { points: 60, durationSeconds: 60 * 60, per: "account" },
  /**
   * "Test the connection" of a company's single sign-on (ADR 0046), per company: each makes the
   * server call the issuer an Owner typed, so it is bounded like the webhook pings.
   */
  ssoTest: { points: 30, durationSeconds: 60 * 60, per: "account" },
  /**
   * Back-channel logouts an identity provider posts (ADR 0046), per client address: each may make
   * the server fetch the provider's keys, so a flood of forged tokens cannot make it a fetcher.
   */
  ssoLogout: { points: 60, durationSeconds: 60, per: "client" },
  /** Wrong partner keys from one client address (keyed by the address; a right key never counts). */
  partnerKeyFailure: { points: 10, durationSeconds: 10 * 60, per: "account" },
} as const satisfies Record<string, RateRule>;

export type RateRuleName = keyof typeof RATE_RULES;

/** Past loginAccount's budget: one password check per account every LOGIN_TRICKLE_SECONDS. */
export const LOGIN_TRICKLE_SECONDS = 2;
/** How long a login waits for its turn past loginAccount's budget before it is refused. */
const LOGIN_TRICKLE_MAX_WAIT_MS = 6_000;

/** A 429 problem with a Retry-After header (the API's error handler adds it). */
export class RateLimitedError extends ProblemError {
  readonly retryAfterSeconds: number;
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, detail);
    this.name = "RateLimitedError";
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }
}

/**
 * The key of a client address: IPv4 as it is, IPv4-mapped IPv6 as the IPv4 address, other IPv6
 * by its /64 (one subscriber's whole allocation), anything unparsable as one shared key.
 */
export function clientKey(address: string | undefined): string {
  const text = address?.trim() ?? "";
  if (!ipaddr.isValid(text)) return "unknown";
  const parsed = ipaddr.process(text);
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}

/** Where the counters live: this process's memory, or a PostgreSQL database every process shares. */
export type RateLimitStore = { kind: "memory" } | { kind: "postgres"; pool: pg.Pool };

type Limiter = RateLimiterMemory | RateLimiterPostgres;

/**
 * `onRefused`: told the rule's name each time a limit refuses a call (the operators' figure
 * rewards_rate_limit_refusals_total, server/metrics.ts); a slowed login that waits its turn is
 * not a refusal, one that runs out of waiting is (counted as loginAccount).
 */
export function createRateLimits(
  factor: number,
  store: RateLimitStore = { kind: "memory" },
  onRefused?: (rule: RateRuleName) => void,
) {
  const limiter = (keyPrefix: string, points: number, duration: number): Limiter =>
    store.kind === "postgres"
      ? // Expired rows are swept by sweepExpiredRateLimits on the job loop, not a timer per limiter.
        new RateLimiterPostgres({
          storeClient: store.pool,
          storeType: "pool",
          // The table is the migrations' (server/db/schema.ts), not one the library creates.
          tableName: getTableName(rateLimitCounters),
          tableCreated: true,
          keyPrefix,
          points,
          duration,
          clearExpiredByTimeout: false,
        })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  const limiters = Object.fromEntries(
    Object.entries(RATE_RULES).map(([name, rule]) => [
      name,
      limiter(name, Math.max(1, Math.round(rule.points * factor)), rule.durationSeconds),
    ]),
  ) as Record<RateRuleName, Limiter>;
  const trickle = limiter("loginTrickle", 1, LOGIN_TRICKLE_SECONDS);

  const normalise = (key: string | number) => String(key).trim().toLowerCase();

  /** Counts one attempt; throws RateLimitedError (with `detail`) once the budget is spent. */
  async function consume(name: RateRuleName, key: string | number, detail: string): Promise<void> {
    try {
      await limiters[name].consume(normalise(key));
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        onRefused?.(name);
        throw new RateLimitedError(detail, Math.ceil(error.msBeforeNext / 1000));
      }
      throw error;
    }
  }

  return {
    /** Hono middleware: one attempt of the client's budget for `name`, before the handler runs. */
    perClient(name: RateRuleName): MiddlewareHandler<ApiEnv> & { rateRule: RateRuleName } {
      const middleware: MiddlewareHandler<ApiEnv> = async (c, next) => {
        await consume(name, clientKey(c.get("clientIp")), DETAILS.tooManyRequests);
        await next();
      };
      // Named, so the route table tells which operations a rule guards (tests/security/rate-limits.test.ts).
      return Object.assign(middleware, { rateRule: name });
    },

    /**
     * One attempt of the client's budget for `name` from inside a handler: for work that only
     * some answers of an operation do (login emailing an unverified manager a code), counted as
     * perClient counts it.
     */
    clientAttempt(name: RateRuleName, clientIp: string | undefined): Promise<void> {
      return consume(name, clientKey(clientIp), DETAILS.tooManyRequests);
    },

    /** One attempt of the account's budget for `name` (an email or a user id). */
    perAccount(name: RateRuleName, account: string | number): Promise<void> {
      return consume(name, account, DETAILS.tooManyAttempts);
    },

    /**
     * A password attempt for `account` from `clientIp`, counted before the password is checked.
     * Refused once this address has spent its budget for the account; past the account's
     * overall budget, waits its turn (one check every LOGIN_TRICKLE_SECONDS) instead.
     */
    async loginAttempt(account: string, clientIp: string | undefined): Promise<void> {
      const email = normalise(account);
      await consume("loginAccountClient", `${email} ${clientKey(clientIp)}`, DETAILS.tooManyAttempts);
      try {
        await limiters.loginAccount.consume(email);
        return;
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
      }
      const deadline = Date.now() + LOGIN_TRICKLE_MAX_WAIT_MS;
      for (;;) {
        try {
          await trickle.consume(email);
          return;
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) throw error;
          const wait = Math.max(50, error.msBeforeNext);
          if (Date.now() + wait > deadline) {
            onRefused?.("loginAccount");
            throw new RateLimitedError(DETAILS.tooManyAttempts, LOGIN_TRICKLE_SECONDS);
          }
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    },

    /** After a successful login: this address's failures for the account are forgotten. */
    async loginSucceeded(account: string, clientIp: string | undefined): Promise<void> {
      await limiters.loginAccountClient.delete(`${normalise(account)} ${clientKey(clientIp)}`);
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/** Deletes the PostgreSQL counters that expired before `before` (any process may run it). */
export async function sweepExpiredRateLimits(db: Db, before: Date): Promise<void> {
  await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expire, before.getTime()));
}
