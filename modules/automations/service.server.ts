// Automations (ADR 0035): an Owner's "on each member's birthday send $N" and "on each work
// anniversary send $N (or $N per year of service)". Each day at 9:00 in each member's own time
// zone (modules/automations/schema.ts, memberTimeZone), due rewards become an ordinary order paid from the
// prepaid balance and released through the one release path (release.ts), so invoices, ledger,
// webhooks and the money check hold as for any balance order (api-orders.ts).
//
// Exactly once per automation, member, occasion and year, with any number of processes,
// restarts or downtime: a run takes the company's row lock, reads which of the due rewards have
// no automation_rewards row yet, and writes the orders, their lines, the charge and those rows in
// ONE transaction; the rows' unique index is the guard (a second writer that got past the lock
// somehow rolls back whole). A reward whose 9:00 passed within CATCH_UP_MS (and after the
// automation was made) and has no row is sent by the next run: a missed morning is caught up
// once.
//
// A balance too short for all of the company's due rewards sends none of them: the automations
// with rewards due are paused and the Owners emailed, once per pause (the update that sets
// paused_at decides). An order that would take the Sydney month's automation orders past the
// company's automation budget is written as an approval request instead of being charged
// (approvals.ts approves and charges it like a system's order).
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, ne, or, sql } from "drizzle-orm";
import { PORTAL_TIME_ZONE } from "../../core/dates.ts";
import { chargesFor, formatDollars, MAX_LINE_CENTS, MIN_LINE_CENTS } from "../../core/money.ts";
import type { Db, Tx } from "../../server/db/client.ts";
import { automationRewards, automations, companies, orders, users } from "../../server/db/schema.ts";
import { enqueueEmails } from "../../server/mail/outbox.ts";
import { automationsPausedEmail } from "../../server/mail/templates/automations.ts";
import { Refusal } from "../../server/refusal.ts";
import { releaseCharged } from "../api-v1/service.server.ts";
import { activeOwners, announceApprovalRequest } from "../approvals/service.server.ts";
import { recordAudit } from "../audit/service.server.ts";
import { balanceOf, moveBalance } from "../balance/service.server.ts";
import { freezeInvoiceParties } from "../invoices/service.server.ts";
import { insertOrderLines, lineProblems } from "../orders/order-lines.server.ts";
import type { Caller, PaymentServices } from "../orders/service.server.ts";
import { automationRunEvent } from "../webhooks/events.server.ts";
import { emitEvent } from "../webhooks/service.server.ts";
import {
  type AutomationInput,
  type AutomationOccasion,
  type AutomationsAnswer,
  type AutomationView,
  CATCH_UP_MS,
  localDate,
  type MemberDates,
  type Occasion,
  occasionsBetween,
  PREVIEW_DAYS,
  type PreviewEntry,
  renderAutomationMessage,
  rewardCentsFor,
  SKIPPED_SHOWN,
  zonedInstant,
} from "./schema.ts";

export interface AutomationServices extends PaymentServices {
  /** The portal's address, for the links in the Owners' emails. */
  appUrl: string;
}

type AutomationRow = typeof automations.$inferSelect;

const DAY_MS = 24 * 60 * 60_000;

/**
 * The month-and-day codes (month × 100 + day) of every calendar date anywhere in Australia
 * between `from` and `to`, a day either side, with 29 February whenever 28 February is among them
 * (a leap-day birthday is celebrated then in common years): the members worth the date math.
 */
function dayCodesBetween(from: Date, to: Date): number[] {
  const codes = new Set<number>();
  for (let t = from.getTime() - DAY_MS; t <= to.getTime() + DAY_MS; t += DAY_MS / 2) {
    const d = new Date(t);
    const code = (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
    codes.add(code);
    if (code === 228) codes.add(229);
  }
  return [...codes];
}

const memberColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  birthDay: users.birthDay,
  birthMonth: users.birthMonth,
  startDate: users.startDate,
  state: users.state,
  birthdaySetAt: users.birthdaySetAt,
  startDateSetAt: users.startDateSetAt,
};
type MemberRow = {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  birthdaySetAt: Date | null;
  startDateSetAt: Date | null;
} & MemberDates;

