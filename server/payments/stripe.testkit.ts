// msw standing in for Stripe's API (PaymentIntents and Checkout Sessions, form-encoded as the
// stripe package sends them), with the idempotency behaviour the adapter relies on, and signed
// webhook events made with the stripe package's own test header. Used by tests only.
import { delay, HttpResponse, http } from "msw";
import Stripe from "stripe";

export const TEST_WEBHOOK_SECRET = "whsec_test_secret";
export const STRIPE_API = "https://api.stripe.com/v1";

export interface FakePaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  last_payment_error: { message: string } | null;
}

interface Recorded {
  method: string;
  path: string;
  idempotencyKey: string | null;
  form: URLSearchParams;
  authorization: string | null;
}

function notFound(id: string) {
  return HttpResponse.json(
    {
      error: {
        type: "invalid_request_error",
        code: "resource_missing",
        message: `No such payment_intent: '${id}'`,
      },
    },
    { status: 404 },
  );
}

/** The `prefix[key]=value` fields of a form-encoded Stripe request, as an object. */
function formMetadata(form: URLSearchParams, pattern: RegExp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form) {
    const m = pattern.exec(k);
    if (m?.[1]) out[m[1]] = v;
  }
  return out;
}

/** A small in-memory Stripe: the handlers to `server.use(...)`, its state and the requests it saw. */
export function fakeStripe() {
  const intents = new Map<string, FakePaymentIntent>();
  const sessions = new Map<string, Record<string, unknown>>();
  const byKey = new Map<string, string>();
  const requests: Recorded[] = [];
  let n = 0;
  let down = false;
  /** How long creating a payment takes (a slow Stripe widens the window between two calls). */
  let latencyMs = 0;

  const record = async (request: Request, path: string) => {
    const form = new URLSearchParams(request.method === "GET" ? "" : await request.text());
    const entry = {
      method: request.method,
      path,
      idempotencyKey: request.headers.get("idempotency-key"),
      form,
      authorization: request.headers.get("authorization"),
    };
    requests.push(entry);
    return entry;
  };

  const handlers = [
    http.post(`${STRIPE_API}/payment_intents`, async ({ request }) => {
      const r = await record(request, "/payment_intents");
      if (latencyMs) await delay(latencyMs);
      if (down) return HttpResponse.json({ error: { type: "api_error", message: "down" } }, { status: 500 });
      const existing = r.idempotencyKey ? byKey.get(r.idempotencyKey) : undefined;
      if (existing) return HttpResponse.json(intents.get(existing));
      n++;
      const id = `pi_test_${n}`;
      const metadata = formMetadata(r.form, /^metadata\[(.+)\]$/);
      const pi: FakePaymentIntent = {
        id,
        object: "payment_intent",
        amount: Number(r.form.get("amount")),
        currency: r.form.get("currency") ?? "",
        status: "requires_payment_method",
        client_secret: `${id}_secret_abc`,
        metadata,
        last_payment_error: null,
      };
      intents.set(id, pi);
      if (r.idempotencyKey) byKey.set(r.idempotencyKey, id);
      return HttpResponse.json(pi);
    }),
    http.get(`${STRIPE_API}/payment_intents/:id`, async ({ request, params }) => {
      await record(request, `/payment_intents/${params.id}`);
      const pi = intents.get(String(params.id));
      return pi ? HttpResponse.json(pi) : notFound(String(params.id));
    }),
    // A full refund of a succeeded PaymentIntent; the same idempotency key answers the same refund.
    http.post(`${STRIPE_API}/refunds`, async ({ request }) => {
      const r = await record(request, "/refunds");
      if (down) return HttpResponse.json({ error: { type: "api_error", message: "down" } }, { status: 500 });
      const known = r.idempotencyKey ? byKey.get(`refund:${r.idempotencyKey}`) : undefined;
      const piId = r.form.get("payment_intent") ?? "";
      const pi = intents.get(piId);
      if (!pi) return notFound(piId);
      if (pi.status !== "succeeded") {
        return HttpResponse.json(
          { error: { type: "invalid_request_error", code: "charge_not_refundable", message: "Not paid." } },
          { status: 400 },
        );
      }
      const id = known ?? `re_test_${++n}`;
      if (r.idempotencyKey) byKey.set(`refund:${r.idempotencyKey}`, id);
      return HttpResponse.json({ id, object: "refund", amount: pi.amount, payment_intent: piId, status: "succeeded" });
    }),
    http.post(`${STRIPE_API}/payment_intents/:id/cancel`, async ({ request, params }) => {
      await record(request, `/payment_intents/${params.id}/cancel`);
      const pi = intents.get(String(params.id));
      if (!pi) return notFound(String(params.id));
      // As Stripe: a payment that succeeded (or is on its way) cannot be cancelled.
      if (pi.status === "succeeded" || pi.status === "processing") {
        return HttpResponse.json(
          {
            error: {
              type: "invalid_request_error",
              code: "payment_intent_unexpected_state",
              message: `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
            },
          },
          { status: 400 },
        );
      }
      pi.status = "canceled";
      return HttpResponse.json(pi);
    }),
    http.post(`${STRIPE_API}/checkout/sessions`, async ({ request }) => {
      const r = await record(request, "/checkout/sessions");
      if (latencyMs) await delay(latencyMs);
      const existing = r.idempotencyKey ? byKey.get(r.idempotencyKey) : undefined;
      if (existing) return HttpResponse.json(sessions.get(existing));
      n++;
      const id = `cs_test_${n}`;
      const session = {
        id,
        object: "checkout.session",
        url: `https://checkout.stripe.test/c/pay/${id}`,
        payment_intent: null as string | null,
        payment_status: "unpaid",
        status: "open",
        metadata: formMetadata(r.form, /^metadata\[(.+)\]$/),
        payment_intent_metadata: formMetadata(r.form, /^payment_intent_data\[metadata\]\[(.+)\]$/),
        amount_total: Number(r.form.get("line_items[0][price_data][unit_amount]")),
        currency: r.form.get("line_items[0][price_data][currency]"),
        success_url: r.form.get("success_url"),
        cancel_url: r.form.get("cancel_url"),
      };
      sessions.set(id, session);
      if (r.idempotencyKey) byKey.set(r.idempotencyKey, id);
      return HttpResponse.json(session);
    }),
    // Stripe answers 400 for a session that is no longer open.
    http.post(`${STRIPE_API}/checkout/sessions/:id/expire`, async ({ request, params }) => {
      await record(request, `/checkout/sessions/${params.id}/expire`);
      const s = sessions.get(String(params.id));
      if (!s) return notFound(String(params.id));
      if (s.status !== "open") {
        return HttpResponse.json(
          { error: { type: "invalid_request_error", message: `Only open sessions can be expired.` } },
          { status: 400 },
        );
      }
      s.status = "expired";
      return HttpResponse.json(s);
    }),
    http.get(`${STRIPE_API}/checkout/sessions/:id`, async ({ request, params }) => {
      await record(request, `/checkout/sessions/${params.id}`);
      const s = sessions.get(String(params.id));
      return s ? HttpResponse.json(s) : notFound(String(params.id));
    }),
  ];

  return {
    handlers,
    intents,
    sessions,
    requests,
    setDown(value: boolean) {
      down = value;
    },
    setLatency(ms: number) {
      latencyMs = ms;
    },
    /**
     * Stripe prunes an idempotency key once it is at least 24 hours old: the same key then makes a
     * new object. Forgets the keys of payments and sessions as if that time had passed.
     */
    forgetIdempotencyKeys() {
      for (const key of [...byKey.keys()]) if (!key.startsWith("refund:")) byKey.delete(key);
    },
    /** The customer paid: the intent succeeded (as after the Payment Element's confirm). */
    succeed(id: string) {
      const pi = intents.get(id);
      if (!pi) throw new Error(`no intent ${id}`);
      pi.status = "succeeded";
      pi.last_payment_error = null;
      return pi;
    },
    decline(id: string, message = "Your card was declined.") {
      const pi = intents.get(id);
      if (!pi) throw new Error(`no intent ${id}`);
      pi.status = "requires_payment_method";
      pi.last_payment_error = { message };
      return pi;
    },
    /** Completes a Checkout Session with a new succeeded PaymentIntent carrying payment_intent_data's metadata. */
    completeSession(sessionId: string) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      if (s.status !== "open") throw new Error(`session ${sessionId} is ${String(s.status)}: it cannot be paid`);
      n++;
      const id = `pi_test_${n}`;
      const pi: FakePaymentIntent = {
        id,
        object: "payment_intent",
        amount: Number(s.amount_total),
        currency: String(s.currency),
        status: "succeeded",
        client_secret: `${id}_secret_abc`,
        metadata: { ...(s.payment_intent_metadata as Record<string, string>) },
        last_payment_error: null,
      };
      intents.set(id, pi);
      s.payment_intent = id;
      s.payment_status = "paid";
      s.status = "complete";
      return pi;
    },
  };
}

/** A webhook delivery as Stripe sends it: the JSON body and its `stripe-signature` header. */
export function signedEvent(
  type: string,
  object: unknown,
  secret = TEST_WEBHOOK_SECRET,
  id = `evt_${Math.random().toString(36).slice(2)}`,
) {
  const payload = JSON.stringify({
    id,
    object: "event",
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return { payload, header };
}
