// The contract of /api/v1, a company API key's calls (ADR 0028): the schemas of what the routes
// take and answer. The routes validate with the request schemas, the OpenAPI document
// (modules/api-v1/openapi.server.ts) is generated from all of them, and the answers' TypeScript types are
// checked against them below, so the document, the routes and the portal's types cannot drift.
import * as z from "zod/mini";
import { emailField, firstNameField, lastNameField } from "../../core/fields.ts";
import { formatDollars, MAX_REWARD_DOLLARS } from "../../core/money.ts";
import { pageQuerySchema } from "../../core/paging.ts";
import { REFUSAL_KINDS } from "../../core/refusals.ts";
import type { ReleaseDelivery } from "../deliveries/schema.ts";
import type { RewardHistoryPage } from "../identity/schema.ts";
import { REWARD_HISTORY_PAGE_SIZE } from "../identity/schema.ts";
import { REWARD_DETAILS, REWARD_MESSAGE_MAX, REWARD_NAME_MAX } from "../reward-drafts/schema.ts";
import type { RewardOrderState, RewardOrderView } from "../scheduled-sends/schema.ts";

// ─── Requests ────────────────────────────────────────────────────────────────────────────────

/** GET /api/v1/orders?pageNumber&pageSize: out-of-range or missing values fall back to page 1 and 20. */
export const v1OrdersQuerySchema = pageQuerySchema({ pageSize: REWARD_HISTORY_PAGE_SIZE });

/**
 * The most recipients of one POST /api/v1/orders. Lower than a portal draft's cap (50,000): the
 * call answers once the order is released, so it stays within seconds; a larger list is sent as
 * several orders, each with its own Idempotency-Key.
 */
export const V1_ORDER_MAX_RECIPIENTS = 1000;

/** The Idempotency-Key header: 1 to 255 printable ASCII characters (a UUID is a good choice). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/** How long a used Idempotency-Key answers its order (at least 24 hours, ADR 0044). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;

/** The refusals of POST /api/v1/orders (problem+json `detail`), word for word. */
export const V1_ORDER_DETAILS = {
  idempotencyKeyRequired:
    "The Idempotency-Key header is required: 1 to 255 printable ASCII characters, a new one for each new order.",
  idempotencyKeyReused: "This Idempotency-Key was used with a different request.",
  recipientsRequired: "recipients must list at least one recipient.",
  tooManyRecipients: `An order can have at most ${V1_ORDER_MAX_RECIPIENTS.toLocaleString("en-AU")} recipients; send a longer list as several orders.`,
  amount: `Amount must be a whole number of Reward Dollars from 1 to ${MAX_REWARD_DOLLARS.toLocaleString("en-AU")}.`,
  sendAt: "sendAt must be an ISO 8601 instant with its offset, such as 2026-12-01T09:00:00+11:00.",
  managerEmail: REWARD_DETAILS.managerEmail,
} as const;

/** Recipient n (from 1) repeats the address of recipient `first`. */
export function duplicateRecipientMessage(n: number, first: number): string {
  return `Recipient ${n}: Email Address repeats recipient ${first}; list each recipient once.`;
}

/** The refusal of an order (or an approval) the company's prepaid balance cannot cover. */
export function balanceShortDetail(balanceCents: number, totalCents: number): string {
  return `The company balance (${formatDollars(balanceCents)}) does not cover this order (${formatDollars(totalCents)}). An Owner can top it up in Settings → Balance.`;
}

// Control characters other than a line break or a tab (as the portal's message field refuses).
const CONTROL = /[^\P{Cc}\n\t]/u;

export const v1OrderRecipientSchema = z.strictObject({
  email: emailField,
  firstName: firstNameField,
  lastName: lastNameField,
  /** Whole Reward Dollars (1 Reward Dollar = A$1). */
  amount: z
    .number({ error: V1_ORDER_DETAILS.amount })
    .check(
      z.int(V1_ORDER_DETAILS.amount),
      z.minimum(1, V1_ORDER_DETAILS.amount),
      z.maximum(MAX_REWARD_DOLLARS, V1_ORDER_DETAILS.amount),
      z.describe("Whole Reward Dollars for this recipient (1 Reward Dollar = A$1); the fee and GST are added."),
    ),
});

/**
 * POST /api/v1/orders: the reward's name, an optional message to every recipient (as the
 * portal's), an optional send time (10 minutes to 90 days ahead; absent: at once) and the
 * recipients, each address once. Unknown members are refused (a misspelt `sendAt` must not
 * quietly mean "now").
 */
export const v1CreateOrderSchema = z
  .strictObject({
    rewardName: z
      .string({ error: REWARD_DETAILS.nameRequired })
      .check(
        z.trim(),
        z.minLength(1, REWARD_DETAILS.nameRequired),
        z.maxLength(REWARD_NAME_MAX, REWARD_DETAILS.nameTooLong),
      ),
    message: z.optional(
      z.string().check(
        z.trim(),
        z.maxLength(REWARD_MESSAGE_MAX, REWARD_DETAILS.messageTooLong),
        z.refine((text) => !CONTROL.test(text), REWARD_DETAILS.messageControl),
        z.describe("Plain text in every recipient's email; line breaks kept."),
      ),
    ),
    sendAt: z.optional(
      z.iso
        .datetime({ offset: true, error: V1_ORDER_DETAILS.sendAt })
        .check(z.describe("When to send, 10 minutes to 90 days ahead; absent: at once. Charged now either way.")),
    ),
    recipients: z
      .array(v1OrderRecipientSchema, { error: V1_ORDER_DETAILS.recipientsRequired })
      .check(
        z.minLength(1, V1_ORDER_DETAILS.recipientsRequired),
        z.maxLength(V1_ORDER_MAX_RECIPIENTS, V1_ORDER_DETAILS.tooManyRecipients),
        z.describe(
          "Each address once (any letter case). A team member of the company with the address is rewarded; a new address becomes a team member.",
        ),
      ),
  })
  .check(
    z.superRefine((body, ctx) => {
      const firstOf = new Map<string, number>();
      body.recipients.forEach((r, index) => {
        const key = r.email.toLowerCase();
        const first = firstOf.get(key);
        if (first === undefined) firstOf.set(key, index + 1);
        else {
          ctx.issues.push({
            code: "custom",
            path: ["recipients", index, "email"],
            message: duplicateRecipientMessage(index + 1, first),
            input: r.email,
          });
        }
      });
    }),
  );
