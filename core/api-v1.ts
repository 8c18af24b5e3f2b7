// The contract of /api/v1, a company API key's calls (ADR 0028): the schemas of what the routes
// take and answer. The routes validate with the request schemas, the OpenAPI document
// (server/api/openapi.ts) is generated from all of them, and the answers' TypeScript types are
// checked against them below, so the document, the routes and the portal's types cannot drift.
import * as z from "zod/mini";
import type { RewardHistoryPage } from "./account-forms.ts";
import { REWARD_HISTORY_PAGE_SIZE } from "./account-forms.ts";
import type { ReleaseDelivery } from "./delivery.ts";
import { pageQuerySchema } from "./rewards.ts";
import type { RewardOrderView } from "./schedule.ts";

// ─── Requests ────────────────────────────────────────────────────────────────────────────────

/** GET /api/v1/orders?pageNumber&pageSize: out-of-range or missing values fall back to page 1 and 20. */
export const v1OrdersQuerySchema = pageQuerySchema(REWARD_HISTORY_PAGE_SIZE);

// ─── Answers ─────────────────────────────────────────────────────────────────────────────────
// Strict objects: a member the handlers answer but the contract does not name fails the tests
// that parse real answers (server/api/openapi.test.ts), and the document says no other members.

const instant = z.iso.datetime({ offset: true });
const orderState = z.enum(["scheduled", "released", "cancelled"]);

/** A row of GET /api/v1/orders: a paid order (RewardHistoryEntry); amount in whole dollars. */
export const v1OrderEntrySchema = z.strictObject({
  orderId: z.int(),
  rewardDate: instant,
  rewardName: z.string(),
  amount: z.number(),
  invoiceNumber: z.nullable(z.string()),
  rewardReleaseId: z.nullable(z.int()),
  state: orderState,
  refunded: z.boolean(),
});

/** GET /api/v1/orders: one page of the company's paid orders, newest first (RewardHistoryPage). */
export const v1OrderPageSchema = z.strictObject({
  items: z.array(v1OrderEntrySchema),
  totalCount: z.int(),
  pageNumber: z.int(),
  pageSize: z.int(),
  totalPages: z.int(),
  hasPreviousPage: z.boolean(),
  hasNextPage: z.boolean(),
});

const emailDeliveryState = z.enum(["queued", "sending", "sent", "retrying", "failed"]);

/** One recipient of a released order and what became of their email (ReleaseDelivery's). */
export const v1RecipientSchema = z.strictObject({
  userId: z.int(),
  name: z.string(),
  email: z.string(),
  amountCents: z.int(),
  delivery: z.nullable(
    z.strictObject({
      state: emailDeliveryState,
      attempts: z.int(),
      lastError: z.nullable(z.string()),
      sentAt: z.nullable(instant),
      to: z.string(),
      resends: z.int(),
    }),
  ),
});

/** GET /api/v1/orders/{orderId}: the order (RewardOrderView) and, once released, its recipients. */
export const v1OrderSchema = z.strictObject({
  orderId: z.int(),
  state: orderState,
  rewardName: z.string(),
  sendAt: z.nullable(instant),
  recipientCount: z.int(),
  rewardsCents: z.int(),
  serviceFeeCents: z.int(),
  gstCents: z.int(),
  totalCents: z.int(),
  invoiceNumber: z.nullable(z.string()),
  paidAt: z.nullable(instant),
  releasedAt: z.nullable(instant),
  rewardReleaseId: z.nullable(z.int()),
  cancelledAt: z.nullable(instant),
  refundedAt: z.nullable(instant),
  recipients: z.nullable(z.array(v1RecipientSchema)),
});

export type V1OrderPage = z.infer<typeof v1OrderPageSchema>;
export type V1Order = z.infer<typeof v1OrderSchema>;

/** RFC 9457 problem details, as every refusal answers (server/http/problem.ts); extensions allowed. */
export const v1ProblemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  errors: z.optional(z.record(z.string(), z.array(z.string()))),
});

// ─── The portal's types are the contract's, exactly (a compile error here is a drifted shape) ──

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type V1TypesMatch = [
  Assert<Same<V1OrderPage, RewardHistoryPage>>,
  Assert<Same<V1Order, RewardOrderView & { recipients: ReleaseDelivery["recipients"] | null }>>,
];