/**
 * Whether the member's date for `occasion` was set before its 9:00: a date entered or changed
 * after that time does not make the occasion due (it waits for the next one), so nobody can add a
 * member with today's birthday at noon and have the catch-up pay at once. No time on file (a date
 * written before the column, never backfilled): due, as before.
 */
function dateSetBefore(member: MemberRow, occasion: Occasion): boolean {
  const setAt = occasion.occasion === "birthday" ? member.birthdaySetAt : member.startDateSetAt;
  return setAt === null || setAt.getTime() < occasion.dueAt.getTime();
}

/** Active team members of the company whose birthday or start date falls on one of `codes`. */
async function membersOn(db: Db | Tx, companyId: number, codes: number[]): Promise<MemberRow[]> {
  const list = sql.param(codes);
  return db
    .select(memberColumns)
    .from(users)
    .where(
      and(
        eq(users.companyId, companyId),
        eq(users.role, "member"),
        eq(users.isActive, true),
        or(
          sql`(${users.birthMonth} * 100 + ${users.birthDay})::int = any(${list}::int[])`,
          sql`(extract(month from ${users.startDate}) * 100 + extract(day from ${users.startDate}))::int = any(${list}::int[])`,
        ),
      ),
    );
}

interface DueReward {
  automation: AutomationRow;
  member: MemberRow;
  occasion: Occasion;
  amountCents: number;
}

/** Each reward of `list` that falls due in (from, to], from each automation's own start. */
function rewardsBetween(list: AutomationRow[], members: MemberRow[], from: Date, to: Date): DueReward[] {
  const due: DueReward[] = [];
  for (const automation of list) {
    const since = new Date(Math.max(from.getTime(), automation.createdAt.getTime()));
    for (const member of members) {
      for (const occasion of occasionsBetween(member, automation.occasion, since, to)) {
        if (!dateSetBefore(member, occasion)) continue;
        due.push({ automation, member, occasion, amountCents: rewardCentsFor(automation, occasion) });
      }
    }
  }
  return due;
}

const keyOf = (automationId: number, userId: number, occasion: AutomationOccasion, year: number) =>
  `${automationId}:${userId}:${occasion}:${year}`;

/** The due rewards that have no automation_rewards row yet (read in the caller's transaction). */
async function unsent(db: Db | Tx, due: DueReward[]): Promise<DueReward[]> {
  if (due.length === 0) return [];
  const automationIds = [...new Set(due.map((d) => d.automation.id))];
  const userIds = [...new Set(due.map((d) => d.member.id))];
  const sent = await db
    .select({
      automationId: automationRewards.automationId,
      userId: automationRewards.userId,
      occasion: automationRewards.occasion,
      year: automationRewards.year,
    })
    .from(automationRewards)
    .where(and(inArray(automationRewards.automationId, automationIds), inArray(automationRewards.userId, userIds)));
  const done = new Set(sent.map((r) => keyOf(r.automationId, r.userId, r.occasion, r.year)));
  return due.filter((d) => !done.has(keyOf(d.automation.id, d.member.id, d.occasion.occasion, d.occasion.year)));
}

export interface AutomationRunSummary {
  /** Companies whose run placed orders. */
  companies: number;
  rewards: number;
  ordersCharged: number;
  ordersAwaitingApproval: number;
  /** Companies whose automations a short balance paused in this pass. */
  paused: number;
  errors: number;
}

/**
 * One pass of the automations job: every company with a live automation, each run on its own
 * (one company's failure or short balance never holds back another). Safe in every process at
 * once (see the top of this file).
 */
