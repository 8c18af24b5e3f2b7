// The dashboard's monthly budget of a Manager who has one (ADR 0034): what their orders used this
// Australia/Sydney month and what is left. An order past it goes to an Owner's approval; Owners
// see every manager's budget on Settings › Managers.

import { dateFormat } from "../../../core/dates.ts";
import { formatDollars } from "../../../core/money.ts";
import type { BudgetUse } from "../../../modules/budgets/schema.ts";

const MONTH = dateFormat("monthYear", "UTC");

export function MyBudget({ budget }: { budget: BudgetUse }) {
  const [y, m] = budget.month.split("-").map(Number) as [number, number];
  const month = MONTH.format(new Date(Date.UTC(y, m - 1, 1)));
  return (
    <section
      aria-labelledby="my-budget-heading"
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
    >
      <h2 id="my-budget-heading" className="text-sm font-semibold text-slate-700">
        Your monthly budget ({month})
      </h2>
      <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid="budget-left">
        {formatDollars(budget.leftCents ?? 0)} left
      </p>
      <p className="mt-1 text-sm text-slate-600" data-testid="budget-used">
        {formatDollars(budget.usedCents)} used of {formatDollars(budget.monthlyBudgetCents ?? 0)} this month. Rewards
        beyond what is left need an Owner's approval.
      </p>
    </section>
  );
}
