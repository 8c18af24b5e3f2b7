CREATE TABLE "extra_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"payment_intent_id" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"found_at" timestamp with time zone NOT NULL,
	"refund_id" text,
	"refunded_at" timestamp with time zone,
	"refund_attempts" integer DEFAULT 0 NOT NULL,
	"refund_next_attempt_at" timestamp with time zone,
	"refund_last_error" text,
	"refund_failed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "payment_path" text;--> statement-breakpoint
-- Card orders already carrying a payment keep its way as their claim (a Checkout Session, else a
-- PaymentIntent), so a call after the upgrade cannot add a payment of the other way to them.
UPDATE "orders" SET "payment_path" = CASE WHEN "checkout_session_id" IS NOT NULL THEN 'checkout' ELSE 'intent' END
WHERE "processor" <> 'balance' AND ("checkout_session_id" IS NOT NULL OR "payment_intent_id" IS NOT NULL);--> statement-breakpoint
ALTER TABLE "extra_payments" ADD CONSTRAINT "extra_payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "extra_payments" ADD CONSTRAINT "extra_payments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "extra_payments_payment_intent_idx" ON "extra_payments" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE INDEX "extra_payments_refund_due_idx" ON "extra_payments" USING btree ("refund_next_attempt_at") WHERE "extra_payments"."refunded_at" is null and "extra_payments"."refund_failed_at" is null;