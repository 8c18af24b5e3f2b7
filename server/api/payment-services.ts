// What the API's payment-side routes share (payments, approvals, reward orders): the domain's
// services built from the API's dependencies, and the domain's refusals as problem+json.
import { PaymentError, type PaymentServices } from "../domain/orders.ts";
import { ProblemError } from "../http/problem.ts";
import type { Payments } from "../payments/port.ts";
import type { ApiDeps } from "./deps.ts";

export function paymentServicesOf(deps: ApiDeps, payments: Payments, now: () => Date): PaymentServices {
  return {
    db: deps.db,
    payments,
    logger: deps.logger,
    now,
    onEmailQueued: deps.onEmailQueued,
    release: { config: deps.config, onReleaseLine: deps.onReleaseLine },
  };
}

/** Runs a domain call; a PaymentError (a refusal with its status and detail) becomes problem+json. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof PaymentError) throw new ProblemError(error.status, error.message, error.errors);
    throw error;
  }
}
