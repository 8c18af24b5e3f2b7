ALTER TABLE "import_job_rows" ADD COLUMN "birth_day" smallint;--> statement-breakpoint
ALTER TABLE "import_job_rows" ADD COLUMN "birth_month" smallint;--> statement-breakpoint
ALTER TABLE "import_job_rows" ADD COLUMN "start_date" date;--> statement-breakpoint
ALTER TABLE "import_job_rows" ADD COLUMN "state" text;