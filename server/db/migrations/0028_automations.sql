CREATE TABLE "automation_rewards" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"automation_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"occasion" text NOT NULL,
	"year" integer NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"order_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"occasion" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"per_year" boolean DEFAULT false NOT NULL,
	"reward_name" text NOT NULL,
	"message_template" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"paused_at" timestamp with time zone,
	"created_by" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "automations_amount_check" CHECK ("automations"."amount_cents" > 0 and "automations"."amount_cents" % 100 = 0)
);
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "automation_budget_cents" bigint;--> statement-breakpoint
ALTER TABLE "order_lines" ADD COLUMN "message" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "automation_id" bigint;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD CONSTRAINT "automation_rewards_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD CONSTRAINT "automation_rewards_automation_id_automations_id_fk" FOREIGN KEY ("automation_id") REFERENCES "public"."automations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD CONSTRAINT "automation_rewards_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_rewards" ADD CONSTRAINT "automation_rewards_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "automation_rewards_once_idx" ON "automation_rewards" USING btree ("automation_id","user_id","occasion","year");--> statement-breakpoint
CREATE INDEX "automation_rewards_order_idx" ON "automation_rewards" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "automations_company_idx" ON "automations" USING btree ("company_id");--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_automation_id_automations_id_fk" FOREIGN KEY ("automation_id") REFERENCES "public"."automations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_automation_budget_check" CHECK ("companies"."automation_budget_cents" is null or ("companies"."automation_budget_cents" >= 0 and "companies"."automation_budget_cents" % 100 = 0));