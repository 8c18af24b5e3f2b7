// A company's webhooks (ADR 0045): an Owner registers HTTPS endpoints and chooses events; each
// happening the portal reports becomes one event row and one delivery per subscribed endpoint,
// written by emitEvent in the transaction of the happening itself (the durable outbox: the event
// exists if and only if what it reports was committed; modules/webhooks/worker.server.ts sends it). An
// event is unique per (company, type, subject), so a happening reported twice (a retried
// release, a re-run job) makes one event.
//
// The endpoint's secret (`whsec_` and 32 random bytes, base64) is answered once at registration and kept
// sealed (AES-256-GCM, key derived from the server secret, the company id authenticated with it:
// secret-seal.ts), as TOTP secrets are (two-factor.ts): the worker must read it back to sign, so it cannot be a hash.
import { randomBytes } from "node:crypto";
import { and, count, desc, eq, inArray, isNull } from "drizzle-orm";
import ipaddr from "ipaddr.js";
import { isLoopbackHost } from "../../server/config.ts";
import type { Conn, Db } from "../../server/db/client.ts";
import { companies, users, webhookDeliveries, webhookEndpoints, webhookEvents } from "../../server/db/schema.ts";
import { companySecretSeal } from "../../server/secret-seal.ts";
import { recordAudit } from "../audit/service.server.ts";
import {
  type CreatedWebhookEndpoint,
  PING_EVENT,
  WEBHOOK_DETAILS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_RETRY_WINDOW_MS,
  WEBHOOK_SECRET_PREFIX,
  type WebhookDeliveriesPage,
  type WebhookDeliveryStatus,
  type WebhookEndpointView,
  type WebhookEventType,
} from "./schema.ts";

/** Who acts on the endpoints: an Owner of the company (the API checks the role), and from where. */
export interface WebhookActor {
  companyId: number;
  userId: number;
  clientIp?: string | null;
}

// ─── The endpoint secret's seal ─────────────────────────────────────────────────────────────

/** The seal of endpoint secrets, derived from the server secret (its own HKDF label). */
export function webhookKeys(serverSecret: string) {
  return companySecretSeal(serverSecret, { label: "rewards webhook secret", scope: "webhook" });
}

export type WebhookKeys = ReturnType<typeof webhookKeys>;

/**
 * `whsec_` and 32 random bytes in base64 (not base64url), the Standard Webhooks secret format, so
 * a receiver can pass it to a Standard Webhooks library as it is (modules/webhooks/signature.ts).
 */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

// ─── Which addresses may be called ──────────────────────────────────────────────────────────

/**
 * Why `url` may not be an endpoint, or null. The server calls whatever an Owner registers, so in
 * a deployment (`allowLocal` false: config.isDeployment) only https to a public address: a
 * literal loopback, private, link-local (cloud metadata at 169.254.169.254) or otherwise
 * non-unicast address is refused here, and a host name is checked again when it is resolved at
 * delivery time (modules/webhooks/worker.server.ts). Outside a deployment (a local run, the tests, e2e)
 * http://localhost and http://127.0.0.1 are allowed too, for a receiver on this machine.
 */
export function webhookUrlProblem(value: string, options: { allowLocal: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return WEBHOOK_DETAILS.urlInvalid;
  }
  if (url.username || url.password) return WEBHOOK_DETAILS.urlCredentials;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (url.protocol === "http:") {
    return options.allowLocal && isLoopbackHost(host) ? null : WEBHOOK_DETAILS.urlNotHttps;
  }
  if (url.protocol !== "https:") return WEBHOOK_DETAILS.urlInvalid;
  if (options.allowLocal) return null;
  if (!isPublicHost(host)) return WEBHOOK_DETAILS.urlPrivate;
  return null;
}

/** A host name, or a literal address in the public unicast range. */
export function isPublicHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(h)) return isPublicAddress(h);
  if (isLoopbackHost(h) || h.endsWith(".local") || h.endsWith(".internal") || !h.includes(".")) return false;
  return true;
}

/** An IP address in the public unicast range (IPv4-mapped IPv6 judged as its IPv4). */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "unicast";
}

// ─── Endpoints ──────────────────────────────────────────────────────────────────────────────

