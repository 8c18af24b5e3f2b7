// The money reconciliation (docs/OPERATIONS.md "Money reconciliation"; `npm run check:money`, and hourly in every
// process: modules/money-check/job.server.ts). It only reads, and reads every table in ONE read-only,
// repeatable-read transaction: every money movement commits whole in one transaction (ADR 0041,
// 0027, 0043), so a consistent snapshot of a healthy database never shows half of one, and what
// it finds is a real inconsistency, not a race with a release or a charge.
//
// Each rule is one query that answers only the rows that break it (so a healthy database costs a
// few aggregate scans and answers nothing):
//   company-balance   companies.balance_cents = Σ balance_entries.amount_cents (ADR 0043 §1)
//   order-state       a paid, charged or balance order is released (status paid + its
//                     reward_releases row), scheduled, awaiting approval (uncharged) or refunded
//                     (ADR 0041, 0026, 0043 §5, 0044 §3–4)
//   order-charge      a balance order that was charged has exactly one 'order' entry, of its total;
//                     no other order has one (a card order charged to the balance too is paid twice)
//   release-lots      a release has one lot per order line, summing to the released amount; every
//                     lot belongs to a release (ADR 0027 §1)
//   recipient-balance a recipient's lots' remaining = issued − redeemed − forfeited from lots, and
//                     = their reward_ledger sum (ADR 0027 §2)
//   refund            at most one balance refund per order, only for a cancelled balance order, of
//                     its total, and every refunded balance order has it (ADR 0044 §4)
//   extra-payment     a second card payment for an order (ADR 0041 "One live payment per order") is
//                     refunded within the grace below, and is never the payment that paid its order
//   top-up            a paid top-up has exactly one credit of its amount to its own company; an
//                     unpaid one has none, and no credit names no top-up (ADR 0043; a top-up has
//                     one payment: ADR 0041)
//   order-amounts     fee = 10 % of the rewards, GST = 10 % of the fee, each half up to the cent,
//                     total = their sum, rewards = the order lines' sum (docs/requirements.md §D5, core/money.ts)
//   removed-member-credit      no lot or ledger credit for a member after their removal (its
//                     'member.removed' audit entry): a release pays only active members
//                     (docs/rules.md "When a release may pay a member", docs/requirements.md §S6)
//   removed-member-redemption  no redemption of a member's code after their removal (the same)
//   line-amount       every order line pays from $1 to $10,000 (core/money.ts MIN_LINE_CENTS and
//                     MAX_LINE_CENTS; the one writer: modules/orders/order-lines.server.ts)
//   manager-budget    a Manager's portal orders charged in this Sydney month without an Owner's
//                     approval stay within the highest budget they had this month (budgets.ts:
//                     reward dollars by paid_at; a budget lowered during the month is judged by the
//                     higher one, as the audit log's budget.manager_changed entries record it; an
//                     approved order may pass it, ADR 0034)
//   automation-once   an automation pays (or skips) each member's occasion once: one
//                     automation_rewards row per automation, member, occasion and year, and no
//                     automation order paid for an occasion another order already paid (ADR 0035)
//
// What does not map, and why:
// - There is no recipient balance column: a balance is the ledger's sum (docs/requirements.md §D4), and the
//   lots keep what is left (ADR 0027 §2), so the check compares those two with the lots' history.
// - A card payment that succeeded at the processor but whose order is still pending is invisible
//   here (this reads only the database); the reconciler asks the processor and releases it (ADR 0041).
// - A card refund is one column (orders.refund_id) made with one idempotency key at the processor,
//   so it cannot be recorded twice in this database; "twice" here is a second balance refund, or a
//   balance refund of a card order (refunded to the card and to the balance).
// - Two charges of one order cannot be written while the unique index balance_entries_order_idx
//   stands; the query counts them anyway, so a dropped or broken index would show.
//
// Findings name companies, orders, users and lots by id and amounts in cents: never an address,
// an access code or an email body (docs/SECURITY.md §11: no secret in any log line).
import { sql } from "drizzle-orm";
import { GST_RATE, MAX_LINE_CENTS, MIN_LINE_CENTS, SERVICE_FEE_RATE } from "../../core/money.ts";
import type { Conn, Db } from "../../server/db/client.ts";
import { rowsOf } from "../../server/db/sql.ts";
import { sydneyMonthOf } from "../budgets/service.server.ts";

