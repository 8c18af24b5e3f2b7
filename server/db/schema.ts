// The database schema (docs/requirements.md §D4). Migrations are generated from this file with
// `npm run db:generate` and applied in process at start.
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

// Column helpers for the columns nearly every table repeats, written once so a table reads as its
// own columns. Each builds exactly the column it replaces: `npm run db:generate` finds nothing to
// migrate (the migrations in server/db/migrations are unchanged by them).

/** A table's own key: a bigserial, read as a JS number (ids stay far below 2^53). */
const id = () => bigserial("id", { mode: "number" }).primaryKey();

/** The company a row belongs to; every company-owned row is read through it (docs/requirements.md §D4). */
const companyRef = () =>
  bigint("company_id", { mode: "number" })
    .notNull()
    .references(() => companies.id);

/** A user the row is about or who acted (`user_id`, `placed_by`, `created_by`, …); required. */
const userRef = (name = "user_id") =>
  bigint(name, { mode: "number" })
    .notNull()
    .references(() => users.id);

/** Like userRef, for a user who may not be known yet (`revoked_by` before a revocation, …). */
const optionalUserRef = (name: string) => bigint(name, { mode: "number" }).references(() => users.id);

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
    id: id(),
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
    id: id(),
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
  id: id(),
  firstName: text("first_name").notNull(),
  lastName: text("last_name").notNull(),
  email: text("email").notNull(),
  message: text("message").notNull(),
  /** Set when a signed-in user sent it (the portal's Help form); null for the public form. */
  userId: bigint("user_id", { mode: "number" }),
  /** The signed-in sender's company; null for the public form. */
  companyId: bigint("company_id", { mode: "number" }),
  createdAt: createdAt(),
});

/**
 * The durable mail outbox (docs/requirements.md §D6): written in the same transaction as the change that
 * causes the email, delivered by the worker with retries and backoff.
 */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: id(),
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
    /**
     * A recipient's reward email: the order and the recipient it is for, so the release's
     * delivery page can show each email's state (no foreign keys: the outbox is plumbing).
     */
    orderId: bigint("order_id", { mode: "number" }),
    recipientUserId: bigint("recipient_user_id", { mode: "number" }),
  },
  (t) => [
    index("email_outbox_due_idx").on(t.status, t.nextAttemptAt),
    index("email_outbox_order_idx").on(t.orderId, t.recipientUserId),
  ],
);

// ─── Accounts: companies, users, email verification, password reset, access tokens ───

const timestamptz = (name: string) => timestamp(name, { withTimezone: true });

/** A customer business. Its details (ABN, size, industry) are added at onboarding step 3. */
export const companies = pgTable(
  "companies",
  {
    id: id(),
    name: text("name").notNull(),
    /** 11 digits, valid by the ABN check-digit rule; null until the company details are provided. */
    abn: text("abn"),
    size: text("size"),
    industry: text("industry"),
    /** When the company details were last saved; not null ⇔ hasProvidedCompanyDetails. */
    detailsUpdatedAt: timestamptz("details_updated_at"),
    /**
     * Orders whose total is at or above this many cents wait for an Owner's approval before they
     * can be paid (ADR 0022); null: no approval step. Whole dollars only.
     */
    approvalThresholdCents: bigint("approval_threshold_cents", { mode: "number" }),
    /** Every manager of the company must sign in with a second factor (set up at the next login). */
    twoFactorRequired: boolean("two_factor_required").notNull().default(false),
    /** The prepaid balance (ADR 0043): the running sum of balance_entries, never below zero. */
    balanceCents: bigint("balance_cents", { mode: "number" }).notNull().default(0),
    /**
     * The automations' monthly budget (ADR 0035), set by an Owner, independent of any manager: an
     * automation run that would take the Sydney month's automation orders past it waits for an
     * Owner's approval. Null: no budget. Whole dollars only.
     */
    automationBudgetCents: bigint("automation_budget_cents", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      "companies_automation_budget_check",
      sql`${t.automationBudgetCents} is null or (${t.automationBudgetCents} >= 0 and ${t.automationBudgetCents} % 100 = 0)`,
    ),
    check(
      "companies_approval_threshold_check",
      sql`${t.approvalThresholdCents} is null or (${t.approvalThresholdCents} >= 0 and ${t.approvalThresholdCents} % 100 = 0)`,
    ),
    check("companies_balance_check", sql`${t.balanceCents} >= 0`),
  ],
);

/**
 * Program managers (with a password) and team members (no password). Removing a member marks it
 * inactive (history keeps pointing at it).
 */
