DROP INDEX "api_idempotency_keys_company_key_idx";--> statement-breakpoint
ALTER TABLE "api_idempotency_keys" ADD COLUMN "api_key_id" bigint;--> statement-breakpoint
-- Keys already kept stay, now under the API key that placed their order (orders.api_key_id: only
-- POST /api/v1/orders writes these rows, always for an order of a key), so a replay within their
-- 24 hours still answers it (docs/requirements.md §D7; ADR 0029 amendment "Idempotency keys belong to the API key").
UPDATE "api_idempotency_keys" SET "api_key_id" = "orders"."api_key_id"
FROM "orders"
WHERE "orders"."id" = "api_idempotency_keys"."order_id";--> statement-breakpoint
ALTER TABLE "api_idempotency_keys" ALTER COLUMN "api_key_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "api_idempotency_keys" ADD CONSTRAINT "api_idempotency_keys_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_idempotency_keys_api_key_idx" ON "api_idempotency_keys" USING btree ("api_key_id","idempotency_key");
