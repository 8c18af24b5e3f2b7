// The company's prepaid balance (ADR 0043; docs/requirements.md §D5): what a system's /api/v1 orders are
// paid from, topped up by card by an Owner in the portal.
//   GET  /api/Balance                         (bearer, Owner or Manager) → { balance, entries[], canTopUp, processor, minTopUp, maxTopUp }
//                                             amounts in cents; entries newest first (the latest 50)
//   POST /api/Balance/TopUps                  (Owner) { amount } → 201 { topUpId, paymentIntentId, clientSecret, amount, processor }
//                                             amount in cents and a whole number of dollars, $10 to $100,000
//                                             (5000 for $50, like create-payment-intent); no fee or GST on a top-up
//   POST /api/Balance/TopUps/checkout-session (Owner, Stripe only) { amount } → 201 { topUpId, url, amount }:
//                                             the no-JavaScript path; Checkout returns to the portal's top-up page
//   GET  /api/Balance/TopUps/{id}             (Owner) → { id, amount, status, processor, failureReason, createdAt, paidAt }
//   POST /api/Balance/TopUps/{id}/check       (Owner) → { topUpId, amount, status, message?, balance }: reads the
//                                             payment and credits the balance exactly once when it succeeded; idempotent
//   POST /api/Balance/pay-order               (Owner or Manager) the body of create-payment-intent
//                                             { amount (cents), rewardName?, wording? } → { orderId, amount, balance, sendAt }:
//                                             the caller's reward list (or its approved order) paid from the balance and
//                                             released (or scheduled); 402 when the balance is short, nothing changed;
//                                             409 when a card payment for it was made or is under way (ADR 0043)
// and, only while the simulated card processor is in use (404 otherwise):
//   POST /api/Balance/TopUps/{id}/pay-simulated          (Owner) { cardNumber, expiry, cvc, nameOnCard }
//   POST /api/Balance/TopUps/{id}/authenticate-simulated (Owner) { outcome: complete | fail }
//        → 200 { status: succeeded | requires_action | failed, message?, field?, check }
// The role is checked before the body is read (ADR 0022 §2): a Manager gets 403 and nothing
// changes. Another company's top-up is a 404. The Stripe webhook credits top-ups too (payments.ts
// routes an event whose metadata names a top-up to domain/balance-top-ups.ts).
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { DETAILS } from "../../core/public-forms.ts";
import { ownerOnly, requireAuth, requireOwner } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { paymentServicesOf } from "../../server/api/payment-services.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { idParams, jsonBody } from "../../server/http/validate.ts";
import type { Payments } from "../../server/payments/port.ts";
import { createPaymentIntentSchema, type PayOrderResponse } from "../orders/schema.ts";
import { payOrder } from "./balance-payments.server.ts";
import {
  authenticateTopUpSchema,
  type BalanceView,
  type CreatedTopUp,
  createTopUpSchema,
  payTopUpSimulatedSchema,
  TOP_UP_MAX_CENTS,
  TOP_UP_MIN_CENTS,
  type TopUpCheck,
  type TopUpCheckout,
  type TopUpView,
} from "./schema.ts";
import {
  authenticateSimulatedTopUp,
  balanceView,
  checkTopUp,
  createTopUp,
  createTopUpCheckout,
  findTopUp,
  payTopUpBySimulatedCard,
  type SimulatedTopUpAnswer,
  type TopUpServices,
  topUpView,
} from "./top-ups.server.ts";

const topUpParam = idParams({ id: "top-up-not-found" });

/** The portal page a Stripe Checkout of a top-up returns to (its loader makes the check call). */
export function topUpReturnPath(topUpId: number): string {
  return `/portal/settings/balance/top-ups/${topUpId}`;
}

const ownerOf = (c: Context<ApiEnv>) => {
  const { companyId, userId } = requireOwner(c);
  return { companyId, userId, clientIp: c.get("clientIp") ?? null };
};

