// Shared fixtures of the security suite: company A (its Owner with company details, team members,
// a paid and released order, a draft with a pending payment, and a second manager with the
// Manager role, a company API key) and company B (another Owner, with a key of its own),
// plus a snapshot of every row so a test can prove that a refused call changed nothing.
import { eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { call, logIn, PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { hashPassword } from "../../modules/identity/password.server.ts";
import { payDraftByCard, payingManager, paymentsApi, seedDraft } from "../../modules/orders/payments.testkit.ts";
import type { Db } from "../../server/db/client.ts";
import { orders, recipientAccounts, users } from "../../server/db/schema.ts";
import { testConfig } from "../support/config.ts";

/** The catalogue partner's key in every world (POST /api/Redemptions). */
export const PARTNER_KEY = "security-partner-key-0123456789abcdef";

export const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };

export type Api = ReturnType<typeof paymentsApi>["api"];
type Manager = Awaited<ReturnType<typeof payingManager>>;

export interface Intent {
  paymentIntentId: string;
  clientSecret: string;
  orderId: number;
}

/** A program manager of A's with the Manager role (ADR 0022): the team and rewards, nothing of an Owner's. */
export interface CompanyManager {
  userId: number;
  companyId: number;
  email: string;
  accessToken: string;
}

export interface World {
  api: Api;
  /** The API's clock (a TOTP code is computed at its time). */
  clock: { now(): Date };
  a: Manager;
  /** A Manager (not an Owner) of company A. */
  aManager: CompanyManager;
  b: Manager;
  /** A's members that were paid and released (in A's reward history). */
  paidMembers: number[];
  /** A's members in A's current draft. */
  draftMembers: number[];
  /** A's pending payment for the current draft. */
  pending: Intent;
  paid: Intent;
  /** A's order paid and scheduled two days after the world was built. */
  scheduledOrder: number;
  /** The access code of A's first paid member (a recipient with a balance). */
  paidAccessCode: string;
  /** A company API key of A's and one of B's (ADR 0028): what /api/v1 takes. */
  aApiKey: string;
  bApiKey: string;
}

/** A team CSV of two new members (core/csv.ts headings). */
export const TEAM_CSV =
  "First Name,Last Name,Email Address\r\nImp,Orter,imp.orter@example.com\r\nIan,Port,ian.port@example.com\r\n";

/** `env` adds configuration, e.g. RATE_LIMIT_FACTOR for tests that call one operation many times. */
export async function buildWorld(db: Db, env: Record<string, string> = {}): Promise<World> {
  const config = testConfig({
    CATALOGUE_URL: "https://catalogue.test/",
    SUPPORT_EMAIL: "help@rewards.test",
    PARTNER_API_KEY: PARTNER_KEY,
    ...env,
  });
  const { api, clock } = paymentsApi(db, { config });
  const a = await payingManager(api, db, "Alpha Pty Ltd");
  const b = await payingManager(api, db, "Bravo Pty Ltd");
  const paidMembers = await seedDraft(db, a, [60, 40], "Paid Thanks");
  const paid = await a.json<Intent>("POST", "StripePayment/create-payment-intent", { amount: 11100 });
  const confirmed = await a.json<{ status: string }>("POST", "StripePayment/confirm-simulated-payment", {
    paymentIntent: paid.paymentIntentId,
    clientSecret: paid.clientSecret,
    ...CARD,
  });
  expect(confirmed.status).toBe("succeeded");
  // A reward of A's paid for later: scheduled, to reschedule or cancel.
  await seedDraft(db, a, [25], "Scheduled Thanks");
  const sendAt = new Date(clock.now().getTime() + 2 * 24 * 60 * 60_000).toISOString();
  await a.json("PUT", "RewardMyTeam/update-reward-schedule", { sendAt });
  expect((await payDraftByCard(a, [25])).status).toBe("succeeded");
  const [scheduled] = await db.select({ id: orders.id }).from(orders).where(eq(orders.status, "scheduled"));
  if (!scheduled) throw new Error("A has no scheduled order");
  const draftMembers = await seedDraft(db, a, [100, 20], "Pending Thanks");
  const pending = await a.json<Intent>("POST", "StripePayment/create-payment-intent", { amount: 13320 });
  // B has a draft of its own too, so B's calls act on real rows.
  await seedDraft(db, b, [10], "Bravo Thanks");
  const aManager = await addManager(api, db, a.companyId, `manager.${a.userId}@example.com`);
  const [account] = await db
    .select({ accessCode: recipientAccounts.accessCode })
    .from(recipientAccounts)
    .where(eq(recipientAccounts.userId, paidMembers[0] ?? 0));
  if (!account) throw new Error("A's paid member has no reward account");
  const aApiKey = (await a.json<{ key: string }>("POST", "ApiKeys", { name: "Alpha sync" }, 201)).key;
  const bApiKey = (await b.json<{ key: string }>("POST", "ApiKeys", { name: "Bravo sync" }, 201)).key;
  return {
    api,
    clock,
    a,
    aManager,
    b,
    paidMembers,
    draftMembers,
    pending,
    paid,
    scheduledOrder: scheduled.id,
    paidAccessCode: account.accessCode,
    aApiKey,
    bApiKey,
  };
}

/**
 * A verified program manager with the Manager role in `companyId`, signed in through the login
 * call. Inserted directly: the invitation flow has its own tests (modules/managers/managers.test.ts).
 */
export async function addManager(api: Api, db: Db, companyId: number, email: string): Promise<CompanyManager> {
  const [row] = await db
    .insert(users)
    .values({
      companyId,
      firstName: "Morgan",
      lastName: "Manager",
      email,
      passwordHash: await hashPassword(PASSWORD),
      role: "program_manager",
      managerRole: "manager",
      emailVerifiedAt: new Date(),
    })
    .returning({ id: users.id });
  if (!row) throw new Error("manager insert returned no row");
  const res = await logIn(api, email);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`manager login: ${res.status} ${text}`);
  const { accessToken } = JSON.parse(text) as { accessToken: string };
  return { userId: row.id, companyId, email, accessToken };
}

/** Every application table with its rows (sorted), as text: equal snapshots mean nothing changed. */
export async function snapshot(db: Db, ignore: string[] = []): Promise<Record<string, string>> {
  const tables = rowsOf<{ tablename: string }>(
    await db.execute(sql`select tablename from pg_tables where schemaname = 'public' order by tablename`),
  )
    .map((r) => r.tablename)
    .filter((t) => !ignore.includes(t));
  const out: Record<string, string> = {};
  for (const t of tables) {
    const rows = rowsOf<Record<string, unknown>>(await db.execute(sql.raw(`select * from "public"."${t}"`)));
    out[t] = rows
      .map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)))
      .sort()
      .join("\n");
  }
  return out;
}

export async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = rowsOf<{ tablename: string }>(
    await db.execute(sql`select tablename from pg_tables where schemaname = 'public' order by tablename`),
  ).map((r) => r.tablename);
  const out: Record<string, number> = {};
  for (const t of tables) {
    const [row] = rowsOf<{ n: number | string }>(
      await db.execute(sql.raw(`select count(*) as n from "public"."${t}"`)),
    );
    out[t] = Number(row?.n ?? 0);
  }
  return out;
}

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}

export { call };