export const users = pgTable(
  "users",
  {
    id: id(),
    /**
     * The id the verification calls take (docs/requirements.md §S7 `userId`): random, so nobody can aim a code
     * request at a stranger by counting. The sequential `id` stays internal.
     */
    publicId: uuid("public_id").notNull().defaultRandom().unique(),
    companyId: companyRef(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email").notNull(),
    phone: text("phone"),
    /** argon2id (PHC string); null for team members, who never log in to the portal. */
    passwordHash: text("password_hash"),
    role: text("role", { enum: ["program_manager", "member"] }).notNull(),
    /**
     * What a program manager may do in their company (ADR 0022): an Owner everything, a Manager
     * the team and rewards. Null for team members.
     */
    managerRole: text("manager_role", { enum: ["owner", "manager"] }),
    /** The TOTP secret (base32), sealed with the server secret like session data; null: none set up. */
    totpSecretSealed: text("totp_secret_sealed"),
    /**
     * Who was shown the secret still waiting for its first code (ADR 0042): `token:<access token id>` for a signed-in
     * manager, `challenge:<login challenge id>` for the forced set-up at sign-in; null once on.
     * Another session asking to set up gets a new secret, and only this one may confirm it.
     */
    totpSetupStartedBy: text("totp_setup_started_by"),
    /** When two-factor sign-in was turned on (the first code checked); null: off. */
    totpEnabledAt: timestamptz("totp_enabled_at"),
    /**
     * The TOTP time step (30 s since the epoch) of the last code accepted: a code of that step or
     * an earlier one is refused, so a code seen over a shoulder cannot be used again.
     */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    isActive: boolean("is_active").notNull().default(true),
    emailVerifiedAt: timestamptz("email_verified_at"),
    hasWatchedOnboardingVideo: boolean("has_watched_onboarding_video").notNull().default(false),
    /**
     * A team member's birthday as day and month only: no year is kept (core/member-dates.ts).
     * Both or neither; 29 February is allowed (celebrated on 28 February in common years).
     */
    birthDay: smallint("birth_day"),
    birthMonth: smallint("birth_month"),
    /** A team member's first day of work (a calendar date, no time zone): work anniversaries. */
    startDate: date("start_date", { mode: "string" }),
    /**
     * When the birthday and the start date were last set (entered, changed or cleared): an
     * automation's occasion is due only when its date was set before the occasion's 9:00
     * (modules/automations/service.server.ts), so a date entered after that time waits for the next one.
     * Written only with the dates (modules/team/service.server.ts dateSetColumns). Rows made before this
     * column hold their creation time (the migration's backfill).
     */
    birthdaySetAt: timestamptz("birthday_set_at"),
    startDateSetAt: timestamptz("start_date_set_at"),
    /** Where a team member works: an Australian state or territory, mapped to its time zone (core/member-dates.ts). */
    state: text("state", { enum: ["NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT"] }),
    /**
     * A Manager's monthly budget of reward dollars in cents, whole dollars (ADR 0034); null:
     * unlimited. Kept through a change of role, applied only while the role is Manager.
     */
    monthlyBudgetCents: bigint("monthly_budget_cents", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    check("users_manager_role_check", sql`(${t.role} = 'program_manager') = (${t.managerRole} is not null)`),
    check(
      "users_birthday_check",
      sql`(${t.birthDay} is null) = (${t.birthMonth} is null) and (${t.birthMonth} is null or (${t.birthMonth} between 1 and 12 and ${t.birthDay} between 1 and (case when ${t.birthMonth} = 2 then 29 when ${t.birthMonth} in (4, 6, 9, 11) then 30 else 31 end)))`,
    ),
    check(
      "users_monthly_budget_check",
      sql`${t.monthlyBudgetCents} is null or (${t.monthlyBudgetCents} >= 0 and ${t.monthlyBudgetCents} % 100 = 0)`,
    ),
    check(
      "users_state_check",
      sql`${t.state} is null or ${t.state} in ('NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT')`,
    ),
    // A program manager's address signs in, so it is unique among active managers; a team
    // member's is unique within the company (the same person may be rewarded by two companies).
    uniqueIndex("users_active_manager_email_idx")
      .on(sql`lower(${t.email})`)
      .where(sql`${t.isActive} and ${t.role} = 'program_manager'`),
    uniqueIndex("users_active_company_email_idx").on(t.companyId, sql`lower(${t.email})`).where(sql`${t.isActive}`),
    index("users_company_name_idx").on(t.companyId, t.isActive, t.firstName, t.lastName, t.id),
  ],
);

/**
 * One row per emailed 6-digit code. The request token (handed to the browser) is stored as its
 * SHA-256; the code as an HMAC keyed by the request token, so neither can be read back from the
 * database. Valid 10 minutes, at most 5 wrong tries, single use; a newer request invalidates it.
 */
export const emailVerifications = pgTable(
  "email_verifications",
  {
    id: id(),
    userId: userRef(),
    requestTokenHash: text("request_token_hash").notNull(),
    codeHash: text("code_hash").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    consumedAt: timestamptz("consumed_at"),
    invalidatedAt: timestamptz("invalidated_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("email_verifications_request_token_idx").on(t.requestTokenHash),
    index("email_verifications_user_idx").on(t.userId),
  ],
);

/** Emailed reset links: the token stored as its SHA-256, valid 1 hour, single use. */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: id(),
    userId: userRef(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("password_resets_token_idx").on(t.tokenHash), index("password_resets_user_idx").on(t.userId)],
);

/** Opaque bearer tokens of the provider API, stored as their SHA-256; fixed lifetime, revocable. */
export const accessTokens = pgTable(
  "access_tokens",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    userId: userRef(),
    companyId: companyRef(),
    expiresAt: timestamptz("expires_at").notNull(),
    revokedAt: timestamptz("revoked_at"),
    /** Where the login that made the token came from, for the manager's list of sessions. */
    clientIp: text("client_ip"),
    userAgent: text("user_agent"),
    /**
     * A sign-in through the company's identity provider (ADR 0046): the provider's session id
     * (`sid`) and subject (`sub`) from the ID token, so the provider's back-channel logout ends it.
     */
    ssoSessionId: text("sso_session_id"),
    ssoSubject: text("sso_subject"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("access_tokens_token_idx").on(t.tokenHash), index("access_tokens_user_idx").on(t.userId)],
);

/**
 * Web sessions (docs/requirements.md §D2): the browser's cookie holds only the id; the access token, the
 * user's name and flashed toasts live here. Expired rows are ignored and swept at start.
 */
export const webSessions = pgTable(
  "web_sessions",
  {
    id: text("id").primaryKey(),
    data: jsonb("data").notNull().$type<Record<string, unknown>>(),
    /** The signed-in manager (outside the sealed data), so their sessions can be ended at once. */
    userId: optionalUserRef("user_id"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("web_sessions_expires_idx").on(t.expiresAt), index("web_sessions_user_idx").on(t.userId)],
);

/**
 * A CSV import (team or reward, docs/requirements.md §D7): the file is read as a stream and its checked rows
 * are staged in `import_job_rows` in batches, committed as they go (they change nothing the
 * product shows). Then one transaction applies every staged row and marks the job done, so an
 * import is all or nothing; a worker claims a queued job with FOR UPDATE SKIP LOCKED, and a
 * process that dies mid-apply rolls back and leaves the job queued for another worker.
 * Status: receiving (rows arriving) → staged (checked, waiting for Save without JavaScript) →
 * queued (Save given) → done or failed. Owned by one user; swept once expired.
 */
export const importJobs = pgTable(
  "import_jobs",
  {
    id: text("id").primaryKey(),
    userId: userRef(),
    companyId: companyRef(),
    kind: text("kind", { enum: ["team", "reward"] }).notNull(),
    status: text("status", { enum: ["receiving", "staged", "queued", "done", "failed"] }).notNull(),
    fileName: text("file_name").notNull(),
    /** Rows read, checked and staged so far (the progress while the file arrives). */
    processedRows: integer("processed_rows").notNull().default(0),
    /** The file's row count once read whole; before that the count the browser announced, if any. */
    totalRows: integer("total_rows"),
    /** When done: the counts the page shows (docs/requirements.md §S8 toasts). */
    result: jsonb("result").$type<Record<string, number>>(),
    /** When failed: why, in the page's words. */
    errors: jsonb("errors").$type<string[]>(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("import_jobs_status_idx").on(t.status, t.createdAt), index("import_jobs_user_idx").on(t.userId)],
);

/** The checked rows of an import, numbered as the file's rows (1 = the first below the headings). */
export const importJobRows = pgTable(
  "import_job_rows",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email").notNull(),
    /** Whole Reward Dollars (reward imports only). */
    amount: integer("amount"),
    /** A team import's optional details, as users holds them (core/csv.ts MEMBER_DETAIL_CSV_COLUMNS). */
    birthDay: smallint("birth_day"),
    birthMonth: smallint("birth_month"),
    startDate: date("start_date", { mode: "string" }),
    state: text("state"),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.n] })],
);

