// What the two Settings › Webhooks pages show alike: a delivery's state in words.
import type { WebhookDeliveryStatus } from "../../../modules/webhooks/schema.ts";

/** "Delivered (200)", "Retrying (last answer 500)", "Failed (not reachable)", "Waiting". */
export function deliveryStatusText(status: WebhookDeliveryStatus, lastStatus: number | null, attempts = 1): string {
  const answer = lastStatus === null ? "not reachable" : `HTTP ${lastStatus}`;
  if (status === "delivered") return `Delivered (${answer})`;
  if (status === "failed") return `Failed (${answer})`;
  return attempts === 0 ? "Waiting to be sent" : `Retrying (last: ${answer})`;
}
