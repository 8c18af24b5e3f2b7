// Where My Team meets a released reward's resend (ADR 0022 amendment): a team member's new
// address is in the audit trail with the old one, and a resend to an address other than the one
// the reward was first sent to (the order line's, modules/orders/release.server.ts) is an Owner's call:
// a Manager gets 403 with nothing changed (no new password, no email); an allowed resend records
// both addresses. Through the real API on PGlite and PostgreSQL.
import { verify } from "@node-rs/argon2";
import { and, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { auditLog, emailOutbox, recipientAccounts, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import type { AuditPage } from "../audit/schema.ts";
import { call, lastEmailTo } from "../identity/accounts.testkit.ts";
import type { RewardHistoryItem } from "../identity/schema.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { DELIVERY_DETAILS, type ReleaseDelivery } from "./schema.ts";

const MANAGER_PASSWORD = "Welcome#2025";

describeEachDatabase("a recipient's address, My Team and the resend", ({ database }) => {
  const config = testConfig({ APP_URL: "https://rewards.test", CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  /** An Owner's released reward to two new members, and a Manager of the same company (invited and accepted). */
  async function released() {
    const ctx = paymentsApi(db(), { config });
    const owner = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    const [ann, bob] = await seedDraft(db(), owner, [60, 40], "Thanks");
    if (!ann || !bob) throw new Error("no recipients");
    expect((await payDraftByCard(owner, [60, 40])).status).toBe("succeeded");
    const [item] = await owner.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history");
    if (!item?.rewardReleaseId) throw new Error("no release");

    await owner.json("POST", "Managers/invites", { email: "max@example.com", role: "manager" }, 201);
    const link = /\/corporate\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(
      (await lastEmailTo(db(), "max@example.com")).text,
    );
    const accepted = await call(ctx.api, "POST", "/api/ManagerInvites/accept", {
      token: decodeURIComponent(link?.[1] ?? ""),
      firstName: "Max",
      lastName: "Manager",
      password: MANAGER_PASSWORD,
      confirmPassword: MANAGER_PASSWORD,
    });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    const managerToken = ((await accepted.json()) as { accessToken: string }).accessToken;
    const manager = {
      go: (method: string, path: string, body?: unknown) => call(ctx.api, method, `/api/${path}`, body, managerToken),
    };
    return { ...ctx, owner, manager, ann, bob, releaseId: item.rewardReleaseId };
  }

  const memberOf = async (id: number) => (await db().select().from(users).where(eq(users.id, id)))[0];
  const outboxOf = (userId: number) =>
    db().select().from(emailOutbox).where(eq(emailOutbox.recipientUserId, userId)).orderBy(emailOutbox.id);
  const hashOf = async (userId: number) =>
    (await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, userId)))[0]?.passwordHash;
  const auditRows = (action: string) =>
    db().select().from(auditLog).where(eq(auditLog.action, action)).orderBy(auditLog.id);

  it("a member's update is audited with what changed: the old and the new address, and the names", async () => {
    const { owner, manager, bob } = await released();
    const before = await memberOf(bob);
    if (!before) throw new Error("no member");
    const res = await manager.go("PUT", `Users/${bob}`, {
      firstName: "Robert",
      lastName: before.lastName,
      email: "bob.elsewhere@example.com",
    });
    expect(res.status, await res.clone().text()).toBe(204);

    const [entry] = await auditRows("member.updated");
    expect(entry?.subject).toBe(`user:${bob}`);
    expect(entry?.data).toEqual({
      firstName: { from: before.firstName, to: "Robert" },
      email: { from: before.email, to: "bob.elsewhere@example.com" },
    });
    // The Owner reads both addresses on the Audit page.
    const page = await owner.json<AuditPage>("GET", "Audit?kind=team");
    const shown = page.items.find((i) => i.action === "member.updated");
    expect(shown?.details).toContain(before.email);
    expect(shown?.details).toContain("bob.elsewhere@example.com");
  });

  it("the delivery answer says where a resend goes and whether the caller may: a changed address is an Owner's", async () => {
    const { owner, manager, ann, bob, releaseId } = await released();
    const [original] = await outboxOf(bob);
    const first = original?.toAddress ?? "";
    const annMember = await memberOf(ann);
    // Bob's address changes; Ann's only in letter case (the same mailbox).
    for (const [id, edit] of [
      [bob, { firstName: "Bob", lastName: "Person", email: "bob.moved@example.net" }],
      [ann, { firstName: annMember?.firstName, lastName: annMember?.lastName, email: annMember?.email.toUpperCase() }],
    ] as const) {
      expect((await manager.go("PUT", `Users/${id}`, edit)).status).toBe(204);
    }
    const asManager = (await (await manager.go("GET", `RewardReleases/${releaseId}`)).json()) as ReleaseDelivery;
    expect(asManager.canResendToNewAddress).toBe(false);
    const byId = new Map(asManager.recipients.map((r) => [r.userId, r]));
    expect(byId.get(bob)).toMatchObject({ email: first, currentEmail: "bob.moved@example.net", emailChanged: true });
    expect(byId.get(ann)).toMatchObject({ currentEmail: annMember?.email.toUpperCase(), emailChanged: false });
    const asOwner = await owner.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    expect(asOwner.canResendToNewAddress).toBe(true);
    expect(asOwner.recipients.find((r) => r.userId === bob)).toMatchObject({ emailChanged: true });
  });

  it("a Manager's resend to an address the reward was not first sent to: 403 naming an Owner, no password, no email", async () => {
    const { manager, bob, releaseId } = await released();
    const [original] = await outboxOf(bob);
    const hash = await hashOf(bob);
    const edit = await manager.go("PUT", `Users/${bob}`, {
      firstName: "Bob",
      lastName: "Person",
      email: "attacker@example.net",
    });
    expect(edit.status).toBe(204);

    const refused = await expectProblem(
      await manager.go("POST", `RewardReleases/${releaseId}/recipients/${bob}/resend`),
      403,
    );
    expect(refused.detail).toBe(DELIVERY_DETAILS.newAddressOwnerOnly);
    expect(await hashOf(bob)).toBe(hash);
    const emails = await outboxOf(bob);
    expect(emails.map((e) => e.toAddress)).toEqual([original?.toAddress]);
    expect(await auditRows("reward.email_resent")).toEqual([]);
  });

  it("a Manager may resend to the address it was first sent to (in any letter case); the trail has both addresses", async () => {
    const { manager, ann, releaseId } = await released();
    const [original] = await outboxOf(ann);
    const first = original?.toAddress ?? "";
    const member = await memberOf(ann);
    // Only the letter case changes: the same mailbox.
    const edit = await manager.go("PUT", `Users/${ann}`, {
      firstName: member?.firstName,
      lastName: member?.lastName,
      email: first.toUpperCase(),
    });
    expect(edit.status).toBe(204);
    const res = await manager.go("POST", `RewardReleases/${releaseId}/recipients/${ann}/resend`);
    expect(res.status, await res.clone().text()).toBe(204);
    expect((await outboxOf(ann)).at(-1)?.toAddress).toBe(first.toUpperCase());
    const [entry] = await auditRows("reward.email_resent");
    expect(entry?.data).toEqual({ recipientUserId: ann, firstSentTo: first, sentTo: first.toUpperCase() });
  });

  it("an Owner's resend to a new address goes there, with a new password, and is audited with both addresses", async () => {
    const { owner, manager, bob, releaseId } = await released();
    const [original] = await outboxOf(bob);
    expect(
      (
        await manager.go("PUT", `Users/${bob}`, {
          firstName: "Bob",
          lastName: "Person",
          email: "bob.fixed@example.com",
        })
      ).status,
    ).toBe(204);
    const res = await owner.go("POST", `RewardReleases/${releaseId}/recipients/${bob}/resend`);
    expect(res.status, await res.clone().text()).toBe(204);
    const resent = (await outboxOf(bob)).at(-1);
    expect(resent?.toAddress).toBe("bob.fixed@example.com");
    const password = /Password: (\S+)/.exec(resent?.text ?? "")?.[1] ?? "";
    expect(await verify((await hashOf(bob)) ?? "", password)).toBe(true);
    const entries = await db()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "reward.email_resent"), eq(auditLog.actorUserId, owner.userId)));
    expect(entries.map((e) => e.data)).toEqual([
      { recipientUserId: bob, firstSentTo: original?.toAddress, sentTo: "bob.fixed@example.com" },
    ]);
  });
});
