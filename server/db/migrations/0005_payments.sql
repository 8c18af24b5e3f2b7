CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint,
	"actor_user_id" bigint,
	"action" text NOT NULL,
	"subject" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"email" text NOT NULL,
	"amount_cents" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"placed_by" bigint NOT NULL,
	"draft_id" bigint NOT NULL,
	"draft_version" integer NOT NULL,
	"reward_name" text NOT NULL,
	"rewards_cents" bigint NOT NULL,
	"service_fee_cents" bigint NOT NULL,
	"gst_cents" bigint NOT NULL,
	"total_cents" bigint NOT NULL,
	"currency" text DEFAULT 'aud' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"processor" text NOT NULL,
	"payment_intent_id" text,
	"checkout_session_id" text,
	"failure_reason" text,
	"invoice_number" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	CONSTRAINT "orders_amounts_check" CHECK ("orders"."total_cents" = "orders"."rewards_cents" + "orders"."service_fee_cents" + "orders"."gst_cents")
);
--> statement-breakpoint
CREATE TABLE "recipient_accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"access_code" text NOT NULL,
	"password_hash" text NOT NULL,
	"first_email_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reward_ledger" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"order_id" bigint,
	"kind" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reward_ledger_amount_check" CHECK ("reward_ledger"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "reward_releases" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"reward_name" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"released_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "simulated_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"client_secret" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"metadata" jsonb NOT NULL,
	"card_last4" text,
	"failure_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_actor_user_id_users_id_fk" FOREIGN KEY ("actor_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_placed_by_users_id_fk" FOREIGN KEY ("placed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_accounts" ADD CONSTRAINT "recipient_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_accounts" ADD CONSTRAINT "recipient_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_ledger" ADD CONSTRAINT "reward_ledger_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_ledger" ADD CONSTRAINT "reward_ledger_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_ledger" ADD CONSTRAINT "reward_ledger_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_releases" ADD CONSTRAINT "reward_releases_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_releases" ADD CONSTRAINT "reward_releases_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_company_idx" ON "audit_log" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "order_lines_order_user_idx" ON "order_lines" USING btree ("order_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_payment_intent_idx" ON "orders" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_checkout_session_idx" ON "orders" USING btree ("checkout_session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_invoice_number_idx" ON "orders" USING btree ("invoice_number");--> statement-breakpoint
CREATE INDEX "orders_company_placed_by_idx" ON "orders" USING btree ("company_id","placed_by","status");--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_accounts_company_user_idx" ON "recipient_accounts" USING btree ("company_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_accounts_access_code_idx" ON "recipient_accounts" USING btree ("access_code");--> statement-breakpoint
CREATE INDEX "reward_ledger_company_user_idx" ON "reward_ledger" USING btree ("company_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reward_ledger_order_credit_idx" ON "reward_ledger" USING btree ("order_id","user_id") WHERE "reward_ledger"."kind" = 'credit';--> statement-breakpoint
CREATE UNIQUE INDEX "reward_releases_order_idx" ON "reward_releases" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "reward_releases_company_idx" ON "reward_releases" USING btree ("company_id","released_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "simulated_payments_idempotency_idx" ON "simulated_payments" USING btree ("idempotency_key");