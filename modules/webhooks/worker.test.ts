// The webhook delivery worker (ADR 0045) against a real HTTP receiver this test starts on
// 127.0.0.1, with the worker's clock injected: a delivery is signed so that the documented recipe
// verifies it (verifyWebhookSignature and an independent node:crypto HMAC here), a captured
// delivery replayed after the 5-minute window is refused by that verification, the Standard
// Webhooks headers verify with the off-the-shelf `standardwebhooks` library, a receiver that
// answers 500 for an hour gets each event exactly once afterwards, two workers at once send a
// delivery once, a delivery is given up after 72 hours, a redirect is not followed, and an
// Owner's re-send delivers again.
import { createHmac } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { eq } from "drizzle-orm";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, expect, it, vi } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { webhookDeliveries, webhookEndpoints } from "../../server/db/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { CreatedWebhookEndpoint, WebhookDeliveriesPage, WebhookPayload } from "./schema.ts";
import { resendDelivery } from "./service.server.ts";
import { verifyWebhookSignature } from "./signature.ts";
import { startWebhookWorker } from "./worker.server.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What the receiver saw of one request, and what it answered. */
interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  rawBody: string;
  answered: number;
}

/**
 * The receiver: verifies each request the documented way against `secret` at `clock()` (401 when
 * that fails), then answers `answer()` (500 while the test wants it down), counting the events it
 * accepted by id.
 */