export type MoneyRule =
  | "company-balance"
  | "order-state"
  | "order-charge"
  | "release-lots"
  | "recipient-balance"
  | "refund"
  | "extra-payment"
  | "top-up"
  | "order-amounts"
  | "removed-member-credit"
  | "removed-member-redemption"
  | "line-amount"
  | "manager-budget"
  | "automation-once";

export interface MoneyFinding {
  rule: MoneyRule;
  companyId: number;
  orderId?: number;
  userId?: number;
  topUpId?: number;
  /** What is wrong, with ids and cents only. */
  detail: string;
}

export interface MoneyCheckResult {
  findings: MoneyFinding[];
  companies: number;
  orders: number;
}

/**
 * How long a state that is on its way may last before it is a finding: a charged balance order is
 * released by the call that charged it, else by the scheduler after its 60 s grace (ADR 0043 §5);
 * a cancelled order's refund follows the cancel and is retried by the scheduler with backoff
 * (modules/scheduled-sends/service.server.ts; ADR 0041). Fifteen
 * minutes is many passes of the one and five tries of the other: a refund still owed then keeps
 * failing, which is worth a finding.
 */
export const MONEY_CHECK_GRACE_MS = 15 * 60_000;

/** At most this many findings per rule: a broken database is named, not printed whole. */
export const MONEY_CHECK_LIMIT = 1000;

type Row = Record<string, unknown>;
const num = (v: unknown) => Number(v ?? 0);

/** `x × rate`, rounded half up to the cent, in SQL: core/money.ts percentOf, on the same rates. */
function percentOf(column: string, rate: { numerator: bigint; denominator: bigint }) {
  return `((${column} * ${rate.numerator} * 2 + ${rate.denominator}) / (${rate.denominator} * 2))`;
}
/** Exported for the test that holds the SQL to chargesFor. */
export const FEE_SQL = (rewards: string) => percentOf(rewards, SERVICE_FEE_RATE);
export const GST_SQL = (fee: string) => percentOf(fee, GST_RATE);

// Orders that took money, or are a balance order that must take it (an API order that is not
// declined or superseded): the card processors' once paid_at is set (release.ts sets it when
// releasing or scheduling), a balance order as soon as it exists.
const PAID_OR_CHARGED = `(o.paid_at is not null or o.status in ('paid', 'scheduled', 'cancelled')
  or (o.processor = 'balance' and o.status <> 'failed') or c.order_id is not null)`;

const CHARGES = `select order_id, count(*) as n, sum(-amount_cents) as cents, max(created_at) as at
  from balance_entries where kind = 'order' group by order_id`;

