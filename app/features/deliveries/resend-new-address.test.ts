// A Manager's resend of a reward to a changed address (ADR 0022 amendment) on the delivery page,
// through the real edge and route modules (tests/security/web.ts), as a browser without
// JavaScript posts it (with JavaScript the same action answers the fetch): the action redirects
// back with the API's message as its toast, and no email is queued. Before that, the page's data
// already says the address changed and that this Manager may not resend there.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DELIVERY_DETAILS, type ReleaseDelivery } from "../../../modules/deliveries/schema.ts";
import { PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import { emailOutbox } from "../../../server/db/schema.ts";
import { addManager, buildWorld, call, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";
import { releasePath } from "./delivery-paths.ts";

describeEachDatabase("Reward Delivery page, a Manager's resend to a new address", ({ kind }) => {
  let app: WebApplication;
  let w: World;

  beforeAll(async () => {
    app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
    w = await buildWorld(app.database.db);
  });
  afterAll(async () => {
    await app?.close();
  });

  const db = () => app.database.db;
  const form = (root: unknown) => root as { csrf: string; honeypot: { nameFieldName: string } };

  it("a Manager's resend to a changed address: the delivery page shows the API's message, nothing is sent", async () => {
    const member = w.paidMembers[1] ?? 0;
    const edit = await call(
      w.api,
      "PUT",
      `/api/Users/${member}`,
      { firstName: "Bea", lastName: "Elsewhere", email: "bea.elsewhere@example.net" },
      w.a.accessToken,
    );
    expect(edit.status).toBe(204);
    const [release] = (await (
      await call(w.api, "GET", "/api/RewardHistory/get-reward-history", undefined, w.a.accessToken)
    ).json()) as Array<{ rewardReleaseId: number }>;
    const page = releasePath(release?.rewardReleaseId ?? 0);

    // A Manager of A signs in through the login form (addManager gives them the test password).
    const managerEmail = (await addManager(w.api, db(), w.a.companyId, "morgan.resend@example.com")).email;
    const jar = new Jar();
    const first = await app.request("/corporate/login");
    jar.take(first);
    const root = form((await rendered(first)).loaderData.root);
    const login = await app.request("/corporate/login", {
      method: "POST",
      body: new URLSearchParams({
        userName: managerEmail,
        password: PASSWORD,
        csrf: root.csrf,
        [root.honeypot.nameFieldName]: "",
      }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: app.origin },
    });
    expect(login.status, await login.clone().text()).toBe(302);
    jar.take(login);
    const opened = await app.request(page, { headers: { cookie: jar.header() } });
    expect(opened.status).toBe(200);
    jar.take(opened);
    const data = (await rendered(opened)).loaderData;
    const csrf = form(data.root).csrf;

    // The page's data says so up front, as the API answers it: the member's address changed and
    // this Manager may not resend there (the page disables that Resend and says why; the e2e
    // tests/e2e/payment.spec.ts looks at it).
    const { delivery } = data["features/deliveries/portal.rewards.release"] as { delivery: ReleaseDelivery };
    expect(delivery.canResendToNewAddress).toBe(false);
    const row = delivery.recipients.find((r) => r.userId === member);
    expect(row).toMatchObject({ currentEmail: "bea.elsewhere@example.net", emailChanged: true });
    // The other recipient's address is unchanged: their resend stays a Manager's.
    expect(delivery.recipients.filter((r) => r.emailChanged).map((r) => r.userId)).toEqual([member]);

    const sent = async () =>
      (await db().select().from(emailOutbox).where(eq(emailOutbox.recipientUserId, member))).length;
    const before = await sent();
    const res = await app.request(page, {
      method: "POST",
      body: new URLSearchParams({ intent: "resend", userId: String(member), csrf, [root.honeypot.nameFieldName]: "" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: app.origin },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(page);
    jar.take(res);
    const shown = await app.request(page, { headers: { cookie: jar.header() } });
    expect((await rendered(shown)).loaderData.root).toMatchObject({
      toast: { type: "destructive", title: DELIVERY_DETAILS.newAddressOwnerOnly },
    });
    // The server stays the judge: a post made anyway is refused as before.
    expect(await sent()).toBe(before);
  });
});
