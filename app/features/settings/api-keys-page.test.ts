// Settings › API keys through the real edge and route modules (tests/security/web.ts), as a browser
// without JavaScript posts it: an Owner creates a key and sees it once in the action's answer (the
// list never holds it), revokes it with the row's button; a Manager gets the Owner-only message.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ApiKeyView, CreatedApiKey } from "../../../modules/api-keys/schema.ts";
import { PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import { sha256Hex } from "../../../modules/identity/identity-crypto.server.ts";
import { apiKeys } from "../../../server/db/schema.ts";
import { buildWorld, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";

const PAGE = "/portal/settings/api-keys";
const ROUTE = "features/settings/portal.settings.api-keys";

interface Browser {
  jar: Jar;
  csrf: string;
  honeypot: string;
}

describeEachDatabase("Settings › API keys page", ({ kind }) => {
  let app: WebApplication;
  let w: World;

  beforeAll(async () => {
    app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
    w = await buildWorld(app.database.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  function post(b: Browser, fields: Record<string, string>) {
    return app.request(PAGE, {
      method: "POST",
      body: new URLSearchParams({ csrf: b.csrf, [b.honeypot]: "", ...fields }),
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
    return (await rendered(res)).loaderData[ROUTE] as { ownerOnly: boolean; keys: ApiKeyView[] };
  }

  it("an Owner creates a key, sees it once in the answer, and revokes it", async () => {
    const a = await logIn(w.a.email);
    expect((await pageData(a)).keys.map((k) => k.name)).toEqual(["Alpha sync"]);

    const day = new Date(Date.now() + 30 * 24 * 60 * 60_000).toISOString().slice(0, 10);
    const res = await post(a, { intent: "create", name: "Payroll", expiresOn: day });
    expect(res.status).toBe(200);
    const answer = (await rendered(res)).actionData?.[ROUTE] as { created?: CreatedApiKey } | undefined;
    const created = answer?.created;
    if (!created) throw new Error(`no key in the action's answer: ${JSON.stringify(answer)}`);
    expect(created.key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(created.expiresAt).not.toBeNull();
    const [row] = await app.database.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row?.keyHash).toBe(sha256Hex(created.key));

    // The page afterwards lists the key without it.
    const again = await app.request(PAGE, { headers: { cookie: a.jar.header() } });
    const html = await again.clone().text();
    expect(html).not.toContain(created.key);
    const listed = (await rendered(again)).loaderData[ROUTE] as { keys: ApiKeyView[] };
    expect(listed.keys.map((k) => k.name)).toEqual(["Payroll", "Alpha sync"]);

    const bad = await post(a, { intent: "create", name: "", expiresOn: "2027-02-31" });
    expect(bad.status).toBe(400);

    const revoke = await post(a, { intent: "revoke", apiKeyId: String(created.id) });
    expect(revoke.status).toBe(302);
    const [revoked] = await app.database.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(revoked?.revokedAt).not.toBeNull();
  });

  it("a Manager sees the Owner-only message, and a post changes nothing", async () => {
    const m = await logIn(w.aManager.email);
    expect(await pageData(m)).toEqual({ ownerOnly: true, keys: [], budgets: [] });
    const before = await app.database.db.select().from(apiKeys);
    const res = await post(m, { intent: "create", name: "Manager's key" });
    expect(res.status).toBe(403);
    const budget = await post(m, { intent: "budget", apiKeyId: String(before[0]?.id), budgetDollars: "10" });
    expect(budget.status).toBe(403);
    expect(await app.database.db.select().from(apiKeys)).toEqual(before);
  });

  it("an Owner sets and clears a key's monthly budget with the row's form; bad input changes nothing (ADR 0034)", async () => {
    const a = await logIn(w.a.email);
    const key = (await pageData(a)).keys.find((k) => k.revokedAt === null);
    if (!key) throw new Error("A has no live key");
    const saved = await post(a, { intent: "budget", apiKeyId: String(key.id), budgetDollars: "$2,500" });
    expect(saved.status).toBe(302);
    const budgetOf = async () =>
      (await app.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id)))[0]?.monthlyBudgetCents;
    expect(await budgetOf()).toBe(250_000);
    const listed = (await pageData(a)) as unknown as { budgets: { apiKeyId: number; leftCents: number | null }[] };
    expect(listed.budgets.find((b) => b.apiKeyId === key.id)?.leftCents).toBe(250_000);

    const bad = await post(a, { intent: "budget", apiKeyId: String(key.id), budgetDollars: "12.50" });
    expect(bad.status).toBe(400);
    const reply = (await rendered(bad)).actionData?.[ROUTE] as { result?: { error?: Record<string, string[]> } };
    expect(reply.result?.error?.budgetDollars).toEqual([
      "A monthly budget must be a whole number of dollars, such as 500.",
    ]);
    expect(await budgetOf()).toBe(250_000);

    const cleared = await post(a, { intent: "budget", apiKeyId: String(key.id), budgetDollars: "" });
    expect(cleared.status).toBe(302);
    expect(await budgetOf()).toBeNull();
  });
});
