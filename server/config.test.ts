import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("has a working default for every variable", () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe("0.0.0.0");
    expect(c.APP_URL).toBe("http://localhost:3000");
    expect(c.isHttps).toBe(false);
    expect(c.DATABASE_URL).toBe("./data/db");
    expect(c.SESSION_SECRET).toBeUndefined();
    expect(c.SMTP_URL).toBeUndefined();
    expect(c.RATE_LIMIT_FACTOR).toBe(1);
    expect(c.MAIL_FROM).toMatch(/@/);
    expect(c.SUPPORT_EMAIL).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect(c.captchaEnabled).toBe(false);
    expect(c.stripeEnabled).toBe(false);
    expect(c.RECAPTCHA_VERIFY_URL).toBe("https://www.google.com/recaptcha/api/siteverify");
    expect(c.supplierIsPlaceholder).toBe(true);
    expect(c.TRUST_PROXY).toBe(0);
    expect(c.DEMO_MODE).toBe(false);
    expect(c.isDeployment).toBe(false);
    expect(c.LOG_LEVEL).toBe("info");
    for (const key of ["CATALOGUE_URL", "VOUCHER_URL", "ONBOARDING_VIDEO_URL", "HOW_IT_WORKS_VIDEO_URL"] as const) {
      expect(() => new URL(c[key])).not.toThrow();
    }
  });

  it("derives APP_URL from PORT, strips a trailing slash, and knows https", () => {
    expect(loadConfig({ PORT: "8080" }).APP_URL).toBe("http://localhost:8080");
    const https = loadConfig({ APP_URL: "https://rewards.example.com/", DEMO_MODE: "true" });
    expect(https.APP_URL).toBe("https://rewards.example.com");
    expect(https.isHttps).toBe(true);
  });

  it("treats empty strings as unset", () => {
    const c = loadConfig({ SMTP_URL: "", APP_URL: "", SESSION_SECRET: "", STRIPE_SECRET_KEY: "", SUPPLIER_ABN: "" });
    expect(c.SMTP_URL).toBeUndefined();
    expect(c.APP_URL).toBe("http://localhost:3000");
    expect(c.SESSION_SECRET).toBeUndefined();
    expect(c.stripeEnabled).toBe(false);
  });

  it("parses the values it is given", () => {
    const c = loadConfig({
      PORT: "4000",
      SMTP_URL: "smtp://user:pass@mail.example.com:587",
      RATE_LIMIT_FACTOR: "2.5",
      SUPPORT_EMAIL: "help@example.com",
      TRUST_PROXY: "2",
      LOG_LEVEL: "warn",
      RECAPTCHA_V3_SITE_KEY: "a",
      RECAPTCHA_V3_SECRET_KEY: "b",
      RECAPTCHA_V2_SITE_KEY: "c",
      RECAPTCHA_V2_SECRET_KEY: "d",
    });
    expect(c.PORT).toBe(4000);
    expect(c.SMTP_URL).toBe("smtp://user:pass@mail.example.com:587");
    expect(c.RATE_LIMIT_FACTOR).toBe(2.5);
    expect(c.SUPPORT_EMAIL).toBe("help@example.com");
    expect(c.TRUST_PROXY).toBe(2);
    expect(c.LOG_LEVEL).toBe("warn");
    expect(c.captchaEnabled).toBe(true);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["SMTP_URL", "http://x"],
    ["SMTP_URL", "not a url"],
    ["RATE_LIMIT_FACTOR", "-1"],
    ["RATE_LIMIT_FACTOR", "0"],
    ["RATE_LIMIT_FACTOR", "lots"],
    ["SUPPORT_EMAIL", "nope"],
    ["APP_URL", "ftp://example.com"],
    ["SESSION_SECRET", "too-short"],
    ["SUPPLIER_ABN", "123"],
    ["SUPPLIER_ABN", "12345678901"],
    ["TRUST_PROXY", "maybe"],
    ["LOG_LEVEL", "loud"],
    ["CATALOGUE_URL", "javascript:alert(1)"],
  ])("rejects %s=%s with a ConfigError naming the variable", (name, value) => {
    const error = configError({ [name]: value });
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(new RegExp(`^${name}: `));
    expect(error.message).toContain(name);
  });

  it("lists every bad variable at once", () => {
    const error = configError({ PORT: "abc", SUPPORT_EMAIL: "nope" });
    expect(error.issues.map((i) => i.split(":")[0]).sort()).toEqual(["PORT", "SUPPORT_EMAIL"]);
  });

  it("runs one HTTP worker per core on PostgreSQL and one on PGlite, which refuses more", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://db.example/rewards" }).WEB_CONCURRENCY).toBe(availableParallelism());
    expect(loadConfig({ DATABASE_URL: "postgres://db.example/rewards", WEB_CONCURRENCY: "3" }).WEB_CONCURRENCY).toBe(3);
    expect(loadConfig({}).WEB_CONCURRENCY).toBe(1);
    expect(loadConfig({ DATABASE_URL: "memory://", WEB_CONCURRENCY: "1" }).WEB_CONCURRENCY).toBe(1);
    for (const DATABASE_URL of ["memory://", "./data/db"]) {
      const error = configError({ DATABASE_URL, WEB_CONCURRENCY: "2" });
      expect(error.issues[0]).toMatch(/^WEB_CONCURRENCY=2 needs PostgreSQL: .*PGlite.*WEB_CONCURRENCY=1\.$/);
    }
    expect(configError({ WEB_CONCURRENCY: "0" }).issues[0]).toMatch(/^WEB_CONCURRENCY:/);
    expect(configError({ WEB_CONCURRENCY: "1.5" }).issues[0]).toMatch(/^WEB_CONCURRENCY:/);
  });

  it("opens 10 PostgreSQL connections per process unless DATABASE_POOL_SIZE says otherwise (1–100)", () => {
    expect(loadConfig({}).DATABASE_POOL_SIZE).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: "4" }).DATABASE_POOL_SIZE).toBe(4);
    for (const bad of ["0", "101", "2.5", "many"]) {
      expect(configError({ DATABASE_POOL_SIZE: bad }).issues[0]).toMatch(/^DATABASE_POOL_SIZE:/);
    }
  });

  it("wants all four reCAPTCHA keys or none", () => {
    const error = configError({ RECAPTCHA_V3_SITE_KEY: "site", RECAPTCHA_V3_SECRET_KEY: "secret" });
    expect(error.message).toContain("RECAPTCHA_V2_SECRET_KEY");
  });

  it("uses the simulated card processor without Stripe keys, Stripe with them", () => {
    expect(loadConfig({}).payments).toBe("simulated");
    const c = loadConfig({
      STRIPE_SECRET_KEY: "sk_test_x",
      STRIPE_PUBLISHABLE_KEY: "pk_test_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
    });
    expect(c.payments).toBe("stripe");
    expect(c.stripeEnabled).toBe(true);
  });

  it("has placeholder supplier details (a valid ABN) until SUPPLIER_NAME and SUPPLIER_ABN are set", () => {
    const dev = loadConfig({});
    expect(dev.supplierName).toBe("Reward Portal Pty Ltd");
    expect(dev.supplierAbn).toMatch(/^\d{11}$/);
    expect(dev.supplierIsPlaceholder).toBe(true);
    const real = loadConfig({ SUPPLIER_NAME: "Rewards Co Pty Ltd", SUPPLIER_ABN: "53 004 085 616" });
    expect(real).toMatchObject({ supplierName: "Rewards Co Pty Ltd", supplierAbn: "53004085616" });
    expect(real.supplierIsPlaceholder).toBe(false);
  });

  it("wants all three Stripe variables or none (the webhook releases orders whose buyer never came back)", () => {
    expect(configError({ STRIPE_SECRET_KEY: "sk_test_x" }).message).toContain("STRIPE_PUBLISHABLE_KEY");
    const noWebhook = configError({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PUBLISHABLE_KEY: "pk_test_x" });
    expect(noWebhook.message).toContain("STRIPE_WEBHOOK_SECRET");
  });

  describe("a deployment (APP_URL not on this machine) fails closed", () => {
    const secrets = {
      SMTP_URL: "smtp://mail.example.com:587",
      STRIPE_SECRET_KEY: "sk_live_x",
      STRIPE_PUBLISHABLE_KEY: "pk_live_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      SESSION_SECRET: "a-long-secret-of-at-least-32-characters-0123",
    };

    it.each(["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:3000", "http://app.localhost"])(
      "%s is a local run: no variable is required",
      (APP_URL) => {
        expect(loadConfig({ APP_URL }).isDeployment).toBe(false);
      },
    );

    it.each(Object.keys(secrets))("refuses to start without %s, naming it", (name) => {
      const error = configError({ ...secrets, [name]: "", APP_URL: "https://rewards.example.com" });
      expect(error.message).toContain(name);
    });

    it("names every missing variable at once, and starts with all of them or in demo mode", () => {
      const error = configError({ APP_URL: "http://10.0.0.5:3000" });
      for (const name of Object.keys(secrets)) expect(error.message).toContain(name);
      expect(loadConfig({ ...secrets, APP_URL: "https://rewards.example.com" }).isDeployment).toBe(true);
      expect(loadConfig({ APP_URL: "https://demo.example.com", DEMO_MODE: "true" }).DEMO_MODE).toBe(true);
    });
  });

  it("takes TRUST_PROXY as a number of hops", () => {
    expect(loadConfig({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(configError({ TRUST_PROXY: "true" }).message).toContain("TRUST_PROXY");
    expect(configError({ TRUST_PROXY: "-1" }).message).toContain("TRUST_PROXY");
  });

  it("takes METRICS_TOKEN of at least 32 characters; unset or empty, /metrics is refused to everyone", () => {
    const token = "m".repeat(32);
    expect(loadConfig({ METRICS_TOKEN: token }).METRICS_TOKEN).toBe(token);
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: "" }).METRICS_TOKEN).toBeUndefined();
    const error = configError({ METRICS_TOKEN: "short-metrics-secret" });
    expect(error.message).toContain("METRICS_TOKEN");
    expect(error.message).not.toContain("short-metrics-secret");
  });

  it("never echoes a secret value in its message", () => {
    const error = configError({ SMTP_URL: "http://user:hunter2-secret@mail" });
    expect(error.message).not.toContain("hunter2-secret");
  });
});
