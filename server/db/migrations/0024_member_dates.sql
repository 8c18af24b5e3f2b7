ALTER TABLE "users" ADD COLUMN "birth_day" smallint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "birth_month" smallint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "start_date" date;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "state" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_birthday_check" CHECK (("users"."birth_day" is null) = ("users"."birth_month" is null) and ("users"."birth_month" is null or ("users"."birth_month" between 1 and 12 and "users"."birth_day" between 1 and (case when "users"."birth_month" = 2 then 29 when "users"."birth_month" in (4, 6, 9, 11) then 30 else 31 end))));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_state_check" CHECK ("users"."state" is null or "users"."state" in ('NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT'));