// Invitations end with their inviting Owner (ADR 0022 amendment; docs/requirements.md §D7 "Invitations die
// with the inviting Owner's role"): removing a manager withdraws their pending invitations,
// and so does demoting an Owner, both in the change's transaction and named in its audit entry;
// and accepting (and the preview the accept page shows) checks the inviter again: still active
// and still an Owner, else 410 with its own message and nobody joins. Through the real API on
// PGlite and PostgreSQL.
import { and, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { auditLog, managerInvites, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, lastEmailTo, signUpVerified } from "../identity/accounts.testkit.ts";
import { MANAGER_MESSAGES, type ManagersList } from "./schema.ts";

const PASSWORD = "Welcome#2025";

type Api = ReturnType<typeof accountsApi>["api"];

describeEachDatabase("invitations and their inviting Owner", ({ database }) => {
  const config = testConfig({ APP_URL: "https://rewards.test" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function tokenFor(address: string): Promise<string> {
    const match = /\/corporate\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec((await lastEmailTo(db(), address)).text);
    if (!match?.[1]) throw new Error(`no invitation to ${address}`);
    return decodeURIComponent(match[1]);
  }

  const accept = (api: Api, token: string) =>
    call(api, "POST", "/api/ManagerInvites/accept", {
      token,
      firstName: "Ivy",
      lastName: "Invitee",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });

  async function invite(api: Api, by: { accessToken: string }, email: string, role: "owner" | "manager") {
    const res = await call(api, "POST", "/api/Managers/invites", { email, role }, by.accessToken);
    expect(res.status, await res.clone().text()).toBe(201);
    return { id: ((await res.json()) as { id: number }).id, token: await tokenFor(email) };
  }

  /** An onboarded Owner (the signer), and a second Owner they invited who accepted. */
  async function twoOwners() {
    const { api } = accountsApi(db(), { config });
    const first = await signUpVerified(api, db(), { companyName: "Acme Pty Ltd" });
    const details = { name: "Acme Pty Ltd", ABN: "51824753556", size: "11-50", industry: "Retail" };
    expect((await call(api, "PUT", "/api/Companies/", details, first.accessToken)).status).toBe(200);
    const { token } = await invite(api, first, "olive@example.com", "owner");
    const res = await accept(api, token);
    expect(res.status, await res.clone().text()).toBe(200);
    const second = (await res.json()) as { accessToken: string };
    const [row] = await db().select().from(users).where(eq(users.email, "olive@example.com"));
    return { api, first, second: { ...second, userId: row?.id as number } };
  }

  const joined = async (email: string) =>
    db()
      .select()
      .from(users)
      .where(and(eq(users.email, email), eq(users.isActive, true)));

  async function expectGone(api: Api, token: string, email: string) {
    const preview = await expectProblem(await call(api, "POST", "/api/ManagerInvites/preview", { token }), 410);
    expect(preview.detail).toBe(MANAGER_MESSAGES.inviterGone);
    const refused = await expectProblem(await accept(api, token), 410);
    expect(refused.detail).toBe(MANAGER_MESSAGES.inviterGone);
    expect(await joined(email)).toEqual([]);
  }

  it("removing an Owner withdraws their pending invitations at once; another Owner's stay", async () => {
    const { api, first, second } = await twoOwners();
    const asOwner = await invite(api, second, "mallory@example.com", "owner");
    const asManager = await invite(api, second, "mia@example.com", "manager");
    const kept = await invite(api, first, "kim@example.com", "manager");

    expect((await call(api, "DELETE", `/api/Managers/${second.userId}`, undefined, first.accessToken)).status).toBe(
      204,
    );

    const list = (await (await call(api, "GET", "/api/Managers", undefined, first.accessToken)).json()) as ManagersList;
    expect(list.invites.map((i) => i.email)).toEqual(["kim@example.com"]);
    const withdrawn = await db().select().from(managerInvites).where(eq(managerInvites.invitedBy, second.userId));
    expect(withdrawn.every((i) => i.revokedAt !== null && i.acceptedAt === null)).toBe(true);
    const [entry] = await db().select().from(auditLog).where(eq(auditLog.action, "manager.removed"));
    expect(entry?.data).toMatchObject({ invitesWithdrawn: [asOwner.id, asManager.id] });

    await expectGone(api, asOwner.token, "mallory@example.com");
    await expectGone(api, asManager.token, "mia@example.com");
    expect((await accept(api, kept.token)).status).toBe(200);
  });

  it("demoting an Owner withdraws every pending invitation they sent, to either role (docs/requirements.md §D7)", async () => {
    const { api, first, second } = await twoOwners();
    const asOwner = await invite(api, second, "mallory@example.com", "owner");
    const asManager = await invite(api, second, "mia@example.com", "manager");

    const demote = await call(
      api,
      "PUT",
      `/api/Managers/${second.userId}/role`,
      { role: "manager" },
      first.accessToken,
    );
    expect(demote.status).toBe(200);

    const [entry] = await db().select().from(auditLog).where(eq(auditLog.action, "manager.role_changed"));
    expect(entry?.data).toEqual({ from: "owner", to: "manager", invitesWithdrawn: [asOwner.id, asManager.id] });
    await expectGone(api, asOwner.token, "mallory@example.com");
    await expectGone(api, asManager.token, "mia@example.com");
  });

  it("accepting checks the inviter again: a link that outlived its Owner (never withdrawn) lets nobody join", async () => {
    const { api, first, second } = await twoOwners();
    const asOwner = await invite(api, second, "mallory@example.com", "owner");
    const asManager = await invite(api, second, "mia@example.com", "manager");
    const fromFirst = await invite(api, first, "max@example.com", "owner");

    // An invitation sent as its Owner lost the role (one in flight, or older than the withdrawal):
    // only the accept's own check stands between it and the company.
    await db().update(users).set({ managerRole: "manager" }).where(eq(users.id, second.userId));
    await expectGone(api, asOwner.token, "mallory@example.com");
    // One to the Manager role stood on the same Owner role.
    await expectGone(api, asManager.token, "mia@example.com");

    await db().update(users).set({ isActive: false }).where(eq(users.id, first.userId));
    await expectGone(api, fromFirst.token, "max@example.com");
    // The refused links are still pending (nothing was used up).
    const pending = await db().select().from(managerInvites).where(eq(managerInvites.id, fromFirst.id));
    expect(pending[0]?.acceptedAt).toBeNull();
  });
});
