CREATE TABLE "redemptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_hash" text NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reward_lots" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"order_id" bigint,
	"amount_cents" bigint NOT NULL,
	"remaining_cents" bigint NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"reminded_at" timestamp with time zone,
	"forfeited_at" timestamp with time zone,
	CONSTRAINT "reward_lots_remaining_check" CHECK ("reward_lots"."remaining_cents" >= 0 and "reward_lots"."remaining_cents" <= "reward_lots"."amount_cents")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "send_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancelled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancelled_by" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refund_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reward_drafts" ADD COLUMN "send_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reward_ledger" ADD COLUMN "lot_id" bigint;--> statement-breakpoint
ALTER TABLE "reward_ledger" ADD COLUMN "redemption_id" bigint;--> statement-breakpoint
ALTER TABLE "simulated_payments" ADD COLUMN "refund_id" text;--> statement-breakpoint
ALTER TABLE "simulated_payments" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "redemptions" ADD CONSTRAINT "redemptions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redemptions" ADD CONSTRAINT "redemptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_lots" ADD CONSTRAINT "reward_lots_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_lots" ADD CONSTRAINT "reward_lots_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_lots" ADD CONSTRAINT "reward_lots_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "redemptions_idempotency_key_idx" ON "redemptions" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "reward_lots_order_user_idx" ON "reward_lots" USING btree ("order_id","user_id");--> statement-breakpoint
CREATE INDEX "reward_lots_recipient_idx" ON "reward_lots" USING btree ("company_id","user_id","expires_at");--> statement-breakpoint
CREATE INDEX "reward_lots_open_idx" ON "reward_lots" USING btree ("expires_at") WHERE "reward_lots"."remaining_cents" > 0;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_cancelled_by_users_id_fk" FOREIGN KEY ("cancelled_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "orders_scheduled_idx" ON "orders" USING btree ("send_at") WHERE "orders"."status" = 'scheduled';--> statement-breakpoint
CREATE INDEX "reward_ledger_lot_idx" ON "reward_ledger" USING btree ("lot_id");--> statement-breakpoint
-- Every credit so far becomes its own lot, valid 18 months from its release (nothing has been spent
-- or forfeited through the ledger before this migration).
INSERT INTO "reward_lots" ("company_id", "user_id", "order_id", "amount_cents", "remaining_cents", "issued_at", "expires_at")
SELECT "company_id", "user_id", "order_id", "amount_cents", "amount_cents", "created_at", "created_at" + interval '18 months'
FROM "reward_ledger" WHERE "kind" = 'credit';--> statement-breakpoint
UPDATE "reward_ledger" SET "lot_id" = l."id" FROM "reward_lots" l
WHERE "reward_ledger"."kind" = 'credit' AND l."order_id" = "reward_ledger"."order_id" AND l."user_id" = "reward_ledger"."user_id";
