ALTER TABLE "api_keys" ADD COLUMN "monthly_budget_cents" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "over_budget_cents" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "monthly_budget_cents" bigint;--> statement-breakpoint
CREATE INDEX "orders_api_key_paid_idx" ON "orders" USING btree ("api_key_id","paid_at") WHERE "orders"."api_key_id" is not null;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_monthly_budget_check" CHECK ("api_keys"."monthly_budget_cents" is null or ("api_keys"."monthly_budget_cents" >= 0 and "api_keys"."monthly_budget_cents" % 100 = 0));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_over_budget_check" CHECK ("orders"."over_budget_cents" is null or "orders"."over_budget_cents" > 0);--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_monthly_budget_check" CHECK ("users"."monthly_budget_cents" is null or ("users"."monthly_budget_cents" >= 0 and "users"."monthly_budget_cents" % 100 = 0));