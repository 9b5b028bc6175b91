-- Usage records are written only by the server, for a key it has just admitted, and keys are
-- revoked, never deleted. The foreign-key check cost more than the insert itself (~8 us a row,
-- measured with EXPLAIN ANALYZE on a 1,000-row batch), on the path of every request.
ALTER TABLE usage_records DROP CONSTRAINT usage_records_key_id_fkey;
