// Runtime configuration (docs/requirements.md §D3): every variable is parsed once, here, with zod.
// A bad value stops the start with a message naming the variable.
import { availableParallelism } from "node:os";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { hasValidAbnCheckDigits, normaliseAbn } from "../modules/companies/abn.ts";

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`,
    );

const optionalUrl = (protocols: string[]) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), url(protocols).optional());

const httpUrl = ["http:", "https:"];

/** Connections per process to a PostgreSQL server unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default("0.0.0.0"),
  APP_URL: optionalUrl(httpUrl),
  DATABASE_URL: z.string().trim().min(1).default("./data/db"),
  /** Connections each process may open to a PostgreSQL server (docs/OPERATIONS.md "Scaling out"). */
  DATABASE_POOL_SIZE: z.coerce.number().int("must be a whole number").min(1).max(100).default(DEFAULT_POOL_SIZE),
  SESSION_SECRET: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  SMTP_URL: optionalUrl(["smtp:", "smtps:"]),
  /** HTTP worker processes (server/cluster.ts); unset: one per CPU core on PostgreSQL, 1 on PGlite. */
  WEB_CONCURRENCY: z.coerce.number().int("must be a whole number").min(1).max(256).optional(),
  RATE_LIMIT_FACTOR: z.coerce.number().positive("must be a positive number").default(1),
  /** How often each process looks for scheduled rewards that are due (modules/scheduled-sends/service.server.ts). */
  SCHEDULER_INTERVAL_SECONDS: z.coerce.number().int("must be a whole number").min(1).max(3600).default(30),
  /**
   * How often each process runs the reward expiry job (modules/lots/service.server.ts: forfeiture and the
   * 30-day reminders); every run is exactly once across processes, so more often only means sooner.
   */
  EXPIRY_JOB_INTERVAL_MINUTES: z.coerce.number().int("must be a whole number").min(1).max(1440).default(60),
  /** How often each process looks for webhook deliveries that are due (modules/webhooks/worker.server.ts). */
  WEBHOOK_INTERVAL_SECONDS: z.coerce.number().int("must be a whole number").min(1).max(3600).default(10),
  /**
   * The catalogue partner's key for POST /api/Redemptions (sent as `Authorization: Bearer <key>`).
   * Unset: the call answers 401 to everyone.
   */
  PARTNER_API_KEY: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /**
   * The bearer token of GET /metrics (`Authorization: Bearer <token>`; ADR 0033). Unset: /metrics
   * answers 401 to everyone, in production and in development alike.
   */
  METRICS_TOKEN: z
    .string()
    .min(32, "must be at least 32 characters")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  MAIL_FROM: z.string().trim().min(3).default("Reward Portal <no-reply@rewards.localhost>"),
  SUPPORT_EMAIL: z.email("must be an email address").default("support@rewards.localhost"),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_PUBLISHABLE_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  RECAPTCHA_V3_SITE_KEY: optionalString,
  RECAPTCHA_V3_SECRET_KEY: optionalString,
  RECAPTCHA_V2_SITE_KEY: optionalString,
  RECAPTCHA_V2_SECRET_KEY: optionalString,
  RECAPTCHA_VERIFY_URL: url(httpUrl).default("https://www.google.com/recaptcha/api/siteverify"),
  CATALOGUE_URL: url(httpUrl).default("https://catalogue.example.com/"),
  VOUCHER_URL: url(httpUrl).default("https://vouchers.example.com/"),
  ONBOARDING_VIDEO_URL: url(httpUrl).default("https://videos.example.com/onboarding.mp4"),
  HOW_IT_WORKS_VIDEO_URL: url(httpUrl).default("https://videos.example.com/how-it-works.mp4"),
  COMPANY_PROFILE_URL: url(httpUrl).default("https://www.linkedin.com/company/example"),
  SUPPLIER_NAME: optionalString,
  SUPPLIER_ABN: z
    .string()
    .transform(normaliseAbn)
    .superRefine((v, ctx) => {
      if (v === "") return;
      if (!/^\d{11}$/.test(v)) ctx.addIssue({ code: "custom", message: "must be exactly 11 digits" });
      else if (!hasValidAbnCheckDigits(v))
        ctx.addIssue({ code: "custom", message: "is not a valid ABN (check digits)" });
    })
    .transform((v) => (v === "" ? undefined : v))
    .optional(),
  /**
   * Reverse-proxy hops in front of the app: the client is that many entries from the right of
   * X-Forwarded-For (the leftmost entries are whatever the client wrote).
   */
  TRUST_PROXY: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.coerce
      .number({ error: "must be a whole number of proxy hops (0 or more)" })
      .int("must be a whole number of proxy hops (0 or more)")
      .min(0, "must be a whole number of proxy hops (0 or more)")
      .max(10, "must be at most 10 proxy hops")
      .default(0),
  ),
  /** The one explicit way to run a deployment on the simulated card processor and the dev mailbox. */
  DEMO_MODE: z
    .enum(["true", "false", ""], { error: "must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Omit<Env, "APP_URL" | "WEB_CONCURRENCY"> {
  APP_URL: string;
  /** HTTP workers: WEB_CONCURRENCY, else one per core on PostgreSQL and 1 on PGlite. */
  WEB_CONCURRENCY: number;
  /** APP_URL's host is not a loopback name or address (docs/requirements.md §D3): the deployment fails closed. */
  isDeployment: boolean;
  /** Stricter cookies and HSTS follow the deployment (an https APP_URL), not NODE_ENV. */
  isHttps: boolean;
  captchaEnabled: boolean;
  /** Real card payments through Stripe; otherwise the built-in simulated processor (docs/requirements.md §D6). */
  stripeEnabled: boolean;
  /** "stripe" when STRIPE_SECRET_KEY is set, else "simulated". */
  payments: "stripe" | "simulated";
  /** The supplier on tax invoices: SUPPLIER_NAME / SUPPLIER_ABN, or placeholders marked as such. */
  supplierName: string;
  supplierAbn: string;
  supplierIsPlaceholder: boolean;
}

/** Used on tax invoices while SUPPLIER_NAME / SUPPLIER_ABN are unset (the invoice says so). */
export const PLACEHOLDER_SUPPLIER = { name: "Reward Portal Pty Ltd", abn: "51824753556" } as const;

/** A client address on this machine: 127.0.0.0/8, ::1, or IPv4-mapped loopback (ipaddr.js decides). */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.trim();
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === "loopback";
}

/** docs/requirements.md §D3: a local run is one whose APP_URL host is a loopback name or address. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || isLoopbackAddress(host);
}

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}

/** DATABASE_URL names a PostgreSQL server (else it is PGlite's `memory://` or data directory). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * The PGlite data directory a DATABASE_URL names, as the operator wrote it: the path itself, or a
 * `file://` URL's path (for DATABASE_URLs that are neither `postgres://` nor `memory://`).
 */
