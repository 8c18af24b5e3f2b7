CREATE TABLE "reward_draft_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"draft_id" bigint NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"amount_dollars" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reward_draft_lines_amount_check" CHECK ("reward_draft_lines"."amount_dollars" between 0 and 10000)
);
--> statement-breakpoint
CREATE TABLE "reward_drafts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reward_draft_lines" ADD CONSTRAINT "reward_draft_lines_draft_id_reward_drafts_id_fk" FOREIGN KEY ("draft_id") REFERENCES "public"."reward_drafts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_draft_lines" ADD CONSTRAINT "reward_draft_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_draft_lines" ADD CONSTRAINT "reward_draft_lines_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_drafts" ADD CONSTRAINT "reward_drafts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_drafts" ADD CONSTRAINT "reward_drafts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reward_draft_lines_draft_user_idx" ON "reward_draft_lines" USING btree ("draft_id","user_id");--> statement-breakpoint
CREATE INDEX "reward_draft_lines_draft_order_idx" ON "reward_draft_lines" USING btree ("draft_id","created_at","id");--> statement-breakpoint
CREATE INDEX "reward_draft_lines_company_user_idx" ON "reward_draft_lines" USING btree ("company_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reward_drafts_user_idx" ON "reward_drafts" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "reward_drafts_company_idx" ON "reward_drafts" USING btree ("company_id");