DROP TABLE IF EXISTS consumer_checkpoints;
DROP TABLE IF EXISTS snapshots;
DROP TABLE IF EXISTS idempotency_keys;
DROP TABLE IF EXISTS events;
DROP FUNCTION IF EXISTS reject_event_change();
DROP TABLE IF EXISTS streams;
