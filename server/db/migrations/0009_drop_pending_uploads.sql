-- Checked CSV files now wait for their Save as staged import jobs (import_jobs, 0008).
DROP TABLE "pending_uploads" CASCADE;