ALTER TABLE "orders" ADD COLUMN "refund_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refund_next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refund_last_error" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "refund_failed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "orders_refund_due_idx" ON "orders" USING btree ("refund_next_attempt_at") WHERE "orders"."status" = 'cancelled' and "orders"."refunded_at" is null and "orders"."refund_failed_at" is null;