export function balanceRoutes(
  deps: ApiDeps,
  payments: Payments,
  auth: MiddlewareHandler<ApiEnv>,
  now: () => Date,
  limits: RateLimits,
) {
  const s: TopUpServices = { db: deps.db, payments, logger: deps.logger, now };
  // Card attempts (docs/requirements.md §D7): the card form's attempts are counted per company (only an
  // Owner's token reaches it; the budget is cardPayment's, in its own buckets), before the card
  // is looked at. Making a top-up takes no card data and has its own budget (topUpStart).
  const cardAttempt = createMiddleware<ApiEnv>(async (c, next) => {
    await limits.perAccount("cardPayment", `top-up-company:${requireOwner(c).companyId}`);
    await next();
  });
  // Starting a top-up makes a payment at the processor: 20 an hour per company (after the Owner check).
  const topUpStart = createMiddleware<ApiEnv>(async (c, next) => {
    await limits.perAccount("topUpCreate", `company:${requireOwner(c).companyId}`);
    await next();
  });
  const checkoutOnly = createMiddleware<ApiEnv>(async (_c, next) => {
    if (!payments.createCheckoutSession) throw new ProblemError(404, DETAILS.notFound);
    await next();
  });
  const simulatedOnly = createMiddleware<ApiEnv>(async (_c, next) => {
    if (payments.kind !== "simulated") throw new ProblemError(404, DETAILS.notFound);
    await next();
  });
  const simulatedAnswer = (answer: SimulatedTopUpAnswer) => answer;
  const paying = paymentServicesOf(deps, payments, now);
  // Paying from the balance has its own budget per company, counted after the token check and
  // before the body is read.
  const payAttempt = createMiddleware<ApiEnv>(async (c, next) => {
    await limits.perAccount("balancePayment", `company:${requireAuth(c).companyId}`);
    await next();
  });

  return new Hono<ApiEnv>()
    .get("/Balance", auth, async (c) => {
      const caller = requireAuth(c);
      const view = await balanceView(deps.db, caller.companyId);
      const answer: BalanceView = {
        ...view,
        canTopUp: caller.managerRole === "owner",
        processor: payments.kind,
        minTopUp: TOP_UP_MIN_CENTS,
        maxTopUp: TOP_UP_MAX_CENTS,
      };
      return c.json(answer);
    })
    .post("/Balance/pay-order", auth, payAttempt, jsonBody(createPaymentIntentSchema), async (c) => {
      const caller = requireAuth(c);
      const body = c.req.valid("json");
      const paid = await payOrder(
        paying,
        { companyId: caller.companyId, userId: caller.userId, clientIp: c.get("clientIp") ?? null },
        { amountCents: body.amount, rewardName: body.rewardName, wording: body.wording },
      );
      const answer: PayOrderResponse = {
        orderId: paid.orderId,
        amount: paid.amountCents,
        balance: paid.balanceCents,
        sendAt: paid.sendAt?.toISOString() ?? null,
      };
      return c.json(answer);
    })
    .post("/Balance/TopUps", auth, ownerOnly, topUpStart, jsonBody(createTopUpSchema), async (c) => {
      const owner = ownerOf(c);
      const created = await createTopUp(s, owner, c.req.valid("json").amount);
      const answer: CreatedTopUp = {
        topUpId: created.topUp.id,
        paymentIntentId: created.paymentIntentId,
        clientSecret: created.clientSecret,
        amount: created.topUp.amountCents,
        processor: payments.kind,
      };
      return c.json(answer, 201);
    })
    .post(
      "/Balance/TopUps/checkout-session",
      auth,
      ownerOnly,
      checkoutOnly,
      topUpStart,
      jsonBody(createTopUpSchema),
      async (c) => {
        const owner = ownerOf(c);
        const created = await createTopUpCheckout(
          s,
          owner,
          c.req.valid("json").amount,
          (id) => `${deps.config.APP_URL}${topUpReturnPath(id)}`,
        );
        const answer: TopUpCheckout = {
          topUpId: created.topUp.id,
          url: created.url,
          amount: created.topUp.amountCents,
        };
        return c.json(answer, 201);
      },
    )
    .get("/Balance/TopUps/:id", auth, ownerOnly, topUpParam, async (c) => {
      const owner = ownerOf(c);
      const row = await findTopUp(deps.db, owner.companyId, c.req.valid("param").id);
      const answer: TopUpView = topUpView(row);
      return c.json(answer);
    })
    .post("/Balance/TopUps/:id/check", auth, ownerOnly, topUpParam, async (c) => {
      const owner = ownerOf(c);
      const answer: TopUpCheck = await checkTopUp(s, owner, c.req.valid("param").id);
      return c.json(answer);
    })
    .post(
      "/Balance/TopUps/:id/pay-simulated",
      auth,
      ownerOnly,
      cardAttempt,
      simulatedOnly,
      topUpParam,
      jsonBody(payTopUpSimulatedSchema),
      async (c) => {
        const owner = ownerOf(c);
        const card = c.req.valid("json");
        const answer = await payTopUpBySimulatedCard(s, owner, c.req.valid("param").id, card);
        return c.json(simulatedAnswer(answer));
      },
    )
    .post(
      "/Balance/TopUps/:id/authenticate-simulated",
      auth,
      ownerOnly,
      simulatedOnly,
      topUpParam,
      jsonBody(authenticateTopUpSchema),
      async (c) => {
        const owner = ownerOf(c);
        const { outcome } = c.req.valid("json");
        const answer = await authenticateSimulatedTopUp(s, owner, c.req.valid("param").id, outcome);
        return c.json(simulatedAnswer(answer));
      },
    );
}
