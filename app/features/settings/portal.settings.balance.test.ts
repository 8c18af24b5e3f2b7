// Settings › Balance through the real edge and route modules (tests/security/web.ts, whose test entry
// renders the loader and action data rather than the markup), as a browser
// without JavaScript posts it: an Owner tops up $50 (the amount form → the top-up's card page →
// 4242… → back to the Balance page with the toast and the new balance); a declined card answers
// the processor's message and credits nothing; 4000 0025 0000 3155 goes through the
// authentication step; a bad amount is refused on the form; a Manager sees the balance without
// the form, and their post is refused (403) with nothing changed.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BalanceView, TopUpCheck } from "../../../modules/balance/schema.ts";
import { PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import { balanceTopUps, companies } from "../../../server/db/schema.ts";
import { TEST_CARDS } from "../../../server/payments/simulated.ts";
import { buildWorld, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";

const PAGE = "/portal/settings/balance";
const ROUTE = "features/settings/portal.settings.balance";
const TOP_UP_ROUTE = "features/settings/portal.settings.balance.top-up";
const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };

interface Browser {
  jar: Jar;
  csrf: string;
  honeypot: string;
}

describeEachDatabase("Settings › Balance page", ({ kind }) => {
  let app: WebApplication;
  let w: World;

  beforeAll(async () => {
    app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
    w = await buildWorld(app.database.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  function post(b: Browser, path: string, fields: Record<string, string>) {
    return app.request(path, {
      method: "POST",
      body: new URLSearchParams({ csrf: b.csrf, [b.honeypot]: "", ...fields }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: b.jar.header(), origin: app.origin },
    });
  }

  async function get(b: Browser, path: string) {
    const res = await app.request(path, { headers: { cookie: b.jar.header() } });
    b.jar.take(res);
    return res;
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
    const page = await get(b, PAGE);
    expect(page.status).toBe(200);
    return { ...b, csrf: ((await rendered(page)).loaderData.root as { csrf: string }).csrf };
  }

  async function balancePage(b: Browser) {
    const res = await get(b, PAGE);
    expect(res.status).toBe(200);
    const page = await rendered(res);
    return {
      view: page.loaderData[ROUTE] as BalanceView,
      toast: (page.loaderData.root as { toast: { title: string; description?: string } | null }).toast,
    };
  }

  const balanceOfA = async () =>
    (
      await app.database.db.select({ c: companies.balanceCents }).from(companies).where(eq(companies.id, w.a.companyId))
    )[0]?.c;

  /** Posts the amount form; answers the top-up page's address it redirects to. */
  async function startTopUp(b: Browser, amount: string): Promise<string> {
    const res = await post(b, PAGE, { intent: "top-up", amount });
    expect(res.status, await res.clone().text()).toBe(302);
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/portal\/settings\/balance\/top-ups\/\d+$/);
    return location;
  }

  it("an Owner tops up $50 by card and comes back to the balance with a toast", async () => {
    const a = await logIn(w.a.email);
    const before = (await balancePage(a)).view;
    expect(before).toMatchObject({ canTopUp: true, processor: "simulated" });
    const start = before.balance;

    const topUpPage = await startTopUp(a, "$50");
    const card = await get(a, topUpPage);
    expect(card.status).toBe(200);
    expect((await rendered(card)).loaderData[TOP_UP_ROUTE]).toMatchObject({
      amount: 5000,
      status: "requires_payment_method",
    });

    const paid = await post(a, topUpPage, { intent: "pay", ...CARD });
    expect(paid.status, await paid.clone().text()).toBe(302);
    expect(paid.headers.get("location")).toBe(PAGE);
    a.jar.take(paid);
    const after = await balancePage(a);
    expect(after.toast?.title).toBe("Your balance was topped up by $50.00.");
    expect(after.view.balance).toBe(start + 5000);
    expect(after.view.entries[0]).toMatchObject({ kind: "top_up", amount: 5000, balanceAfter: start + 5000 });
    expect(await balanceOfA()).toBe(start + 5000);

    // Coming back to the top-up's page later credits nothing more: it goes to the balance again.
    const again = await get(a, topUpPage);
    expect(again.status).toBe(302);
    expect(await balanceOfA()).toBe(start + 5000);
  });

  it("a declined card shows the processor's message and credits nothing; the authentication card asks first", async () => {
    const a = await logIn(w.a.email);
    const start = await balanceOfA();
    const topUpPage = await startTopUp(a, "20");
    await get(a, topUpPage);
    const declined = await post(a, topUpPage, { intent: "pay", ...CARD, cardNumber: TEST_CARDS.declined });
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain("Your card was declined.");
    expect(await balanceOfA()).toBe(start);
    // The page afterwards still offers the card form, with the decline recorded.
    const reloaded = await get(a, topUpPage);
    expect((await rendered(reloaded)).loaderData[TOP_UP_ROUTE]).toMatchObject({
      status: "failed",
      message: "Your card was declined.",
    } satisfies Partial<TopUpCheck>);

    const asked = await post(a, topUpPage, { intent: "pay", ...CARD, cardNumber: TEST_CARDS.authentication });
    expect(asked.status).toBe(302);
    expect(asked.headers.get("location")).toBe(topUpPage);
    const step = await get(a, topUpPage);
    expect((await rendered(step)).loaderData[TOP_UP_ROUTE]).toMatchObject({ status: "requires_action" });
    const done = await post(a, topUpPage, { intent: "authenticate", outcome: "complete" });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(PAGE);
    expect(await balanceOfA()).toBe((start ?? 0) + 2000);
  });

  it("a bad amount is refused on the form and nothing is made", async () => {
    const a = await logIn(w.a.email);
    const before = await app.database.db.select().from(balanceTopUps);
    for (const amount of ["", "12.50", "abc", "5", "100001"]) {
      const res = await post(a, PAGE, { intent: "top-up", amount });
      expect(res.status, amount).toBe(400);
    }
    expect(await app.database.db.select().from(balanceTopUps)).toEqual(before);
  });

  it("a Manager sees the balance without the form, and a post is refused with nothing changed", async () => {
    const m = await logIn(w.aManager.email);
    const { view } = await balancePage(m);
    expect(view.canTopUp).toBe(false);
    expect(view.balance).toBe(await balanceOfA());
    const before = await app.database.db.select().from(balanceTopUps);
    const res = await post(m, PAGE, { intent: "top-up", amount: "50" });
    expect(res.status).toBe(403);
    expect(await app.database.db.select().from(balanceTopUps)).toEqual(before);
    // The top-up pages are an Owner's too.
    const [any] = before;
    if (any) expect((await get(m, `${PAGE}/top-ups/${any.id}`)).status).toBe(403);
  });
});
