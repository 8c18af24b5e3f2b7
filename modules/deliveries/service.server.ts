// A released reward's delivery (modules/deliveries/schema.ts): each recipient of the order with the state of
// the newest reward email the outbox holds for them, and the manager's resend, which issues a new
// password (the old one stops working) and queues a new email saying so, to the member's
// address as it is now. That address may differ from the one the reward was first sent to (the
// order line's, as release.ts mailed it): My Team can change it, and the resend mails the access
// code with a working password, so sending there is an Owner's call (ADR 0022 amendment).
import { and, desc, eq } from "drizzle-orm";
import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import {
  companies,
  emailOutbox,
  orderLines,
  orders,
  recipientAccounts,
  rewardLots,
  rewardReleases,
  users,
} from "../../server/db/schema.ts";
import { enqueueEmails } from "../../server/mail/outbox.ts";
import { addMonths } from "../../server/mail/templates/dates.ts";
import { recipientRewardEmail } from "../../server/mail/templates/rewards.ts";
import { recordAudit } from "../audit/service.server.ts";
import type { ManagerRole } from "../identity/service.server.ts";
import { hashRecipientPassword, newRecipientPassword, VALIDITY_MONTHS } from "../orders/release.server.ts";
import type { EmailDeliveryState, ReleaseDelivery } from "./schema.ts";

function stateOf(row: { status: string; attempts: number }): EmailDeliveryState {
  if (row.status === "sent") return "sent";
  if (row.status === "failed") return "failed";
  if (row.status === "sending") return "sending";
  return row.attempts > 0 ? "retrying" : "queued";
}

/** Whether two addresses are the same mailbox (letter case aside). */
const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

async function releaseOf(db: Db, companyId: number, releaseId: number) {
  const [release] = await db
    .select({
      id: rewardReleases.id,
      orderId: rewardReleases.orderId,
      rewardName: rewardReleases.rewardName,
      releasedAt: rewardReleases.releasedAt,
      amountCents: rewardReleases.amountCents,
      invoiceNumber: orders.invoiceNumber,
    })
    .from(rewardReleases)
    .innerJoin(orders, eq(orders.id, rewardReleases.orderId))
    .where(and(eq(rewardReleases.id, releaseId), eq(rewardReleases.companyId, companyId)));
  return release;
}

/**
 * Whether a manager of this role may resend a reward to an address other than the one it was first
 * sent to (ADR 0022 amendment): the resend's rule, and what the delivery answer tells the page.
 */
export const mayResendToNewAddress = (managerRole: ManagerRole | null | undefined) => managerRole === "owner";

/**
 * The release `releaseId` of the viewer's company with its recipients' email states, or null.
 * Each recipient's address now and whether it changed since the reward was sent, and whether the
 * viewer may resend there, come with it, so the page shows what a resend would do before it is pressed.
 */
export async function releaseDelivery(
  db: Db,
  viewer: { companyId: number; managerRole: ManagerRole },
  releaseId: number,
): Promise<ReleaseDelivery | null> {
  const { companyId } = viewer;
  const release = await releaseOf(db, companyId, releaseId);
  if (!release) return null;
  const [lines, emails] = await Promise.all([
    db
      .select({
        userId: orderLines.userId,
        firstName: orderLines.firstName,
        lastName: orderLines.lastName,
        email: orderLines.email,
        currentEmail: users.email,
        amountCents: orderLines.amountCents,
      })
      .from(orderLines)
      // The member as now (the join resendRewardEmail makes): a resend goes to this address.
      .innerJoin(users, and(eq(users.id, orderLines.userId), eq(users.companyId, orderLines.companyId)))
      .where(eq(orderLines.orderId, release.orderId))
      .orderBy(orderLines.lastName, orderLines.firstName, orderLines.id),
    db
      .select({
        userId: emailOutbox.recipientUserId,
        status: emailOutbox.status,
        attempts: emailOutbox.attempts,
        lastError: emailOutbox.lastError,
        sentAt: emailOutbox.sentAt,
        to: emailOutbox.toAddress,
      })
      .from(emailOutbox)
      .where(eq(emailOutbox.orderId, release.orderId))
      .orderBy(desc(emailOutbox.id)),
  ]);
  const newest = new Map<number, (typeof emails)[number] & { resends: number }>();
  for (const email of emails) {
    if (email.userId === null) continue;
    const seen = newest.get(email.userId);
    if (seen) seen.resends++;
    else newest.set(email.userId, { ...email, resends: 0 });
  }
  return {
    releaseId: release.id,
    rewardName: release.rewardName,
    releasedAt: release.releasedAt.toISOString(),
    invoiceNumber: release.invoiceNumber,
    amountCents: release.amountCents,
    canResendToNewAddress: mayResendToNewAddress(viewer.managerRole),
    recipients: lines.map((line) => {
      const email = newest.get(line.userId);
      return {
        userId: line.userId,
        name: `${line.firstName} ${line.lastName}`,
        email: line.email,
        currentEmail: line.currentEmail,
        emailChanged: !sameAddress(line.currentEmail, line.email),
        amountCents: line.amountCents,
        delivery: email
          ? {
              state: stateOf(email),
              attempts: email.attempts,
              lastError: email.status === "sent" ? null : email.lastError,
              sentAt: email.sentAt?.toISOString() ?? null,
              to: email.to,
              resends: email.resends,
            }
          : null,
      };
    }),
  };
}