export type RegisterOutcome =
  | { ok: true; endpoint: CreatedWebhookEndpoint }
  | { ok: false; reason: "too_many" | "url"; detail: string };

export async function registerEndpoint(
  db: Db,
  keys: WebhookKeys,
  actor: WebhookActor,
  input: { url: string; events: readonly WebhookEventType[] },
  now: Date,
  options: { allowLocal: boolean },
): Promise<RegisterOutcome> {
  const problem = webhookUrlProblem(input.url, options);
  if (problem) return { ok: false, reason: "url", detail: problem };
  // In the listed order, once each.
  const events = WEBHOOK_EVENT_TYPES.filter((t) => input.events.includes(t));
  const secret = newWebhookSecret();
  return db.transaction(async (tx) => {
    // One Owner's double submit or two Owners at once: the count is taken under the company's lock.
    await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, actor.companyId)).for("update");
    const [live] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.companyId, actor.companyId), isNull(webhookEndpoints.deletedAt)));
    if ((live?.n ?? 0) >= WEBHOOK_MAX_ENDPOINTS) {
      return { ok: false as const, reason: "too_many" as const, detail: WEBHOOK_DETAILS.tooMany };
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        companyId: actor.companyId,
        createdBy: actor.userId,
        url: input.url,
        events,
        secretSealed: keys.sealSecret(secret, actor.companyId),
        createdAt: now,
      })
      .returning({ id: webhookEndpoints.id });
    if (!row) throw new Error("webhook endpoint insert returned no row");
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "webhook.registered",
      subject: `webhook:${row.id}`,
      data: { url: input.url, events },
      clientIp: actor.clientIp,
      at: now,
    });
    return {
      ok: true as const,
      endpoint: { id: row.id, url: input.url, events, secret, createdAt: now.toISOString() },
    };
  });
}

/** The company's live endpoints, newest first, each with its newest delivery's outcome (never a secret). */
export async function listEndpoints(db: Db, companyId: number): Promise<WebhookEndpointView[]> {
  const rows = await db
    .select(endpointColumns)
    .from(webhookEndpoints)
    .innerJoin(users, eq(users.id, webhookEndpoints.createdBy))
    .where(and(eq(webhookEndpoints.companyId, companyId), isNull(webhookEndpoints.deletedAt)))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  const last = await lastDeliveries(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => endpointView(r, last.get(r.id) ?? null));
}

const endpointColumns = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  events: webhookEndpoints.events,
  createdAt: webhookEndpoints.createdAt,
  deletedAt: webhookEndpoints.deletedAt,
  createdById: webhookEndpoints.createdBy,
  firstName: users.firstName,
  lastName: users.lastName,
};

type EndpointRow = {
  id: number;
  url: string;
  events: string[];
  createdAt: Date;
  createdById: number;
  firstName: string;
  lastName: string;
};

type LastDelivery = WebhookEndpointView["lastDelivery"];

function endpointView(r: EndpointRow, lastDelivery: LastDelivery): WebhookEndpointView {
  return {
    id: r.id,
    url: r.url,
    events: r.events.filter((e): e is WebhookEventType => (WEBHOOK_EVENT_TYPES as string[]).includes(e)),
    createdAt: r.createdAt.toISOString(),
    createdBy: { id: r.createdById, name: `${r.firstName} ${r.lastName}`.trim() },
    lastDelivery,
  };
}

async function lastDeliveries(db: Db, endpointIds: number[]): Promise<Map<number, LastDelivery>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([webhookDeliveries.endpointId], {
      endpointId: webhookDeliveries.endpointId,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      lastStatus: webhookDeliveries.lastStatus,
      createdAt: webhookDeliveries.createdAt,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.endpointId, endpointIds))
    .orderBy(webhookDeliveries.endpointId, desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id));
  return new Map(
    rows.map((r) => [
      r.endpointId,
      {
        status: r.status,
        attempts: r.attempts,
        lastStatus: r.lastStatus,
        at: (r.lastAttemptAt ?? r.createdAt).toISOString(),
      },
    ]),
  );
}

