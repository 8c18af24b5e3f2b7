// The server half of the budget form (budget-form.tsx, ADR 0034) that Settings › Managers and
// Settings › API keys share: each page's action keeps its `case "budget"` (parse, write, redirect:
// ADR 0032) and takes from here what the API is sent and what the toast says afterwards.
import { formatDollars } from "../../../core/money.ts";
import type { ToastInput } from "../../lib/toast.server.ts";

/**
 * The body of PUT …/{id}/budget from the form's parsed field: the form's schema (modules/budgets/schema.ts)
 * answers cents, or null for none (unlimited); the API takes whole dollars.
 */
export function budgetRequest(budgetCents: number | null): { budgetDollars: number | null } {
  return { budgetDollars: budgetCents === null ? null : budgetCents / 100 };
}

/** The toast after a budget is saved, from the budget the API answered. */
export function budgetSavedToast(monthlyBudgetCents: number | null): ToastInput {
  return {
    type: "success",
    title:
      monthlyBudgetCents === null
        ? "Monthly budget removed"
        : `Monthly budget saved: ${formatDollars(monthlyBudgetCents)}`,
  };
}