export type ResendOutcome = "resent" | "release_not_found" | "recipient_not_found" | "owner_required";

/**
 * Resends recipient `userId` their reward email of release `releaseId`: a new password replaces
 * the old one (which stops working at once), and the new email says so. One transaction. To an
 * address other than the one the reward was first sent to, only an Owner may ("owner_required",
 * nothing changes); the actor's role is read in the transaction, locked against a demotion. The
 * audit entry names both addresses.
 */
export async function resendRewardEmail(
  db: Db,
  config: Pick<Config, "CATALOGUE_URL" | "SUPPORT_EMAIL">,
  actor: { companyId: number; userId: number; clientIp?: string },
  releaseId: number,
  userId: number,
  now: Date,
): Promise<ResendOutcome> {
  const release = await releaseOf(db, actor.companyId, releaseId);
  if (!release) return "release_not_found";
  // Not in the release: refused before the slow part (a new password's hash).
  const [inRelease] = await db
    .select({ userId: orderLines.userId })
    .from(orderLines)
    .where(and(eq(orderLines.orderId, release.orderId), eq(orderLines.userId, userId)));
  if (!inRelease) return "recipient_not_found";
  const password = newRecipientPassword();
  const passwordHash = await hashRecipientPassword(password);
  return db.transaction(async (tx) => {
    // The member's address now, not the order's: a manager fixes a bounced address on My Team,
    // then resends.
    const [line] = await tx
      .select({
        email: users.email,
        firstSentTo: orderLines.email,
        firstName: users.firstName,
        amountCents: orderLines.amountCents,
        message: orders.message,
        senderName: orders.senderName,
        companyName: companies.name,
      })
      .from(orderLines)
      .innerJoin(orders, eq(orders.id, orderLines.orderId))
      .innerJoin(companies, eq(companies.id, orders.companyId))
      .innerJoin(users, and(eq(users.id, orderLines.userId), eq(users.companyId, orderLines.companyId)))
      .where(and(eq(orderLines.orderId, release.orderId), eq(orderLines.userId, userId)));
    if (!line) return "recipient_not_found";
    if (!sameAddress(line.email, line.firstSentTo)) {
      const [me] = await tx
        .select({ managerRole: users.managerRole })
        .from(users)
        .where(and(eq(users.id, actor.userId), eq(users.companyId, actor.companyId), eq(users.isActive, true)))
        .for("share");
      if (!mayResendToNewAddress(me?.managerRole)) return "owner_required";
    }
    const [account] = await tx
      .update(recipientAccounts)
      .set({ passwordHash })
      .where(and(eq(recipientAccounts.companyId, actor.companyId), eq(recipientAccounts.userId, userId)))
      .returning({ accessCode: recipientAccounts.accessCode });
    if (!account) return "recipient_not_found";
    // The expiry of this reward's own lot (18 months from its release's email), not the
    // recipient's first reward's: each release is a lot of its own (modules/lots/service.server.ts).
    const [lot] = await tx
      .select({ expiresAt: rewardLots.expiresAt })
      .from(rewardLots)
      .where(and(eq(rewardLots.orderId, release.orderId), eq(rewardLots.userId, userId)));
    await enqueueEmails(
      tx,
      [
        {
          about: { orderId: release.orderId, userId },
          ...recipientRewardEmail({
            to: line.email,
            firstName: line.firstName,
            companyName: line.companyName,
            rewardName: release.rewardName,
            message: line.message,
            senderName: line.senderName,
            amountCents: line.amountCents,
            accessCode: account.accessCode,
            password,
            replacesEarlier: true,
            expiresAt: lot?.expiresAt ?? addMonths(release.releasedAt, VALIDITY_MONTHS),
            catalogueUrl: config.CATALOGUE_URL,
            supportEmail: config.SUPPORT_EMAIL,
          }),
        },
      ],
      now,
    );
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "reward.email_resent",
      subject: `release:${release.id}`,
      data: { recipientUserId: userId, firstSentTo: line.firstSentTo, sentTo: line.email },
      clientIp: actor.clientIp ?? null,
      at: now,
    });
    return "resent";
  });
}
