// Fault test (issue 6): the SMTP server down while a paid order is released. The release commits
// (the emails wait in the outbox), the mail worker's attempts fail and are retried with backoff;
// once the SMTP server is back every email arrives, none twice, including after a second outage
// in the middle of the delivery. The whole application (createApplication, its own mail worker
// with the production backoff, the real SMTP transport) against a real SMTP server.
import { eq, sql } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import { payingManager, seedDraft } from "../../server/api/payments.testkit.ts";
import { emailOutbox } from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { createApplication, type RunningApp } from "../../server/main.ts";
import { testConfig } from "../support/config.ts";
import { fakeServerBuild } from "../support/server-build.ts";
import { createSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { CARD, sleep, until } from "./support.ts";

const RECIPIENTS = 300;

let running: RunningApp | undefined;
let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  await running?.close();
  await smtp?.stop();
});

it("delivers every email of a release once after the SMTP server comes back (twice)", { timeout: 90_000 }, async () => {
  smtp = await createSmtpServer();
  const config = testConfig({ SMTP_URL: smtp.url, APP_URL: "http://rewards.test" });
  running = await createApplication({
    config,
    logger: createLogger("silent"),
    build: fakeServerBuild().build,
    mode: "production",
  });
  const db = running.database.db;
  const server = smtp;

  // A manager (the verification email goes out while SMTP is up) and a draft of 300.
  const manager = await payingManager(running.api, db);
  await until(() => server.messages.length === 1, 20_000, "the verification email");
  const amounts = Array.from({ length: RECIPIENTS }, (_, i) => 1 + (i % 50));
  await seedDraft(db, manager, amounts, "Outage Thanks");

  // SMTP down; pay: the release commits and queues 301 emails, which cannot be delivered.
  await server.stop();
  const intent = await manager.json<{ paymentIntentId: string; clientSecret: string }>(
    "POST",
    "StripePayment/create-payment-intent",
    { amount: Number(chargesFor(amounts).totalCents) },
  );
  const paid = await manager.json<{ status: string }>("POST", "StripePayment/confirm-simulated-payment", {
    paymentIntent: intent.paymentIntentId,
    clientSecret: intent.clientSecret,
    ...CARD,
  });
  expect(paid.status).toBe("succeeded");

  const outbox = async () => {
    const [row] = await db
      .select({
        total: sql<number>`count(*)::int`,
        sent: sql<number>`count(*) filter (where ${emailOutbox.status} = 'sent')::int`,
        failedOnce: sql<number>`count(*) filter (where ${emailOutbox.status} = 'pending' and ${emailOutbox.attempts} >= 1)::int`,
        gaveUp: sql<number>`count(*) filter (where ${emailOutbox.status} = 'failed')::int`,
      })
      .from(emailOutbox);
    return row ?? { total: 0, sent: 0, failedOnce: 0, gaveUp: 0 };
  };
  // Every attempt fails while SMTP is down: the rows wait for a retry, nothing is lost.
  await until(async () => (await outbox()).failedOnce === RECIPIENTS + 1, 30_000, "the first failed attempts", 200);
  expect(await outbox()).toMatchObject({ total: RECIPIENTS + 2, sent: 1, gaveUp: 0 });
  expect(server.messages).toHaveLength(1);

  // Back up: the retries deliver. A second outage in the middle of the delivery.
  await server.start();
  await until(() => server.messages.length > 60, 30_000, "delivery to resume", 50);
  await server.stop();
  const duringSecondOutage = server.messages.length;
  expect(duringSecondOutage).toBeLessThan(RECIPIENTS + 2);
  await sleep(1000);
  await server.start();
  await until(async () => (await outbox()).sent === RECIPIENTS + 2, 60_000, "every email sent", 250);

  // Every email arrived exactly once: one message per outbox row, each Message-ID once.
  expect(await outbox()).toMatchObject({ total: RECIPIENTS + 2, sent: RECIPIENTS + 2, gaveUp: 0 });
  const ids = server.messages.map((m) => m.headers["message-id"]);
  expect(ids).toHaveLength(RECIPIENTS + 2);
  expect(new Set(ids).size).toBe(RECIPIENTS + 2);
  const rows = await db.select({ id: emailOutbox.id, to: emailOutbox.toAddress }).from(emailOutbox);
  expect(new Set(ids)).toEqual(new Set(rows.map((r) => `<outbox-${r.id}@rewards.test>`)));
  const retried = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(emailOutbox)
    .where(eq(emailOutbox.status, "sent"));
  expect(retried[0]?.n).toBe(RECIPIENTS + 2);
  const received = server.messages.flatMap((m) => m.to).sort();
  expect(received).toEqual(rows.map((r) => r.to).sort());
});