export async function runAutomations(
  s: AutomationServices,
  isStopped: () => boolean = () => false,
): Promise<AutomationRunSummary> {
  const summary: AutomationRunSummary = {
    companies: 0,
    rewards: 0,
    ordersCharged: 0,
    ordersAwaitingApproval: 0,
    paused: 0,
    errors: 0,
  };
  const now = s.now();
  const live = await s.db
    .select()
    .from(automations)
    .where(and(eq(automations.enabled, true), isNull(automations.pausedAt)))
    .orderBy(asc(automations.companyId), asc(automations.id));
  const byCompany = new Map<number, AutomationRow[]>();
  for (const a of live) byCompany.set(a.companyId, [...(byCompany.get(a.companyId) ?? []), a]);
  const from = new Date(now.getTime() - CATCH_UP_MS);
  const codes = dayCodesBetween(from, now);
  for (const [companyId, list] of byCompany) {
    if (isStopped()) break;
    try {
      const members = await membersOn(s.db, companyId, codes);
      const due = await unsent(s.db, rewardsBetween(list, members, from, now));
      if (due.length === 0) continue;
      const outcome = await runCompany(s, companyId, due, now);
      if (outcome.kind === "placed") {
        summary.companies++;
        summary.rewards += outcome.rewards;
        summary.ordersCharged += outcome.charged.length;
        summary.ordersAwaitingApproval += outcome.awaitingApproval;
      } else if (outcome.kind === "short" && outcome.paused) {
        summary.paused++;
      }
    } catch (error) {
      summary.errors++;
      s.logger.warn({ companyId, err: String(error) }, "automations: a company's run failed");
    }
  }
  if (summary.rewards + summary.paused + summary.errors > 0) s.logger.info({ ...summary }, "automations pass");
  return summary;
}

type CompanyOutcome =
  | { kind: "placed"; rewards: number; charged: number[]; awaitingApproval: number }
  | { kind: "nothing" }
  | { kind: "short"; paused: boolean };

class ShortBalance extends Error {
  readonly neededCents: number;
  readonly balanceCents: number;
  constructor(neededCents: number, balanceCents: number) {
    super("the balance is short for the automations' rewards");
    this.neededCents = neededCents;
    this.balanceCents = balanceCents;
  }
}

