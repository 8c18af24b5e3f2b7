CREATE TABLE "order_payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"processor" text NOT NULL,
	"payment_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "order_payments" ADD CONSTRAINT "order_payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_payments" ADD CONSTRAINT "order_payments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_payments_payment_idx" ON "order_payments" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "order_payments_order_idx" ON "order_payments" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_payments_created_idx" ON "order_payments" USING btree ("created_at");--> statement-breakpoint
-- The payments orders already name (their PaymentIntent and their Checkout Session), so the
-- reconciler's backstop also sees an order paid before this table existed (ADR 0009 amendment of
-- 2026-11-28); an id a release or a new payment wrote over before it is not known any more.
INSERT INTO "order_payments" ("company_id", "order_id", "processor", "payment_id", "created_at")
SELECT "company_id", "id", "processor", "payment_intent_id", "created_at" FROM "orders"
WHERE "processor" <> 'balance' AND "payment_intent_id" IS NOT NULL
UNION ALL
SELECT "company_id", "id", "processor", "checkout_session_id", "created_at" FROM "orders"
WHERE "processor" <> 'balance' AND "checkout_session_id" IS NOT NULL
ON CONFLICT ("payment_id") DO NOTHING;
