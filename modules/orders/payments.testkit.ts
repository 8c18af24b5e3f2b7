// Test helpers for the payment calls: an API with a chosen card processor and release hook, a
// signed-up manager with company details, and a reward draft written straight into the draft
// tables (so a test can hold thousands of recipients). Used by *.test.ts files and the
// release benchmark; never by the application.
import { eq } from "drizzle-orm";
import { expect, vi } from "vitest";
import { chargesFor } from "../../core/money.ts";
import { createApi } from "../../server/api/index.ts";
import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import { rewardDraftLines, rewardDrafts, users } from "../../server/db/schema.ts";
import type { Payments } from "../../server/payments/port.ts";
import { CARD } from "../../tests/support/app-process.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { call, signUpVerified, type TestClock, testClock } from "../identity/accounts.testkit.ts";

export interface PaymentsApiOptions {
  config: Config;
  payments?: Payments;
  onReleaseLine?: (index: number) => void | Promise<void>;
  clock?: TestClock;
}

export function paymentsApi(db: Db, options: PaymentsApiOptions) {
  const clock = options.clock ?? testClock();
  const onEmailQueued = vi.fn();
  const logs = captureLogs("warn");
  const api = createApi({
    db,
    config: options.config,
    logger: logs.logger,
    captcha: { enabled: false, verify: async () => true },
    onEmailQueued,
    now: clock.now,
    payments: options.payments,
    onReleaseLine: options.onReleaseLine,
  });
  return { api, clock, onEmailQueued, logs };
}

type Api = ReturnType<typeof createApi>;

/**
 * A verified manager whose company has details (ABN 53 004 085 616), or none with
 * `withDetails: false`; `json` calls the API as them.
 */
export async function payingManager(api: Api, db: Db, companyName = "Acme Pty Ltd", withDetails = true) {
  const account = await signUpVerified(api, db, { companyName });
  if (withDetails) {
    const res = await call(
      api,
      "PUT",
      "/api/Companies/",
      { name: companyName, ABN: "53004085616", size: "11-50", industry: "Retail" },
      account.accessToken,
    );
    expect(res.status, await res.clone().text()).toBe(200);
  }
  const [row] = await db.select({ companyId: users.companyId }).from(users).where(eq(users.id, account.userId));
  const companyId = row?.companyId as number;
  const go = (method: string, path: string, body?: unknown) =>
    call(api, method, `/api/${path}`, body, account.accessToken);
  const json = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
    const r = await go(method, path, body);
    const text = await r.text();
    expect(r.status, text).toBe(status);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return { ...account, companyId, go, json };
}

type PayingManager = Awaited<ReturnType<typeof payingManager>>;

/** Pays the manager's draft of `amounts` with the simulated card 4242…: the order is released at once. */
export async function payDraftByCard(manager: PayingManager, amounts: readonly number[]) {
  const intent = await manager.json<{ paymentIntentId: string; clientSecret: string }>(
    "POST",
    "StripePayment/create-payment-intent",
    { amount: Number(chargesFor(amounts).totalCents) },
  );
  return manager.json<{ status: string }>("POST", "StripePayment/confirm-simulated-payment", {
    paymentIntent: intent.paymentIntentId,
    clientSecret: intent.clientSecret,
    ...CARD,
  });
}

let counter = 0;

/**
 * Gives the manager a draft: one new team member per amount (whole dollars), and the name.
 * Answers the member ids in the order given.
 */
export async function seedDraft(
  db: Db,
  owner: { companyId: number; userId: number },
  amounts: number[],
  name = "Quarterly Thanks",
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < amounts.length; i += 1000) {
    const part = amounts.slice(i, i + 1000);
    const rows = await db
      .insert(users)
      .values(
        part.map(() => {
          counter++;
          return {
            companyId: owner.companyId,
            firstName: `Member${counter}`,
            lastName: `Person${counter}`,
            email: `member${counter}.${owner.companyId}@example.com`,
            role: "member" as const,
          };
        }),
      )
      .returning({ id: users.id });
    ids.push(...rows.map((r) => r.id));
  }
  const [existing] = await db.select().from(rewardDrafts).where(eq(rewardDrafts.userId, owner.userId));
  const draft =
    existing ??
    (await db.insert(rewardDrafts).values({ companyId: owner.companyId, userId: owner.userId, name }).returning())[0];
  if (!draft) throw new Error("no draft");
  await db
    .update(rewardDrafts)
    .set({ name, version: draft.version + 1 })
    .where(eq(rewardDrafts.id, draft.id));
  for (let i = 0; i < ids.length; i += 1000) {
    await db.insert(rewardDraftLines).values(
      ids.slice(i, i + 1000).map((userId, j) => ({
        draftId: draft.id,
        companyId: owner.companyId,
        userId,
        amountDollars: amounts[i + j] ?? 0,
      })),
    );
  }
  return ids;
}
