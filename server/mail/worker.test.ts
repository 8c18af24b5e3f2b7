// The mail outbox against a real SMTP server (smtp-server on a loopback port): delivered once,
// each message marked sent as soon as the server has accepted it (the marks of messages delivered
// while the database is busy go together), the claim renewed for as long as a send lasts; retried with backoff while the server is down (for 72 hours since queued), delivered once it is
// back, never twice; a message the server refuses for good is marked failed at once; a delivered
// message's body is redacted unless the transport is the dev mailbox (the row is its mailbox).
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { createSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import type { Db } from "../db/client.ts";
import { emailOutbox } from "../db/schema.ts";
import { enqueueEmail, REDACTED_AFTER_DELIVERY, REDACTED_NOT_DELIVERED } from "./outbox.ts";
import type { MailTransport, OutgoingEmail } from "./port.ts";
import { renderEmail } from "./templates/render.ts";
import { devMailboxTransport, isPermanentSmtpFailure, smtpTransport } from "./transports.ts";
import {
  mailBackoffMs as backoffMs,
  type MailWorker,
  type MailWorkerOptions,
  RETRY_WINDOW_MS,
  startMailWorker,
} from "./worker.ts";

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

/** A promise the test opens when it chooses. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
    smtp.refuseConnections = undefined;
    smtp.rejectRecipient = undefined;
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

    // Delivered: the body (here the access code) is gone from the row; who, what and when stay.
    const sent = await row(db, id);
    expect(sent).toMatchObject({
      status: "sent",
      attempts: 1,
      lastError: null,
      lockedUntil: null,
      transport: "smtp",
      sentAt: clock.now(),
      toAddress: "recipient1@example.com",
      subject: "Your reward #1",
      html: REDACTED_AFTER_DELIVERY,
      text: REDACTED_AFTER_DELIVERY,
    });
    expect(JSON.stringify(sent)).not.toContain("CODE-1");

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

  /** The real SMTP transport, with hooks around each send. */
  function smtpWith(hooks: {
    before?: (message: OutgoingEmail) => Promise<void> | void;
    after?: (message: OutgoingEmail) => void;
  }): MailTransport {
    const real = smtpTransport(smtp.url, APP_URL);
    return {
      ...real,
      async send(message) {
        await hooks.before?.(message);
        await real.send(message);
        hooks.after?.(message);
      },
    };
  }

  it("marks a delivered message sent at once, while another message of its batch is still being sent", async () => {
    const { db } = database();
    const first = await enqueueEmail(db, email(20));
    const second = await enqueueEmail(db, email(21));
    const hang = gate();
    let secondStarted = false;
    const w = worker({
      transport: smtpWith({
        async before(message) {
          if (message.id !== second) return;
          secondStarted = true;
          await hang.opened;
        },
      }),
    });

    const pass = w.runOnce();
    try {
      // Accepted by the SMTP server and marked sent (redacted) while the second send still hangs:
      // a process killed now would not send the first one again.
      await vi.waitFor(async () => expect((await row(db, first))?.status).toBe("sent"), { timeout: 5_000 });
      expect(secondStarted).toBe(true);
      expect(await row(db, first)).toMatchObject({
        lockedUntil: null,
        transport: "smtp",
        html: REDACTED_AFTER_DELIVERY,
      });
      expect(await row(db, second)).toMatchObject({ status: "sending", sentAt: null, html: email(21).html });
      expect(smtp.messages.map((m) => m.headers["message-id"])).toEqual([`<outbox-${first}@rewards.test>`]);
    } finally {
      hang.open();
    }
    expect(await pass).toBe(2);
    expect(await row(db, second)).toMatchObject({ status: "sent", html: REDACTED_AFTER_DELIVERY });
    expect(smtp.messages).toHaveLength(2);
  });

  it("while the database is slow, the lanes keep sending and the marks waiting meanwhile go in one statement", async () => {
    const { db } = database();
    for (let n = 0; n < 12; n++) await enqueueEmail(db, email(30 + n));
    // Once the batch is claimed, a transaction of the test holds its rows (on PGlite, the whole
    // database), so the first statement that marks a message sent waits for it.
    const locked = gate();
    const release = gate();
    let holder: Promise<void> | undefined;
    const w = worker({
      transport: smtpWith({
        async before() {
          holder ??= db.transaction(async (tx) => {
            await tx.select({ id: emailOutbox.id }).from(emailOutbox).for("update");
            locked.open();
            await release.opened;
          });
          await locked.opened;
        },
      }),
    });
    const records = (msg: string) => logs.records().filter((r) => r.msg === msg);

    const pass = w.runOnce();
    try {
      await vi.waitFor(() => expect(records("email sent")).toHaveLength(12), { timeout: 5_000 });
      expect(records("emails marked sent")).toEqual([]);
    } finally {
      release.open();
    }
    await holder;
    expect(await pass).toBe(12);
    // The first delivered message's mark, held up; then the eleven delivered meanwhile, together.
    expect(records("emails marked sent").map((r) => r.emails)).toEqual([1, 11]);
    expect(new Set(smtp.messages.map((m) => m.headers["message-id"])).size).toBe(12);
    const rows = await db.select().from(emailOutbox);
    expect(rows.every((r) => r.status === "sent" && r.attempts === 1 && r.html === REDACTED_AFTER_DELIVERY)).toBe(true);
  });

  it("a mark statement that fails fails the pass, and the lanes stop taking messages", async () => {
    const { db } = database();
    const clock = testClock();
    for (let n = 0; n < 4; n++) await enqueueEmail(db, email(60 + n), clock.now());
    // The database refuses to mark anything sent (NOT VALID: existing rows are not checked).
    await db.execute(sql`alter table email_outbox add constraint test_never_sent check (status <> 'sent') not valid`);
    try {
      let sends = 0;
      const w = worker({
        now: clock.now,
        concurrency: 1,
        // The second send starts at once and returns after the first mark has failed.
        transport: smtpWith({ before: () => (++sends === 2 ? sleep(300) : undefined) }),
      });
      const failure = await w.runOnce().then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure?.message).toMatch(/^Failed query: update "email_outbox" set /);
      expect(String(failure?.cause)).toMatch(/test_never_sent/);
      // The two delivered are left `sending`, as after a kill; the other two were not sent.
      expect(smtp.messages).toHaveLength(2);
      const rows = await db.select().from(emailOutbox);
      expect(rows.map((r) => r.status)).toEqual(["sending", "sending", "sending", "sending"]);
    } finally {
      await db.execute(sql`alter table email_outbox drop constraint test_never_sent`);
    }
  });

  it("keeps its claim while a send outlasts the lease: renewed, so no other worker takes the message", async () => {
    const { db } = database();
    const id = await enqueueEmail(db, email(40));
    const hang = gate();
    let started = false;
    const slow = worker({
      leaseMs: 2_400,
      transport: smtpWith({
        async before() {
          started = true;
          await hang.opened;
        },
      }),
    });
    const other = worker({ leaseMs: 2_400 });

    const pass = slow.runOnce();
    try {
      await vi.waitFor(() => expect(started).toBe(true), { timeout: 5_000 });
      const claimed = await row(db, id);
      expect(claimed?.status).toBe("sending");
      // Two leases long, the message stays claimed, its lease always ahead, and the other worker
      // finds nothing to send.
      const end = Date.now() + 5_000;
      while (Date.now() < end) {
        expect(await other.runOnce()).toBe(0);
        const r = await row(db, id);
        expect(r?.status).toBe("sending");
        expect(r?.lockedUntil?.getTime()).toBeGreaterThan(Date.now());
        await sleep(200);
      }
      expect((await row(db, id))?.lockedUntil?.getTime()).toBeGreaterThan(claimed?.lockedUntil?.getTime() ?? 0);
    } finally {
      hang.open();
    }
    expect(await pass).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    expect(await row(db, id)).toMatchObject({ status: "sent", attempts: 1, lockedUntil: null });
  });

  it("stops taking messages from its batch once its lease can no longer be counted on; the rest go back when it runs out", async () => {
    const { db } = database();
    const clock = testClock();
    const ids: number[] = [];
    for (let n = 0; n < 3; n++) ids.push(await enqueueEmail(db, email(50 + n), clock.now()));
    let sends = 0;
    const w = worker({
      now: clock.now,
      concurrency: 1,
      leaseMs: 30_000,
      transport: smtpWith({
        after() {
          // As if every renewal had failed since the claim: by the worker's clock the lease is over.
          if (++sends === 1) clock.advance(30_000);
        },
      }),
    });

    expect(await w.runOnce()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    const rows = await Promise.all(ids.map((id) => row(db, id)));
    expect(rows.map((r) => [r?.status, r?.attempts])).toEqual([
      ["sent", 1],
      ["sending", 1],
      ["sending", 1],
    ]);
    expect(logs.text()).toMatch(/email lease could not be renewed/);

    // Their lease has run out: the next pass takes them back and sends each once.
    expect(await w.runOnce()).toBe(2);
    expect(smtp.messages.map((m) => m.headers["message-id"]).sort()).toEqual(
      ids.map((id) => `<outbox-${id}@rewards.test>`).sort(),
    );
    expect((await Promise.all(ids.map((id) => row(db, id)))).map((r) => [r?.status, r?.attempts])).toEqual([
      ["sent", 1],
      ["sent", 2],
      ["sent", 2],
    ]);
  });

  it("retries transient failures for 72 hours since the message was queued, then marks it failed", async () => {
    const { db } = database();
    await smtp.stop();
    const clock = testClock();
    const queuedAt = clock.now().getTime();
    const id = await enqueueEmail(db, email(4), clock.now());
    const w = worker({ now: clock.now });

    // The production backoff, followed attempt by attempt: the clock jumps to each retry.
    let attempts = 0;
    for (;;) {
      expect(await w.runOnce()).toBe(0);
      attempts++;
      const r = await row(db, id);
      expect(r?.attempts).toBe(attempts);
      if (r?.status !== "pending") break;
      expect(r.lastError).toMatch(/ECONNREFUSED/);
      expect(r.html).toBe(email(4).html);
      const wait = r.nextAttemptAt.getTime() - clock.now().getTime();
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(30 * 60_000);
      clock.advance(wait);
    }
    // The attempt that gave up was the first one at or after 72 hours, not a fixed count: about
    // two tries an hour once the backoff reached its 30-minute cap.
    const elapsed = clock.now().getTime() - queuedAt;
    expect(RETRY_WINDOW_MS).toBe(72 * 60 * 60_000);
    expect(elapsed).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    expect(elapsed).toBeLessThan(RETRY_WINDOW_MS + 30 * 60_000);
    expect(attempts).toBeGreaterThan(140);
    const gaveUp = await row(db, id);
    expect(gaveUp).toMatchObject({
      status: "failed",
      toAddress: "recipient4@example.com",
      subject: "Your reward #4",
      sentAt: null,
      lockedUntil: null,
      html: REDACTED_NOT_DELIVERED,
      text: REDACTED_NOT_DELIVERED,
    });
    expect(gaveUp?.lastError).toMatch(/^No delivery within 72 hours; last error: .*ECONNREFUSED/);

    await smtp.start();
    clock.advance(24 * 60 * 60_000);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(0);
  });

  it("marks a message refused with a 5xx failed at once, with the reason, redacted, and never retries it", async () => {
    const { db } = database();
    const clock = testClock();
    smtp.rejectRecipient = (address) =>
      address === "recipient8@example.com" ? { code: 550, message: "5.1.1 No such user here" } : undefined;
    const refused = await enqueueEmail(db, email(8), clock.now());
    const fine = await enqueueEmail(db, email(9), clock.now());
    const w = worker({ now: clock.now });

    expect(await w.runOnce()).toBe(1);
    const failed = await row(db, refused);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 1,
      sentAt: null,
      toAddress: "recipient8@example.com",
      subject: "Your reward #8",
      html: REDACTED_NOT_DELIVERED,
      text: REDACTED_NOT_DELIVERED,
    });
    expect(failed?.lastError).toMatch(/550 5\.1\.1 No such user here/);
    expect(await row(db, fine)).toMatchObject({ status: "sent", html: REDACTED_AFTER_DELIVERY });
    expect(smtp.messages.map((m) => m.to)).toEqual([["recipient9@example.com"]]);
    // The log says why, without the body.
    expect(logs.text()).toMatch(/email refused for good/);
    expect(logs.leaked("CODE-8")).toEqual([]);

    // Even once the server would accept it, a failed message is not tried again.
    smtp.rejectRecipient = undefined;
    clock.advance(RETRY_WINDOW_MS);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.messages).toHaveLength(1);
    expect((await row(db, refused))?.attempts).toBe(1);
  });

  it("marks an address the transport refuses outright failed at once", async () => {
    const { db } = database();
    const id = await enqueueEmail(db, { ...email(10), to: "not an address" });
    expect(await worker().runOnce()).toBe(0);
    const failed = await row(db, id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, html: REDACTED_NOT_DELIVERED });
    expect(failed?.lastError).toMatch(/No recipients defined/);
  });

  it("treats 4xx replies (421 at connect, 450 at RCPT TO) as transient: retried, then delivered once", async () => {
    const { db } = database();
    const clock = testClock();
    const id = await enqueueEmail(db, email(11), clock.now());
    const w = worker({ now: clock.now });

    smtp.refuseConnections = { code: 421, message: "4.3.2 Service not available, try later" };
    expect(await w.runOnce()).toBe(0);
    expect(await row(db, id)).toMatchObject({ status: "pending", attempts: 1, html: email(11).html });
    expect((await row(db, id))?.lastError).toMatch(/421 4\.3\.2/);

    smtp.refuseConnections = undefined;
    smtp.rejectRecipient = () => ({ code: 450, message: "4.2.1 Mailbox busy" });
    clock.advance(backoffMs(1));
    expect(await w.runOnce()).toBe(0);
    expect(await row(db, id)).toMatchObject({ status: "pending", attempts: 2 });
    expect((await row(db, id))?.lastError).toMatch(/450 4\.2\.1 Mailbox busy/);

    smtp.rejectRecipient = undefined;
    clock.advance(backoffMs(2));
    expect(await w.runOnce()).toBe(1);
    expect(await row(db, id)).toMatchObject({ status: "sent", attempts: 3, lastError: null });
    expect(smtp.messages).toHaveLength(1);
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

  it("the dev mailbox transport keeps the message readable (the row is the mailbox) and logs no body", async () => {
    const { db } = database();
    const content = email(7);
    const id = await enqueueEmail(db, content);
    const w = worker({ transport: devMailboxTransport(logs.logger) });
    expect(await w.runOnce()).toBe(1);
    expect(await row(db, id)).toMatchObject({
      status: "sent",
      transport: "dev-mailbox",
      html: content.html,
      text: content.text,
    });
    expect((await row(db, id))?.text).toContain("CODE-7");
    expect(smtp.messages).toHaveLength(0);
    expect(logs.text()).toContain("recipient7@example.com");
    expect(logs.leaked("CODE-7")).toEqual([]);
  });
});