function startReceiver() {
  const received: Received[] = [];
  const accepted = new Map<string, number>();
  const state = {
    secret: "",
    clock: () => new Date(),
    answer: (): number => 200,
    delayMs: 0,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (req.url === "/moved") {
        received.push({ path: req.url, headers: req.headers, rawBody, answered: 302 });
        res.writeHead(302, { location: "/elsewhere" }).end();
        return;
      }
      const check = verifyWebhookSignature(
        state.secret,
        req.headers["rewards-signature"] as string,
        rawBody,
        state.clock(),
      );
      let status = check.ok ? state.answer() : 401;
      if (status === 200) {
        const id = (JSON.parse(rawBody) as WebhookPayload).id;
        accepted.set(id, (accepted.get(id) ?? 0) + 1);
      }
      if (req.url === "/elsewhere") status = 200;
      received.push({ path: req.url ?? "", headers: req.headers, rawBody, answered: status });
      res
        .writeHead(status, { "content-type": "text/plain" })
        .end(check.ok ? `answer ${status}` : `refused: ${check.reason}`);
    });
  });
  return {
    state,
    received,
    accepted,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    /** Sends exactly these bytes and this header again, as an attacker who captured them would. */
    async replay(base: string, r: Received): Promise<number> {
      const res = await fetch(`${base}${r.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "rewards-signature": r.headers["rewards-signature"] as string },
        body: r.rawBody,
      });
      await res.text();
      return res.status;
    },
  };
}

type Verify = (secret: string, header: string, rawBody: string, now?: number) => boolean;

/** The API guide's (docs/API.md) "Webhooks" verification snippet, as a receiver would copy it, loaded as a module. */
async function readmeVerify(): Promise<Verify> {
  const guide = await readFile(new URL("../../docs/API.md", import.meta.url), "utf8");
  const section = guide.slice(guide.indexOf("## Webhooks"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error("docs/API.md: no js block in the Webhooks section");
  const file = join(await mkdtemp(join(tmpdir(), "readme-verify-")), "verify.mjs");
  await writeFile(file, `${code}\nexport { verify };\n`);
  return ((await import(pathToFileURL(file).href)) as { verify: Verify }).verify;
}

describeEachDatabase("webhook deliveries to a real receiver", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  const receiver = startReceiver();
  let base = "";
  beforeAll(async () => {
    base = await receiver.listen();
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    await truncateAll(db());
    receiver.received.length = 0;
    receiver.accepted.clear();
    receiver.state.answer = () => 200;
    receiver.state.delayMs = 0;
  });

  async function world(path = "/hook", events = ["order.released"]) {
    const ctx = paymentsApi(db(), { config });
    const owner = await payingManager(ctx.api, db(), "Alpha Pty Ltd");
    const endpoint = await owner.json<CreatedWebhookEndpoint>(
      "POST",
      "Webhooks",
      { url: `${base}${path}`, events },
      201,
    );
    receiver.state.secret = endpoint.secret;
    receiver.state.clock = ctx.clock.now;
    const logs = captureLogs("silent");
    const worker = (random = () => 0.5, batchSize?: number) =>
      startWebhookWorker({
        db: db(),
        config,
        logger: logs.logger,
        now: ctx.clock.now,
        autoStart: false,
        random,
        batchSize,
      });
    const release = async (amounts = [60, 40]) => {
      await seedDraft(db(), owner, amounts, "Quarterly Thanks");
      expect((await payDraftByCard(owner, amounts)).status).toBe("succeeded");
    };
    const ping = () =>
      owner.json<{ eventId: string; deliveryId: number }>("POST", `Webhooks/${endpoint.id}/ping`, undefined, 202);
    return { ...ctx, owner, endpoint, worker, release, ping };
  }

  it("signs each delivery so the documented recipe verifies it; a replay after 5 minutes is refused", async () => {
    const { endpoint, worker, release, clock } = await world();
    await release();
    const summary = await worker().runOnce();
    expect(summary).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received as [Received];
    expect(got.answered).toBe(200);
    expect(got.headers["content-type"]).toBe("application/json");

    // The body: the event's id, type, time and data (no access code or password anywhere).
    const body = JSON.parse(got.rawBody) as WebhookPayload;
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{24}$/),
      type: "order.released",
      createdAt: clock.now().toISOString(),
      data: expect.objectContaining({ rewardName: "Quarterly Thanks", rewardsCents: 10_000, recipients: 2 }),
    });
    expect(got.headers["rewards-event-id"]).toBe(body.id);
    expect(got.rawBody).not.toMatch(/accessCode|password/i);

    // The recipe written out independently: t and v1 from the header, HMAC-SHA256 of `${t}.${body}`.
    const header = got.headers["rewards-signature"] as string;
    const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]));
    expect(Number(parts.t)).toBe(Math.floor(clock.now().getTime() / 1000));
    const expected = createHmac("sha256", endpoint.secret).update(`${parts.t}.${got.rawBody}`).digest("hex");
    expect(parts.v1).toBe(expected);
    expect(verifyWebhookSignature(endpoint.secret, header, got.rawBody, clock.now())).toEqual({
      ok: true,
      timestamp: Number(parts.t),
    });
    // A changed body, another secret: refused.
    expect(verifyWebhookSignature(endpoint.secret, header, got.rawBody.replace("10000", "99999"), clock.now())).toEqual(
      {
        ok: false,
        reason: "mismatch",
      },
    );
    expect(verifyWebhookSignature(`${endpoint.secret}x`, header, got.rawBody, clock.now()).ok).toBe(false);

    // The API guide's recipe (docs/API.md), copied as a receiver would: verifies it, refuses a changed body.
    const readme = await readmeVerify();
    expect(readme(endpoint.secret, header, got.rawBody, clock.now().getTime())).toBe(true);
    expect(readme(endpoint.secret, header, `${got.rawBody} `, clock.now().getTime())).toBe(false);
    expect(readme(endpoint.secret, header, got.rawBody, clock.now().getTime() + 5 * MINUTE + 1000)).toBe(false);

    // The captured delivery sent again: accepted within the window, refused after it.
    clock.advance(4 * MINUTE);
    expect(await receiver.replay(base, got)).toBe(200);
    clock.advance(MINUTE + 1000);
    expect(await receiver.replay(base, got)).toBe(401);
    expect(receiver.received.at(-1)?.answered).toBe(401);
    expect(verifyWebhookSignature(endpoint.secret, header, got.rawBody, clock.now())).toEqual({
      ok: false,
      reason: "too_old",
    });
  });

  it("carries Standard Webhooks headers that the standardwebhooks library verifies with the secret as shown; a retry keeps its webhook-id", async () => {
    const { endpoint, worker, release, clock } = await world();
    receiver.state.answer = () => 500;
    await release();
    const w = worker();
    await w.runOnce();
    receiver.state.answer = () => 200;
    clock.advance(MINUTE);
    await w.runOnce();
    expect(receiver.received.map((r) => r.answered)).toEqual([500, 200]);
    const [first, retry] = receiver.received as [Received, Received];
    const body = JSON.parse(retry.rawBody) as WebhookPayload;
    // The id is the event's, on the first try and the retry alike; each try is signed at its own time.
    expect(first.headers["webhook-id"]).toBe(body.id);
    expect(retry.headers["webhook-id"]).toBe(body.id);
    expect(retry.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(Number(first.headers["webhook-timestamp"])).toBe(Number(retry.headers["webhook-timestamp"]) - 60);
    expect(retry.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The existing header is still there, unchanged.
    expect(retry.headers["rewards-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    // The library checks the timestamp against Date.now(): the test's clock stands in for it.
    vi.useFakeTimers({ toFake: ["Date"], now: clock.now() });
    try {
      const headers = {
        "webhook-id": retry.headers["webhook-id"] as string,
        "webhook-timestamp": retry.headers["webhook-timestamp"] as string,
        "webhook-signature": retry.headers["webhook-signature"] as string,
      };
      const hook = new Webhook(endpoint.secret);
      expect(hook.verify(retry.rawBody, headers)).toEqual(body);
      // A tampered body, another id, another secret: refused.
      expect(() => hook.verify(retry.rawBody.replace("10000", "99999"), headers)).toThrow(WebhookVerificationError);
      expect(() => hook.verify(retry.rawBody, { ...headers, "webhook-id": "evt_other" })).toThrow(
        WebhookVerificationError,
      );
      const other = new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`);
      expect(() => other.verify(retry.rawBody, headers)).toThrow(WebhookVerificationError);
      // Outside the library's 5 minutes: refused as a replay.
      vi.setSystemTime(clock.now().getTime() + 5 * MINUTE + 1000);
      expect(() => hook.verify(retry.rawBody, headers)).toThrow(/too old/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a receiver answering 500 for an hour gets each event afterwards exactly once", async () => {
    const { worker, release, ping, clock, owner, endpoint } = await world("/hook", ["order.released"]);
    const downUntil = clock.now().getTime() + HOUR;
    receiver.state.answer = () => (clock.now().getTime() < downUntil ? 500 : 200);
    await release([10]);
    await release([20, 30]);
    const { eventId: pingId } = await ping();
    const w = worker(Math.random);
    // Four hours in one-minute steps, a pass each.
    for (let minute = 0; minute <= 4 * 60; minute++) {
      await w.runOnce();
      clock.advance(MINUTE);
    }
    const failedTries = receiver.received.filter((r) => r.answered === 500);
    const okTries = receiver.received.filter((r) => r.answered === 200);
    // Retried while down (30 s, 1, 2, 4, 8, 16, 32 min: at least 6 tries each within the hour), then once each.
    expect(failedTries.length).toBeGreaterThanOrEqual(3 * 6);
    expect(okTries).toHaveLength(3);
    expect(receiver.accepted.size).toBe(3);
    expect([...receiver.accepted.values()]).toEqual([1, 1, 1]);
    expect(receiver.accepted.get(pingId)).toBe(1);
    const rows = await db().select().from(webhookDeliveries);
    expect(rows.map((r) => r.status)).toEqual(["delivered", "delivered", "delivered"]);
    for (const r of rows) {
      expect(r.deliveredAt!.getTime()).toBeGreaterThanOrEqual(downUntil);
      expect(r.attempts).toBeGreaterThan(6);
      expect(r.lastStatus).toBe(200);
    }
    // The deliveries page shows the outcome.
    const page = await owner.json<WebhookDeliveriesPage>("GET", `Webhooks/${endpoint.id}/deliveries`);
    expect(page.deliveries).toHaveLength(3);
    expect(page.deliveries[0]).toMatchObject({ status: "delivered", lastStatus: 200, lastResponse: "answer 200" });
  });

  it("two workers running at once send each delivery once", async () => {
    const { worker, ping } = await world();
    receiver.state.delayMs = 30;
    const ids: string[] = [];
    // As many as one endpoint's hourly ping budget allows (server/api/rate-limits.ts webhookSendEndpoint).
    for (let i = 0; i < 10; i++) ids.push((await ping()).eventId);
    // Small batches, so the two passes claim turn about while the other's calls are in flight.
    const [a, b] = [worker(undefined, 2), worker(undefined, 2)];
    const [sa, sb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(sa.delivered + sb.delivered).toBe(10);
    expect(receiver.received).toHaveLength(10);
    expect([...receiver.accepted.keys()].sort()).toEqual([...ids].sort());
    expect([...receiver.accepted.values()].every((n) => n === 1)).toBe(true);
    // Nothing is left to send.
    expect(await a.runOnce()).toEqual({ delivered: 0, retried: 0, failed: 0 });
  });

  it("gives up after 72 hours: failed, never tried again", async () => {
    const { worker, ping, clock } = await world();
    receiver.state.answer = () => 503;
    const { deliveryId } = await ping();
    const w = worker();
    for (let hour = 0; hour < 71; hour++) {
      await w.runOnce();
      clock.advance(HOUR);
    }
    let [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(row?.status).toBe("pending");
    clock.advance(2 * HOUR);
    await w.runOnce();
    [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(row).toMatchObject({ status: "failed", lastStatus: 503, lastResponse: "answer 503" });
    const tries = receiver.received.length;
    clock.advance(10 * HOUR);
    await w.runOnce();
    expect(receiver.received).toHaveLength(tries);
  });

  it("an Owner's re-send delivers the same event again, and a failed one after the endpoint is back", async () => {
    const { worker, ping, owner, endpoint, clock } = await world();
    const { eventId, deliveryId } = await ping();
    const w = worker();
    await w.runOnce();
    expect(receiver.accepted.get(eventId)).toBe(1);
    await owner.json("POST", `Webhooks/${endpoint.id}/deliveries/${deliveryId}/resend`, undefined, 202);
    await w.runOnce();
    expect(receiver.accepted.get(eventId)).toBe(2);

    // Given up while down; re-sent by hand once it is up: delivered, with a new window.
    receiver.state.answer = () => 500;
    const second = await ping();
    for (let hour = 0; hour < 74; hour++) {
      await w.runOnce();
      clock.advance(HOUR);
    }
    let [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, second.deliveryId));
    expect(row?.status).toBe("failed");
    receiver.state.answer = () => 200;
    // The access token of three days ago has expired: the Owner's re-send straight through the domain.
    const actor = { companyId: owner.companyId, userId: owner.userId };
    expect(await resendDelivery(db(), actor, endpoint.id, second.deliveryId, clock.now())).toBe("queued");
    [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, second.deliveryId));
    expect(row?.status).toBe("pending");
    expect(row?.giveUpAt.getTime()).toBe(clock.now().getTime() + 72 * HOUR);
    await w.runOnce();
    expect(receiver.accepted.get(second.eventId)).toBe(1);
    [row] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, second.deliveryId));
    expect(row?.status).toBe("delivered");
  });

  it("in a deployment, does not call a name that resolves to a private address (checked again at delivery)", async () => {
    const { ping, clock, endpoint } = await world();
    // As if the name had changed its answer since registration: localhost resolves to loopback.
    await db()
      .update(webhookEndpoints)
      .set({ url: base.replace("127.0.0.1", "localhost").replace("http:", "https:") })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await ping();
    const deployed = startWebhookWorker({
      db: db(),
      config: { ...config, isDeployment: true },
      logger: captureLogs("silent").logger,
      now: clock.now,
      autoStart: false,
    });
    expect(await deployed.runOnce()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(receiver.received).toHaveLength(0);
    const [row] = await db().select().from(webhookDeliveries);
    expect(row?.lastStatus).toBeNull();
    expect(row?.lastResponse).toMatch(/^Not sent: localhost resolves to (127\.0\.0\.1|::1), a private address\.$/);
  });

  it("does not follow a redirect: a 3xx is not a delivery", async () => {
    const { worker, ping } = await world("/moved");
    await ping();
    expect(await worker().runOnce()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    expect(receiver.received.map((r) => r.path)).toEqual(["/moved"]);
    const [row] = await db().select().from(webhookDeliveries);
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: 302 });
  });
});
