CREATE TABLE "pending_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"rows" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "users_active_email_idx";--> statement-breakpoint
DROP INDEX "users_company_idx";--> statement-breakpoint
ALTER TABLE "pending_uploads" ADD CONSTRAINT "pending_uploads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pending_uploads_user_idx" ON "pending_uploads" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_active_manager_email_idx" ON "users" USING btree (lower("email")) WHERE "users"."is_active" and "users"."role" = 'program_manager';--> statement-breakpoint
CREATE UNIQUE INDEX "users_active_company_email_idx" ON "users" USING btree ("company_id",lower("email")) WHERE "users"."is_active";--> statement-breakpoint
CREATE INDEX "users_company_name_idx" ON "users" USING btree ("company_id","is_active","first_name","last_name","id");