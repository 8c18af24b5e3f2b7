// What the two Settings › Webhooks pages show alike: a delivery's state in words, a button's look.
import type { WebhookDeliveryStatus } from "../../../core/webhooks.ts";

export const secondaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-4 font-semibold text-brand-800 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

/** "Delivered (200)", "Retrying (last answer 500)", "Failed (not reachable)", "Waiting". */
export function deliveryStatusText(status: WebhookDeliveryStatus, lastStatus: number | null, attempts = 1): string {
  const answer = lastStatus === null ? "not reachable" : `HTTP ${lastStatus}`;
  if (status === "delivered") return `Delivered (${answer})`;
  if (status === "failed") return `Failed (${answer})`;
  return attempts === 0 ? "Waiting to be sent" : `Retrying (last: ${answer})`;
}