/** The company's due rewards in one transaction (see the top of this file), then their release. */
async function runCompany(s: AutomationServices, companyId: number, candidates: DueReward[], now: Date) {
  let outcome: CompanyOutcome;
  try {
    outcome = await s.db.transaction(async (tx) => {
      // One run per company at a time, across processes: a second waits here, then finds the rows.
      const [company] = await tx
        .select({
          name: companies.name,
          abn: companies.abn,
          detailsUpdatedAt: companies.detailsUpdatedAt,
          budgetCents: companies.automationBudgetCents,
        })
        .from(companies)
        .where(eq(companies.id, companyId))
        .for("update");
      if (!company) return { kind: "nothing" as const };
      // Automations turned off or paused since the pass read them send nothing.
      const still = await tx
        .select({ id: automations.id })
        .from(automations)
        .where(
          and(
            inArray(automations.id, [...new Set(candidates.map((c) => c.automation.id))]),
            eq(automations.enabled, true),
            isNull(automations.pausedAt),
          ),
        );
      const liveIds = new Set(still.map((r) => r.id));
      const due = (await unsent(tx, candidates)).filter((d) => liveIds.has(d.automation.id));
      if (due.length === 0) return { kind: "nothing" as const };
      if (!company.abn || !company.detailsUpdatedAt) {
        // No tax invoice can be made without the company's details: nothing is sent, nothing recorded.
        s.logger.warn({ companyId }, "automations: the company's details are missing, nothing sent");
        return { kind: "nothing" as const };
      }
      const owners = await activeOwners(tx, companyId);
      let monthSpent = await monthSpentCents(tx, companyId, now);
      const placed: Array<{ orderId: number; totalCents: number; rewardsCents: number; charged: boolean }> = [];
      const paid: DueReward[] = [];
      for (const [automationId, all] of groupBy(due, (d) => d.automation.id)) {
        const automation = (all[0] as DueReward).automation;
        // ADR 0035 amendment: an automation spends as the Owner who made it; once they are no
        // longer an active Owner its occasions are skipped (shown on the page) until an Owner
        // saves it or turns it on again and so makes it theirs.
        if (!owners.some((o) => o.id === automation.createdBy)) {
          await recordSkipped(tx, companyId, all, () => AUTOMATION_SKIPS.makerNotOwner, now);
          continue;
        }
        // The order-line rule (order-lines.ts): a reward it refuses is skipped with its reason,
        // never capped or sent in part of its amount.
        const problems = await lineProblems(
          tx,
          companyId,
          all.map((r) => ({ userId: r.member.id, amountCents: r.amountCents })),
        );
        await recordSkipped(
          tx,
          companyId,
          all.filter((_, i) => problems.has(i)),
          (r) =>
            problems.get(all.indexOf(r))?.kind === "amount"
              ? AUTOMATION_SKIPS.amount(r.amountCents, r.occasion.years)
              : AUTOMATION_SKIPS.member,
          now,
        );
        const rewards = all.filter((_, i) => !problems.has(i));
        if (rewards.length === 0) continue;
        paid.push(...rewards);
        const charges = chargesFor(rewards.map((r) => r.amountCents / 100));
        const placedBy = automation.createdBy;
        const [order] = await tx
          .insert(orders)
          .values({
            companyId,
            placedBy,
            automationId,
            draftId: null,
            draftVersion: null,
            rewardName: automation.rewardName,
            message: automation.messageTemplate,
            senderName: company.name,
            sendAt: null,
            ...charges,
            currency: "aud",
            status: "pending",
            processor: "balance",
            createdAt: now,
          })
          .returning({ id: orders.id });
        if (!order) throw new Error("order insert returned no row");
        await insertOrderLines(
          tx,
          companyId,
          order.id,
          rewards.map((r) => ({
            userId: r.member.id,
            firstName: r.member.firstName,
            lastName: r.member.lastName,
            email: r.member.email,
            amountCents: r.amountCents,
            message: renderAutomationMessage(automation.messageTemplate, {
              firstName: r.member.firstName,
              years: r.occasion.years,
            }),
          })),
        );
        // The guard: a reward another run wrote meanwhile fails here and the whole run rolls back.
        await tx.insert(automationRewards).values(
          rewards.map((r) => ({
            companyId,
            automationId,
            userId: r.member.id,
            occasion: r.occasion.occasion,
            year: r.occasion.year,
            dueAt: r.occasion.dueAt,
            orderId: order.id,
            createdAt: now,
          })),
        );
        await recordAudit(tx, {
          companyId,
          actorUserId: null,
          action: "order.created",
          subject: `order:${order.id}`,
          data: {
            automationId,
            occasion: automation.occasion,
            recipients: rewards.length,
            totalCents: charges.totalCents,
          },
          at: now,
        });
        const overBudget = company.budgetCents !== null && monthSpent + charges.totalCents > company.budgetCents;
        monthSpent += charges.totalCents;
        if (overBudget) {
          await tx.update(orders).set({ approvalStatus: "requested" }).where(eq(orders.id, order.id));
          await announceApprovalRequest(tx, s.appUrl, {
            order: {
              id: order.id,
              companyId,
              rewardName: automation.rewardName,
              totalCents: charges.totalCents,
              placedBy,
            },
            recipientCount: rewards.length,
            requesterName: `The automation “${automation.rewardName}”`,
            actorUserId: null,
            auditData: { totalCents: charges.totalCents, automationId, automationBudgetCents: company.budgetCents },
            now,
          });
        } else {
          const moved = await moveBalance(tx, companyId, {
            kind: "order",
            orderId: order.id,
            amountCents: charges.totalCents,
          });
          if (!moved.moved) {
            const needed = placed.filter((p) => p.charged).reduce((sum, p) => sum + p.totalCents, charges.totalCents);
            throw new ShortBalance(needed, await balanceOf(tx, companyId));
          }
          await freezeInvoiceParties(tx, order.id, s.release.config);
        }
        placed.push({
          orderId: order.id,
          totalCents: charges.totalCents,
          rewardsCents: charges.rewardsCents,
          charged: !overBudget,
        });
      }
      // Every due reward skipped: the skips are committed, nothing else happened.
      if (placed.length === 0) return { kind: "nothing" as const };
      const charged = placed.filter((p) => p.charged);
      await emitEvent(
        tx,
        automationRunEvent({
          companyId,
          firstOrderId: (placed[0] as (typeof placed)[number]).orderId,
          orderIds: placed.map((p) => p.orderId),
          rewards: paid.length,
          birthdays: paid.filter((d) => d.occasion.occasion === "birthday").length,
          anniversaries: paid.filter((d) => d.occasion.occasion === "anniversary").length,
          charged: charged.length,
          awaitingApproval: placed.length - charged.length,
          rewardsCents: placed.reduce((sum, p) => sum + p.rewardsCents, 0),
          totalCents: placed.reduce((sum, p) => sum + p.totalCents, 0),
          ranAt: now,
        }),
        now,
      );
      return {
        kind: "placed" as const,
        rewards: paid.length,
        charged: charged.map((p) => p.orderId),
        awaitingApproval: placed.length - charged.length,
      };
    });
  } catch (error) {
    if (!(error instanceof ShortBalance)) throw error;
    const ids = [...new Set(candidates.map((c) => c.automation.id))];
    return { kind: "short" as const, paused: await pauseForShortBalance(s, companyId, ids, error, now) };
  }
  if (outcome.kind === "placed") {
    if (outcome.awaitingApproval > 0) s.onEmailQueued?.();
    for (const orderId of outcome.charged) await releaseCharged(s, orderId, now);
  }
  return outcome;
}

