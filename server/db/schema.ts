// The database schema (DESIGN.md §4). Migrations are generated from this file with
// `npm run db:generate` and applied in process at start.
import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** Small process-wide settings that must survive restarts (e.g. the generated session secret). */
export const appSettings = pgTable("app_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/**
 * The retailer catalogue shown on the landing page: `brand` rows feed the retailer carousel,
 * `latest` rows the "latest rewards" carousel.
 */
export const catalogueItems = pgTable(
  "catalogue_items",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind", { enum: ["brand", "latest"] }).notNull(),
    slug: text("slug").notNull(),
    brand: text("brand").notNull(),
    imageUrl: text("image_url").notNull(),
    clickUrl: text("click_url").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("catalogue_items_kind_slug_idx").on(t.kind, t.slug)],
);

export const waitlistEntries = pgTable(
  "waitlist_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email").notNull(),
    companyName: text("company_name").notNull(),
    isOptedIn: boolean("is_opted_in").notNull().default(true),
    createdAt: createdAt(),
  },
  // One entry per address, compared case-insensitively.
  (t) => [uniqueIndex("waitlist_entries_email_idx").on(sql`lower(${t.email})`)],
);

export const helpRequests = pgTable("help_requests", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  firstName: text("first_name").notNull(),
  lastName: text("last_name").notNull(),
  email: text("email").notNull(),
  message: text("message").notNull(),
  /** Set when a signed-in user sent it (the accounts issue); null for the public form. */
  userId: bigint("user_id", { mode: "number" }),
  createdAt: createdAt(),
});

/**
 * The durable mail outbox (DESIGN.md §6): written in the same transaction as the change that
 * causes the email, delivered by the worker with retries and backoff.
 */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    /** pending → sending → sent; `failed` after the last attempt. */
    status: text("status", { enum: ["pending", "sending", "sent", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastError: text("last_error"),
    /** Where it went: "smtp" or "dev-mailbox". */
    transport: text("transport"),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("email_outbox_due_idx").on(t.status, t.nextAttemptAt)],
);
