// A released reward's delivery: each recipient's newest reward email and its state (queued,
// retrying with the last error, failed, sent), and the manager's resend: a new password that
// works while the old one does not, in a new email that says so. Company-scoped: 404 otherwise.
import { verify } from "@node-rs/argon2";
import { and, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "../../server/db/client.ts";
import { emailOutbox, recipientAccounts, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { RewardHistoryItem } from "../identity/schema.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import { DELIVERY_DETAILS, type ReleaseDelivery } from "./schema.ts";

describeEachDatabase("reward delivery", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL: "https://catalogue.test/" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  async function released() {
    const ctx = paymentsApi(db(), { config });
    const manager = await payingManager(ctx.api, db(), "Acme Pty Ltd");
    const [ann, bob] = await seedDraft(db(), manager, [60, 40], "Thanks");
    if (!ann || !bob) throw new Error("no recipients");
    expect((await payDraftByCard(manager, [60, 40])).status).toBe("succeeded");
    const [item] = await manager.json<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history");
    if (!item) throw new Error("no release");
    return { ...ctx, manager, ann, bob, releaseId: item.rewardReleaseId };
  }

  const outboxOf = (userId: number) =>
    db().select().from(emailOutbox).where(eq(emailOutbox.recipientUserId, userId)).orderBy(emailOutbox.id);

  it("shows each recipient's reward email as queued, retrying with its error, failed or sent", async () => {
    const { manager, ann, bob, releaseId } = await released();
    const first = await manager.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    expect(first).toMatchObject({ releaseId, rewardName: "Thanks", amountCents: 10_000 });
    expect(first.invoiceNumber).toMatch(/^INV-\d{6}$/);
    expect(first.recipients.map((r) => [r.userId, r.amountCents, r.delivery?.state])).toEqual(
      expect.arrayContaining([
        [ann, 6_000, "queued"],
        [bob, 4_000, "queued"],
      ]),
    );

    const [annEmail] = await outboxOf(ann);
    const [bobEmail] = await outboxOf(bob);
    await db()
      .update(emailOutbox)
      .set({ status: "pending", attempts: 2, lastError: "421 4.7.0 Try again later" })
      .where(eq(emailOutbox.id, annEmail?.id ?? 0));
    await db()
      .update(emailOutbox)
      .set({ status: "failed", attempts: 1, lastError: "550 5.1.1 No such user" })
      .where(eq(emailOutbox.id, bobEmail?.id ?? 0));
    const later = await manager.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    const of = (userId: number) => later.recipients.find((r) => r.userId === userId)?.delivery;
    expect(of(ann)).toMatchObject({ state: "retrying", attempts: 2, lastError: "421 4.7.0 Try again later" });
    expect(of(bob)).toMatchObject({ state: "failed", lastError: "550 5.1.1 No such user", resends: 0 });

    await db()
      .update(emailOutbox)
      .set({ status: "sent", lastError: null, sentAt: new Date("2025-03-01T09:00:05Z") })
      .where(eq(emailOutbox.id, annEmail?.id ?? 0));
    const sent = await manager.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    expect(sent.recipients.find((r) => r.userId === ann)?.delivery).toMatchObject({
      state: "sent",
      sentAt: "2025-03-01T09:00:05.000Z",
      lastError: null,
    });
  });

  it("a resend issues a new password: the new one works, the old one does not, and the email says so", async () => {
    const { manager, bob, releaseId } = await released();
    const [original] = await outboxOf(bob);
    const oldPassword = /Password: (\S+)/.exec(original?.text ?? "")?.[1] ?? "";
    const account = async () =>
      (await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, bob)))[0];
    const before = await account();
    expect(await verify(before?.passwordHash ?? "", oldPassword)).toBe(true);

    const res = await manager.go("POST", `RewardReleases/${releaseId}/recipients/${bob}/resend`);
    expect(res.status, await res.clone().text()).toBe(204);

    const emails = await outboxOf(bob);
    expect(emails).toHaveLength(2);
    const resent = emails.at(-1);
    expect(resent?.text).toContain("This email replaces your earlier reward email");
    expect(resent?.text).toContain(`Access code: ${before?.accessCode}`);
    const newPassword = /Password: (\S+)/.exec(resent?.text ?? "")?.[1] ?? "";
    expect(newPassword).toMatch(/^[A-Za-z2-9]{14}$/);
    expect(newPassword).not.toBe(oldPassword);
    const after = await account();
    expect(after?.accessCode).toBe(before?.accessCode);
    expect(await verify(after?.passwordHash ?? "", newPassword)).toBe(true);
    expect(await verify(after?.passwordHash ?? "", oldPassword)).toBe(false);

    const delivery = await manager.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    expect(delivery.recipients.find((r) => r.userId === bob)?.delivery).toMatchObject({ state: "queued", resends: 1 });
  });

  it("a resend goes to the member's address as it is now (a bounced address fixed on My Team)", async () => {
    const { manager, bob, releaseId } = await released();
    const [original] = await outboxOf(bob);
    await db().update(users).set({ email: "bob.fixed@example.com" }).where(eq(users.id, bob));
    expect((await manager.go("POST", `RewardReleases/${releaseId}/recipients/${bob}/resend`)).status).toBe(204);
    const resent = (await outboxOf(bob)).at(-1);
    expect(resent?.toAddress).toBe("bob.fixed@example.com");
    expect(resent?.toAddress).not.toBe(original?.toAddress);
    const delivery = await manager.json<ReleaseDelivery>("GET", `RewardReleases/${releaseId}`);
    const row = delivery.recipients.find((r) => r.userId === bob);
    // The recipient as the order froze them; the email as it was sent.
    expect(row?.email).toBe(original?.toAddress);
    expect(row?.delivery?.to).toBe("bob.fixed@example.com");
  });

  it("another company's release, a recipient not in it, malformed ids and no token: 404 or 401, nothing changes", async () => {
    const { api, manager, ann, releaseId } = await released();
    const other = await payingManager(api, db(), "Other Co");
    const hashOf = async () =>
      (await db().select().from(recipientAccounts).where(eq(recipientAccounts.userId, ann)))[0]?.passwordHash;
    const hash = await hashOf();
    const count = async () =>
      (
        await db()
          .select()
          .from(emailOutbox)
          .where(and(eq(emailOutbox.recipientUserId, ann)))
      ).length;
    const emails = await count();

    expect((await expectProblem(await other.go("GET", `RewardReleases/${releaseId}`), 404)).detail).toBe(
      DELIVERY_DETAILS.notFound,
    );
    await expectProblem(await other.go("POST", `RewardReleases/${releaseId}/recipients/${ann}/resend`), 404);
    expect(
      (
        await expectProblem(
          await manager.go("POST", `RewardReleases/${releaseId}/recipients/${other.userId}/resend`),
          404,
        )
      ).detail,
    ).toBe(DELIVERY_DETAILS.recipientNotFound);
    for (const bad of ["0", "-1", "abc", "1e3", "99999999999999999"]) {
      await expectProblem(await manager.go("GET", `RewardReleases/${bad}`), 404);
      await expectProblem(await manager.go("POST", `RewardReleases/${releaseId}/recipients/${bad}/resend`), 404);
    }
    await expectProblem(await call(api, "GET", `/api/RewardReleases/${releaseId}`), 401);
    await expectProblem(await call(api, "POST", `/api/RewardReleases/${releaseId}/recipients/${ann}/resend`), 401);
    expect(await hashOf()).toBe(hash);
    expect(await count()).toBe(emails);
  });
});
