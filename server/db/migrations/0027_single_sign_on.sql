CREATE TABLE "single_sign_on_configs" (
	"company_id" bigint PRIMARY KEY NOT NULL,
	"issuer_url" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text NOT NULL,
	"new_manager_role" text DEFAULT 'manager' NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	"break_glass_user_id" bigint,
	"updated_by" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "single_sign_on_domains" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "single_sign_on_flows" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"state_hash" text NOT NULL,
	"nonce" text NOT NULL,
	"code_verifier" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_tokens" ADD COLUMN "sso_session_id" text;--> statement-breakpoint
ALTER TABLE "access_tokens" ADD COLUMN "sso_subject" text;--> statement-breakpoint
ALTER TABLE "single_sign_on_configs" ADD CONSTRAINT "single_sign_on_configs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "single_sign_on_configs" ADD CONSTRAINT "single_sign_on_configs_break_glass_user_id_users_id_fk" FOREIGN KEY ("break_glass_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "single_sign_on_configs" ADD CONSTRAINT "single_sign_on_configs_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "single_sign_on_domains" ADD CONSTRAINT "single_sign_on_domains_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "single_sign_on_flows" ADD CONSTRAINT "single_sign_on_flows_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "single_sign_on_domains_domain_idx" ON "single_sign_on_domains" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "single_sign_on_domains_company_idx" ON "single_sign_on_domains" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "single_sign_on_flows_state_idx" ON "single_sign_on_flows" USING btree ("state_hash");