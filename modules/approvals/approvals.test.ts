// Approvals (ADR 0022 §6) through the API with the simulated processor: the threshold (Owner,
// whole dollars, bad input refused and nothing changed), a Manager's order at or above it refused
// by create-payment-intent until approved, the request freezing the snapshot with no payment, the
// emails, approve and decline (reason required), an edited draft needing a new approval, a declined
// order never paid, payment of the approved snapshot by the requester or an Owner released once;
// below the threshold, with none set, and an Owner's own order: no approval step.
import { and, eq, sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { chargesFor } from "../../core/money.ts";
import { DETAILS } from "../../core/public-forms.ts";
import type { Db } from "../../server/db/client.ts";
import {
  auditLog,
  companies,
  emailOutbox,
  orders,
  rewardReleases,
  simulatedPayments,
  users,
} from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { call } from "../identity/accounts.testkit.ts";
import type { DashboardSummary } from "../identity/schema.ts";
import { issueAccessToken } from "../identity/sign-in.server.ts";
import { payingManager, paymentsApi, seedDraft } from "../orders/payments.testkit.ts";
import type { CreatePaymentIntentResponse, SimulatedPaymentResponse } from "../orders/schema.ts";
import {
  APPROVAL_DETAILS,
  APPROVAL_MESSAGES,
  type ApprovalDetail,
  type ApprovalSummary,
  type ApprovalThresholdResponse,
  approvalRequiredDetail,
  type MyDraftApproval,
  type RequestApprovalResponse,
} from "./schema.ts";

const CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" };
const total = (amounts: number[]) => chargesFor(amounts).totalCents;

/** A problem+json refusal with this status and, when given, exactly this detail. */
async function refused(response: Response, status: number, detail?: string) {
  const problem = await expectProblem(response, status);
  if (detail !== undefined) expect(problem.detail).toBe(detail);
  return problem;
}

describeEachDatabase("Approvals", ({ database }) => {
  const config = testConfig({ APP_URL: "https://portal.test" });
  const db = (): Db => database().db;
  beforeEach(() => truncateAll(db()));

  type Api = ReturnType<typeof paymentsApi>["api"];

  /** A caller of the API as one manager (json: expects the status, answers the parsed body). */
  function as(api: Api, token: string, userId: number, companyId: number, email: string) {
    const go = (method: string, path: string, body?: unknown) => call(api, method, `/api/${path}`, body, token);
    const json = async <T>(method: string, path: string, body?: unknown, status = 200): Promise<T> => {
      const r = await go(method, path, body);
      const text = await r.text();
      expect(r.status, text).toBe(status);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    return { go, json, userId, companyId, email };
  }
  type Caller = ReturnType<typeof as>;

  /** A program manager with managerRole 'manager' in the Owner's company (as an accepted invitation makes one). */
  async function addManager(api: Api, owner: { companyId: number }, n = 1) {
    const email = `manny.${n}.${owner.companyId}@example.com`;
    const [row] = await db()
      .insert(users)
      .values({
        companyId: owner.companyId,
        firstName: "Manny",
        lastName: `Manager${n}`,
        email,
        role: "program_manager",
        managerRole: "manager",
        passwordHash: "unused",
        emailVerifiedAt: new Date(),
        hasWatchedOnboardingVideo: true,
      })
      .returning({ id: users.id });
    const userId = row?.id as number;
    const token = await issueAccessToken(db(), { id: userId, companyId: owner.companyId }, new Date());
    return as(api, token, userId, owner.companyId, email);
  }

  async function setup({ threshold = 1000 as number | null, amounts = [600, 500] } = {}) {
    const ctx = paymentsApi(db(), { config });
    const o = await payingManager(ctx.api, db());
    const owner = as(ctx.api, o.accessToken, o.userId, o.companyId, o.email);
    const manager = await addManager(ctx.api, o);
    if (threshold !== null) {
      await owner.json("PUT", "Approvals/threshold", { thresholdDollars: threshold });
    }
    const members = await seedDraft(db(), manager, amounts);
    return { ...ctx, owner, manager, members, totalCents: total(amounts) };
  }

  const createIntent = (m: Caller, amount: number, status = 200) =>
    m.json<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", { amount }, status);
  const confirm = (m: Caller, intent: CreatePaymentIntentResponse) =>
    m.json<SimulatedPaymentResponse>("POST", "StripePayment/confirm-simulated-payment", {
      paymentIntent: intent.paymentIntentId,
      clientSecret: intent.clientSecret,
      ...CARD,
    });
  const request = (m: Caller, amount: number, status = 200) =>
    m.json<RequestApprovalResponse>("POST", "Approvals/request", { amount }, status);

  const count = async (table: typeof orders | typeof simulatedPayments | typeof rewardReleases) => {
    const [row] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(table as typeof orders);
    return row?.n ?? 0;
  };
  const audits = async (action: string) => db().select().from(auditLog).where(eq(auditLog.action, action));
  const mailTo = async (address: string) =>
    (await db().select().from(emailOutbox).where(eq(emailOutbox.toAddress, address)).orderBy(emailOutbox.id)).filter(
      (m) => m.subject !== "Your verification code",
    );

  // ─── The threshold ───

  it("an Owner sets the threshold in whole dollars, clears it with blank or null, and the change is audited", async () => {
    const ctx = paymentsApi(db(), { config });
    const o = await payingManager(ctx.api, db());
    const owner = as(ctx.api, o.accessToken, o.userId, o.companyId, o.email);
    expect(await owner.json<ApprovalThresholdResponse>("GET", "Approvals/threshold")).toEqual({
      thresholdDollars: null,
      thresholdCents: null,
    });
    expect(await owner.json("PUT", "Approvals/threshold", { thresholdDollars: 2500 })).toEqual({
      thresholdDollars: 2500,
      thresholdCents: 250000,
    });
    expect(await owner.json("PUT", "Approvals/threshold", { thresholdDollars: "$1,000" })).toEqual({
      thresholdDollars: 1000,
      thresholdCents: 100000,
    });
    const [company] = await db().select().from(companies).where(eq(companies.id, o.companyId));
    expect(company?.approvalThresholdCents).toBe(100000);
    const changes = await audits("settings.approval_threshold_changed");
    expect(changes.map((a) => a.data)).toEqual([
      { fromCents: null, toCents: 250000 },
      { fromCents: 250000, toCents: 100000 },
    ]);
    expect(changes[0]).toMatchObject({
      actorUserId: o.userId,
      companyId: o.companyId,
      subject: `company:${o.companyId}`,
    });

    expect(await owner.json("PUT", "Approvals/threshold", { thresholdDollars: "" })).toEqual({
      thresholdDollars: null,
      thresholdCents: null,
    });
    await owner.json("PUT", "Approvals/threshold", { thresholdDollars: 0 });
    expect(await owner.json("PUT", "Approvals/threshold", { thresholdDollars: null })).toMatchObject({
      thresholdCents: null,
    });
    expect(await audits("settings.approval_threshold_changed")).toHaveLength(5);
  });

  it("refuses a negative, fractional or non-numeric threshold with a clear message and changes nothing", async () => {
    const ctx = paymentsApi(db(), { config });
    const o = await payingManager(ctx.api, db());
    const owner = as(ctx.api, o.accessToken, o.userId, o.companyId, o.email);
    await owner.json("PUT", "Approvals/threshold", { thresholdDollars: 500 });
    const cases: [unknown, string][] = [
      [-5, APPROVAL_MESSAGES.thresholdNegative],
      ["-100", APPROVAL_MESSAGES.thresholdNegative],
      [10.5, APPROVAL_MESSAGES.thresholdNotWhole],
      ["99.99", APPROVAL_MESSAGES.thresholdNotWhole],
      ["a lot", APPROVAL_MESSAGES.thresholdNotWhole],
      [1_000_000, APPROVAL_MESSAGES.thresholdTooLarge],
      [true, "Invalid input"],
    ];
    for (const [value, message] of cases) {
      const res = await owner.go("PUT", "Approvals/threshold", { thresholdDollars: value });
      expect(res.status, String(value)).toBe(400);
      const problem = (await res.json()) as { detail: string; errors?: Record<string, string[]> };
      expect(JSON.stringify(problem), String(value)).toContain(message);
    }
    expect(await owner.json<ApprovalThresholdResponse>("GET", "Approvals/threshold")).toMatchObject({
      thresholdCents: 50000,
    });
    expect(await audits("settings.approval_threshold_changed")).toHaveLength(1);
  });

  it("a Manager can neither read nor set the threshold (403) and nothing changes", async () => {
    const { manager, owner } = await setup({ threshold: 1000 });
    await refused(await manager.go("GET", "Approvals/threshold"), 403, DETAILS.ownerOnly);
    await refused(await manager.go("PUT", "Approvals/threshold", { thresholdDollars: 1 }), 403, DETAILS.ownerOnly);
    expect(await owner.json<ApprovalThresholdResponse>("GET", "Approvals/threshold")).toMatchObject({
      thresholdCents: 100000,
    });
  });

  // ─── No approval step ───

  it("a Manager's order above the threshold is refused by create-payment-intent without approval: 403, nothing changes", async () => {
    const { manager, totalCents } = await setup({ threshold: 1000, amounts: [600, 500] });
    await refused(
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: totalCents }),
      403,
      approvalRequiredDetail(100000),
    );
    expect(await count(orders)).toBe(0);
    expect(await count(simulatedPayments)).toBe(0);
  });

  it("at exactly the threshold approval is needed; below it the Manager pays as before", async () => {
    // $1,000 of rewards → $1,110.00 total: a threshold of $1,110 applies, $1,111 does not.
    const at = await setup({ threshold: 1110, amounts: [1000] });
    await refused(
      await at.manager.go("POST", "StripePayment/create-payment-intent", { amount: at.totalCents }),
      403,
      approvalRequiredDetail(111000),
    );
    await at.owner.json("PUT", "Approvals/threshold", { thresholdDollars: 1111 });
    await refused(
      await at.manager.go("POST", "Approvals/request", { amount: at.totalCents }),
      400,
      APPROVAL_DETAILS.notNeeded,
    );
    const intent = await createIntent(at.manager, at.totalCents);
    expect(await confirm(at.manager, intent)).toMatchObject({ status: "succeeded" });
    const [order] = await db().select().from(orders);
    expect(order).toMatchObject({ status: "paid", approvalStatus: null });
  });

  it("with no threshold set a Manager pays any order", async () => {
    const { manager, totalCents } = await setup({ threshold: null, amounts: [5000, 5000] });
    const intent = await createIntent(manager, totalCents);
    expect(await confirm(manager, intent)).toMatchObject({ status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
  });

  it("an Owner's own order above the threshold needs no approval", async () => {
    const { owner } = await setup({ threshold: 100 });
    await seedDraft(db(), owner, [5000]);
    await refused(
      await owner.go("POST", "Approvals/request", { amount: total([5000]) }),
      400,
      APPROVAL_DETAILS.notNeeded,
    );
    expect(await owner.json<MyDraftApproval>("GET", "Approvals/my-draft")).toEqual({
      thresholdCents: null,
      budgetLeftCents: null,
      order: null,
    });
    const intent = await createIntent(owner, total([5000]));
    expect(await confirm(owner, intent)).toMatchObject({ status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
  });

  // ─── Request, approve, pay ───

  it("request → Owners emailed → approve → the requester pays the approved snapshot, released exactly once", async () => {
    const { manager, owner, totalCents, onEmailQueued } = await setup({ threshold: 1000, amounts: [600, 500] });
    const requested = await request(manager, totalCents);
    expect(requested).toMatchObject({ state: "requested", created: true });
    const [order] = await db().select().from(orders).where(eq(orders.id, requested.orderId));
    expect(order).toMatchObject({
      placedBy: manager.userId,
      approvalStatus: "requested",
      status: "pending",
      totalCents,
      rewardsCents: 110000,
      paymentIntentId: null,
    });
    expect(await count(simulatedPayments)).toBe(0);
    expect(onEmailQueued).toHaveBeenCalled();
    const [ownerMail] = await mailTo(owner.email);
    expect(ownerMail?.subject).toBe("Approval requested: Quarterly Thanks");
    expect(ownerMail?.text).toContain(`https://portal.test/portal/approvals/${requested.orderId}`);
    expect(ownerMail?.text).toContain("Manny Manager1");
    expect(ownerMail?.text).toContain("$1,221.00");
    expect(await audits("approval.requested")).toMatchObject([
      { actorUserId: manager.userId, subject: `order:${requested.orderId}` },
    ]);

    // Asking again for the unchanged draft answers the same order (no second email).
    expect(await request(manager, totalCents)).toMatchObject({ orderId: requested.orderId, created: false });
    expect(await mailTo(owner.email)).toHaveLength(1);

    // Waiting: not payable, listed for Owners, visible to the requester.
    await refused(
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: totalCents }),
      409,
      APPROVAL_DETAILS.awaiting,
    );
    const pending = await owner.json<ApprovalSummary[]>("GET", "Approvals?status=pending");
    expect(pending).toMatchObject([
      { orderId: requested.orderId, state: "requested", totalCents, recipientCount: 2, draftChanged: false },
    ]);
    expect(pending[0]?.requestedBy).toMatchObject({ userId: manager.userId, email: manager.email });
    expect(pending[0]?.viaApiKey).toBe(false);
    // The dashboard's one call carries the same list for an Owner, and none for the Manager.
    expect((await owner.json<DashboardSummary>("GET", "Dashboard")).pendingApprovals).toEqual(pending);
    expect((await manager.json<DashboardSummary>("GET", "Dashboard")).pendingApprovals).toBeNull();
    const mine = await manager.json<MyDraftApproval>("GET", "Approvals/my-draft");
    expect(mine).toMatchObject({ thresholdCents: 100000, order: { orderId: requested.orderId, state: "requested" } });
    const detail = await manager.json<ApprovalDetail>("GET", `Approvals/${requested.orderId}`);
    expect(detail).toMatchObject({ isRequester: true, payable: false, gstCents: 1100, serviceFeeCents: 11000 });
    expect(detail.lines).toHaveLength(2);

    await owner.json("POST", `Approvals/${requested.orderId}/approve`, undefined, 204);
    const [approved] = await db().select().from(orders).where(eq(orders.id, requested.orderId));
    expect(approved).toMatchObject({ approvalStatus: "approved", approvalDecidedBy: owner.userId });
    expect(approved?.approvalDecidedAt).toBeInstanceOf(Date);
    const [approvedMail] = await mailTo(manager.email);
    expect(approvedMail?.subject).toBe("Approved: Quarterly Thanks");
    expect(approvedMail?.text).toContain("https://portal.test/portal/reward-my-team-review");
    expect(await audits("approval.approved")).toHaveLength(1);
    expect(await owner.json<ApprovalSummary[]>("GET", "Approvals?status=pending")).toEqual([]);
    expect(await owner.json<ApprovalSummary[]>("GET", "Approvals?status=decided")).toMatchObject([
      { orderId: requested.orderId, state: "approved", decidedBy: { userId: owner.userId } },
    ]);
    await refused(
      await owner.go("POST", `Approvals/${requested.orderId}/approve`),
      409,
      APPROVAL_DETAILS.alreadyDecided,
    );

    // Paid at the approved snapshot: the same order, its own total; no new order.
    const intent = await createIntent(manager, totalCents);
    expect(intent).toMatchObject({ orderId: requested.orderId, amount: totalCents });
    expect(await confirm(manager, intent)).toMatchObject({ status: "succeeded" });
    expect(await count(orders)).toBe(1);
    const again = await manager.json<{ status: string }>("POST", "StripePayment/check-payment-intent", {
      paymentIntent: intent.paymentIntentId,
    });
    expect(again.status).toBe("succeeded");
    expect(await count(rewardReleases)).toBe(1);
    const [paid] = await db().select().from(orders).where(eq(orders.id, requested.orderId));
    expect(paid).toMatchObject({ status: "paid", approvalStatus: "approved" });
    expect(paid?.releasedAt).toBeInstanceOf(Date);
    await refused(
      await owner.go("POST", `Approvals/${requested.orderId}/payment-intent`),
      409,
      APPROVAL_DETAILS.alreadyPaid,
    );
  });

  it("an Owner pays an approved order from the approval page: that order's total; the tax invoice goes to the requester", async () => {
    const { manager, owner, totalCents } = await setup({ threshold: 1000 });
    const { orderId } = await request(manager, totalCents);
    await refused(await owner.go("POST", `Approvals/${orderId}/payment-intent`), 409, APPROVAL_DETAILS.awaiting);
    await owner.json("POST", `Approvals/${orderId}/approve`, undefined, 204);
    const intent = await owner.json<CreatePaymentIntentResponse>("POST", `Approvals/${orderId}/payment-intent`);
    expect(intent).toMatchObject({ orderId, amount: totalCents, processor: "simulated" });
    // The requester's own call makes the same payment (one idempotency key per order).
    const mine = await manager.json<CreatePaymentIntentResponse>("POST", `Approvals/${orderId}/payment-intent`);
    expect(mine.paymentIntentId).toBe(intent.paymentIntentId);
    expect(await confirm(owner, intent)).toMatchObject({ status: "succeeded" });
    expect(await count(rewardReleases)).toBe(1);
    expect(await count(orders)).toBe(1);
    const invoices = (await mailTo(manager.email)).filter((m) => /invoice/i.test(m.subject));
    expect(invoices).toHaveLength(1);
  });

  it("approving is refused once the requester's draft changed; the order stays requested", async () => {
    const { manager, owner, totalCents } = await setup({ threshold: 1000, amounts: [600, 500] });
    const { orderId } = await request(manager, totalCents);
    await manager.json("PUT", "RewardMyTeam/update-reward-name", { name: "Renamed" });
    await refused(
      await owner.go("POST", `Approvals/${orderId}/approve`),
      409,
      APPROVAL_DETAILS.draftChangedSinceRequest,
    );
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ approvalStatus: "requested", approvalDecidedBy: null });
    expect(await audits("approval.approved")).toHaveLength(0);
    expect(await owner.json<ApprovalSummary[]>("GET", "Approvals?status=pending")).toMatchObject([
      { orderId, draftChanged: true },
    ]);
    // A new request for the edited draft replaces the old one.
    const renewed = await request(manager, totalCents);
    expect(renewed.orderId).not.toBe(orderId);
    const [old] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(old).toMatchObject({ status: "failed", failureReason: "superseded" });
    expect((await owner.json<ApprovalSummary[]>("GET", "Approvals?status=pending")).map((a) => a.orderId)).toEqual([
      renewed.orderId,
    ]);
    await refused(await owner.go("POST", `Approvals/${orderId}/approve`), 409, APPROVAL_DETAILS.superseded);
  });

  it("an approved order whose draft changed since cannot be paid by either path, until approved again", async () => {
    const { manager, owner, members } = await setup({ threshold: 1000, amounts: [600, 500] });
    const { orderId } = await request(manager, total([600, 500]));
    await owner.json("POST", `Approvals/${orderId}/approve`, undefined, 204);
    await manager.json("PUT", "RewardMyTeam/update-reward", { userId: members[0], value: "700" });
    const newTotal = total([700, 500]);
    await refused(
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: newTotal }),
      409,
      APPROVAL_DETAILS.changedSinceApproval,
    );
    await refused(
      await owner.go("POST", `Approvals/${orderId}/payment-intent`),
      409,
      APPROVAL_DETAILS.changedSinceApproval,
    );
    expect(await count(simulatedPayments)).toBe(0);
    expect(await manager.json<MyDraftApproval>("GET", "Approvals/my-draft")).toMatchObject({
      order: { orderId, state: "approved", draftChanged: true },
    });
    // Back to the approved amounts is still a new version: a new approval is needed.
    const renewed = await request(manager, newTotal);
    await owner.json("POST", `Approvals/${renewed.orderId}/approve`, undefined, 204);
    const intent = await createIntent(manager, newTotal);
    expect(intent).toMatchObject({ orderId: renewed.orderId, amount: newTotal });
    expect(await confirm(manager, intent)).toMatchObject({ status: "succeeded" });
  });

  it("a payment started for an approved order is refused at the card once the draft changes", async () => {
    const { manager, owner, members, totalCents } = await setup({ threshold: 1000, amounts: [600, 500] });
    const { orderId } = await request(manager, totalCents);
    await owner.json("POST", `Approvals/${orderId}/approve`, undefined, 204);
    const intent = await createIntent(manager, totalCents);
    await manager.json("PUT", "RewardMyTeam/update-reward", { userId: members[1], value: "1" });
    await refused(
      await manager.go("POST", "StripePayment/confirm-simulated-payment", {
        paymentIntent: intent.paymentIntentId,
        clientSecret: intent.clientSecret,
        ...CARD,
      }),
      409,
      APPROVAL_DETAILS.changedSinceApproval,
    );
    expect(await count(rewardReleases)).toBe(0);
  });

  // ─── Decline ───

  it("declining needs a reason; a declined order can never be paid and the requester is told why", async () => {
    const { manager, owner, totalCents } = await setup({ threshold: 1000 });
    const { orderId } = await request(manager, totalCents);
    for (const body of [{}, { reason: "" }, { reason: "   " }]) {
      const res = await owner.go("POST", `Approvals/${orderId}/decline`, body);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(APPROVAL_MESSAGES.reasonRequired);
    }
    await refused(await owner.go("POST", `Approvals/${orderId}/decline`, { reason: "x".repeat(501) }), 400);
    expect((await db().select().from(orders))[0]).toMatchObject({ approvalStatus: "requested" });

    await owner.json("POST", `Approvals/${orderId}/decline`, { reason: "  Over budget this quarter  " }, 204);
    const [order] = await db().select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({
      approvalStatus: "declined",
      approvalReason: "Over budget this quarter",
      approvalDecidedBy: owner.userId,
      status: "failed",
    });
    const [declinedMail] = await mailTo(manager.email);
    expect(declinedMail?.subject).toBe("Declined: Quarterly Thanks");
    expect(declinedMail?.text).toContain("Reason: Over budget this quarter");
    expect(await audits("approval.declined")).toMatchObject([{ data: { reason: "Over budget this quarter" } }]);

    await refused(
      await manager.go("POST", "StripePayment/create-payment-intent", { amount: totalCents }),
      409,
      APPROVAL_DETAILS.declined,
    );
    await refused(await owner.go("POST", `Approvals/${orderId}/payment-intent`), 409, APPROVAL_DETAILS.declined);
    await refused(await manager.go("POST", `Approvals/${orderId}/payment-intent`), 409, APPROVAL_DETAILS.declined);
    await refused(
      await manager.go("POST", "Approvals/request", { amount: totalCents }),
      409,
      APPROVAL_DETAILS.declinedAgain,
    );
    await refused(await owner.go("POST", `Approvals/${orderId}/approve`), 409, APPROVAL_DETAILS.alreadyDecided);
    expect(await count(simulatedPayments)).toBe(0);
    expect(await count(rewardReleases)).toBe(0);
    expect(await manager.json<ApprovalDetail>("GET", `Approvals/${orderId}`)).toMatchObject({
      state: "declined",
      reason: "Over budget this quarter",
      payable: false,
    });
  });

  // ─── Who may do what ───

  it("only Owners list, approve and decline; another Manager cannot read a request; another company gets 404", async () => {
    const { api, manager, owner, totalCents } = await setup({ threshold: 1000 });
    const { orderId } = await request(manager, totalCents);
    const other = await addManager(api, owner, 2);
    await refused(await manager.go("GET", "Approvals?status=pending"), 403, DETAILS.ownerOnly);
    await refused(await manager.go("POST", `Approvals/${orderId}/approve`), 403, DETAILS.ownerOnly);
    await refused(await manager.go("POST", `Approvals/${orderId}/decline`, { reason: "no" }), 403, DETAILS.ownerOnly);
    await refused(await other.go("GET", `Approvals/${orderId}`), 403, DETAILS.ownerOnly);
    await refused(await other.go("POST", `Approvals/${orderId}/payment-intent`), 403, DETAILS.ownerOnly);

    const stranger = await payingManager(api, db(), "Other Pty Ltd");
    const outsider = as(api, stranger.accessToken, stranger.userId, stranger.companyId, stranger.email);
    await refused(await outsider.go("GET", `Approvals/${orderId}`), 404, DETAILS.notFound);
    await refused(await outsider.go("POST", `Approvals/${orderId}/approve`), 404, DETAILS.notFound);
    await refused(await outsider.go("POST", `Approvals/${orderId}/payment-intent`), 404, DETAILS.notFound);
    expect(await outsider.json<ApprovalSummary[]>("GET", "Approvals?status=pending")).toEqual([]);
    expect((await outsider.json<DashboardSummary>("GET", "Dashboard")).pendingApprovals).toEqual([]);
    await refused(await owner.go("GET", "Approvals/abc"), 404);
    await refused(await owner.go("GET", "Approvals?status=everything"), 400);

    const [order] = await db()
      .select()
      .from(orders)
      .where(and(eq(orders.id, orderId)));
    expect(order).toMatchObject({ approvalStatus: "requested" });
  });

  it("a request below the threshold, or with none set, is refused: the order is paid directly", async () => {
    const { manager, owner } = await setup({ threshold: 10_000, amounts: [100] });
    await refused(
      await manager.go("POST", "Approvals/request", { amount: total([100]) }),
      400,
      APPROVAL_DETAILS.notNeeded,
    );
    await owner.json("PUT", "Approvals/threshold", { thresholdDollars: null });
    await refused(
      await manager.go("POST", "Approvals/request", { amount: total([100]) }),
      400,
      APPROVAL_DETAILS.notNeeded,
    );
    expect(await count(orders)).toBe(0);
    expect(await manager.json<MyDraftApproval>("GET", "Approvals/my-draft")).toEqual({
      thresholdCents: null,
      budgetLeftCents: null,
      order: null,
    });
  });
});