/**
 * Pauses the automations that had rewards due, and emails every active Owner, once: only the
 * update that paused at least one of them (none was paused already) sends the email.
 */
async function pauseForShortBalance(
  s: AutomationServices,
  companyId: number,
  automationIds: number[],
  short: ShortBalance,
  now: Date,
): Promise<boolean> {
  const paused = await s.db.transaction(async (tx) => {
    const rows = await tx
      .update(automations)
      .set({ pausedAt: now })
      .where(
        and(
          eq(automations.companyId, companyId),
          inArray(automations.id, automationIds),
          eq(automations.enabled, true),
          isNull(automations.pausedAt),
        ),
      )
      .returning({ id: automations.id, rewardName: automations.rewardName });
    if (rows.length === 0) return false;
    const owners = await activeOwners(tx, companyId);
    await enqueueEmails(
      tx,
      owners.map((owner) =>
        automationsPausedEmail({
          to: owner.email,
          firstName: owner.firstName,
          rewardNames: rows.map((r) => r.rewardName),
          neededCents: short.neededCents,
          balanceCents: short.balanceCents,
          link: new URL("/portal/automations", s.appUrl).toString(),
        }),
      ),
      now,
    );
    await recordAudit(tx, {
      companyId,
      actorUserId: null,
      action: "automation.paused",
      subject: `company:${companyId}`,
      data: { automationIds: rows.map((r) => r.id), neededCents: short.neededCents, balanceCents: short.balanceCents },
      at: now,
    });
    return true;
  });
  if (paused) {
    s.logger.warn({ companyId, neededCents: short.neededCents }, "automations paused: the balance is short");
    s.onEmailQueued?.();
  }
  return paused;
}

/** The reasons the Automations page shows for a skipped occasion. */
export const AUTOMATION_SKIPS = {
  amount: (cents: number, years: number) =>
    `Not sent: ${formatDollars(cents)}${years > 0 ? ` for ${years} years of service` : ""} is outside the ${formatDollars(MIN_LINE_CENTS)} to ${formatDollars(MAX_LINE_CENTS)} one reward may be.`,
  member: "Not sent: the member is no longer on the team.",
  makerNotOwner:
    "Not sent: the Owner who made this automation is no longer an Owner. An Owner can save the automation or turn it on again to send its rewards as themselves.",
} as const;

