// Fault tests of the payment reconciler (modules/orders/reconciler.server.ts), with the application as
// real child processes (tests/support/app-entry.ts):
//   - an order paid at the processor whose buyer never came back (no check call, no webhook) is
//     released exactly once while TWO processes on one PostgreSQL database reconcile every
//     200 ms (FAULT_RECONCILE_INTERVAL_MS / FAULT_RECONCILE_MIN_AGE_MS, read by that test entry
//     only) and the release is slowed down so that their passes overlap it;
//   - an order paid at the simulated processor but never released (the process stopped first)
//     is released when the application starts again, with the reconciler's own defaults.
// "Paid at the processor" is the simulated processor's own record turned to succeeded, as its
// card form does before the release that never came.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db/client.ts";
import {
  type AppProcess,
  ok,
  orderOverHttp,
  signUpOverHttp,
  sleep,
  startApp,
  until,
  verificationCodes,
} from "../support/app-process.ts";
import { createPostgresDatabase, postgresAdminUrl } from "../support/db.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { moneyFindings } from "./support.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups.length = 0;
});

async function smtpServer() {
  const smtp: TestSmtpServer = await createSmtpServer();
  cleanups.push(() => smtp.stop());
  const codeOf = verificationCodes(smtp);
  return { smtp, codeOf };
}

/** A manager with `recipients` members in the draft and a payment created for it (not paid). */
async function orderAwaitingPayment(base: string, codeOf: (email: string) => Promise<string>, recipients: number) {
  const email = "reconcile.manager@example.com";
  const { accessToken: token } = await signUpOverHttp(base, email, codeOf);
  const amounts = Array.from({ length: recipients }, (_, i) => 1 + (i % 50));
  const { intent, charges } = await orderOverHttp(base, token, amounts, "Reconciled Thanks");
  return { token, intent, charges };
}

const COUNTS = `select
  (select count(*) from reward_releases)::int as releases,
  (select count(*) from orders where status = 'paid' and released_at is not null)::int as paid,
  (select count(*) from reward_ledger where kind = 'credit')::int as credits,
  (select coalesce(sum(amount_cents), 0) from reward_ledger where kind = 'credit')::bigint as "creditCents",
  (select count(*) from recipient_accounts)::int as accounts,
  (select count(*) from email_outbox)::int as emails,
  (select count(*) from audit_log where action = 'order.paid')::int as "paidAudits"`;

