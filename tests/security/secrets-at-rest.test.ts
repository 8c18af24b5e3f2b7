// No raw token, code, reset token or recipient password stays in any table once it has done its
// job (docs/requirements.md §D7): a whole journey through the real process on a PostgreSQL database, with
// real mail over SMTP (sign-up, web login, password reset, a paid and released reward), then
// every row of every table is read as text and searched for each secret the journey handed out.
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppProcess, CARD, ok, orderOverHttp, signUpOverHttp, startApp, until } from "../support/app-process.ts";
import { createPostgresDatabase, postgresAdminUrl } from "../support/db.ts";
import { createSmtpServer, type ReceivedMessage, type TestSmtpServer } from "../support/smtp.ts";
import { openForm, postForm } from "./http.ts";

const NEW_PASSWORD = "Rotated#Test-2026-pass";

describe.skipIf(!postgresAdminUrl)("secrets at rest after a whole journey", () => {
  let app: AppProcess;
  let smtp: TestSmtpServer;
  let database: { url: string; drop(): Promise<void> };
  const secrets: { what: string; value: string }[] = [];
  let verificationCode = "";

  const mailTo = async (address: string, pattern: RegExp, count = 1): Promise<ReceivedMessage[]> => {
    await until(
      () => smtp.messages.filter((m) => m.to.includes(address) && pattern.test(m.text ?? "")).length >= count,
      30_000,
      `mail to ${address}`,
    );
    return smtp.messages.filter((m) => m.to.includes(address) && pattern.test(m.text ?? ""));
  };

  beforeAll(async () => {
    smtp = await createSmtpServer({ listen: true });
    database = await createPostgresDatabase();
    app = await startApp({ DATABASE_URL: database.url, SMTP_URL: smtp.url }, { production: true });
    const email = "journey.manager@example.com";

    // Sign-up and verification (the code arrives by SMTP).
    const signedUp = await signUpOverHttp(app.base, email, async (address) => {
      const [message] = await mailTo(address, /Verification code: \d{6}/);
      verificationCode = /Verification code: (\d{6})/.exec(message?.text ?? "")?.[1] ?? "";
      return verificationCode;
    });
    secrets.push({ what: "access token from verification", value: signedUp.accessToken });

    // A password reset by its emailed link.
    await ok(app.base, "POST", "/api/Identity/ResetPasswordRequest", { email });
    const [resetMail] = await mailTo(email, /passwordResetToken=/);
    const resetToken = decodeURIComponent(/passwordResetToken=([^\s"&]+)/.exec(resetMail?.text ?? "")?.[1] ?? "");
    expect(resetToken.length).toBeGreaterThan(20);
    secrets.push({ what: "reset token", value: resetToken });
    await ok(app.base, "POST", "/api/Identity/ResetPassword", {
      passwordResetToken: resetToken,
      password: NEW_PASSWORD,
    });

    // A web login (its session holds a bearer token) and an API login.
    const form = await openForm(app.base, "/corporate/login");
    const web = await postForm(app.base, "/corporate/login", form, {
      userName: email,
      password: NEW_PASSWORD,
      isCaptchaV3: "true",
      captchaToken: "",
    });
    expect(web.status).toBe(302);
    const { accessToken } = await ok<{ accessToken: string }>(app.base, "POST", "/api/Identity/login", {
      userName: email,
      password: NEW_PASSWORD,
      captchaToken: "",
      isCaptchaV3: true,
    });
    secrets.push({ what: "access token from login", value: accessToken });

    // A reward for three recipients, paid with the simulated card and released.
    const amounts = [10, 20, 30];
    const { intent } = await orderOverHttp(app.base, accessToken, amounts, "Journey Thanks");
    await ok(
      app.base,
      "POST",
      "/api/StripePayment/confirm-simulated-payment",
      { paymentIntent: intent.paymentIntentId, clientSecret: intent.clientSecret, ...CARD },
      accessToken,
    );
    for (let i = 0; i < amounts.length; i++) {
      const [reward] = await mailTo(`member.${i}@example.com`, /Password: \S+/);
      const password = /Password: (\S+)/.exec(reward?.text ?? "")?.[1] ?? "";
      expect(password.length).toBeGreaterThanOrEqual(8);
      secrets.push({ what: `recipient ${i}'s password`, value: password });
    }
    // Every message delivered (and so redacted) before the tables are read.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await until(
        async () =>
          (await client.query("select count(*)::int as n from email_outbox where status <> 'sent'")).rows[0].n === 0,
        30_000,
        "every email delivered",
      );
    } finally {
      await client.end();
    }
  }, 120_000);

  afterAll(async () => {
    await app?.kill();
    await smtp?.stop();
    await database?.drop();
  });

  it("no table holds a raw token, reset token, recipient password or verification code", async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const db = drizzle({ client: pool });
      const tables = (
        await db.execute<{ name: string }>(
          sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
        )
      ).rows.map((r) => r.name);
      expect(tables).toEqual(expect.arrayContaining(["web_sessions", "email_outbox", "access_tokens"]));
      const found: string[] = [];
      for (const table of tables) {
        const rows = await db.execute<{ row: string }>(sql`select t::text as row from ${sql.identifier(table)} t`);
        const text = rows.rows.map((r) => r.row).join("\n");
        for (const { what, value } of secrets) if (text.includes(value)) found.push(`${what} in ${table}`);
      }
      expect(found).toEqual([]);

      // The code only makes sense in words (six digits can turn up in any timestamp).
      const outbox = await db.execute<{ body: string }>(sql`select text || html as body from email_outbox`);
      expect(outbox.rows.length).toBeGreaterThan(0);
      for (const { body } of outbox.rows) expect(body).not.toContain(verificationCode);

      // The web session exists and holds sealed data only.
      const sessions = await db.execute<{ data: Record<string, unknown> }>(sql`select data from web_sessions`);
      expect(sessions.rows.length).toBeGreaterThan(0);
      for (const { data } of sessions.rows) expect(Object.keys(data)).toEqual(["sealed"]);
    } finally {
      await pool.end();
    }
  });
});
