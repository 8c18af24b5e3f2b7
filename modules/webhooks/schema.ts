// A company's webhooks (ADR 0045): the events an Owner may subscribe an endpoint to, their labels,
// what the API takes and answers, and the Settings › Webhooks page's forms. Browser-safe (no server
// imports); the signature recipe, which needs node:crypto, is modules/webhooks/signature.ts.
import * as z from "zod/mini";

/** The events an endpoint can choose, with the label the portal shows for each. */
export const WEBHOOK_EVENTS = {
  "order.released": "Order released (recipients emailed their rewards)",
  "email.delivered": "Reward email delivered to a recipient",
  "email.failed": "Reward email could not be delivered",
  "reward.expiring": "Reward expiring in 30 days (recipient reminded)",
  "reward.expired": "Reward expired (what was left is forfeited)",
  "reward.expiry_reminder_sent": "Expiry reminder sent to a recipient (30 days before)",
  "reward.forfeited": "Reward Dollars forfeited (expired, or the member left the team)",
  "reward.redeemed": "Reward Dollars redeemed at the catalogue (amount and balance left)",
  "approval.requested": "Approval requested",
  "approval.decided": "Approval decided (approved or declined)",
  "budget.exceeded": "Monthly budget exceeded (the order went to approval)",
  "automation.run": "Automations ran (birthday and anniversary rewards: counts and total)",
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
/** Sent by "Send test ping" to one endpoint only; never subscribed to. */
export const PING_EVENT = "ping";
/** Every type a delivery can carry. */
export type AnyWebhookEventType = WebhookEventType | typeof PING_EVENT;

export function webhookEventLabel(type: string): string {
  if (type === PING_EVENT) return "Test ping";
  return Object.hasOwn(WEBHOOK_EVENTS, type) ? WEBHOOK_EVENTS[type as WebhookEventType] : type;
}

/** Every endpoint secret starts so; the rest is 32 random bytes, base64url. Shown once, at registration. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** The header carrying the timestamp and the signature: `t=<unix seconds>,v1=<hex>`. */
export const WEBHOOK_SIGNATURE_HEADER = "Rewards-Signature";
/** A delivery signed longer ago than this is refused by the documented verification (a replay). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** Deliveries are retried with backoff for this long after the event (or after a re-send by hand). */
export const WEBHOOK_RETRY_WINDOW_MS = 72 * 60 * 60_000;
/** Endpoints a company may have at once (live ones). */
export const WEBHOOK_MAX_ENDPOINTS = 10;
export const WEBHOOK_URL_MAX = 2000;
/** The characters of an endpoint's answer kept and shown with its delivery. */
export const WEBHOOK_RESPONSE_KEPT_CHARS = 500;

export const WEBHOOK_DETAILS = {
  urlRequired: "URL is required.",
  urlTooLong: `URL must be at most ${WEBHOOK_URL_MAX} characters.`,
  urlInvalid: "URL must be a full https:// address, such as https://example.com/hooks/rewards.",
  urlNotHttps: "URL must start with https://.",
  urlCredentials: "URL must not contain a user name or password.",
  urlPrivate: "URL must be a public address: local, private and link-local addresses are refused.",
  eventsRequired: "Choose at least one event.",
  eventsInvalid: "Events must be among the listed events.",
  tooMany: `A company can have at most ${WEBHOOK_MAX_ENDPOINTS} webhook endpoints. Delete one first.`,
  notFound: "This webhook endpoint was not found.",
  deliveryNotFound: "This delivery was not found.",
} as const;

/** A URL the API may store: https (or http, which the server allows only to this machine outside a deployment). */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

const urlField = z
  .string({ error: WEBHOOK_DETAILS.urlRequired })
  .check(
    z.trim(),
    z.minLength(1, WEBHOOK_DETAILS.urlRequired),
    z.maxLength(WEBHOOK_URL_MAX, WEBHOOK_DETAILS.urlTooLong),
    z.refine(isWebUrl, WEBHOOK_DETAILS.urlInvalid),
  );

const eventsField = z
  .array(z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]], WEBHOOK_DETAILS.eventsInvalid), {
    error: WEBHOOK_DETAILS.eventsRequired,
  })
  .check(z.minLength(1, WEBHOOK_DETAILS.eventsRequired));

/**
 * POST /api/Webhooks: the endpoint's URL and the events it receives. The server then decides
 * whether the address may be called (modules/webhooks/service.server.ts webhookUrlProblem): https only in
 * a deployment, with no loopback, private or link-local literal address.
 */
export const registerWebhookSchema = z.object({ url: urlField, events: eventsField });
export type RegisterWebhookRequest = z.input<typeof registerWebhookSchema>;

/** An endpoint as GET /api/Webhooks lists it: never its secret. */
export interface WebhookEndpointView {
  id: number;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
  createdBy: { id: number; name: string };
  /** The newest delivery's outcome, for the list. */
  lastDelivery: { status: WebhookDeliveryStatus; attempts: number; lastStatus: number | null; at: string } | null;
}

/** POST /api/Webhooks's answer: the only time the secret is shown. */
export interface CreatedWebhookEndpoint {
  id: number;
  url: string;
  events: WebhookEventType[];
  secret: string;
  createdAt: string;
}

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";

/** A delivery as GET /api/Webhooks/{id}/deliveries lists it (newest first). */
export interface WebhookDeliveryView {
  id: number;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** The endpoint's last HTTP status; null when it has not been called or could not be reached. */
  lastStatus: number | null;
  /** The first characters of its last answer, or why it could not be reached. */
  lastResponse: string | null;
}

export interface WebhookDeliveriesPage {
  endpoint: WebhookEndpointView & { deleted: boolean };
  deliveries: WebhookDeliveryView[];
}

/** The JSON body every delivery POSTs. */
export interface WebhookPayload {
  id: string;
  type: AnyWebhookEventType;
  createdAt: string;
  data: Record<string, unknown>;
}

// ─── Settings › Webhooks (app/features/settings/portal.settings.webhooks.tsx) ─────────────────

const idField = z.coerce.number().check(z.int(), z.positive());

/** Ticked checkboxes post `events` once each: none is no value, one is a string, more an array. */
const eventsFormField = z.pipe(
  z.transform((v: unknown) => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v])),
  eventsField,
);

/** The list page's forms, told apart by `intent`. */
export const webhooksFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("register"), url: urlField, events: eventsFormField }),
  z.object({ intent: z.literal("delete"), endpointId: idField }),
  z.object({ intent: z.literal("ping"), endpointId: idField }),
]);

/** The deliveries page's forms. */
export const webhookDeliveriesFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("resend"), deliveryId: idField }),
  z.object({ intent: z.literal("ping") }),
]);
