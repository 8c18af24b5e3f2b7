import { DrizzleQueryError } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { captureLogs } from "../tests/support/logs.ts";
import { errorForLog } from "./logger.ts";

describe("createLogger", () => {
  it("writes one JSON record a line, at the level asked for", () => {
    const logs = captureLogs("info");
    logs.logger.debug("hidden");
    logs.logger.info({ path: "/help" }, "request");
    expect(logs.records()).toEqual([expect.objectContaining({ level: 30, path: "/help", msg: "request" })]);
  });

  it("redacts secrets wherever a record names them", () => {
    const logs = captureLogs();
    const secrets = {
      password: "hunter2-password",
      captchaToken: "captcha-token-value",
      token: "raw-token-value",
      accessToken: "access-token-value",
      verificationCode: "123456-code",
      passwordResetToken: "reset-token-value",
    };
    logs.logger.info(secrets, "top level");
    logs.logger.info({ body: secrets }, "one level down");
    logs.logger.info(
      { req: { headers: { authorization: "Bearer bearer-value", cookie: "sid=cookie-value" } } },
      "headers",
    );
    const values = [...Object.values(secrets), "bearer-value", "cookie-value"];
    expect(logs.lines).toHaveLength(3);
    expect(logs.leaked(...values)).toEqual([]);
    expect(logs.text()).toContain("[redacted]");
  });
});

describe("errorForLog", () => {
  it("keeps the database's own error and the SQL, never the query parameters", () => {
    const cause = new Error('new row for relation "users" violates check constraint "users_email_check"');
    const error = new DrizzleQueryError(
      "insert into users (email, password_hash) values ($1, $2)",
      ["jane@example.com", "$argon2id$secret-hash"],
      cause,
    );
    const logged = errorForLog(error);
    expect(logged.err).toBe(cause.message);
    expect(logged.query).toBe("insert into users (email, password_hash) values ($1, $2)");
    expect(JSON.stringify(logged)).not.toContain("secret-hash");
    expect(JSON.stringify(logged)).not.toContain("jane@example.com");
  });

  it("passes other errors through", () => {
    const error = new Error("boom");
    expect(errorForLog(error)).toEqual({ err: "boom", stack: error.stack });
    expect(errorForLog("text")).toEqual({ err: "text" });
  });
});
