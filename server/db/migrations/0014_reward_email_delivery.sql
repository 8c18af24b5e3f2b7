ALTER TABLE "email_outbox" ADD COLUMN "order_id" bigint;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD COLUMN "recipient_user_id" bigint;--> statement-breakpoint
CREATE INDEX "email_outbox_order_idx" ON "email_outbox" USING btree ("order_id","recipient_user_id");