export type V1CreateOrderRequest = z.input<typeof v1CreateOrderSchema>;
export type V1CreateOrder = z.output<typeof v1CreateOrderSchema>;

// ─── Answers ─────────────────────────────────────────────────────────────────────────────────
// Strict objects: a member the handlers answer but the contract does not name fails the tests
// that parse real answers (modules/api-v1/openapi.test.ts), and the document says no other members.

const instant = z.iso.datetime({ offset: true });
const orderState = z.enum(["scheduled", "released", "cancelled"]);
/**
 * An order's state as /api/v1/orders/{orderId} answers it: a paid order's (scheduled, released,
 * cancelled) and, for an order a key placed, awaiting_approval (at or above the approval
 * threshold, nothing charged yet), declined (by an Owner; never charged) and processing
 * (charged to the balance, its release a moment away).
 */
const v1OrderState = z
  .enum(["awaiting_approval", "declined", "processing", "scheduled", "released", "cancelled"])
  .check(
    z.describe(
      "awaiting_approval: waits for an Owner, nothing charged; declined: never charged; processing: charged, " +
        "released in a moment; scheduled: charged, sent at sendAt; released: sent; cancelled: not sent, refunded.",
    ),
  );
export type V1OrderState = z.infer<typeof v1OrderState>;

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
  email: z.string().check(z.describe("The address the reward was first sent to.")),
  currentEmail: z.string().check(z.describe("The member's address now: where a resend from the portal goes.")),
  emailChanged: z
    .boolean()
    .check(z.describe("currentEmail is not email (letter case aside): only an Owner may resend it from the portal.")),
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
  state: v1OrderState,
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
  refundFailedAt: z
    .nullable(instant)
    .check(
      z.describe(
        "When the refund of a cancelled order was given up on after 72 hours of retries; our support has been told. Null otherwise.",
      ),
    ),
  cancelledForRemoved: z
    .nullable(z.array(z.string()))
    .check(
      z.describe(
        "For an order cancelled without anyone cancelling it: the members removed from the team after it was paid, so it was refunded instead of sent. Null otherwise.",
      ),
    ),
  paidFrom: z
    .enum(["card", "balance"])
    .check(z.describe("card: paid by card in the portal; balance: from the prepaid balance (an order a key placed).")),
  recipients: z.nullable(z.array(v1RecipientSchema)),
});

/**
 * POST /api/v1/quotes: what POST /api/v1/orders would charge for the same body, and the balance
 * it would leave. Nothing is charged or kept.
 */
export const v1QuoteSchema = z.strictObject({
  recipientCount: z.int(),
  rewardsCents: z.int().check(z.describe("The rewards' total: the recipients' Reward Dollars in cents.")),
  serviceFeeCents: z.int().check(z.describe("The fulfilment fee: 10 % of the rewards, to the cent.")),
  gstCents: z.int().check(z.describe("GST: 10 % of the fee, to the cent.")),
  totalCents: z.int().check(z.describe("What the order costs: rewards + fee + GST.")),
  balanceCents: z.int().check(z.describe("The company's prepaid balance now.")),
  balanceAfterCents: z
    .int()
    .check(
      z.describe(
        "balanceCents − totalCents: the balance once the order is charged. Below 0 when the balance does not cover " +
          "it (the order would be refused with 402 until an Owner tops it up).",
      ),
    ),
  coveredByBalance: z.boolean().check(z.describe("Whether the balance covers totalCents now.")),
  approvalRequired: z
    .boolean()
    .check(
      z.describe(
        "Whether the total is at or above the company's approval threshold, or its reward dollars would pass the " +
          "API key's monthly budget (budget.exceeded): the order would wait for an Owner (202) and be charged on approval.",
      ),
    ),
});

export type V1Quote = z.infer<typeof v1QuoteSchema>;
export type V1OrderPage = z.infer<typeof v1OrderPageSchema>;
export type V1Order = z.infer<typeof v1OrderSchema>;

/** RFC 9457 problem details, as every refusal answers (server/http/problem.ts); extensions allowed. */
export const v1ProblemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  /** What was refused (core/refusals.ts, ADR 0039): the member a caller switches on; the detail is for people. */
  code: z.optional(z.enum(REFUSAL_KINDS)),
  errors: z.optional(z.record(z.string(), z.array(z.string()))),
});

// ─── The portal's types are the contract's, exactly (a compile error here is a drifted shape) ──

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type V1TypesMatch = [
  Assert<Same<V1OrderPage, RewardHistoryPage>>,
  Assert<
    Same<
      V1Order,
      Omit<RewardOrderView, "state"> & { state: V1OrderState; recipients: ReleaseDelivery["recipients"] | null }
    >
  >,
  // Every state of a paid order is one of the contract's.
  Assert<RewardOrderState extends V1OrderState ? true : false>,
];
