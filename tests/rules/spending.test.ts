// What a budget allows (docs/rules.md): every module that spends a company's money on an order
// (takes it from the prepaid balance, or claims an order's card payment) asks the one budget rule,
// modules/budgets/service.server.ts lockBudgetExcess (directly, or through approval-rule.ts
// approvalRuleFor, which adds the approval threshold). The one that does not is named here with
// why; a new spending path fails this test until it asks the rule or is argued into this list.
import { expect, test } from "vitest";
import { modulesMatching } from "./writers.ts";

/** Takes money for an order: a balance movement of kind "order", or a card payment's claim. */
const SPENDS = /moveBalance\([^;]*kind:\s*"order"|claimPaymentPath\(/s;
/** Asks the budget rule. */
const ASKS_THE_RULE = /\b(approvalRuleFor|lockBudgetExcess)\(/;

const EXEMPT: Record<string, string> = {
  // Spends only as an active Owner, whom no budget binds (ADR 0035 amendment: an automation whose
  // maker is no longer an Owner is skipped with a reason).
  "modules/automations/service.server.ts": "spends as an active Owner only",
};

test("every module that spends on an order asks the budget rule, or is an argued exception", () => {
  const spenders = modulesMatching(SPENDS);
  const asking = new Set(modulesMatching(ASKS_THE_RULE));
  const around = spenders.filter((f) => !asking.has(f) && !(f in EXEMPT));
  expect(around).toEqual([]);
  // The list names real spenders (a stale exemption would hide nothing and mean nothing).
  for (const f of Object.keys(EXEMPT)) expect(spenders).toContain(f);
});