/**
 * Deletes an endpoint of the actor's company: no new deliveries, and those still waiting are
 * given up on; its past deliveries stay visible. False when the company has no such live endpoint.
 */
export async function deleteEndpoint(db: Db, actor: WebhookActor, endpointId: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, deletedAt: webhookEndpoints.deletedAt })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.companyId, actor.companyId)))
      .for("update");
    if (!endpoint || endpoint.deletedAt) return false;
    await tx.update(webhookEndpoints).set({ deletedAt: now }).where(eq(webhookEndpoints.id, endpoint.id));
    await tx
      .update(webhookDeliveries)
      .set({ status: "failed", lockedUntil: null, lastResponse: "Not sent: the endpoint was deleted." })
      .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, "pending")));
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.userId,
      action: "webhook.deleted",
      subject: `webhook:${endpoint.id}`,
      data: { url: endpoint.url },
      clientIp: actor.clientIp,
      at: now,
    });
    return true;
  });
}

// ─── Events: the outbox ─────────────────────────────────────────────────────────────────────

export interface EmittedEvent {
  companyId: number;
  type: WebhookEventType;
  /** What happened, unique per company and type: e.g. `order:12`, `email:345`, `lot:9`. */
  subject: string;
  /** What receivers get as `data`: ids, amounts and times, never an access code or a password. */
  payload: Record<string, unknown>;
}

/** An event's public id: `evt_` and 24 random characters (base64url). */
export function newEventId(): string {
  return `evt_${randomBytes(18).toString("base64url")}`;
}

/** One event; see emitEvents. */
export async function emitEvent(tx: Conn, event: EmittedEvent, now: Date): Promise<number> {
  return emitEvents(tx, [event], now);
}

/**
 * Records events and one pending delivery per live endpoint of their company subscribed to their
 * type, in the caller's transaction. An event no endpoint wants is not stored (nothing would ever
 * read it; an endpoint registered later receives what happens from then on). An event whose
 * (company, type, subject) exists already is left as it was: one happening, one event. Answers
 * how many deliveries were queued.
 */
export async function emitEvents(tx: Conn, events: readonly EmittedEvent[], now: Date): Promise<number> {
  if (events.length === 0) return 0;
  const companyIds = [...new Set(events.map((e) => e.companyId))];
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, companyId: webhookEndpoints.companyId, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.companyId, companyIds), isNull(webhookEndpoints.deletedAt)));
  const wanted = events.filter((e) => endpoints.some((p) => p.companyId === e.companyId && p.events.includes(e.type)));
  if (wanted.length === 0) return 0;
  const inserted = await tx
    .insert(webhookEvents)
    .values(
      wanted.map((e) => ({
        publicId: newEventId(),
        companyId: e.companyId,
        type: e.type,
        subject: e.subject,
        payload: e.payload,
        createdAt: now,
      })),
    )
    .onConflictDoNothing({ target: [webhookEvents.companyId, webhookEvents.type, webhookEvents.subject] })
    .returning({ id: webhookEvents.id, companyId: webhookEvents.companyId, type: webhookEvents.type });
  const deliveries = inserted.flatMap((event) =>
    endpoints
      .filter((p) => p.companyId === event.companyId && p.events.includes(event.type))
      .map((p) => newDelivery(event.id, p.id, event.companyId, now)),
  );
  if (deliveries.length > 0) await tx.insert(webhookDeliveries).values(deliveries).onConflictDoNothing();
  return deliveries.length;
}

function newDelivery(eventId: number, endpointId: number, companyId: number, now: Date) {
  return {
    eventId,
    endpointId,
    companyId,
    status: "pending" as const,
    nextAttemptAt: now,
    giveUpAt: new Date(now.getTime() + WEBHOOK_RETRY_WINDOW_MS),
    createdAt: now,
  };
}

// ─── Deliveries: the Owner's view, re-send, test ping ───────────────────────────────────────

/** How many deliveries the deliveries page lists (newest first). */
export const DELIVERIES_LISTED = 100;

async function endpointOf(db: Conn, companyId: number, endpointId: number) {
  const [row] = await db
    .select(endpointColumns)
    .from(webhookEndpoints)
    .innerJoin(users, eq(users.id, webhookEndpoints.createdBy))
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.companyId, companyId)));
  return row;
}

