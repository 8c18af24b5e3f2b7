// Settings › Webhooks through the real edge and route modules (tests/security/web.ts), as a browser
// without JavaScript posts it: an Owner registers an endpoint (URL and ticked events) and sees its
// secret once in the action's answer (never on the page afterwards), sends a test ping, re-sends
// the delivery from the endpoint's deliveries page, and deletes the endpoint; a bad URL or no
// event is answered on the form with nothing changed; a Manager gets the Owner-only message.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import type {
  CreatedWebhookEndpoint,
  WebhookDeliveriesPage,
  WebhookEndpointView,
} from "../../../modules/webhooks/schema.ts";
import { webhookDeliveries, webhookEndpoints } from "../../../server/db/schema.ts";
import { buildWorld, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";

const PAGE = "/portal/settings/webhooks";
const ROUTE = "features/settings/portal.settings.webhooks";
const DELIVERIES_ROUTE = "features/settings/portal.settings.webhook-deliveries";

interface Browser {
  jar: Jar;
  csrf: string;
  honeypot: string;
}

describeEachDatabase("Settings › Webhooks pages", ({ kind }) => {
  let app: WebApplication;
  let w: World;

  beforeAll(async () => {
    app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
    w = await buildWorld(app.database.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  function post(b: Browser, fields: [string, string][], url = PAGE) {
    const body = new URLSearchParams([["csrf", b.csrf], [b.honeypot, ""], ...fields]);
    return app.request(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: b.jar.header(), origin: app.origin },
    });
  }

  async function logIn(email: string): Promise<Browser> {
    const jar = new Jar();
    const first = await app.request("/corporate/login");
    jar.take(first);
    const root = (await rendered(first)).loaderData.root as { csrf: string; honeypot: { nameFieldName: string } };
    const b = { jar, csrf: root.csrf, honeypot: root.honeypot.nameFieldName };
    const res = await app.request("/corporate/login", {
      method: "POST",
      body: new URLSearchParams({ userName: email, password: PASSWORD, csrf: b.csrf, [b.honeypot]: "" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: app.origin },
    });
    expect(res.status, await res.clone().text()).toBe(302);
    jar.take(res);
    const page = await app.request(PAGE, { headers: { cookie: jar.header() } });
    expect(page.status).toBe(200);
    jar.take(page);
    return { ...b, csrf: ((await rendered(page)).loaderData.root as { csrf: string }).csrf };
  }

  async function pageData(b: Browser) {
    const res = await app.request(PAGE, { headers: { cookie: b.jar.header() } });
    expect(res.status).toBe(200);
    return (await rendered(res)).loaderData[ROUTE] as { ownerOnly: boolean; endpoints: WebhookEndpointView[] };
  }

  it("an Owner registers an endpoint, sees its secret once, pings it, re-sends the delivery and deletes it", async () => {
    const a = await logIn(w.a.email);
    expect((await pageData(a)).endpoints).toEqual([]);

    const res = await post(a, [
      ["intent", "register"],
      ["url", "http://127.0.0.1:9/hook"],
      ["events", "order.released"],
      ["events", "email.failed"],
    ]);
    expect(res.status).toBe(200);
    const answer = (await rendered(res)).actionData?.[ROUTE] as { created?: CreatedWebhookEndpoint } | undefined;
    const created = answer?.created;
    if (!created) throw new Error(`no endpoint in the action's answer: ${JSON.stringify(answer)}`);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.events).toEqual(["order.released", "email.failed"]);

    // The page afterwards lists the endpoint without its secret.
    const again = await app.request(PAGE, { headers: { cookie: a.jar.header() } });
    expect(await again.clone().text()).not.toContain(created.secret);
    const listed = (await rendered(again)).loaderData[ROUTE] as { endpoints: WebhookEndpointView[] };
    expect(listed.endpoints.map((e) => e.url)).toEqual(["http://127.0.0.1:9/hook"]);

    // One ticked event is one value, not a list: still accepted.
    const one = await post(a, [
      ["intent", "register"],
      ["url", "http://localhost:9/other"],
      ["events", "reward.expired"],
    ]);
    expect(one.status).toBe(200);

    const ping = await post(a, [
      ["intent", "ping"],
      ["endpointId", String(created.id)],
    ]);
    expect(ping.status).toBe(302);
    const deliveriesUrl = `${PAGE}/${created.id}`;
    expect(ping.headers.get("location")).toBe(deliveriesUrl);
    const pane = await app.request(deliveriesUrl, { headers: { cookie: a.jar.header() } });
    expect(pane.status).toBe(200);
    const data = (await rendered(pane)).loaderData[DELIVERIES_ROUTE] as { state: string; page: WebhookDeliveriesPage };
    expect(data.state).toBe("ok");
    // The app's own worker may already have tried it (nothing listens on port 9): any state but delivered.
    expect(data.page.deliveries).toMatchObject([{ eventType: "ping", eventId: expect.stringMatching(/^evt_/) }]);
    expect(data.page.deliveries[0]?.status).not.toBe("delivered");
    const deliveryId = data.page.deliveries[0]!.id;

    await app.database.db
      .update(webhookDeliveries)
      .set({ status: "failed", lastStatus: 500 })
      .where(eq(webhookDeliveries.id, deliveryId));
    const resend = await post(
      a,
      [
        ["intent", "resend"],
        ["deliveryId", String(deliveryId)],
      ],
      deliveriesUrl,
    );
    expect(resend.status).toBe(302);
    const [row] = await app.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(row?.status).toBe("pending");

    const remove = await post(a, [
      ["intent", "delete"],
      ["endpointId", String(created.id)],
    ]);
    expect(remove.status).toBe(302);
    const [gone] = await app.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(gone?.deletedAt).not.toBeNull();
    // Another company's (or an unknown) endpoint's pane says not found.
    const other = await app.request(`${PAGE}/999999`, { headers: { cookie: a.jar.header() } });
    expect(((await rendered(other)).loaderData[DELIVERIES_ROUTE] as { state: string }).state).toBe("not-found");
  });

  it("a bad URL or no event is answered on the form, and nothing changes", async () => {
    const a = await logIn(w.a.email);
    const before = await app.database.db.select().from(webhookEndpoints);
    const http = await post(a, [
      ["intent", "register"],
      ["url", "http://example.com/hook"],
      ["events", "order.released"],
    ]);
    expect(http.status).toBe(400);
    expect(await http.text()).toContain("URL must start with https://.");
    const none = await post(a, [
      ["intent", "register"],
      ["url", "https://example.com/hook"],
    ]);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Choose at least one event.");
    expect(await app.database.db.select().from(webhookEndpoints)).toEqual(before);
  });

  it("a Manager sees the Owner-only message on both pages, and a post changes nothing", async () => {
    const m = await logIn(w.aManager.email);
    expect(await pageData(m)).toEqual({ ownerOnly: true, endpoints: [] });
    const pane = await app.request(`${PAGE}/1`, { headers: { cookie: m.jar.header() } });
    expect(((await rendered(pane)).loaderData[DELIVERIES_ROUTE] as { state: string }).state).toBe("owner-only");
    const before = await app.database.db.select().from(webhookEndpoints);
    const res = await post(m, [
      ["intent", "register"],
      ["url", "http://127.0.0.1:9/hook"],
      ["events", "order.released"],
    ]);
    expect(res.status).toBe(403);
    expect(await app.database.db.select().from(webhookEndpoints)).toEqual(before);
  });
});
