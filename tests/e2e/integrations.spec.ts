// A company rewarding from its own system (ADR 0028, ADR 0044), in every project (desktop and
// phone, JavaScript on and off): an Owner creates an API key, tops up the prepaid balance with the
// simulated card and registers a webhook endpoint (a real HTTP receiver this test starts), all
// through the portal's forms; then the "system" places an order with plain HTTP requests as curl
// would, sees it released, and the signed order.released delivery arrives and is listed in the
// portal. The API reference page shows the call it just made.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../../modules/webhooks/signature.ts";
import { test } from "./fixtures.ts";
import { expect, shoot, uniqueToken } from "./support.ts";

interface Received {
  body: string;
  signature: string;
  eventId: string;
}

/** A webhook receiver on 127.0.0.1 that keeps every request and answers 200. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({
        body,
        signature: String(req.headers["rewards-signature"] ?? ""),
        eventId: String(req.headers["rewards-event-id"] ?? ""),
      });
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/rewards`, received, server };
}

test("a system rewards with a key: top-up by card, webhook registered, order placed by HTTP, released, delivery signed and listed", {
  tag: "@journey",
}, async ({ page, request, manager: _ }) => {
  const receiver = await startReceiver();
  try {
    // 1. An API key, shown once.
    await page.goto("/portal/settings/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("Payroll sync");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#new-api-key-value").inputValue();
    expect(key).toMatch(/^rk_/);

    // 2. The balance topped up with the simulated card.
    await page.goto("/portal/settings/balance");
    await page.getByLabel("Amount (AUD)").fill("500");
    await page.getByRole("button", { name: "Top up" }).click();
    await expect(page).toHaveURL(/\/portal\/settings\/balance\/top-ups\/\d+$/);
    await page.getByLabel("Card number", { exact: true }).fill("4242 4242 4242 4242");
    await page.getByLabel("Expiry (MM/YY)").fill("12/34");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Name on card").fill("Olive Owner");
    await page.getByRole("button", { name: "Pay $500.00" }).click();
    await expect(page).toHaveURL(/\/portal\/settings\/balance$/);
    await expect(page.getByText("Your balance was topped up by $500.00.")).toBeVisible();
    await shoot(page, "balance-topped-up");

    // 3. A webhook endpoint for released orders; its signing secret, shown once.
    await page.goto("/portal/settings/webhooks");
    await page.getByLabel("Endpoint URL").fill(receiver.url);
    await page.getByRole("checkbox", { name: /Order released/ }).check();
    await page.getByRole("button", { name: "Register endpoint" }).click();
    const secret = await page.locator("#new-webhook-secret-value").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shoot(page, "webhook-registered");

    // 4. The system's order, as curl would send it; a retry with the same key is the same order.
    const idempotencyKey = `payroll-${uniqueToken()}`;
    const body = {
      rewardName: "Payroll bonus",
      message: "Thanks for a great month!",
      recipients: [
        { email: `ana.${uniqueToken()}@example.com`, firstName: "Ana", lastName: "Lee", amount: 50 },
        { email: `ben.${uniqueToken()}@example.com`, firstName: "Ben", lastName: "Ng", amount: 25 },
      ],
    };
    const headers = { authorization: `Bearer ${key}`, "idempotency-key": idempotencyKey };
    const placed = await request.post("/api/v1/orders", { headers, data: body });
    expect(placed.status(), await placed.text()).toBe(201);
    const order = (await placed.json()) as { orderId: number; state: string; totalCents: number };
    expect(order).toMatchObject({ state: "released", totalCents: 75_00 + 7_50 + 75 });
    const replay = await request.post("/api/v1/orders", { headers, data: body });
    expect(replay.status()).toBe(200);
    expect(((await replay.json()) as { orderId: number }).orderId).toBe(order.orderId);
    const read = await request.get(`/api/v1/orders/${order.orderId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await read.json()) as { recipients: unknown[] }).recipients).toHaveLength(2);

    // 5. The signed delivery arrives once, and verifies with the documented recipe.
    await expect
      .poll(() => receiver.received.filter((r) => r.body.includes('"order.released"')).length, { timeout: 20_000 })
      .toBe(1);
    const delivery = receiver.received.find((r) => r.body.includes('"order.released"')) as Received;
    expect(verifyWebhookSignature(secret, delivery.signature, delivery.body, new Date())).toMatchObject({ ok: true });
    const event = JSON.parse(delivery.body) as { id: string; type: string; data: { orderId: number } };
    expect(event).toMatchObject({ id: delivery.eventId, type: "order.released", data: { orderId: order.orderId } });

    // 6. The portal lists it, delivered. The balance shows the order's charge.
    await page.goto("/portal/settings/webhooks");
    await page.getByRole("link", { name: `Deliveries to ${receiver.url}` }).click();
    await expect(page).toHaveURL(/\/portal\/settings\/webhooks\/\d+$/);
    const row = page.getByRole("row").filter({ hasText: event.id });
    await expect(row).toContainText("Order released");
    await expect(row).toContainText("Delivered (HTTP 200)");
    await shoot(page, "webhook-deliveries");
    await page.goto("/portal/settings/balance");
    await expect(page.getByText("$416.75").first()).toBeVisible();

    // 7. The reference page describes the call the system made.
    await page.goto("/portal/settings/api-keys/reference");
    await expect(page.getByRole("heading", { name: "POST /api/v1/orders" })).toBeVisible();
    await expect(page.getByText("Idempotency-Key").first()).toBeVisible();
    await shoot(page, "api-reference");
  } finally {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
});

test("a system's order at or above the threshold waits for an Owner, whose approval in the portal pays it from the balance and sends it", {
  tag: "@journey",
}, async ({ page, request, manager }) => {
  const api = (method: "post" | "put", path: string, data: unknown) =>
    request[method](path, { headers: manager.headers, data });
  expect((await api("put", "/api/Approvals/threshold", { thresholdDollars: 100 })).status()).toBe(200);
  const key = ((await (await api("post", "/api/ApiKeys", { name: "HR platform" })).json()) as { key: string }).key;
  const topUp = (await (await api("post", "/api/Balance/TopUps", { amount: 300_00 })).json()) as { topUpId: number };
  const paid = await api("post", `/api/Balance/TopUps/${topUp.topUpId}/pay-simulated`, {
    cardNumber: "4242424242424242",
    expiry: "12/34",
    cvc: "123",
    nameOnCard: "Olive Owner",
  });
  expect(((await paid.json()) as { status: string }).status).toBe("succeeded");

  const rewardName = `Service award ${uniqueToken()}`;
  const placed = await request.post("/api/v1/orders", {
    headers: { authorization: `Bearer ${key}`, "idempotency-key": uniqueToken() },
    data: {
      rewardName,
      recipients: [{ email: `cy.${uniqueToken()}@example.com`, firstName: "Cy", lastName: "Wu", amount: 100 }],
    },
  });
  expect(placed.status(), await placed.text()).toBe(202);
  const order = (await placed.json()) as { orderId: number; state: string };
  expect(order.state).toBe("awaiting_approval");

  await page.goto(`/portal/approvals/${order.orderId}`);
  await expect(page.getByRole("heading", { name: rewardName })).toBeVisible();
  await expect(page.getByText("Requested by API key “HR platform”")).toBeVisible();
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("It was paid from the company balance and sent.")).toBeVisible();
  await shoot(page, "api-order-approved");

  const read = await request.get(`/api/v1/orders/${order.orderId}`, { headers: { authorization: `Bearer ${key}` } });
  expect(await read.json()).toMatchObject({
    state: "released",
    paidFrom: "balance",
    totalCents: 100_00 + 10_00 + 1_00,
  });
});