// ─── Reward draft: one draft per program manager, its recipient lines ───

/**
 * The reward being prepared by one program manager (docs/requirements.md §S3 reward name, recipient rows). Every
 * change to the draft or its lines bumps `version`, so a payment created for an older version
 * can be refused.
 */
export const rewardDrafts = pgTable(
  "reward_drafts",
  {
    id: id(),
    companyId: companyRef(),
    /** The program manager who owns the draft: one draft each. */
    userId: userRef(),
    /** The reward name (docs/requirements.md §S3), '' until set; required for payment. */
    name: text("name").notNull().default(""),
    /** The sender's message to every recipient, '' for none (modules/reward-drafts/schema.ts rewardMessageField). */
    message: text("message").notNull().default(""),
    /** Who the recipients' email names as the sender; '' for the manager's own name. */
    senderName: text("sender_name").notNull().default(""),
    /** When the order made from this draft is to be released; null: at once when paid. */
    sendAt: timestamptz("send_at"),
    version: integer("version").notNull().default(0),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("reward_drafts_user_idx").on(t.userId), index("reward_drafts_company_idx").on(t.companyId)],
);

/** A recipient of a draft: a team member of the same company and a whole-dollar amount. */
export const rewardDraftLines = pgTable(
  "reward_draft_lines",
  {
    id: id(),
    draftId: bigint("draft_id", { mode: "number" })
      .notNull()
      .references(() => rewardDrafts.id, { onDelete: "cascade" }),
    companyId: companyRef(),
    /** The team member rewarded. */
    userId: userRef(),
    /** Whole Reward Dollars, 0 to 10,000 (docs/requirements.md §D5). */
    amountDollars: integer("amount_dollars").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("reward_draft_lines_draft_user_idx").on(t.draftId, t.userId),
    // Newest first (docs/requirements.md §S9): created_at desc, id desc.
    index("reward_draft_lines_draft_order_idx").on(t.draftId, t.createdAt, t.id),
    index("reward_draft_lines_company_user_idx").on(t.companyId, t.userId),
    check("reward_draft_lines_amount_check", sql`${t.amountDollars} between 0 and 10000`),
  ],
);

// ─── Payments and release (docs/requirements.md §D5): orders, releases, recipient accounts, ledger, audit ───

/**
 * The frozen snapshot that is paid for (docs/requirements.md §D5): made from a draft at one version by
 * create-payment-intent; the payment is created for `total_cents`, never for a browser's number.
 * pending → paid (released exactly once) or failed (declined, or superseded by a newer order).
 */