/** Records `rewards` as skipped (automation_rewards with no order): once, like a sent one. */
async function recordSkipped(
  tx: Tx,
  companyId: number,
  rewards: DueReward[],
  reason: (r: DueReward) => string,
  now: Date,
): Promise<void> {
  if (rewards.length === 0) return;
  await tx.insert(automationRewards).values(
    rewards.map((r) => ({
      companyId,
      automationId: r.automation.id,
      userId: r.member.id,
      occasion: r.occasion.occasion,
      year: r.occasion.year,
      dueAt: r.occasion.dueAt,
      orderId: null,
      skipReason: reason(r),
      createdAt: now,
    })),
  );
  await recordAudit(tx, {
    companyId,
    actorUserId: null,
    action: "automation.skipped",
    subject: `automation:${(rewards[0] as DueReward).automation.id}`,
    data: { userIds: rewards.map((r) => r.member.id), reasons: [...new Set(rewards.map(reason))] },
    at: now,
  });
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** The start of the Sydney month of `now` (the company's reporting month). */
function sydneyMonthStart(now: Date): Date {
  const { year, month } = localDate(now, PORTAL_TIME_ZONE);
  return zonedInstant(year, month, 1, 0, PORTAL_TIME_ZONE);
}

/** This Sydney month's automation orders, charged or waiting for approval (a declined one is not spent). */
async function monthSpentCents(db: Db | Tx, companyId: number, now: Date): Promise<number> {
  const [row] = await db
    .select({ cents: sql<string | null>`sum(${orders.totalCents})` })
    .from(orders)
    .where(
      and(
        eq(orders.companyId, companyId),
        sql`${orders.automationId} is not null`,
        gte(orders.createdAt, sydneyMonthStart(now)),
        ne(orders.status, "cancelled"),
        or(isNull(orders.approvalStatus), ne(orders.approvalStatus, "declined")),
      ),
    );
  return Number(row?.cents ?? 0);
}

// ─── The Owner's page and the API ───

function toView(row: AutomationRow, names: Map<number, string>): AutomationView {
  return {
    automationId: row.id,
    occasion: row.occasion,
    amountCents: row.amountCents,
    perYear: row.perYear,
    rewardName: row.rewardName,
    message: row.messageTemplate,
    enabled: row.enabled,
    pausedAt: row.pausedAt?.toISOString() ?? null,
    createdBy: { userId: row.createdBy, name: names.get(row.createdBy) ?? "" },
  };
}

/**
 * GET /Automations: the company's automations, its automation budget and this month's spend, the
 * balance, and who the live automations will reward in the next 30 days (when, and the total as
 * the balance will be charged: one order per automation and send time).
 */
export async function listAutomations(db: Db, companyId: number, now: Date): Promise<AutomationsAnswer> {
  const rows = await db
    .select()
    .from(automations)
    .where(eq(automations.companyId, companyId))
    .orderBy(asc(automations.id));
  const creators = rows.length
    ? await db
        .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
        .from(users)
        .where(inArray(users.id, [...new Set(rows.map((r) => r.createdBy))]))
    : [];
  const names = new Map(creators.map((c) => [c.id, `${c.firstName} ${c.lastName}`]));
  const [company] = await db
    .select({ budgetCents: companies.automationBudgetCents, balanceCents: companies.balanceCents })
    .from(companies)
    .where(eq(companies.id, companyId));
  const live = rows.filter((r) => r.enabled && !r.pausedAt);
  const to = new Date(now.getTime() + PREVIEW_DAYS * DAY_MS);
  const members = live.length ? await membersOn(db, companyId, dayCodesBetween(now, to)) : [];
  const upcoming = rewardsBetween(
    live.map((a) => ({ ...a, createdAt: new Date(0) })),
    members,
    now,
    to,
  );
  const entries: PreviewEntry[] = upcoming
    .map((r) => ({
      automationId: r.automation.id,
      userId: r.member.id,
      firstName: r.member.firstName,
      lastName: r.member.lastName,
      occasion: r.occasion.occasion,
      years: r.occasion.years,
      amountCents: r.amountCents,
      sendAt: r.occasion.dueAt.toISOString(),
      timeZone: r.occasion.timeZone,
    }))
    .sort((a, b) => a.sendAt.localeCompare(b.sendAt) || a.lastName.localeCompare(b.lastName) || a.userId - b.userId);
  let totalCents = 0;
  for (const group of groupBy(entries, (e) => `${e.automationId}@${e.sendAt}`).values()) {
    totalCents += chargesFor(group.map((e) => e.amountCents / 100)).totalCents;
  }
  const skipped = await db
    .select({
      automationId: automationRewards.automationId,
      userId: automationRewards.userId,
      firstName: users.firstName,
      lastName: users.lastName,
      occasion: automationRewards.occasion,
      year: automationRewards.year,
      dueAt: automationRewards.dueAt,
      reason: automationRewards.skipReason,
    })
    .from(automationRewards)
    .innerJoin(users, eq(users.id, automationRewards.userId))
    .where(and(eq(automationRewards.companyId, companyId), isNotNull(automationRewards.skipReason)))
    .orderBy(desc(automationRewards.dueAt), desc(automationRewards.id))
    .limit(SKIPPED_SHOWN);
  return {
    skipped: skipped.map((r) => ({ ...r, dueAt: r.dueAt.toISOString(), reason: r.reason ?? "" })),
    automations: rows.map((r) => toView(r, names)),
    budgetCents: company?.budgetCents ?? null,
    monthSpentCents: await monthSpentCents(db, companyId, now),
    balanceCents: company?.balanceCents ?? 0,
    preview: { entries, rewardsCents: entries.reduce((sum, e) => sum + e.amountCents, 0), totalCents },
  };
}

function automationValues(input: AutomationInput) {
  return {
    occasion: input.occasion,
    amountCents: input.amount * 100,
    perYear: input.occasion === "anniversary" && input.perYear,
    rewardName: input.rewardName,
    messageTemplate: input.message,
    enabled: input.enabled,
  };
}

/** POST /Automations/create-automation (Owners only: the route's gate). */
export async function createAutomation(
  db: Db,
  caller: Caller,
  input: AutomationInput,
  now: Date,
): Promise<{ automationId: number }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(automations)
      .values({
        companyId: caller.companyId,
        createdBy: caller.userId,
        createdAt: now,
        updatedAt: now,
        ...automationValues(input),
      })
      .returning({ id: automations.id });
    if (!row) throw new Error("automation insert returned no row");
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "automation.created",
      subject: `automation:${row.id}`,
      data: { ...automationValues(input) },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
    return { automationId: row.id };
  });
}

