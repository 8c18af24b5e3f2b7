// Monthly budgets (ADR 0034): an Owner gives a Manager, or an API key, a budget of reward dollars
// for each Australia/Sydney calendar month (whole dollars, or none: unlimited). What the API takes
// and answers and the settings forms post. Pure code, shared by the provider API, the route
// actions and the browser (ADR 0017).
import * as z from "zod/mini";
import { wholeDollarsOrNone } from "../approvals/schema.ts";

/** The largest budget: as the threshold's, above any single payment. */
export const MAX_BUDGET_DOLLARS = 999_999;

export const BUDGET_MESSAGES = {
  negative: "A monthly budget cannot be negative.",
  notWhole: "A monthly budget must be a whole number of dollars, such as 500.",
  tooLarge: `A monthly budget must be at most $${MAX_BUDGET_DOLLARS.toLocaleString("en-AU")}.`,
} as const;

/** Whole dollars as typed, blank or null for none (unlimited): the cents, or null. */
export const budgetField = wholeDollarsOrNone(BUDGET_MESSAGES, MAX_BUDGET_DOLLARS);

/** PUT /api/Managers/{id}/budget and PUT /api/ApiKeys/{id}/budget: `budgetDollars`, or null / "" for none. */
export const setBudgetSchema = z.object({ budgetDollars: budgetField });
export type SetBudgetRequest = z.input<typeof setBudgetSchema>;

/** Settings › Managers: the budget form of one manager's row. */
export const managerBudgetFormSchema = z.object({
  intent: z.literal("budget"),
  managerId: z.coerce.number().check(z.int(), z.positive()),
  budgetDollars: budgetField,
});

/** Settings › API keys: the budget form of one key's row. */
export const apiKeyBudgetFormSchema = z.object({
  intent: z.literal("budget"),
  apiKeyId: z.coerce.number().check(z.int(), z.positive()),
  budgetDollars: budgetField,
});

/** A budget this month: reward dollars charged (or being charged) against it, and what is left. */
export interface BudgetUse {
  /** "YYYY-MM", the Sydney calendar month. */
  month: string;
  /** Null: unlimited. */
  monthlyBudgetCents: number | null;
  usedCents: number;
  /** Null with no budget; never below 0. */
  leftCents: number | null;
}

export interface ManagerBudgetUse extends BudgetUse {
  userId: number;
  name: string;
  managerRole: "owner" | "manager";
  /** False for an Owner: their own orders are not held to a budget (ADR 0034). */
  applies: boolean;
}

export interface ApiKeyBudgetUse extends BudgetUse {
  apiKeyId: number;
  name: string;
}

/** GET /api/Budgets: an Owner sees every active manager and live key; a Manager their own row only. */
export interface BudgetsOverview {
  month: string;
  managers: ManagerBudgetUse[];
  apiKeys: ApiKeyBudgetUse[];
}

/** PUT …/budget's answer. */
export interface SetBudgetResponse {
  id: number;
  monthlyBudgetCents: number | null;
}

/** What is left of `budgetCents` after `usedCents` (null: unlimited). */
export function budgetLeft(budgetCents: number | null, usedCents: number): number | null {
  return budgetCents === null ? null : Math.max(0, budgetCents - usedCents);
}