export const orders = pgTable(
  "orders",
  {
    id: id(),
    companyId: companyRef(),
    /** The program manager who placed (and pays for) the order. */
    placedBy: userRef("placed_by"),
    /**
     * The draft and its version the snapshot was taken from (no foreign key: history outlives
     * drafts); null for an order a system placed with an API key (ADR 0044), which has no draft.
     */
    draftId: bigint("draft_id", { mode: "number" }),
    draftVersion: integer("draft_version"),
    /** The API key an order placed by a company's own system came through (ADR 0044); null from the portal. */
    apiKeyId: bigint("api_key_id", { mode: "number" }).references(() => apiKeys.id),
    /** The automation whose run placed the order (ADR 0035); null for every other source. */
    automationId: bigint("automation_id", { mode: "number" }).references(() => automations.id),
    rewardName: text("reward_name").notNull(),
    /** The sender's message in every recipient's email, '' for none; part of the snapshot. */
    message: text("message").notNull().default(""),
    /** The sender the recipients' email names, resolved when the order was placed ('' before it was kept). */
    senderName: text("sender_name").notNull().default(""),
    /** The scheduled release time (part of the snapshot; rescheduling moves it); null: at once. */
    sendAt: timestamptz("send_at"),
    rewardsCents: bigint("rewards_cents", { mode: "number" }).notNull(),
    serviceFeeCents: bigint("service_fee_cents", { mode: "number" }).notNull(),
    gstCents: bigint("gst_cents", { mode: "number" }).notNull(),
    totalCents: bigint("total_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull().default("aud"),
    /**
     * pending → paid (released at once) or failed; pending → scheduled (paid, waiting for sendAt)
     * → paid when the scheduler releases it, or → cancelled (refunded).
     */
    status: text("status", { enum: ["pending", "scheduled", "paid", "failed", "cancelled"] })
      .notNull()
      .default("pending"),
    /** Who took the money: the card processors, or the company's prepaid balance (ADR 0043). */
    processor: text("processor", { enum: ["simulated", "stripe", "balance"] }).notNull(),
    /** The processor's payment (Stripe PaymentIntent id, or pi_sim_… of the simulated one). */
    paymentIntentId: text("payment_intent_id"),
    /** Stripe Checkout Session of the no-JavaScript path (cs_…), when one was made. */
    checkoutSessionId: text("checkout_session_id"),
    /**
     * How a card order is paid, claimed in the transaction that froze or reused it, before any
     * payment exists: the card form's PaymentIntent ('intent') or a Checkout Session ('checkout').
     * Two calls racing for one order see the claim, so one order never has a payment of each way
     * (ADR 0041). Null: no card payment claimed yet.
     */
    paymentPath: text("payment_path", { enum: ["intent", "checkout", "balance"] }),
    failureReason: text("failure_reason"),
    /** Given when the order is paid: INV-000123. */
    invoiceNumber: text("invoice_number"),
    /**
     * Approval of an order at or above the company's threshold (ADR 0022): requested → approved
     * (payable, this snapshot only) or declined (never payable). Null: no approval was needed.
     */
    approvalStatus: text("approval_status", { enum: ["requested", "approved", "declined"] }),
    approvalDecidedBy: optionalUserRef("approval_decided_by"),
    approvalDecidedAt: timestamptz("approval_decided_at"),
    /** The Owner's reason, required to decline. */
    approvalReason: text("approval_reason"),
    /**
     * By how many cents the order's reward dollars took its placer's (or its API key's) monthly
     * budget over when its approval was requested (ADR 0034); null: no budget was passed.
     */
    overBudgetCents: bigint("over_budget_cents", { mode: "number" }),
    createdAt: createdAt(),
    paidAt: timestamptz("paid_at"),
    releasedAt: timestamptz("released_at"),
    /** A scheduled order cancelled before its release: by whom and when; refunded in full. */
    cancelledAt: timestamptz("cancelled_at"),
    cancelledBy: optionalUserRef("cancelled_by"),
    /** The processor's refund (re_…, or re_sim_…); null until the refund went through. */
    refundId: text("refund_id"),
    refundedAt: timestamptz("refunded_at"),
    /**
     * A cancelled order's refund, retried as webhooks are (ADR 0041): the failed tries so far, when the next one is due (null: at once; while a
     * try is in hand, the end of its claim), the last failure's reason, and when it was given up
     * on (at its last try, 72 hours after the cancel; support is emailed then).
     */
    refundAttempts: integer("refund_attempts").notNull().default(0),
    refundNextAttemptAt: timestamptz("refund_next_attempt_at"),
    refundLastError: text("refund_last_error"),
    refundFailedAt: timestamptz("refund_failed_at"),
    /**
     * The tax invoice's parties as they were when the order was paid or charged (card or balance),
     * written in that transaction (modules/invoices/service.server.ts freezeInvoiceParties; ADR 0025,
     * amendment): the buyer's company name and ABN, and the supplier of SUPPLIER_NAME/SUPPLIER_ABN.
     * Null until then. Orders paid before these columns: the buyer from the company's row when
     * migration 0020 ran, the supplier from the configuration (the migration cannot read it).
     */
    buyerName: text("buyer_name"),
    buyerAbn: text("buyer_abn"),
    supplierName: text("supplier_name"),
    supplierAbn: text("supplier_abn"),
  },
  (t) => [
    uniqueIndex("orders_payment_intent_idx").on(t.paymentIntentId),
    // The scheduler's scan: scheduled orders by their time.
    index("orders_scheduled_idx").on(t.sendAt).where(sql`${t.status} = 'scheduled'`),
    // The scheduler's other scan (ADR 0043): balance orders charged but not yet released. With the
    // index above, PostgreSQL answers the scheduler's OR of the two with a bitmap of both, not a
    // scan of every order, on every pass in every process.
    index("orders_balance_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending' and ${t.processor} = 'balance'`),
    // The scheduler's refund scan: refunds still owed, by when their next try is due.
    index("orders_refund_due_idx")
      .on(t.refundNextAttemptAt)
      .where(sql`${t.status} = 'cancelled' and ${t.refundedAt} is null and ${t.refundFailedAt} is null`),
    uniqueIndex("orders_checkout_session_idx").on(t.checkoutSessionId),
    uniqueIndex("orders_invoice_number_idx").on(t.invoiceNumber),
    index("orders_company_placed_by_idx").on(t.companyId, t.placedBy, t.status),
    index("orders_company_approval_idx").on(t.companyId, t.approvalStatus),
    // A budget's use this month (ADR 0034): a key's orders by when they were paid.
    index("orders_api_key_paid_idx").on(t.apiKeyId, t.paidAt).where(sql`${t.apiKeyId} is not null`),
    check("orders_over_budget_check", sql`${t.overBudgetCents} is null or ${t.overBudgetCents} > 0`),
    check("orders_amounts_check", sql`${t.totalCents} = ${t.rewardsCents} + ${t.serviceFeeCents} + ${t.gstCents}`),
  ],
);

/**
 * A card payment that succeeded for an order another payment had already paid (ADR 0041
 * "One live payment per order"): recorded once per payment, refunded in full by the processor
 * (its idempotency key makes every try the same refund), the payer emailed and audited when the
 * refund went through. A failed try is retried with the refunds' backoff (modules/orders/
 * extra-payments.server.ts) until 72 hours after it was found; then support is emailed.
 */
export const extraPayments = pgTable(
  "extra_payments",
  {
    id: id(),
    companyId: companyRef(),
    orderId: bigint("order_id", { mode: "number" })
      .notNull()
      .references(() => orders.id),
    paymentIntentId: text("payment_intent_id").notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    foundAt: timestamptz("found_at").notNull(),
    refundId: text("refund_id"),
    refundedAt: timestamptz("refunded_at"),
    refundAttempts: integer("refund_attempts").notNull().default(0),
    /** When the next try is due (null: at once; while a try is in hand, the end of its claim). */
    refundNextAttemptAt: timestamptz("refund_next_attempt_at"),
    refundLastError: text("refund_last_error"),
    refundFailedAt: timestamptz("refund_failed_at"),
  },
  (t) => [
    uniqueIndex("extra_payments_payment_intent_idx").on(t.paymentIntentId),
    index("extra_payments_refund_due_idx")
      .on(t.refundNextAttemptAt)
      .where(sql`${t.refundedAt} is null and ${t.refundFailedAt} is null`),
  ],
);

/**
 * Every payment the processor made for a card order: its PaymentIntent (pi_…, pi_sim_…) or its
 * Checkout Session (cs_…), kept when the order no longer names it (a payment made again after
 * Stripe pruned its idempotency key, one the release wrote over, one saved on an order superseded
 * meanwhile). The reconciler's backstop asks the processor about each one that is not the order's
 * own until it is settled (ADR 0041): a succeeded one releases the order
 * or, when another payment paid it, is an extra payment (refunded: extra_payments).
 */
export const orderPayments = pgTable(
  "order_payments",
  {
    id: id(),
    companyId: companyRef(),
    orderId: bigint("order_id", { mode: "number" })
      .notNull()
      .references(() => orders.id),
    /** The processor that made it (an order paid from the balance afterwards keeps its card payments). */
    processor: text("processor", { enum: ["simulated", "stripe"] }).notNull(),
    /** A PaymentIntent id, or a Checkout Session id (cs_…). */
    paymentId: text("payment_id").notNull(),
    createdAt: createdAt(),
    /**
     * When the reconciler found it could pay nothing more (cancelled, expired, the order's own
     * payment, or recorded as an extra payment): never asked about again. Null: still asked.
     */
    settledAt: timestamptz("settled_at"),
  },
  (t) => [
    uniqueIndex("order_payments_payment_idx").on(t.paymentId),
    index("order_payments_order_idx").on(t.orderId),
    index("order_payments_created_idx").on(t.createdAt),
  ],
);

/** One recipient of an order, with their name and address as they were when it was placed. */
export const orderLines = pgTable(
  "order_lines",
  {
    id: id(),
    orderId: bigint("order_id", { mode: "number" })
      .notNull()
      .references(() => orders.id),
    companyId: companyRef(),
    userId: userRef(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email").notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /**
     * This recipient's own message, when it differs per recipient: an automation's template with
     * their first name and years filled in (ADR 0035). Null: the order's message.
     */
    message: text("message"),
  },
  (t) => [uniqueIndex("order_lines_order_user_idx").on(t.orderId, t.userId)],
);

/**
 * Reward history (docs/requirements.md §S3): one row per released order. The unique order_id is what makes a
 * release happen exactly once, whichever path (check call, webhook, retry) gets there first.
 */
export const rewardReleases = pgTable(
  "reward_releases",
  {
    id: id(),
    companyId: companyRef(),
    orderId: bigint("order_id", { mode: "number" })
      .notNull()
      .references(() => orders.id),
    rewardName: text("reward_name").notNull(),
    /** The Reward Dollars released (fee and GST excluded), in cents. */
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    releasedAt: timestamptz("released_at").notNull(),
  },
  (t) => [
    uniqueIndex("reward_releases_order_idx").on(t.orderId),
    index("reward_releases_company_idx").on(t.companyId, t.releasedAt, t.id),
  ],
);

/**
 * A recipient's login to the external catalogue: an access code and a random password (stored
 * as argon2id; the password itself is only ever sent in the email). Reward Dollars expire 18
 * months after the first congratulatory email.
 */
export const recipientAccounts = pgTable(
  "recipient_accounts",
  {
    id: id(),
    companyId: companyRef(),
    userId: userRef(),
    accessCode: text("access_code").notNull(),
    passwordHash: text("password_hash").notNull(),
    firstEmailAt: timestamptz("first_email_at"),
    expiresAt: timestamptz("expires_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("recipient_accounts_company_user_idx").on(t.companyId, t.userId),
    uniqueIndex("recipient_accounts_access_code_idx").on(t.accessCode),
  ],
);

/** Reward Dollar movements of a recipient (docs/requirements.md §D4): a balance is a sum, never a stored number. */
export const rewardLedger = pgTable(
  "reward_ledger",
  {
    id: id(),
    companyId: companyRef(),
    userId: userRef(),
    orderId: bigint("order_id", { mode: "number" }).references(() => orders.id),
    kind: text("kind", { enum: ["credit", "debit", "forfeit"] }).notNull(),
    /** Always positive; the kind says which way it goes. */
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** The lot a movement belongs to (every credit makes one; debits and forfeits draw from one). */
    lotId: bigint("lot_id", { mode: "number" }),
    /** The partner's redemption a debit belongs to. */
    redemptionId: bigint("redemption_id", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("reward_ledger_company_user_idx").on(t.companyId, t.userId),
    index("reward_ledger_lot_idx").on(t.lotId),
    // An order credits each recipient once.
    uniqueIndex("reward_ledger_order_credit_idx").on(t.orderId, t.userId).where(sql`${t.kind} = 'credit'`),
    check("reward_ledger_amount_check", sql`${t.amountCents} >= 0`),
  ],
);

/**
 * A lot: the Reward Dollars one release gave one recipient, valid 18 months from that release's
 * email (docs/requirements.md §S1, per reward, not per recipient). remainingCents is what spending and forfeiture
 * have not taken yet; the ledger keeps every movement, so the balance is still the ledger's sum.
 */
export const rewardLots = pgTable(
  "reward_lots",
  {
    id: id(),
    companyId: companyRef(),
    userId: userRef(),
    orderId: bigint("order_id", { mode: "number" }).references(() => orders.id),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    remainingCents: bigint("remaining_cents", { mode: "number" }).notNull(),
    /** The release's email time: validity starts here. */
    issuedAt: timestamptz("issued_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    /** The 30-day reminder went out (queued in the outbox) at this time. */
    remindedAt: timestamptz("reminded_at"),
    /** What was unspent at expiry was forfeited at this time. */
    forfeitedAt: timestamptz("forfeited_at"),
  },
  (t) => [
    uniqueIndex("reward_lots_order_user_idx").on(t.orderId, t.userId),
    index("reward_lots_recipient_idx").on(t.companyId, t.userId, t.expiresAt),
    // The daily job's scan: lots with something left, by expiry.
    index("reward_lots_open_idx").on(t.expiresAt).where(sql`${t.remainingCents} > 0`),
    check("reward_lots_remaining_check", sql`${t.remainingCents} >= 0 and ${t.remainingCents} <= ${t.amountCents}`),
  ],
);

/**
 * A spending the catalogue partner reported (POST /api/Redemptions), kept by the partner's own
 * idempotency key: a replay answers the first outcome and changes nothing.
 */
export const redemptions = pgTable(
  "redemptions",
  {
    id: id(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** sha256 of the request's access code and amount: the same key with another body is refused. */
    requestHash: text("request_hash").notNull(),
    companyId: companyRef(),
    userId: userRef(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** The recipient's balance right after it: a replay answers the first outcome, this included. */
    balanceAfterCents: bigint("balance_after_cents", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("redemptions_idempotency_key_idx").on(t.idempotencyKey)],
);

/**
 * The simulated card processor's own state (docs/requirements.md §D6), playing Stripe's PaymentIntents:
 * only the card's last 4 digits are ever stored.
 */
export const simulatedPayments = pgTable(
  "simulated_payments",
  {
    id: text("id").primaryKey(),
    clientSecret: text("client_secret").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status", {
      enum: ["requires_payment_method", "requires_action", "succeeded", "canceled", "failed"],
    }).notNull(),
    metadata: jsonb("metadata").notNull().$type<Record<string, string>>(),
    cardLast4: text("card_last4"),
    failureMessage: text("failure_message"),
    /** A full refund, as Stripe's Refund: its id (re_sim_…) and time. */
    refundId: text("refund_id"),
    refundedAt: timestamptz("refunded_at"),
    createdAt: createdAt(),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("simulated_payments_idempotency_idx").on(t.idempotencyKey)],
);

/** Money and membership events, for support and audits. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: id(),
    companyId: bigint("company_id", { mode: "number" }).references(() => companies.id),
    /** The user who acted; null for the processor (webhook) or the system. */
    actorUserId: optionalUserRef("actor_user_id"),
    action: text("action").notNull(),
    subject: text("subject").notNull(),
    data: jsonb("data").notNull().$type<Record<string, unknown>>().default({}),
    /** The address the change came from (the client IP the edge trusted); null for the system. */
    clientIp: text("client_ip"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_log_company_idx").on(t.companyId, t.createdAt),
    index("audit_log_company_actor_idx").on(t.companyId, t.actorUserId, t.createdAt),
  ],
);

// ─── A company's managers (ADR 0022): invitations, second factor, email changes ───

/**
 * An Owner's invitation of a colleague: the emailed link's token stored as its SHA-256, valid 7
 * days, single use, revocable.
 */
export const managerInvites = pgTable(
  "manager_invites",
  {
    id: id(),
    companyId: companyRef(),
    invitedBy: userRef("invited_by"),
    email: text("email").notNull(),
    managerRole: text("manager_role", { enum: ["owner", "manager"] }).notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    acceptedAt: timestamptz("accepted_at"),
    acceptedUserId: optionalUserRef("accepted_user_id"),
    revokedAt: timestamptz("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("manager_invites_token_idx").on(t.tokenHash),
    index("manager_invites_company_idx").on(t.companyId, t.createdAt),
  ],
);

/** A manager's one-time recovery codes for two-factor sign-in: stored hashed, each used once. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: id(),
    userId: userRef(),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

/**
 * A sign-in half done: the password was right and a second factor (or its set-up) is owed. The
 * token handed to the browser is stored as its SHA-256; short-lived, single use, few tries.
 */
export const loginChallenges = pgTable(
  "login_challenges",
  {
    id: id(),
    userId: userRef(),
    tokenHash: text("token_hash").notNull(),
    /** verify: a code is asked for; setup: the company requires a second factor not yet set up. */
    purpose: text("purpose", { enum: ["verify", "setup"] }).notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    consumedAt: timestamptz("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("login_challenges_token_idx").on(t.tokenHash), index("login_challenges_user_idx").on(t.userId)],
);

/** A manager's change of email address: a code sent to the new address, as email verification. */
export const emailChanges = pgTable(
  "email_changes",
  {
    id: id(),
    userId: userRef(),
    newEmail: text("new_email").notNull(),
    requestTokenHash: text("request_token_hash").notNull(),
    codeHash: text("code_hash").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    consumedAt: timestamptz("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("email_changes_request_token_idx").on(t.requestTokenHash),
    index("email_changes_user_idx").on(t.userId),
  ],
);

/**
 * Rate-limit counters (docs/requirements.md §D7) on PostgreSQL, shared by every app process and machine:
 * rate-limiter-flexible's PostgreSQL store keeps one row per rule and key (`rule:key`), counting
 * `points` until `expire`. PGlite runs one process and counts in memory instead.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    key: text("key").primaryKey(),
    points: integer("points").notNull(),
    /** Milliseconds since the epoch: rate-limiter-flexible's PostgreSQL store reads and writes it so. */
    expire: bigint("expire", { mode: "number" }),
  },
  (t) => [index("rate_limit_counters_expire_idx").on(t.expire)],
);

/**
 * A company's API keys (ADR 0028): a system calls /api/v1 with one, acting for the company with
 * the Manager role. Only the key's SHA-256 is kept (the key is 32 random bytes, so a fast hash is
 * enough); `prefix` is its first characters, for telling keys apart in the list.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    companyId: companyRef(),
    createdBy: userRef("created_by"),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: createdAt(),
    /** Written at most once a minute per key (modules/api-keys/service.server.ts), not on every call. */
    lastUsedAt: timestamptz("last_used_at"),
    expiresAt: timestamptz("expires_at"),
    revokedAt: timestamptz("revoked_at"),
    revokedBy: optionalUserRef("revoked_by"),
    /** When the last `api_key.used` audit entry was written (at most one an hour per key). */
    lastAuditedAt: timestamptz("last_audited_at"),
    /** The key's monthly budget of reward dollars in cents, whole dollars (ADR 0034); null: unlimited. */
    monthlyBudgetCents: bigint("monthly_budget_cents", { mode: "number" }),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_idx").on(t.keyHash),
    index("api_keys_company_idx").on(t.companyId, t.createdAt),
    check("api_keys_name_length", sql`char_length(${t.name}) between 1 and 64`),
    check(
      "api_keys_monthly_budget_check",
      sql`${t.monthlyBudgetCents} is null or (${t.monthlyBudgetCents} >= 0 and ${t.monthlyBudgetCents} % 100 = 0)`,
    ),
  ],
);

/**
 * A card payment into a company's prepaid balance (ADR 0043), made by an Owner in the portal:
 * pending → paid (credited exactly once, by the balance_entries row with its unique top_up_id)
 * or failed. Paid through the same payments port as orders; the payment's metadata names the
 * top-up instead of an order.
 */
export const balanceTopUps = pgTable(
  "balance_top_ups",
  {
    id: id(),
    companyId: companyRef(),
    requestedBy: userRef("requested_by"),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    currency: text("currency").notNull().default("aud"),
    status: text("status", { enum: ["pending", "paid", "failed"] })
      .notNull()
      .default("pending"),
    processor: text("processor", { enum: ["simulated", "stripe"] }).notNull(),
    paymentIntentId: text("payment_intent_id"),
    checkoutSessionId: text("checkout_session_id"),
    failureReason: text("failure_reason"),
    createdAt: createdAt(),
    paidAt: timestamptz("paid_at"),
  },
  (t) => [
    uniqueIndex("balance_top_ups_payment_intent_idx").on(t.paymentIntentId),
    uniqueIndex("balance_top_ups_checkout_session_idx").on(t.checkoutSessionId),
    index("balance_top_ups_company_idx").on(t.companyId, t.createdAt),
    check("balance_top_ups_amount_check", sql`${t.amountCents} > 0`),
  ],
);

/**
 * The prepaid balance's ledger (ADR 0043): every movement, signed (a top-up and a refund add, an
 * order takes). companies.balance_cents is its running sum, changed in the same transaction as
 * the row, and can never go below zero (its check), so two orders cannot spend one dollar twice.
 */
export const balanceEntries = pgTable(
  "balance_entries",
  {
    id: id(),
    companyId: companyRef(),
    kind: text("kind", { enum: ["top_up", "order", "refund"] }).notNull(),
    /** Signed: positive for a top-up or a refund, negative for an order. */
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** The company's balance right after this movement. */
    balanceAfterCents: bigint("balance_after_cents", { mode: "number" }).notNull(),
    topUpId: bigint("top_up_id", { mode: "number" }).references(() => balanceTopUps.id),
    orderId: bigint("order_id", { mode: "number" }).references(() => orders.id),
    createdAt: createdAt(),
  },
  (t) => [
    index("balance_entries_company_idx").on(t.companyId, t.createdAt, t.id),
    // Each top-up credits once; each order is charged once and refunded at most once.
    uniqueIndex("balance_entries_top_up_idx").on(t.topUpId).where(sql`${t.kind} = 'top_up'`),
    uniqueIndex("balance_entries_order_idx").on(t.orderId, t.kind).where(sql`${t.kind} in ('order', 'refund')`),
    check(
      "balance_entries_sign_check",
      sql`(${t.kind} = 'order' and ${t.amountCents} < 0) or (${t.kind} <> 'order' and ${t.amountCents} > 0)`,
    ),
  ],
);

/**
 * An Idempotency-Key a system sent with POST /api/v1/orders (ADR 0044), per API key: the same key
 * with the same body (request_hash, sha256 of its canonical JSON) answers the same order; with
 * another body, 409. Two keys of one company are two systems, so the same value sent by each is
 * two requests (docs/requirements.md §D7; ADR 0044).
 * Kept at least 24 hours (expires_at); the row is inserted in the transaction that creates the
 * order, so a concurrent replay waits on the unique index and then finds it.
 */
export const apiIdempotencyKeys = pgTable(
  "api_idempotency_keys",
  {
    id: id(),
    companyId: companyRef(),
    apiKeyId: bigint("api_key_id", { mode: "number" })
      .notNull()
      .references(() => apiKeys.id),
    idempotencyKey: text("idempotency_key").notNull(),
    requestHash: text("request_hash").notNull(),
    orderId: bigint("order_id", { mode: "number" })
      .notNull()
      .references(() => orders.id),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("api_idempotency_keys_api_key_idx").on(t.apiKeyId, t.idempotencyKey),
    index("api_idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);

/**
 * An HTTPS endpoint an Owner registered for the company's events (ADR 0045). The signing secret
 * is kept sealed (as a TOTP secret is) because it must be read again to sign each delivery.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: id(),
    companyId: companyRef(),
    createdBy: userRef("created_by"),
    url: text("url").notNull(),
    /** The event types it receives, e.g. ["order.released", "email.delivered"]. */
    events: jsonb("events").notNull().$type<string[]>(),
    secretSealed: text("secret_sealed").notNull(),
    createdAt: createdAt(),
    /** Removed by an Owner: no new deliveries; its past deliveries stay visible. */
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [index("webhook_endpoints_company_idx").on(t.companyId, t.createdAt)],
);

/** An event that happened to a company (order released, email failed, …), with its payload as sent. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: id(),
    /** The id receivers see and deduplicate by: evt_ and 24 random characters. */
    publicId: text("public_id").notNull(),
    companyId: companyRef(),
    type: text("type").notNull(),
    /** What happened to produce it, unique per type so one happening makes one event (e.g. order:12). */
    subject: text("subject").notNull(),
    payload: jsonb("payload").notNull().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_events_public_id_idx").on(t.publicId),
    uniqueIndex("webhook_events_company_type_subject_idx").on(t.companyId, t.type, t.subject),
  ],
);

/**
 * One event to one endpoint: the durable outbox of webhooks (ADR 0045), retried with backoff until
 * the endpoint answers 2xx or 72 hours have passed, and re-sendable by hand.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    eventId: bigint("event_id", { mode: "number" })
      .notNull()
      .references(() => webhookEvents.id),
    endpointId: bigint("endpoint_id", { mode: "number" })
      .notNull()
      .references(() => webhookEndpoints.id),
    companyId: companyRef(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamptz("next_attempt_at").notNull(),
    /** Retries stop here (72 hours after the event, or after a re-send by hand). */
    giveUpAt: timestamptz("give_up_at").notNull(),
    /** A worker holds the row while it calls the endpoint, until this time (a crashed worker's lease ends). */
    lockedUntil: timestamptz("locked_until"),
    lastAttemptAt: timestamptz("last_attempt_at"),
    /** The endpoint's last HTTP status; null when it could not be reached. */
    lastStatus: integer("last_status"),
    /** The first characters of the endpoint's last answer, or why it could not be reached. */
    lastResponse: text("last_response"),
    deliveredAt: timestamptz("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_endpoint_idx").on(t.eventId, t.endpointId),
    // The worker's scan: pending deliveries by their time.
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
  ],
);

// ─── Single sign-on (ADR 0046) ───────────────────────────────────────────────────────────────

/**
 * A company's OpenID Connect identity provider, set by an Owner (Settings → Single sign-on).
 * The client secret is sealed like the webhook secrets (modules/single-sign-on/service.server.ts): the
 * token call must send it, so it cannot be a hash.
 */
export const singleSignOnConfigs = pgTable("single_sign_on_configs", {
  companyId: bigint("company_id", { mode: "number" })
    .primaryKey()
    .references(() => companies.id),
  issuerUrl: text("issuer_url").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretSealed: text("client_secret_sealed").notNull(),
  /** The role of a manager created at their first sign-in through the provider. */
  newManagerRole: text("new_manager_role", { enum: ["owner", "manager"] })
    .notNull()
    .default("manager"),
  /** Password sign-in, reset and the two-factor step are refused for the domains' managers (but the break-glass Owner's). */
  required: boolean("required").notNull().default(false),
  /** How the client authenticates at the token endpoint (ADR 0046): Basic or in the form body. */
  tokenEndpointAuthMethod: text("token_endpoint_auth_method", { enum: ["client_secret_basic", "client_secret_post"] })
    .notNull()
    .default("client_secret_basic"),
  /** The one Owner who may always sign in with a password and a second factor (ADR 0046 "break-glass"). */
  breakGlassUserId: optionalUserRef("break_glass_user_id"),
  updatedBy: optionalUserRef("updated_by"),
  updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  createdAt: createdAt(),
});

/** The email domains a company's provider vouches for: each domain belongs to one company at most. */
export const singleSignOnDomains = pgTable(
  "single_sign_on_domains",
  {
    id: id(),
    companyId: companyRef(),
    /** Lower case, no leading "@" (modules/single-sign-on/schema.ts). */
    domain: text("domain").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("single_sign_on_domains_domain_idx").on(t.domain),
    index("single_sign_on_domains_company_idx").on(t.companyId),
  ],
);

/**
 * A sign-in sent to the provider and not yet back: the state (by hash), the nonce and the PKCE
 * verifier the callback must match. Deleted when the callback uses it (or after it expires), so
 * a replayed callback finds nothing (docs/requirements.md §D7: no raw secret stays after it has done its job).
 */
export const singleSignOnFlows = pgTable(
  "single_sign_on_flows",
  {
    id: id(),
    companyId: companyRef(),
    stateHash: text("state_hash").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("single_sign_on_flows_state_idx").on(t.stateHash)],
);

/**
 * An Owner's automation (ADR 0035): on each team member's birthday, or on each work anniversary,
 * a reward of a fixed amount (or that amount per year of service) goes out at 9:00 in the
 * member's own time zone, as an ordinary balance order placed by `created_by`.
 */
export const automations = pgTable(
  "automations",
  {
    id: id(),
    companyId: companyRef(),
    occasion: text("occasion", { enum: ["birthday", "anniversary"] }).notNull(),
    /** Whole dollars, in cents: the reward, or the reward per year of service. */
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** Anniversaries only: the amount times the years of service. */
    perYear: boolean("per_year").notNull().default(false),
    rewardName: text("reward_name").notNull(),
    /** The message, with {firstName} and {years} filled in per recipient. */
    messageTemplate: text("message_template").notNull().default(""),
    enabled: boolean("enabled").notNull().default(true),
    /** Set when a run found the balance short (the Owners were emailed then); cleared by turning it on again. */
    pausedAt: timestamptz("paused_at"),
    /** The Owner who made it: the orders are placed by them while they are an active Owner. */
    createdBy: userRef("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (t) => [
    index("automations_company_idx").on(t.companyId),
    check("automations_amount_check", sql`${t.amountCents} > 0 and ${t.amountCents} % 100 = 0`),
  ],
);

/**
 * One reward an automation sent (or put up for approval): exactly once per automation, member,
 * occasion and year, by the unique index, written in the transaction that writes its order.
 */
export const automationRewards = pgTable(
  "automation_rewards",
  {
    id: id(),
    companyId: companyRef(),
    automationId: bigint("automation_id", { mode: "number" })
      .notNull()
      .references(() => automations.id),
    userId: userRef(),
    occasion: text("occasion", { enum: ["birthday", "anniversary"] }).notNull(),
    /** The calendar year of the occasion in the member's time zone. */
    year: integer("year").notNull(),
    /** 9:00 on the occasion's day in the member's time zone. */
    dueAt: timestamptz("due_at").notNull(),
    /** The order that paid it; null when the occasion was skipped (skip_reason says why). */
    orderId: bigint("order_id", { mode: "number" }).references(() => orders.id),
    /**
     * Why the occasion was skipped and nothing paid, as the Automations page shows it (a line the
     * order-line rule refuses, an automation whose maker is no longer an Owner: ADR 0035 amendment).
     */
    skipReason: text("skip_reason"),
    createdAt: createdAt(),
  },
  (t) => [
    check("automation_rewards_paid_or_skipped_check", sql`(${t.orderId} is null) <> (${t.skipReason} is null)`),
    uniqueIndex("automation_rewards_once_idx").on(t.automationId, t.userId, t.occasion, t.year),
    index("automation_rewards_order_idx").on(t.orderId),
  ],
);
