import type { ApiKeyOwner } from "../../modules/api-keys/service.server.ts";
import type { TokenOwner } from "../../modules/identity/service.server.ts";
import type { Captcha } from "../captcha/port.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { Payments } from "../payments/port.ts";
import type { RateLimitStore, RateRuleName } from "./rate-limits.ts";

/** Everything an API handler may use; built once in server.ts (or by a test). */
export interface ApiDeps {
  db: Db;
  config: Config;
  logger: Logger;
  captcha: Captcha;
  /** Called after an email is queued so the worker sends it now rather than at its next poll. */
  onEmailQueued?: () => void;
  /** Called after a CSV import is queued so the import worker applies it now rather than at its next poll. */
  onImportQueued?: () => void;
  /** Called after a webhook delivery is queued by hand (re-send, test ping) so the worker sends it now. */
  onWebhookQueued?: () => void;
  /** The clock of the account rules (code, link and token lifetimes); tests inject one. */
  now?: () => Date;
  /** The card processor; unset: Stripe when STRIPE_SECRET_KEY is set, else the simulated one. */
  payments?: Payments;
  /** Where the rate-limit counters live; unset: this process's memory. */
  rateLimitStore?: RateLimitStore;
  /** Told the rule's name each time a rate limit refuses a call (server/metrics.ts). */
  onRateLimited?: (rule: RateRuleName) => void;
  /** Test seam of the release (modules/orders/release.server.ts): called after each recipient is written. */
  onReleaseLine?: (index: number) => void | Promise<void>;
}

export interface ApiVariables {
  /** Set by the bearer middleware (bearer.ts) on authenticated routes. */
  /** With the caller's address, so what the call changes is recorded with it (modules/audit/service.server.ts). */
  auth?: TokenOwner & { clientIp?: string };
  clientIp?: string;
  /** Set by the API-key middleware (api-v1.ts) on /api/v1 routes: the company a key acts for. */
  apiKey?: ApiKeyOwner;
}

/**
 * What the web's in-process client (app/lib/api.server.ts) passes with each call of one page
 * request: the bearer checks already made for it, so the page's calls check a token once. A call
 * over HTTP has none and is checked on its own.
 */
export interface ApiBindings {
  bearerChecks?: Map<string, Promise<TokenOwner | null>>;
}

export type ApiEnv = { Variables: ApiVariables; Bindings: ApiBindings };