describe("payment reconciler in real processes", () => {
  it.skipIf(!postgresAdminUrl)(
    "two processes on one PostgreSQL release a paid-but-never-returned order exactly once",
    { timeout: 120_000 },
    async () => {
      const RECIPIENTS = 40;
      const database = await createPostgresDatabase();
      cleanups.push(() => database.drop());
      const { smtp, codeOf } = await smtpServer();
      const env = {
        DATABASE_URL: database.url,
        SMTP_URL: smtp.url,
        LOG_LEVEL: "info",
        FAULT_RECONCILE_INTERVAL_MS: "200",
        FAULT_RECONCILE_MIN_AGE_MS: "1000",
        // Each line of the release takes 30 ms inside its transaction (about 1.2 s in all), so the
        // other process's passes come while the first holds the order.
        FAULT_RELEASE_LINE_DELAY_MS: "30",
      };
      const [a, b] = await Promise.all([startApp(env), startApp(env)]);
      cleanups.push(
        () => a.kill("SIGKILL"),
        () => b.kill("SIGKILL"),
      );

      const { token, intent, charges } = await orderAwaitingPayment(a.base, codeOf, RECIPIENTS);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      cleanups.push(() => client.end());
      const count = async () => (await client.query(COUNTS)).rows[0];
      // The buyer pays at the processor and closes the tab: no check call, no webhook.
      const paid = await client.query(
        "update simulated_payments set status = 'succeeded', card_last4 = '4242' where id = $1 and status = 'requires_payment_method'",
        [intent.paymentIntentId],
      );
      expect(paid.rowCount).toBe(1);
      expect(await count()).toMatchObject({ releases: 0, paid: 0 });

      await until(async () => (await count()).releases > 0, 30_000, "the reconciler's release", 100);
      // Both keep reconciling for a while longer: nothing more happens.
      await sleep(2_500);
      expect(await count()).toMatchObject({
        releases: 1,
        paid: 1,
        credits: RECIPIENTS,
        creditCents: String(charges.rewardsCents),
        accounts: RECIPIENTS,
        emails: 1 + RECIPIENTS + 1, // the verification code, the congratulations, the invoice
        paidAudits: 1,
      });
      await until(() => smtp.messages.length >= RECIPIENTS + 2, 30_000, "the release's emails", 100);
      await sleep(500);
      const ids = smtp.messages.map((m) => m.headers["message-id"]);
      expect(ids).toHaveLength(RECIPIENTS + 2);
      expect(new Set(ids).size).toBe(ids.length);

      // One process released it; the other found it claimed (or released) and left it alone.
      const released = (p: AppProcess) =>
        (p.output().match(/"source":"reconcile"[^\n]*"msg":"reward released"/g) ?? []).length;
      expect(released(a) + released(b)).toBe(1);
      const skipped = (p: AppProcess) =>
        /"msg":"reconciler pass"/.test(p.output()) && /"skipped":[1-9]/.test(p.output());
      expect(skipped(released(a) ? b : a)).toBe(true);

      // The buyer's late return finds it paid; the history has it once.
      const checked = await ok<{ status: string }>(
        b.base,
        "POST",
        "/api/StripePayment/check-payment-intent",
        { paymentIntent: intent.paymentIntentId },
        token,
      );
      expect(checked.status).toBe("succeeded");
      expect(
        await ok<unknown[]>(a.base, "GET", "/api/RewardHistory/get-reward-history", undefined, token),
      ).toHaveLength(1);
      // The operator's reconciliation (npm run check:money) finds nothing: charged once, released once.
      expect(await moneyFindings(database.url)).toEqual([]);
    },
  );

  it("an order paid at the simulated processor but never released is released when the app starts again", {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rewards-fault-reconcile-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const databaseUrl = join(dir, "db");
    const { smtp, codeOf } = await smtpServer();
    const env = { DATABASE_URL: databaseUrl, SMTP_URL: smtp.url };
    let app = await startApp(env);
    cleanups.push(() => app.kill("SIGKILL"));
    const { token, intent } = await orderAwaitingPayment(app.base, codeOf, 3);
    await app.kill("SIGTERM");

    // Ten minutes ago the buyer paid, and the process stopped before it released the order.
    const database = await openDatabase(databaseUrl);
    try {
      await database.db.execute(
        sql`update simulated_payments set status = 'succeeded', card_last4 = '4242' where id = ${intent.paymentIntentId}`,
      );
      await database.db.execute(sql`update orders set created_at = now() - interval '10 minutes'`);
      const r = (await database.db.execute(sql`select count(*)::int as n from reward_releases`)) as unknown as {
        rows: { n: number }[];
      };
      expect(r.rows[0]?.n).toBe(0);
    } finally {
      await database.close();
    }

    // Started again with the reconciler's defaults: its first pass releases the order.
    app = await startApp(env);
    await until(
      async () =>
        (await ok<unknown[]>(app.base, "GET", "/api/RewardHistory/get-reward-history", undefined, token)).length > 0,
      30_000,
      "the release at start",
      200,
    );
    await until(() => smtp.messages.length >= 1 + 3 + 1, 30_000, "the release's emails", 100);
    await app.kill("SIGTERM");
    const after = await openDatabase(databaseUrl);
    try {
      const rows = (await after.db.execute(sql.raw(COUNTS))) as unknown as { rows: Record<string, unknown>[] };
      expect(rows.rows[0]).toMatchObject({ releases: 1, paid: 1, credits: 3, accounts: 3, emails: 5, paidAudits: 1 });
    } finally {
      await after.close();
    }
    expect(await moneyFindings(databaseUrl)).toEqual([]);
  });
});
