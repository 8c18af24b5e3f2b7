-- rate-limiter-flexible's PostgreSQL store keeps a counter's expiry as epoch milliseconds; the
-- counters in flight keep their windows.
ALTER TABLE "rate_limit_counters" ALTER COLUMN "expire" SET DATA TYPE bigint USING (extract(epoch from "expire") * 1000)::bigint;