describe("isPermanentSmtpFailure", () => {
  it("is true only for a refusal of this message, not of our own setup or a passing condition", () => {
    // Shapes of nodemailer's errors (seen against smtp-server; nodemailer sets `permanent`).
    expect(isPermanentSmtpFailure({ code: "EENVELOPE", command: "RCPT TO", responseCode: 550, permanent: true })).toBe(
      true,
    );
    expect(isPermanentSmtpFailure({ code: "EMESSAGE", command: "DATA", responseCode: 554, permanent: true })).toBe(
      true,
    );
    expect(isPermanentSmtpFailure({ code: "EENVELOPE", command: "API" })).toBe(true);
    expect(isPermanentSmtpFailure({ code: "EENVELOPE", command: "RCPT TO", responseCode: 450, permanent: false })).toBe(
      false,
    );
    expect(isPermanentSmtpFailure({ code: "EPROTOCOL", command: "CONN", responseCode: 421, permanent: false })).toBe(
      false,
    );
    expect(isPermanentSmtpFailure({ code: "ESOCKET", originalCode: "ECONNREFUSED" })).toBe(false);
    expect(isPermanentSmtpFailure({ code: "ETIMEDOUT" })).toBe(false);
    // Wrong credentials or a refused sender: every message would fail, and an operator can fix it.
    expect(isPermanentSmtpFailure({ code: "EAUTH", command: "AUTH PLAIN", responseCode: 535, permanent: true })).toBe(
      false,
    );
    expect(
      isPermanentSmtpFailure({ code: "EENVELOPE", command: "MAIL FROM", responseCode: 550, permanent: true }),
    ).toBe(false);
    expect(isPermanentSmtpFailure(new Error("boom"))).toBe(false);
    expect(isPermanentSmtpFailure("boom")).toBe(false);
  });
});

describe("backoffMs", () => {
  it("doubles from 5 s and is capped at 30 minutes", () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(backoffMs(30)).toBe(30 * 60_000);
    expect(backoffMs(0)).toBe(5_000);
  });
});
