// Picks the card processor from the configuration (docs/requirements.md §D3, §D6): Stripe when
// STRIPE_SECRET_KEY is set, the built-in simulated processor otherwise.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Payments } from "./port.ts";
import { simulatedProcessor } from "./simulated.ts";
import { stripeProcessor } from "./stripe.ts";

export function paymentsFor(
  config: Pick<Config, "STRIPE_SECRET_KEY" | "STRIPE_WEBHOOK_SECRET">,
  db: Db,
  now: () => Date = () => new Date(),
): Payments {
  if (config.STRIPE_SECRET_KEY) {
    return stripeProcessor({ secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET });
  }
  return simulatedProcessor(db, now);
}