async function lockAutomation(tx: Tx, caller: Caller, automationId: number): Promise<AutomationRow> {
  const [row] = await tx
    .select()
    .from(automations)
    .where(and(eq(automations.id, automationId), eq(automations.companyId, caller.companyId)))
    .for("update");
  if (!row) throw new Refusal("automation-not-found");
  return row;
}

/**
 * PUT /Automations/:id/update-automation: the whole automation anew. Turning it on (or leaving it
 * on) clears a pause: the Owner has seen to the balance.
 */
export async function updateAutomation(
  db: Db,
  caller: Caller,
  automationId: number,
  input: AutomationInput,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockAutomation(tx, caller, automationId);
    const values = automationValues(input);
    await tx
      .update(automations)
      // The Owner who saves it is the one it spends as from now on (ADR 0035 amendment).
      .set({ ...values, ...(values.enabled ? { pausedAt: null } : {}), createdBy: caller.userId, updatedAt: now })
      .where(eq(automations.id, automationId));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "automation.updated",
      subject: `automation:${automationId}`,
      data: { ...values },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
  });
}

/** PUT /Automations/:id/set-automation-enabled: on (a pause cleared) or off. */
export async function setAutomationEnabled(
  db: Db,
  caller: Caller,
  automationId: number,
  enabled: boolean,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockAutomation(tx, caller, automationId);
    await tx
      .update(automations)
      .set({ enabled, pausedAt: null, ...(enabled ? { createdBy: caller.userId } : {}), updatedAt: now })
      .where(eq(automations.id, automationId));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: enabled ? "automation.enabled" : "automation.disabled",
      subject: `automation:${automationId}`,
      data: {},
      clientIp: caller.clientIp ?? null,
      at: now,
    });
  });
}

/** PUT /Automations/update-automation-budget: cents a Sydney month, or null for none. */
export async function setAutomationBudget(
  db: Db,
  caller: Caller,
  budgetCents: number | null,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(companies).set({ automationBudgetCents: budgetCents }).where(eq(companies.id, caller.companyId));
    await recordAudit(tx, {
      companyId: caller.companyId,
      actorUserId: caller.userId,
      action: "automation.budget_set",
      subject: `company:${caller.companyId}`,
      data: { budgetCents },
      clientIp: caller.clientIp ?? null,
      at: now,
    });
  });
}
