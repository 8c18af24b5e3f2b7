// The accept page of an invitation whose inviting Owner was removed (ADR 0022 amendment), through
// the real edge and route modules (tests/security/web.ts), as a browser without JavaScript posts
// (with JavaScript the same action answers the fetch, so the same data reaches the page): the
// API's message instead of the form, on the page and as the action's answer when the Owner was
// removed after the form opened; nobody joins.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { lastEmailTo, PASSWORD } from "../../../modules/identity/accounts.testkit.ts";
import { MANAGER_MESSAGES } from "../../../modules/managers/schema.ts";
import { users } from "../../../server/db/schema.ts";
import { buildWorld, call, type World } from "../../../tests/security/fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "../../../tests/security/web.ts";
import { describeEachDatabase } from "../../../tests/support/db.ts";

const ACCEPT_ROUTE = "features/accounts/corporate.accept-invite";

describeEachDatabase("Accept Invitation page, the inviter removed", ({ kind }) => {
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

  it("an invitation whose Owner was removed: the page and the action show the message", async () => {
    // A's Manager becomes an Owner, invites an Owner, and is removed after the invitee opened the page.
    const promote = await call(
      w.api,
      "PUT",
      `/api/Managers/${w.aManager.userId}/role`,
      { role: "owner" },
      w.a.accessToken,
    );
    expect(promote.status).toBe(200);
    // Through the app's own API: its clock (not the world's test clock) dates the link.
    const signIn = await app.request("/api/Identity/login", {
      method: "POST",
      body: JSON.stringify({ userName: w.aManager.email, password: PASSWORD }),
      headers: { "content-type": "application/json" },
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const invite = await app.request("/api/Managers/invites", {
      method: "POST",
      body: JSON.stringify({ email: "mallory@example.com", role: "owner" }),
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    });
    expect(invite.status, await invite.clone().text()).toBe(201);
    const link = /\/corporate\/accept-invite\?token=[A-Za-z0-9_%-]+/.exec(
      (await lastEmailTo(db(), "mallory@example.com")).text,
    )?.[0];
    if (!link) throw new Error("no invitation link");

    const jar = new Jar();
    const opened = await app.request(link);
    expect(opened.status).toBe(200);
    jar.take(opened);
    const root = form((await rendered(opened)).loaderData.root);
    const removed = await call(w.api, "DELETE", `/api/Managers/${w.aManager.userId}`, undefined, w.a.accessToken);
    expect(removed.status).toBe(204);

    const posted = await app.request(link, {
      method: "POST",
      body: new URLSearchParams({
        firstName: "Mallory",
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
    expect(answer.result.error?.[""]).toEqual([MANAGER_MESSAGES.inviterGone]);

    const again = await app.request(link);
    expect(again.status).toBe(410);
    expect((await rendered(again)).loaderData[ACCEPT_ROUTE]).toEqual({
      problem: MANAGER_MESSAGES.inviterGone,
      invite: null,
    });
    expect(await db().select().from(users).where(eq(users.email, "mallory@example.com"))).toEqual([]);
  });
});
