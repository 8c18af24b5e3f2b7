// The mail outbox against a real SMTP server (smtp-server on a loopback port): delivered once,
// retried with backoff while the server is down, delivered once it is back, never twice.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { createSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import type { Db } from "../db/client.ts";
import { emailOutbox } from "../db/schema.ts";
import { enqueueEmail } from "./outbox.ts";
import { renderEmail } from "./templates.ts";
import { devMailboxTransport, smtpTransport } from "./transports.ts";
import { backoffMs, MAX_ATTEMPTS, type MailWorker, type MailWorkerOptions, startMailWorker } from "./worker.ts";

const APP_URL = "http://rewards.test:3000";
const FROM = "Reward Portal <no-reply@rewards.test>";

/** A clock the test moves by hand. */
function testClock() {
  let t = Date.now() + 1_000;
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

function email(n: number) {
  return {
    to: `recipient${n}@example.com`,
    subject: `Your reward #${n}`,
    ...renderEmail({
      heading: `Congratulations ${n}`,
      paragraphs: [`Access code CODE-${n}. Enjoy — café ünïcode ✓`],
      action: { label: "Browse rewards", url: "https://catalogue.test/" },
    }),
  };
}

describeEachDatabase("mail outbox worker", ({ database }) => {
  let smtp: TestSmtpServer;
  const workers: MailWorker[] = [];
  const logs = captureLogs("trace");

  beforeAll(async () => {
    smtp = await createSmtpServer({ listen: false });
  });
  afterAll(() => smtp.stop());
  beforeEach(async () => {
    await truncateAll(database().db);
    smtp.messages.length = 0;
    logs.clear();
    await smtp.start();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });

  function worker(overrides: Partial<MailWorkerOptions> = {}): MailWorker {
    const w = startMailWorker(
      {
        db: database().db,
        transport: smtpTransport(smtp.url, APP_URL),
        from: FROM,
        logger: logs.logger,
        ...overrides,
      },
      false,
    );
    workers.push(w);
    return w;
  }

  const row = async (db: Db, id: number) => (await db.select().from(emailOutbox).where(eq(emailOutbox.id, id)))[0];

  it("delivers a queued email exactly once, with html and text parts, and marks it sent", async () => {
    const { db } = database();
    const clock = testClock();
    const content = email(1);
    const id = await enqueueEmail(db, content);
    const w = worker({ now: clock.now });

    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    const [message] = smtp.messages;
    expect(message?.to).toEqual(["recipient1@example.com"]);
    expect(message?.from).toBe("no-reply@rewards.test");
    expect(message?.headers.subject).toBe("Your reward #1");
    expect(message?.headers["message-id"]).toBe(`<outbox-${id}@rewards.test>`);
    expect(message?.headers["content-type"]).toMatch(/^multipart\/alternative/);
    expect(message?.text?.trim()).toBe(content.text.trim());
    expect(message?.html?.trim()).toBe(content.html.trim());
    expect(message?.text).toContain("café ünïcode ✓");

    expect(await row(db, id)).toMatchObject({
      status: "sent",
      attempts: 1,
      lastError: null,
      lockedUntil: null,
      transport: "smtp",
      sentAt: clock.now(),
    });

    // Nothing is due any more: a second pass sends nothing.
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(1);
  });

  it("retries with backoff while the SMTP server is down and delivers once it is back", async () => {
    const { db } = database();
    await smtp.stop();
    const clock = testClock();
    const id = await enqueueEmail(db, email(2));
    const w = worker({ now: clock.now });

    expect(await w.runOnce()).toBe(0);
    const failed = await row(db, id);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, sentAt: null, lockedUntil: null });
    expect(failed?.lastError).toMatch(/ECONNREFUSED/);
    expect(failed?.nextAttemptAt.getTime()).toBe(clock.now().getTime() + backoffMs(1));

    // Still down one backoff later: the second attempt fails too and waits twice as long.
    clock.advance(backoffMs(1));
    expect(await w.runOnce()).toBe(0);
    const failedTwice = await row(db, id);
    expect(failedTwice).toMatchObject({ status: "pending", attempts: 2 });
    expect(failedTwice?.nextAttemptAt.getTime()).toBe(clock.now().getTime() + backoffMs(2));
    expect(backoffMs(2)).toBe(2 * backoffMs(1));

    await smtp.start();
    // Back up, but the retry is not due yet: nothing is sent early.
    clock.advance(backoffMs(2) - 1_000);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(0);
    expect((await row(db, id))?.attempts).toBe(2);

    clock.advance(1_000);
    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]?.headers["message-id"]).toBe(`<outbox-${id}@rewards.test>`);
    expect(await row(db, id)).toMatchObject({ status: "sent", attempts: 3, lastError: null });

    clock.advance(60 * 60_000);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(1);
  });

  it("never sends twice when passes run at the same time (one worker twice, and several workers)", async () => {
    const { db } = database();
    const ids: number[] = [];
    for (let n = 0; n < 12; n++) ids.push(await enqueueEmail(db, email(n)));
    // Small batches make many claims, so concurrent claims collide often.
    const pool = [
      worker({ batchSize: 1 }),
      worker({ batchSize: 1 }),
      worker({ batchSize: 2 }),
      worker({ batchSize: 3 }),
    ];

    const sent = await Promise.all(pool.flatMap((w) => [w.runOnce(), w.runOnce()]));
    expect(sent.reduce((x, y) => x + y, 0)).toBe(12);
    expect(smtp.messages).toHaveLength(12);
    const messageIds = smtp.messages.map((m) => m.headers["message-id"]).sort();
    expect(messageIds).toEqual(ids.map((id) => `<outbox-${id}@rewards.test>`).sort());

    const rows = await db.select().from(emailOutbox);
    expect(rows.every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
  });

  it("takes back a message whose sender died mid-send once its lease runs out, not before", async () => {
    const { db } = database();
    const clock = testClock();
    const id = await enqueueEmail(db, email(3));
    // A worker claimed it (attempt 1) and vanished: the row is left `sending` under a lease.
    await db
      .update(emailOutbox)
      .set({ status: "sending", attempts: 1, lockedUntil: new Date(clock.now().getTime() + 60_000) })
      .where(eq(emailOutbox.id, id));
    const w = worker({ now: clock.now });

    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(0);

    clock.advance(60_000);
    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    expect(await row(db, id)).toMatchObject({ status: "sent", attempts: 2 });
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts and leaves the message marked failed`, async () => {
    const { db } = database();
    await smtp.stop();
    const clock = testClock();
    const id = await enqueueEmail(db, email(4));
    const w = worker({ now: clock.now, backoff: () => 1_000 });

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await w.runOnce()).toBe(0);
      expect((await row(db, id))?.attempts).toBe(attempt);
      clock.advance(1_000);
    }
    const gaveUp = await row(db, id);
    expect(gaveUp).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    expect(gaveUp?.lastError).toMatch(/ECONNREFUSED/);

    await smtp.start();
    clock.advance(24 * 60 * 60_000);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(0);
  });

  it("sends due messages in order and leaves later ones for later", async () => {
    const { db } = database();
    const clock = testClock();
    const first = await enqueueEmail(db, email(5));
    const later = await enqueueEmail(db, email(6));
    await db
      .update(emailOutbox)
      .set({ nextAttemptAt: new Date(clock.now().getTime() + 10 * 60_000) })
      .where(eq(emailOutbox.id, later));
    const w = worker({ now: clock.now });
    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages.map((m) => m.headers["message-id"])).toEqual([`<outbox-${first}@rewards.test>`]);
    clock.advance(10 * 60_000);
    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages).toHaveLength(2);
  });

  it("the dev mailbox transport keeps the message and logs no body", async () => {
    const { db } = database();
    const content = email(7);
    const id = await enqueueEmail(db, content);
    const w = worker({ transport: devMailboxTransport(logs.logger) });
    expect(await w.runOnce()).toBe(1);
    expect(await row(db, id)).toMatchObject({ status: "sent", transport: "dev-mailbox" });
    expect(smtp.messages).toHaveLength(0);
    expect(logs.text()).toContain("recipient7@example.com");
    expect(logs.leaked("CODE-7")).toEqual([]);
  });
});

describe("backoffMs", () => {
  it("doubles from 5 s and is capped at 30 minutes", () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(backoffMs(30)).toBe(30 * 60_000);
    expect(backoffMs(0)).toBe(5_000);
  });
});
