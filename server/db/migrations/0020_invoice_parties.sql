ALTER TABLE "orders" ADD COLUMN "buyer_name" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_abn" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "supplier_name" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "supplier_abn" text;--> statement-breakpoint
-- Orders paid before this release: the buyer as the company's row holds it now, the nearest record
-- there is (ADR 0025, amendment). The supplier stays null: the migration cannot read SUPPLIER_NAME
-- or SUPPLIER_ABN, so those invoices keep reading the configuration, as they always did.
UPDATE "orders" SET "buyer_name" = "companies"."name", "buyer_abn" = "companies"."abn"
FROM "companies"
WHERE "companies"."id" = "orders"."company_id" AND "orders"."paid_at" IS NOT NULL AND "orders"."buyer_name" IS NULL;
