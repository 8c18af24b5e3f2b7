// The top-up amounts as the portal's form reads them and the API checks them (ADR 0043).
import { expect, it } from "vitest";
import { z } from "zod";
import {
  createTopUpSchema,
  entryLabel,
  TOP_UP_DETAILS,
  TOP_UP_FORM_DETAILS,
  topUpDollarsToCents,
  topUpFormSchema,
} from "./schema.ts";

it("reads whole dollars as people type them, and nothing else", () => {
  expect(topUpDollarsToCents("500")).toBe(50_000);
  expect(topUpDollarsToCents(" $500 ")).toBe(50_000);
  expect(topUpDollarsToCents("1,000")).toBe(100_000);
  expect(topUpDollarsToCents("$100,000.00")).toBe(10_000_000);
  for (const text of ["", "12.50", "12.5", "abc", "-50", "1,00", "5e3", "$", "10 000", "0x10"]) {
    expect(topUpDollarsToCents(text), text).toBeNull();
  }
});

it("the form refuses what the API would, with a message for the field", () => {
  const issues = (amount: string) => {
    const parsed = z.safeParse(topUpFormSchema, { intent: "top-up", amount });
    return parsed.success ? [] : parsed.error.issues.map((i) => i.message);
  };
  expect(issues("50")).toEqual([]);
  expect(issues("")).toEqual([TOP_UP_FORM_DETAILS.amountRequired]);
  expect(issues("12.50")).toEqual([TOP_UP_FORM_DETAILS.amountFormat]);
  expect(issues("9")).toEqual([TOP_UP_DETAILS.amountRange]);
  expect(issues("100001")).toEqual([TOP_UP_DETAILS.amountRange]);
  expect(z.safeParse(createTopUpSchema, { amount: 1000 }).success).toBe(true);
  expect(z.safeParse(createTopUpSchema, { amount: 10_000_000 }).success).toBe(true);
  expect(z.safeParse(createTopUpSchema, { amount: 10_000_100 }).success).toBe(false);
});

it("names each movement of the statement", () => {
  expect(entryLabel({ kind: "top_up", order: null })).toBe("Top-up");
  const order = { id: 7, invoiceNumber: "INV-000007", rewardName: "Holiday thanks" };
  expect(entryLabel({ kind: "order", order })).toBe("Order INV-000007 · Holiday thanks");
  expect(entryLabel({ kind: "refund", order: { ...order, invoiceNumber: null } })).toBe("Refund Holiday thanks");
});
