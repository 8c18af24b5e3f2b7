// The payment calls (docs/requirements.md §S7 "/{provider}Payment/…", named after Stripe):
//   POST /StripePayment/create-payment-intent      { amount (cents), rewardName? } → { clientSecret, paymentIntentId, orderId, amount, processor }
//   POST /StripePayment/check-payment-intent       { paymentIntent } → { amount (dollars), status, message? }
//   POST /StripePayment/webhook                    Stripe's signed events (not bearer-authenticated); 503 without
//                                                  STRIPE_WEBHOOK_SECRET, 400 for a payment that does not match its order;
//                                                  an event whose metadata names a top-up credits the prepaid balance (ADR 0043)
//   POST /StripePayment/create-checkout-session    Stripe only, the no-JavaScript path → { url, orderId, amount }
// and, only while the simulated card processor is in use (404 otherwise):
//   POST /StripePayment/confirm-simulated-payment  { paymentIntent, clientSecret, cardNumber, expiry, cvc, nameOnCard }
//        → 200 { status: succeeded | requires_action | failed, nextAction?, message?, field? }:
//          a declined card is failed with the processor's message ('Your card was declined.'),
//          an invalid field also names it; a payment no longer payable (draft changed) → 409
//   POST /StripePayment/complete-simulated-authentication { paymentIntent, clientSecret, outcome: complete | fail }
//   POST /StripePayment/get-simulated-payment      { paymentIntent, clientSecret } → { status, amount, rewardName }
// The web portal reaches the simulated processor through these calls (its card form posts to a
// route action, which calls them with the session's bearer token); a success releases at once.
// Every call that makes, pays or releases an order answers 400 for a company without company
// details (no ABN), as the portal sends such a manager to onboarding first.
import { Hono, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { centsToDollars } from "../../core/money.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { paymentServicesOf } from "../../server/api/payment-services.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { jsonBody } from "../../server/http/validate.ts";
import type { Payments } from "../../server/payments/port.ts";
import { WebhookSignatureError } from "../../server/payments/port.ts";
import {
  completeSimulatedAuthentication,
  confirmSimulatedCard,
  type SimulatedConfirmResult,
  simulatedPaymentStatus,
} from "../../server/payments/simulated.ts";
import { TOP_UP_DETAILS } from "../balance/schema.ts";
import { handleTopUpEvent } from "../balance/top-ups.server.ts";
import {
  type CheckPaymentIntentResponse,
  type CreateCheckoutSessionResponse,
  type CreatePaymentIntentResponse,
  checkPaymentIntentSchema,
  completeSimulatedAuthenticationSchema,
  confirmSimulatedPaymentSchema,
  createPaymentIntentSchema,
  PAYMENT_DETAILS,
  type SimulatedPaymentInfo,
  type SimulatedPaymentResponse,
  simulatedPaymentQuerySchema,
} from "./schema.ts";
import {
  checkOrderPayment,
  createOrderCheckout,
  createOrderPayment,
  handlePaymentEvent,
  payableOrderForPayment,
  settleSimulatedPayment,
} from "./service.server.ts";

const MAX_WEBHOOK_BYTES = 512 * 1024;

export function paymentsRoutes(
  deps: ApiDeps,
  payments: Payments,
  auth: MiddlewareHandler<ApiEnv>,
  now: () => Date,
  limits: RateLimits,
) {
  // Card attempts (docs/requirements.md §D7): counted whatever path reached the call, before anything else.
  const cardAttempt = limits.perClient("cardPayment");
  const services = paymentServicesOf(deps, payments, now);
  const simulated = payments.kind === "simulated";

  // Answered before the body is read, as a route that does not exist here.
  const checkoutOnly = createMiddleware<ApiEnv>(async (_c, next) => {
    if (!payments.createCheckoutSession) throw new ProblemError(404, DETAILS.notFound);
    await next();
  });
  // ─── The simulated card processor (docs/requirements.md §D6): 404 while Stripe is in use ───
  const simulatedOnly = createMiddleware<ApiEnv>(async (_c, next) => {
    if (!simulated) throw new ProblemError(404, DETAILS.notFound);
    await next();
  });

  const answerSimulated = (result: SimulatedConfirmResult | null): SimulatedPaymentResponse => {
    if (!result) throw new ProblemError(404, DETAILS.notFound);
    if (result.status === "failed") {
      return {
        status: "failed",
        paymentIntentId: result.paymentIntentId,
        message: result.message,
        ...(result.field ? { field: result.field } : {}),
      };
    }
    return result.status === "requires_action"
      ? { status: "requires_action", paymentIntentId: result.paymentIntentId, nextAction: "authenticate" }
      : { status: "succeeded", paymentIntentId: result.paymentIntentId };
  };

  return (
    new Hono<ApiEnv>()
      .post(
        "/StripePayment/create-payment-intent",
        cardAttempt,
        auth,
        jsonBody(createPaymentIntentSchema),
        async (c) => {
          const caller = requireAuth(c);
          const body = c.req.valid("json");
          const created = await createOrderPayment(services, caller, {
            amountCents: body.amount,
            rewardName: body.rewardName,
            wording: body.wording,
          });
          const answer: CreatePaymentIntentResponse = {
            clientSecret: created.clientSecret,
            paymentIntentId: created.paymentIntentId,
            orderId: created.orderId,
            amount: created.amountCents,
            processor: payments.kind,
          };
          return c.json(answer);
        },
      )
      .post(
        "/StripePayment/create-checkout-session",
        cardAttempt,
        auth,
        checkoutOnly,
        jsonBody(createPaymentIntentSchema),
        async (c) => {
          const caller = requireAuth(c);
          const body = c.req.valid("json");
          const created = await createOrderCheckout(
            services,
            caller,
            { amountCents: body.amount, rewardName: body.rewardName, wording: body.wording },
            deps.config.APP_URL,
          );
          const answer: CreateCheckoutSessionResponse = {
            url: created.url,
            orderId: created.orderId,
            amount: created.amountCents,
          };
          return c.json(answer);
        },
      )
      .post("/StripePayment/check-payment-intent", auth, jsonBody(checkPaymentIntentSchema), async (c) => {
        const caller = requireAuth(c);
        const body = c.req.valid("json");
        const answer: CheckPaymentIntentResponse = await checkOrderPayment(services, caller, body.paymentIntent);
        return c.json(answer);
      })
      // Stripe's signed events: the raw text is what the signature covers, so no JSON middleware.
      .post("/StripePayment/webhook", async (c) => {
        if (!payments.verifyWebhook) throw new ProblemError(404, DETAILS.notFound);
        // Fail closed: without the signing secret no event can be verified, so none is acted on.
        if (!deps.config.STRIPE_WEBHOOK_SECRET) throw new ProblemError(503, PAYMENT_DETAILS.webhookNotConfigured);
        const raw = await c.req.text();
        if (raw.length > MAX_WEBHOOK_BYTES) throw new ProblemError(413, "The request body is too large.");
        let event: ReturnType<NonNullable<Payments["verifyWebhook"]>>;
        try {
          event = payments.verifyWebhook(raw, c.req.header("stripe-signature"));
        } catch (error) {
          if (error instanceof WebhookSignatureError) throw new ProblemError(400, PAYMENT_DETAILS.webhookSignature);
          throw error;
        }
        if (event.type === "other") return c.json({ received: true, handled: false });
        // A top-up of the prepaid balance (ADR 0043): its metadata names the top-up, never an order.
        if (event.payment.metadata.topUpId !== undefined) {
          const outcome = await handleTopUpEvent(services, event);
          deps.logger.info({ eventId: event.id, type: event.type, outcome }, "stripe webhook (top-up)");
          if (outcome === "mismatch") throw new ProblemError(400, TOP_UP_DETAILS.mismatch);
          return c.json({ received: true, handled: outcome !== "ignored" });
        }
        const outcome = await handlePaymentEvent(services, event);
        deps.logger.info({ eventId: event.id, type: event.type, outcome }, "stripe webhook");
        // A payment that does not match its frozen order (amount, currency, company) releases nothing.
        if (outcome === "mismatch") throw new ProblemError(400, PAYMENT_DETAILS.paymentMismatch);
        return c.json({ received: true, handled: outcome !== "ignored" });
      })
      .post(
        "/StripePayment/confirm-simulated-payment",
        cardAttempt,
        auth,
        simulatedOnly,
        jsonBody(confirmSimulatedPaymentSchema),
        async (c) => {
          const caller = requireAuth(c);
          const body = c.req.valid("json");
          const order = await payableOrderForPayment(services, caller, body.paymentIntent);
          const result = await confirmSimulatedCard(
            deps.db,
            {
              paymentIntentId: body.paymentIntent,
              clientSecret: body.clientSecret,
              cardNumber: body.cardNumber,
              expiry: body.expiry,
              cvc: body.cvc,
              nameOnCard: body.nameOnCard,
            },
            now(),
          );
          // A declined card leaves the order pending: another card may pay the same payment.
          if (result?.status === "succeeded") await settleSimulatedPayment(services, caller, order);
          return c.json(answerSimulated(result));
        },
      )
      .post(
        "/StripePayment/complete-simulated-authentication",
        auth,
        simulatedOnly,
        jsonBody(completeSimulatedAuthenticationSchema),
        async (c) => {
          const caller = requireAuth(c);
          const body = c.req.valid("json");
          const order = await payableOrderForPayment(services, caller, body.paymentIntent);
          const result = await completeSimulatedAuthentication(
            deps.db,
            { paymentIntentId: body.paymentIntent, clientSecret: body.clientSecret, outcome: body.outcome },
            now(),
          );
          if (result?.status === "succeeded") await settleSimulatedPayment(services, caller, order);
          return c.json(answerSimulated(result));
        },
      )
      .post(
        "/StripePayment/get-simulated-payment",
        auth,
        simulatedOnly,
        jsonBody(simulatedPaymentQuerySchema),
        async (c) => {
          const caller = requireAuth(c);
          const body = c.req.valid("json");
          const order = await payableOrderForPayment(services, caller, body.paymentIntent);
          const payment = await simulatedPaymentStatus(deps.db, body.paymentIntent, body.clientSecret);
          if (!payment) throw new ProblemError(404, DETAILS.notFound);
          const answer: SimulatedPaymentInfo = {
            paymentIntentId: body.paymentIntent,
            status: payment.status,
            amount: centsToDollars(payment.amountCents),
            rewardName: order.rewardName,
          };
          return c.json(answer);
        },
      )
  );
}
