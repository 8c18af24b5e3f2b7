// The accept page of an invitation where the company requires single sign-on (ADR 0046
// Amendment; modules/identity/sign-in.server.ts), through the real edge and route modules
// (tests/security/web.ts, which renders the loader and action data), as a browser without
// JavaScript posts (with JavaScript the same data reach the page): the data the page turns into
// the message and the way to the login page's company-account button instead of the password
// form; a form opened before the requirement answers the same message; nobody joins.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { lastEmailTo, PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import { SSO_SIGN_IN_DETAILS } from "../../../modules/single-sign-on/schema.ts";
import { singleSignOnConfigs, users } from "../../../server/db/schema.ts";
import { buildWorld, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";

const ACCEPT_ROUTE = "features/accounts/corporate.accept-invite";

describeEachDatabase("Accept Invitation page, single sign-on required", ({ kind }) => {
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

  it("shows the provider's way instead of a password, on the page and as the action's answer", async () => {
    // Through the app's own API: its clock (not the world's test clock) dates the link.
    const signIn = await app.request("/api/Identity/login", {
      method: "POST",
      body: JSON.stringify({ userName: w.a.email, password: PASSWORD }),
      headers: { "content-type": "application/json" },
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const invite = await app.request("/api/Managers/invites", {
      method: "POST",
      body: JSON.stringify({ email: "ivy@example.com", role: "manager" }),
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    });
    expect(invite.status, await invite.clone().text()).toBe(201);
    const link = /\/corporate\/accept-invite\?token=[A-Za-z0-9_%-]+/.exec(
      (await lastEmailTo(db(), "ivy@example.com")).text,
    )?.[0];
    if (!link) throw new Error("no invitation link");

    // Opened before the company requires single sign-on: the password form.
    const jar = new Jar();
    const opened = await app.request(link);
    expect(opened.status).toBe(200);
    jar.take(opened);
    const page = await rendered(opened);
    expect(page.loaderData[ACCEPT_ROUTE]).toMatchObject({ invite: { signInWithProvider: false } });
    const root = form(page.loaderData.root);

    // The Owner requires single sign-on (the provider itself is not asked by these pages).
    await db().insert(singleSignOnConfigs).values({
      companyId: w.a.companyId,
      issuerUrl: "https://login.example.com",
      clientId: "client",
      clientSecretSealed: "sealed",
      required: true,
      breakGlassUserId: w.a.userId,
    });
    const posted = await app.request(link, {
      method: "POST",
      body: new URLSearchParams({
        firstName: "Ivy",
        lastName: "Joiner",
        password: "Welcome#2025",
        confirmPassword: "Welcome#2025",
        csrf: root.csrf,
        [root.honeypot.nameFieldName]: "",
      }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: app.origin },
    });
    const answer = (await rendered(posted)).actionData?.[ACCEPT_ROUTE] as {
      result: { error?: Record<string, string[]> };
    };
    expect(answer.result.error?.[""]).toEqual([SSO_SIGN_IN_DETAILS.inviteThroughProvider]);

    // Opened now: the message and the way to the button, no password form.
    const again = await app.request(link);
    expect(again.status).toBe(200);
    expect((await rendered(again)).loaderData[ACCEPT_ROUTE]).toMatchObject({ invite: { signInWithProvider: true } });
    expect(await db().select().from(users).where(eq(users.email, "ivy@example.com"))).toEqual([]);
  });
});
