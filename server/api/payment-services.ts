// What the API's payment-side routes share (payments, approvals, reward orders): the domain's
// services built from the API's dependencies (their refusals become problem+json in refusals.ts).
import type { PaymentServices } from "../../modules/orders/service.server.ts";
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
