-- The two batched statements on every request's path, admit_keys and charge_requests, keep one
-- plan that finds each key of the batch by its index.
--
-- Left to the planner, each call was planned anew: a custom plan (its batch of 1-3 keys known)
-- always looked cheaper than the generic one (a parameter array is guessed at 10 elements), so
-- PostgreSQL never kept a plan, and planning the many CTEs cost more than running them. And
-- until api_keys had statistics (keys made less than a minute before, as a benchmark's or a new
-- deployment's), the keys were found by a sequential scan: with 1,000 keys a lone admission took
-- 1.5 ms in that scan alone. With one generic plan a lone admission or charge costs a fraction
-- of a millisecond (`DOWNLOAD_PARTS=plan npm run bench -- download` runs one admission per
-- request through 1,000 keys).
-- A batch holds at most 256 keys (db/statement-batcher.ts) and the table any number, so looking
-- each key up by its unique index is the right plan at every size; a sequential scan never is.
ALTER FUNCTION admit_keys(bytea[], integer[], integer[], integer[], timestamptz[])
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off;

ALTER FUNCTION charge_requests(bigint[], integer[], text[], double precision[], double precision[], double precision[],
                               text[], text[], timestamptz[], real[], text[])
  SET plan_cache_mode = force_generic_plan
  SET enable_seqscan = off;