export function pgliteDirectory(url: string): string {
  return url.replace(/^file:\/\//, "");
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const appUrl = (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const recaptchaKeys = [
    e.RECAPTCHA_V3_SITE_KEY,
    e.RECAPTCHA_V3_SECRET_KEY,
    e.RECAPTCHA_V2_SITE_KEY,
    e.RECAPTCHA_V2_SECRET_KEY,
  ];
  const someRecaptcha = recaptchaKeys.some(Boolean);
  if (someRecaptcha && !recaptchaKeys.every(Boolean)) {
    throw new ConfigError([
      "RECAPTCHA_V3_SITE_KEY, RECAPTCHA_V3_SECRET_KEY, RECAPTCHA_V2_SITE_KEY, RECAPTCHA_V2_SECRET_KEY: set all four or none",
    ]);
  }
  const stripeKeys = [e.STRIPE_SECRET_KEY, e.STRIPE_PUBLISHABLE_KEY, e.STRIPE_WEBHOOK_SECRET];
  if (stripeKeys.some(Boolean) && !stripeKeys.every(Boolean)) {
    // Without the webhook a buyer who never returns from the payment page is released only by the reconciler's poll.
    throw new ConfigError(["STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET: set all three or none"]);
  }
  const isDeployment = !isLoopbackHost(new URL(appUrl).hostname);
  if (isDeployment && !e.DEMO_MODE) {
    const required = {
      SMTP_URL: e.SMTP_URL,
      STRIPE_SECRET_KEY: e.STRIPE_SECRET_KEY,
      STRIPE_PUBLISHABLE_KEY: e.STRIPE_PUBLISHABLE_KEY,
      STRIPE_WEBHOOK_SECRET: e.STRIPE_WEBHOOK_SECRET,
      SESSION_SECRET: e.SESSION_SECRET,
    };
    const missing = Object.entries(required)
      .filter(([, value]) => !value)
      .map(([name]) => name);
    if (missing.length > 0) {
      throw new ConfigError([
        `APP_URL ${appUrl} is a deployment (not a loopback host), which refuses to start without real mail, payments and a session secret. Missing: ${missing.join(", ")}. Set them, or set DEMO_MODE=true to run on the simulated card processor and the dev mailbox with a demo banner on every page.`,
      ]);
    }
  }
  const onPostgres = isPostgresUrl(e.DATABASE_URL);
  if (!onPostgres && e.WEB_CONCURRENCY !== undefined && e.WEB_CONCURRENCY > 1) {
    throw new ConfigError([
      `WEB_CONCURRENCY=${e.WEB_CONCURRENCY} needs PostgreSQL: the embedded PGlite database (DATABASE_URL=${e.DATABASE_URL}) belongs to one process. Set DATABASE_URL to a postgres:// URL, or WEB_CONCURRENCY=1.`,
    ]);
  }
  return {
    ...e,
    WEB_CONCURRENCY: e.WEB_CONCURRENCY ?? (onPostgres ? availableParallelism() : 1),
    APP_URL: appUrl,
    isDeployment,
    isHttps: appUrl.startsWith("https:"),
    captchaEnabled: someRecaptcha,
    stripeEnabled: Boolean(e.STRIPE_SECRET_KEY),
    payments: e.STRIPE_SECRET_KEY ? "stripe" : "simulated",
    supplierName: e.SUPPLIER_NAME ?? PLACEHOLDER_SUPPLIER.name,
    supplierAbn: e.SUPPLIER_ABN ?? PLACEHOLDER_SUPPLIER.abn,
    supplierIsPlaceholder: !e.SUPPLIER_NAME || !e.SUPPLIER_ABN,
  };
}
