ALTER TABLE "automation_rewards" ALTER COLUMN "order_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD COLUMN "skip_reason" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "birthday_set_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "start_date_set_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD CONSTRAINT "automation_rewards_paid_or_skipped_check" CHECK (("automation_rewards"."order_id" is null) <> ("automation_rewards"."skip_reason" is null));--> statement-breakpoint
-- A date already on file was set no later than its row was made: the creation time keeps every
-- old date's occasions due as before, and a member added after an occasion's 9:00 waits for the next.
UPDATE "users" SET "birthday_set_at" = "created_at" WHERE "birth_day" IS NOT NULL;--> statement-breakpoint
UPDATE "users" SET "start_date_set_at" = "created_at" WHERE "start_date" IS NOT NULL;