const rules: Record<MoneyRule, { query: (now: Date) => ReturnType<typeof sql>; finding: (r: Row) => MoneyFinding }> = {
  "company-balance": {
    query: () => sql`
      select c.id as company_id, c.balance_cents, coalesce(e.cents, 0) as ledger_cents, coalesce(e.n, 0) as entries
      from companies c
      left join (select company_id, sum(amount_cents) as cents, count(*) as n from balance_entries group by company_id) e
        on e.company_id = c.id
      where c.balance_cents <> coalesce(e.cents, 0)
      order by c.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "company-balance",
      companyId: num(r.company_id),
      detail: `balance ${num(r.balance_cents)} cents, but its ${num(r.entries)} ledger entries sum to ${num(r.ledger_cents)} cents`,
    }),
  },

  "order-state": {
    query: (now) => {
      const since = new Date(now.getTime() - MONEY_CHECK_GRACE_MS).toISOString();
      return sql`
      select o.id, o.company_id, o.status, o.processor, o.approval_status,
        o.released_at is not null as released_at, r.order_id is not null as has_release,
        c.order_id is not null as charged, o.refunded_at is not null as refunded
      from orders o
      left join reward_releases r on r.order_id = o.id
      left join (${sql.raw(CHARGES)}) c on c.order_id = o.id
      where ${sql.raw(PAID_OR_CHARGED)}
        and not (
          -- released: paid, with its history row (release.ts writes both in one transaction)
          (o.status = 'paid' and o.released_at is not null and r.order_id is not null)
          -- paid and waiting for its send time (ADR 0026)
          or (o.status = 'scheduled' and o.released_at is null and r.order_id is null)
          -- cancelled before its release and refunded (the refund of a balance order is checked by 'refund')
          or (o.status = 'cancelled' and o.refunded_at is not null and r.order_id is null)
          -- an Owner has not decided yet: nothing is paid or charged before the approval (ADR 0022, 0044 §4)
          or (o.status = 'pending' and o.approval_status = 'requested' and o.paid_at is null and c.order_id is null)
          -- on its way: charged and about to be released, or cancelled and about to be refunded
          or (o.status = 'pending' and o.processor = 'balance' and c.at > ${since}::timestamptz)
          or (o.status = 'cancelled' and o.refunded_at is null and r.order_id is null and o.cancelled_at > ${since}::timestamptz)
        )
      order by o.id limit ${MONEY_CHECK_LIMIT}`;
    },
    finding: (r) => ({
      rule: "order-state",
      companyId: num(r.company_id),
      orderId: num(r.id),
      detail: `${r.processor} order is ${r.status}${r.approval_status ? ` (approval ${r.approval_status})` : ""}${r.charged ? ", charged to the balance" : ""}, ${
        r.has_release ? "with a release" : "no release"
      }${r.released_at ? ", released_at set" : ""}${r.refunded ? ", refunded" : ""}: not released, scheduled, awaiting approval or refunded`,
    }),
  },

  "order-charge": {
    query: () => sql`
      select o.id, o.company_id, o.processor, o.total_cents, coalesce(c.n, 0) as charges, coalesce(c.cents, 0) as charged_cents
      from orders o
      left join (${sql.raw(CHARGES)}) c on c.order_id = o.id
      where case
        -- charged when it was placed, or when an Owner approved it (ADR 0044 §3, §4)
        when o.processor = 'balance' and (o.paid_at is not null or o.status in ('paid', 'scheduled', 'cancelled')
          or o.approval_status = 'approved' or (o.status = 'pending' and o.approval_status is null))
          then coalesce(c.n, 0) <> 1 or c.cents <> o.total_cents
        else coalesce(c.n, 0) > 0
      end
      order by o.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "order-charge",
      companyId: num(r.company_id),
      orderId: num(r.id),
      detail:
        r.processor !== "balance"
          ? `${r.processor} (card) order also charged to the balance ${num(r.charges)} time(s), ${num(r.charged_cents)} cents`
          : num(r.charges) === 0
            ? `balance order of ${num(r.total_cents)} cents has no balance charge`
            : `balance order of ${num(r.total_cents)} cents charged ${num(r.charges)} time(s), ${num(r.charged_cents)} cents`,
    }),
  },

  "release-lots": {
    query: () => sql`
      with lots as (
        select order_id, min(company_id) as company_id, count(*) as n, sum(amount_cents) as cents
        from reward_lots group by order_id
      ), lines as (select order_id, count(*) as n from order_lines group by order_id)
      select 'release' as side, r.order_id, r.company_id, r.amount_cents, coalesce(l.n, 0) as lots,
        coalesce(l.cents, 0) as lot_cents, coalesce(ln.n, 0) as lines
      from reward_releases r
      left join lots l on l.order_id = r.order_id
      left join lines ln on ln.order_id = r.order_id
      where coalesce(l.n, 0) <> coalesce(ln.n, 0) or coalesce(l.cents, 0) <> r.amount_cents
      union all
      select 'lot', l.order_id, l.company_id, 0, l.n, l.cents, 0
      from lots l
      where l.order_id is null or not exists (select 1 from reward_releases r where r.order_id = l.order_id)
      order by 2 limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) =>
      r.side === "release"
        ? {
            rule: "release-lots",
            companyId: num(r.company_id),
            orderId: num(r.order_id),
            detail: `release of ${num(r.amount_cents)} cents for ${num(r.lines)} order lines has ${num(r.lots)} lots of ${num(r.lot_cents)} cents`,
          }
        : {
            rule: "release-lots",
            companyId: num(r.company_id),
            ...(r.order_id === null ? {} : { orderId: num(r.order_id) }),
            detail: `${num(r.lots)} lots of ${num(r.lot_cents)} cents without a release${r.order_id === null ? " (no order)" : ""}`,
          },
  },

  "recipient-balance": {
    query: () => sql`
      with lots as (
        select company_id, user_id, sum(amount_cents) as issued, sum(remaining_cents) as remaining
        from reward_lots group by company_id, user_id
      ), spent as (
        select company_id, user_id, sum(amount_cents) as cents from redemptions group by company_id, user_id
      ), ledger as (
        select company_id, user_id,
          sum(case when kind = 'credit' then amount_cents else -amount_cents end) as balance,
          sum(case when kind = 'forfeit' and lot_id is not null then amount_cents else 0 end) as lot_forfeits
        from reward_ledger group by company_id, user_id
      ), who as (
        select company_id, user_id from lots union select company_id, user_id from spent
        union select company_id, user_id from ledger
      )
      select w.company_id, w.user_id, coalesce(l.issued, 0) as issued, coalesce(l.remaining, 0) as remaining,
        coalesce(s.cents, 0) as redeemed, coalesce(g.lot_forfeits, 0) as forfeited, coalesce(g.balance, 0) as ledger
      from who w
      left join lots l on l.company_id = w.company_id and l.user_id = w.user_id
      left join spent s on s.company_id = w.company_id and s.user_id = w.user_id
      left join ledger g on g.company_id = w.company_id and g.user_id = w.user_id
      where coalesce(l.remaining, 0) <> coalesce(l.issued, 0) - coalesce(s.cents, 0) - coalesce(g.lot_forfeits, 0)
        or coalesce(l.remaining, 0) <> coalesce(g.balance, 0)
      order by w.company_id, w.user_id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "recipient-balance",
      companyId: num(r.company_id),
      userId: num(r.user_id),
      detail: `recipient's lots hold ${num(r.remaining)} cents; issued ${num(r.issued)} − redeemed ${num(r.redeemed)} − forfeited ${num(r.forfeited)} = ${
        num(r.issued) - num(r.redeemed) - num(r.forfeited)
      }; reward ledger ${num(r.ledger)}`,
    }),
  },

  refund: {
    query: () => sql`
      select o.id, o.company_id, o.processor, o.status, o.total_cents, o.refunded_at is not null as refunded,
        coalesce(f.n, 0) as refunds, coalesce(f.cents, 0) as refund_cents
      from orders o
      left join (
        select order_id, count(*) as n, sum(amount_cents) as cents from balance_entries where kind = 'refund' group by order_id
      ) f on f.order_id = o.id
      where coalesce(f.n, 0) > 1
        or (f.n is not null and (o.processor <> 'balance' or o.status <> 'cancelled' or f.cents <> o.total_cents))
        or (o.processor = 'balance' and o.refunded_at is not null and f.n is null)
      order by o.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "refund",
      companyId: num(r.company_id),
      orderId: num(r.id),
      detail:
        num(r.refunds) === 0
          ? `balance order marked refunded, but no refund reached the balance`
          : `${r.processor} order (${r.status}${r.refunded ? ", refunded" : ""}) of ${num(r.total_cents)} cents has ${num(r.refunds)} balance refund(s) of ${num(r.refund_cents)} cents${
              r.processor !== "balance" ? ": refunded to the card and to the balance" : ""
            }`,
    }),
  },

  "extra-payment": {
    query: (now) => sql`
      select e.id, e.company_id, e.order_id, e.amount_cents, e.refund_failed_at is not null as gave_up,
        o.payment_intent_id = e.payment_intent_id as pays_order
      from extra_payments e join orders o on o.id = e.order_id
      where o.payment_intent_id = e.payment_intent_id
        or (e.refunded_at is null and e.found_at < ${new Date(now.getTime() - MONEY_CHECK_GRACE_MS)})
      order by e.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "extra-payment",
      companyId: num(r.company_id),
      orderId: num(r.order_id),
      detail: r.pays_order
        ? `second payment ${num(r.id)} is the payment that paid the order: refunding it leaves the order unpaid`
        : `second payment ${num(r.id)} of ${num(r.amount_cents)} cents not refunded${r.gave_up ? " (given up on: support was emailed)" : ""}`,
    }),
  },

  "top-up": {
    query: () => sql`
      select t.id as top_up_id, t.company_id, t.status, t.amount_cents, coalesce(e.n, 0) as credits,
        coalesce(e.cents, 0) as credited_cents,
        coalesce(e.min_company <> t.company_id or e.max_company <> t.company_id, false) as other_company
      from balance_top_ups t
      left join (
        select top_up_id, count(*) as n, sum(amount_cents) as cents, max(company_id) as max_company,
          min(company_id) as min_company
        from balance_entries where kind = 'top_up' and top_up_id is not null group by top_up_id
      ) e on e.top_up_id = t.id
      where case when t.status = 'paid'
        then coalesce(e.n, 0) <> 1 or e.cents <> t.amount_cents or e.min_company <> t.company_id
          or e.max_company <> t.company_id
        else e.n is not null
      end
      union all
      select null, company_id, null, 0, count(*), sum(amount_cents), false
      from balance_entries where kind = 'top_up' and top_up_id is null group by company_id
      order by 1 limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "top-up",
      companyId: num(r.company_id),
      ...(r.top_up_id === null ? {} : { topUpId: num(r.top_up_id) }),
      detail:
        r.top_up_id === null
          ? `${num(r.credits)} top-up credit(s) of ${num(r.credited_cents)} cents name no top-up`
          : `${r.status} top-up of ${num(r.amount_cents)} cents has ${num(r.credits)} credit(s) of ${num(r.credited_cents)} cents${
              r.status === "paid" ? "" : ": credited but not paid"
            }${r.other_company ? ", credited to another company" : ""}`,
    }),
  },

  "order-amounts": {
    query: () => sql`
      select o.id, o.company_id, o.rewards_cents, o.service_fee_cents, o.gst_cents, o.total_cents,
        coalesce(l.cents, 0) as lines_cents
      from orders o
      left join (select order_id, sum(amount_cents) as cents from order_lines group by order_id) l on l.order_id = o.id
      where o.service_fee_cents <> ${sql.raw(FEE_SQL("o.rewards_cents"))}
        or o.gst_cents <> ${sql.raw(GST_SQL("o.service_fee_cents"))}
        or o.total_cents <> o.rewards_cents + o.service_fee_cents + o.gst_cents
        or o.rewards_cents <> coalesce(l.cents, 0)
      order by o.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "order-amounts",
      companyId: num(r.company_id),
      orderId: num(r.id),
      detail: `rewards ${num(r.rewards_cents)} (lines ${num(r.lines_cents)}), fee ${num(r.service_fee_cents)}, GST ${num(r.gst_cents)}, total ${num(r.total_cents)} cents: not the 10 % fee and 10 % GST on it (docs/requirements.md §D5)`,
    }),
  },

  "removed-member-credit": {
    query: () => sql`
      with removed as (
        select company_id, substring(subject from 6)::bigint as user_id, min(created_at) as at
        from audit_log where action = 'member.removed' and subject like 'user:%' group by company_id, subject
      )
      select x.company_id, x.user_id, x.order_id, x.what, x.id, x.amount_cents
      from (
        select l.company_id, l.user_id, l.order_id, 'lot' as what, l.id, l.amount_cents, l.issued_at as at
        from reward_lots l
        union all
        select e.company_id, e.user_id, e.order_id, 'ledger credit' as what, e.id, e.amount_cents, e.created_at as at
        from reward_ledger e where e.kind = 'credit'
      ) x
      join removed r on r.company_id = x.company_id and r.user_id = x.user_id
      where x.at > r.at
      order by x.company_id, x.user_id, x.what, x.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "removed-member-credit",
      companyId: num(r.company_id),
      ...(r.order_id === null || r.order_id === undefined ? {} : { orderId: num(r.order_id) }),
      userId: num(r.user_id),
      detail: `${r.what} ${num(r.id)} of ${num(r.amount_cents)} cents made after the member was removed`,
    }),
  },

  "removed-member-redemption": {
    query: () => sql`
      with removed as (
        select company_id, substring(subject from 6)::bigint as user_id, min(created_at) as at
        from audit_log where action = 'member.removed' and subject like 'user:%' group by company_id, subject
      )
      select d.id, d.company_id, d.user_id, d.amount_cents
      from redemptions d
      join removed r on r.company_id = d.company_id and r.user_id = d.user_id
      where d.created_at > r.at
      order by d.company_id, d.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "removed-member-redemption",
      companyId: num(r.company_id),
      userId: num(r.user_id),
      detail: `redemption ${num(r.id)} of ${num(r.amount_cents)} cents after the member was removed`,
    }),
  },

  "line-amount": {
    query: () => sql`
      select l.id, l.order_id, l.company_id, l.user_id, l.amount_cents
      from order_lines l
      where l.amount_cents < ${MIN_LINE_CENTS} or l.amount_cents > ${MAX_LINE_CENTS}
      order by l.id limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "line-amount",
      companyId: num(r.company_id),
      orderId: num(r.order_id),
      userId: num(r.user_id),
      detail: `line ${num(r.id)} pays ${num(r.amount_cents)} cents, outside ${MIN_LINE_CENTS} to ${MAX_LINE_CENTS} cents (core/money.ts)`,
    }),
  },

  "manager-budget": {
    query: (now) => {
      const { month, start, end } = sydneyMonthOf(now);
      const from = start.toISOString();
      const to = end.toISOString();
      return sql`
      with spent as (
        select o.company_id, o.placed_by, sum(o.rewards_cents) as cents, count(*) as n
        from orders o
        where o.api_key_id is null and o.automation_id is null
          and o.status in ('paid', 'scheduled') and o.paid_at >= ${from}::timestamptz and o.paid_at < ${to}::timestamptz
          and (o.approval_status is null or o.approval_status <> 'approved')
        group by o.company_id, o.placed_by
      ), earlier as (
        -- The budgets the Manager had earlier this month: each change records the one it replaced.
        select a.subject, bool_or(a.data->>'fromCents' is null) as was_unlimited,
          max((a.data->>'fromCents')::bigint) as from_cents
        from audit_log a
        where a.action = 'budget.manager_changed' and a.created_at >= ${from}::timestamptz
        group by a.subject
      )
      select u.id, u.company_id, s.cents, s.n, greatest(u.monthly_budget_cents, e.from_cents) as budget_cents,
        ${month}::text as month
      from users u
      join spent s on s.placed_by = u.id and s.company_id = u.company_id
      left join earlier e on e.subject = 'user:' || u.id
      where u.role = 'program_manager' and u.manager_role = 'manager' and u.monthly_budget_cents is not null
        and coalesce(e.was_unlimited, false) = false
        and s.cents > greatest(u.monthly_budget_cents, e.from_cents)
      order by u.id limit ${MONEY_CHECK_LIMIT}`;
    },
    finding: (r) => ({
      rule: "manager-budget",
      companyId: num(r.company_id),
      userId: num(r.id),
      detail: `${num(r.n)} orders without an approval charged ${num(r.cents)} cents of rewards in ${String(r.month)}, past the budget of ${num(r.budget_cents)} cents (ADR 0034)`,
    }),
  },

  "automation-once": {
    query: () => sql`
      select a.company_id, a.automation_id, a.user_id, a.occasion, a.year, count(*) as n,
        min(a.order_id) as order_id
      from automation_rewards a
      group by a.company_id, a.automation_id, a.user_id, a.occasion, a.year
      having count(*) > 1
      union all
      -- An automation order paying a member whose occasion names another order: paid twice.
      select o.company_id, o.automation_id, l.user_id, null, null, 1, o.id
      from orders o
      join order_lines l on l.order_id = o.id
      where o.automation_id is not null
        and not exists (
          select 1 from automation_rewards a
          where a.order_id = o.id and a.user_id = l.user_id
        )
      order by 1, 2, 3 limit ${MONEY_CHECK_LIMIT}`,
    finding: (r) => ({
      rule: "automation-once",
      companyId: num(r.company_id),
      orderId: r.order_id === null || r.order_id === undefined ? undefined : num(r.order_id),
      userId: num(r.user_id),
      detail:
        r.occasion === null || r.occasion === undefined
          ? `automation ${num(r.automation_id)} paid this member in an order no occasion of theirs names (ADR 0035)`
          : `automation ${num(r.automation_id)} recorded the ${String(r.occasion)} of ${num(r.year)} ${num(r.n)} times (ADR 0035)`,
    }),
  },
};

export const MONEY_RULES = Object.keys(rules) as MoneyRule[];

/**
 * Runs every rule on one consistent snapshot. `now` decides only which states are still on
 * their way (MONEY_CHECK_GRACE_MS); nothing is written.
 */
export async function checkMoney(db: Db, options: { now: Date }): Promise<MoneyCheckResult> {
  return db.transaction(
    async (tx) => {
      const findings: MoneyFinding[] = [];
      for (const name of MONEY_RULES) {
        const rule = rules[name];
        for (const row of await select(tx, rule.query(options.now))) findings.push(rule.finding(row));
      }
      const [counts] = await select(
        tx,
        sql`select (select count(*) from companies) as companies, (select count(*) from orders) as orders`,
      );
      return { findings, companies: num(counts?.companies), orders: num(counts?.orders) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

async function select(conn: Conn, query: ReturnType<typeof sql>): Promise<Row[]> {
  return rowsOf<Row>(await conn.execute(query));
}

/** One line per finding, as the script prints it and the job logs it. */
export function formatFinding(f: MoneyFinding): string {
  const ids = [
    `company ${f.companyId}`,
    ...(f.orderId === undefined ? [] : [`order ${f.orderId}`]),
    ...(f.userId === undefined ? [] : [`user ${f.userId}`]),
    ...(f.topUpId === undefined ? [] : [`top-up ${f.topUpId}`]),
  ].join(", ");
  return `${f.rule}: ${ids}: ${f.detail}`;
}

/** The line of a clean run. */
export function reconcilesLine(result: MoneyCheckResult): string {
  return `money reconciles: ${result.companies} companies, ${result.orders} orders checked`;
}