/** An endpoint of the company (deleted ones too) with its newest deliveries, or null. */
export async function listDeliveries(
  db: Db,
  companyId: number,
  endpointId: number,
): Promise<WebhookDeliveriesPage | null> {
  const endpoint = await endpointOf(db, companyId, endpointId);
  if (!endpoint) return null;
  const rows = await db
    .select({
      id: webhookDeliveries.id,
      eventId: webhookEvents.publicId,
      eventType: webhookEvents.type,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      createdAt: webhookDeliveries.createdAt,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      deliveredAt: webhookDeliveries.deliveredAt,
      lastStatus: webhookDeliveries.lastStatus,
      lastResponse: webhookDeliveries.lastResponse,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.companyId, companyId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(DELIVERIES_LISTED);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const newest = rows[0];
  return {
    endpoint: {
      ...endpointView(
        endpoint,
        newest
          ? {
              status: newest.status as WebhookDeliveryStatus,
              attempts: newest.attempts,
              lastStatus: newest.lastStatus,
              at: (newest.lastAttemptAt ?? newest.createdAt).toISOString(),
            }
          : null,
      ),
      deleted: endpoint.deletedAt !== null,
    },
    deliveries: rows.map((r) => ({
      id: r.id,
      eventId: r.eventId,
      eventType: r.eventType,
      status: r.status as WebhookDeliveryStatus,
      attempts: r.attempts,
      createdAt: r.createdAt.toISOString(),
      lastAttemptAt: iso(r.lastAttemptAt),
      nextAttemptAt: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
      deliveredAt: iso(r.deliveredAt),
      lastStatus: r.lastStatus,
      lastResponse: r.lastResponse,
    })),
  };
}

export type ResendOutcome = "queued" | "endpoint_not_found" | "delivery_not_found";

/**
 * An Owner's re-send of one delivery (delivered, failed or still waiting): pending again, due
 * now, with a new 72-hour window; the receiver gets the same event id, so it can tell a re-send
 * from a new event. Refused for another company's or a deleted endpoint.
 */
export async function resendDelivery(
  db: Db,
  actor: WebhookActor,
  endpointId: number,
  deliveryId: number,
  now: Date,
): Promise<ResendOutcome> {
  const endpoint = await endpointOf(db, actor.companyId, endpointId);
  if (!endpoint || endpoint.deletedAt) return "endpoint_not_found";
  const updated = await db
    .update(webhookDeliveries)
    .set({
      status: "pending",
      nextAttemptAt: now,
      giveUpAt: new Date(now.getTime() + WEBHOOK_RETRY_WINDOW_MS),
      deliveredAt: null,
      // A worker calling it right now settles nothing over this (its update needs its own lease).
      lockedUntil: null,
    })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.companyId, actor.companyId),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return updated.length > 0 ? "queued" : "delivery_not_found";
}

/** "Send test ping": a `ping` event to this endpoint only, due now. Null for another company's or a deleted endpoint. */
export async function pingEndpoint(
  db: Db,
  actor: WebhookActor,
  endpointId: number,
  now: Date,
): Promise<{ eventId: string; deliveryId: number } | null> {
  const endpoint = await endpointOf(db, actor.companyId, endpointId);
  if (!endpoint || endpoint.deletedAt) return null;
  return db.transaction(async (tx) => {
    const publicId = newEventId();
    const [event] = await tx
      .insert(webhookEvents)
      .values({
        publicId,
        companyId: actor.companyId,
        type: PING_EVENT,
        // Every ping is its own happening.
        subject: `ping:${publicId}`,
        payload: { endpointId: endpoint.id, url: endpoint.url, requestedBy: actor.userId },
        createdAt: now,
      })
      .returning({ id: webhookEvents.id });
    if (!event) throw new Error("webhook event insert returned no row");
    const [delivery] = await tx
      .insert(webhookDeliveries)
      .values(newDelivery(event.id, endpoint.id, actor.companyId, now))
      .returning({ id: webhookDeliveries.id });
    if (!delivery) throw new Error("webhook delivery insert returned no row");
    return { eventId: publicId, deliveryId: delivery.id };
  });
}
